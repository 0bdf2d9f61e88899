#!/usr/bin/env python3
"""Recall within a token budget: for each dev query, which relevant files
land inside `git kb context --budget B`, against plain top-k search.

Usage: context_recall.py --kb PATH --repo DIR --queries FILE.jsonl [--budget 8000] [--k 10]
"""
import argparse, json, statistics, subprocess


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--budget", type=int, default=8000)
    ap.add_argument("--k", type=int, default=10)
    a = ap.parse_args()
    qs = [json.loads(l) for l in open(a.queries) if l.strip()]
    ctx_recall, top_recall, tokens, blocks, files = [], [], [], [], []
    for q in qs:
        rel = set(q["relevant"])
        p = subprocess.run([a.kb, "context", "-q", "--format", "json", "--budget", str(a.budget), "--", q["query"]],
                           cwd=a.repo, capture_output=True, text=True, check=True)
        pk = json.loads(p.stdout)
        paths = {b["path"] for b in pk["blocks"]}
        ctx_recall.append(len(rel & paths) / len(rel))
        tokens.append(pk["tokens"])
        blocks.append(len(pk["blocks"]))
        files.append(len(paths))
        s = subprocess.run([a.kb, "search", "-q", "--json", "-n", str(a.k), "--", q["query"]],
                           cwd=a.repo, capture_output=True, text=True, check=True)
        top = {r["path"] for r in json.loads(s.stdout)["results"]}
        top_recall.append(len(rel & top) / len(rel))
    print(json.dumps({
        "queries": len(qs), "budget": a.budget,
        "context_recall": round(statistics.mean(ctx_recall), 3),
        f"top{a.k}_recall": round(statistics.mean(top_recall), 3),
        "tokens_mean": round(statistics.mean(tokens)), "tokens_max": max(tokens),
        "blocks_mean": round(statistics.mean(blocks), 1), "files_mean": round(statistics.mean(files), 1),
    }))


if __name__ == "__main__":
    main()
