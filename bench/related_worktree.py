#!/usr/bin/env python3
"""Cost and yield of `git kb search --related` and `--worktree`.

On an indexed repository, over a query set, in the same run:
- cold search latency p50/p95 with --related against plain search, how
  many queries got related results and how many per query;
- cold search latency with --worktree against plain search, with
  --edits tracked files modified and one untracked doc added, next to
  `git status` (the floor: listing the changes). The working tree is
  restored afterwards.

Usage: related_worktree.py --kb PATH --repo DIR --queries FILE.jsonl [--edits 10]
"""
import argparse, json, os, statistics, subprocess, time


def run(args, cwd):
    t = time.perf_counter()
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    return (time.perf_counter() - t) * 1000, p


def pct(xs, p):
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))], 1)


def search(kb, repo, q, *flags):
    ms, p = run([kb, "search", "--json", "-q", "-n", "10", "--mode", "lexical", *flags, q], repo)
    if p.returncode:
        raise SystemExit(f"search {flags} {q!r} failed: {p.stderr}")
    return ms, json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--edits", type=int, default=10)
    a = ap.parse_args()
    queries = [json.loads(l)["query"] for l in open(a.queries, encoding="utf-8") if l.strip()]
    out = {"repo": os.path.basename(os.path.abspath(a.repo)), "queries": len(queries)}

    plain, rel, counts, kinds = [], [], [], {}
    for q in queries:
        plain.append(search(a.kb, a.repo, q)[0])
        ms, r = search(a.kb, a.repo, q, "--related")
        rel.append(ms)
        related = [x for x in r["results"] if x.get("match") == "related"]
        counts.append(len(related))
        for x in related:
            kinds[x["related"]["kind"]] = kinds.get(x["related"]["kind"], 0) + 1
    out.update(plain_p50_ms=pct(plain, 50), related_p50_ms=pct(rel, 50), related_p95_ms=pct(rel, 95),
               related_over_plain_p50=round(pct(rel, 50) / pct(plain, 50), 2),
               queries_with_related=sum(1 for c in counts if c), related_per_query=round(statistics.mean(counts), 1),
               related_kinds=kinds)

    files = subprocess.run(["git", "ls-files"], cwd=a.repo, capture_output=True, text=True).stdout.split("\n")
    targets = [f for f in files if f.endswith((".md", ".go"))][:: max(1, len(files) // (a.edits * 3))][: a.edits]
    try:
        for f in targets:
            with open(os.path.join(a.repo, f), "a", encoding="utf-8") as fh:
                fh.write("\n<!-- 草稿 draft -->\n" if f.endswith(".md") else "\n// 草稿 draft\n")
        with open(os.path.join(a.repo, "bench-draft.md"), "w", encoding="utf-8") as fh:
            fh.write("# 草稿\n\n正在写的文档：连接池、超时与重试。\n")
        wt, st, found = [], [], 0
        for q in queries:
            ms, r = search(a.kb, a.repo, q, "--worktree")
            wt.append(ms)
            found = len(r["worktree"]["files"])
            st.append(run(["git", "status", "--porcelain", "-uall"], a.repo)[0])
        changed_kb = round(sum(os.path.getsize(os.path.join(a.repo, f)) for f in targets) / 1024)
        out.update(worktree_files=found, worktree_changed_kb=changed_kb, worktree_p50_ms=pct(wt, 50), worktree_p95_ms=pct(wt, 95),
                   worktree_over_plain_p50=round(pct(wt, 50) / pct(plain, 50), 2), git_status_p50_ms=pct(st, 50))
    finally:
        subprocess.run(["git", "checkout", "-q", "--", *targets], cwd=a.repo)
        os.remove(os.path.join(a.repo, "bench-draft.md"))
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
