#!/usr/bin/env python3
"""Org-wide search figures (issue 17): git kb publish and git kb search --org
against a real Weaviate started by bench/weaviate.sh, beside local search in
the same run.

  bench/org.py --kb /tmp/x/git-kb --docs ../shared/corpora/tidb-docs-cn.bundle \
      --polaris ../shared/corpora/polaris.bundle --gosrc "$(go env GOROOT)/src" \
      --queries-dir ../shared/eval [--copies 10]

Prints one JSON object per figure:
  publish   chunks, seconds and chunks/s per corpus (index time excluded),
            and the republish (no-op) time
  queries   per dev set: --org (with repo:NAME, so the other repositories do
            not compete) and local p50/p95 wall ms per query process,
            top-10 file overlap, Recall@10 and MRR@10 of each (score.py's
            definitions, file level)
  scale     --org p50/p95 as the collection grows to N published
            repositories (copies of the docs corpus under other names)
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(args, cwd, check=True, env=None):
    r = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env)
    if check and r.returncode != 0:
        sys.exit(f"{' '.join(args)} (in {cwd}): exit {r.returncode}\n{r.stderr}")
    return r


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return 0
    i = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[i]


def free_base():
    while True:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        base = s.getsockname()[1]
        s.close()
        ok = base + 5 < 65536
        for p in range(base, base + 6):
            t = socket.socket()
            try:
                t.bind(("127.0.0.1", p))
            except OSError:
                ok = False
            t.close()
        if ok:
            return base


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def paths(out):
    seen, ps = set(), []
    for r in json.loads(out)["results"]:
        if r["path"] not in seen:
            seen.add(r["path"])
            ps.append(r["path"])
    return ps[:10]


def metrics(rows):
    """Recall@10 and MRR@10 as score.py computes them (file level)."""
    rec, mrr = [], []
    for ps, rel in rows:
        rel = set(rel)
        rec.append(len(rel & set(ps[:10])) / len(rel))
        rr = 0
        for i, p in enumerate(ps[:10]):
            if p in rel:
                rr = 1 / (i + 1)
                break
        mrr.append(rr)
    return round(statistics.mean(rec), 3), round(statistics.mean(mrr), 3)


def timed(args, cwd):
    t = time.perf_counter()
    r = sh(args, cwd)
    return r.stdout, (time.perf_counter() - t) * 1000


def publish(kb, repo, name):
    sh(["git", "config", "kb.org.repo", name], repo)
    out, ms = timed([kb, "publish", "--json"], repo)
    return json.loads(out), ms


def query_figures(kb, queries_dir, corpora):
    for name, repo, qfile in corpora:
        qs = load(os.path.join(queries_dir, qfile))
        loc_ms, org_ms, overlap, loc_rows, org_rows = [], [], [], [], []
        for q in qs:
            out, ms = timed([kb, "search", "--json", "-n", "10", q["query"]], repo)
            lp = paths(out)
            loc_ms.append(ms)
            # The same query, narrowed to this repository.
            out, ms = timed([kb, "search", "--org", "--json", "-n", "10", q["query"] + " repo:" + name], repo)
            op = paths(out)
            org_ms.append(ms)
            overlap.append(len(set(lp) & set(op)) / max(1, len(lp)))
            loc_rows.append((lp, q["relevant"]))
            org_rows.append((op, q["relevant"]))
        lr, lm = metrics(loc_rows)
        orr, om = metrics(org_rows)
        print(json.dumps({"figure": "queries", "corpus": name, "set": qfile, "queries": len(qs),
                          "local_ms_p50": round(pct(loc_ms, 50)), "local_ms_p95": round(pct(loc_ms, 95)),
                          "org_ms_p50": round(pct(org_ms, 50)), "org_ms_p95": round(pct(org_ms, 95)),
                          "top10_overlap": round(statistics.mean(overlap), 3),
                          "local_recall10": lr, "local_mrr10": lm, "org_recall10": orr, "org_mrr10": om}), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", required=True)
    ap.add_argument("--docs")
    ap.add_argument("--gosrc")
    ap.add_argument("--polaris", help="the polaris bundle (polaris-dev.jsonl)")
    ap.add_argument("--queries-dir", required=True)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--scale-queries", type=int, default=20)
    ap.add_argument("--keep", action="store_true", help="keep the work directory and the server")
    ap.add_argument("--use", action="append", default=[],
                    help="NAME=DIR=SET.jsonl: a repository already published (kb.org.* set in DIR, kb.org.repo NAME): "
                         "only the query figures, no server started")
    a = ap.parse_args()
    kb = os.path.abspath(a.kb)
    work = tempfile.mkdtemp(prefix="gitkb-org-")
    if a.use:
        for u in a.use:
            name, repo, qfile = u.split("=")
            query_figures(kb, a.queries_dir, [(name, repo, qfile)])
        shutil.rmtree(work, ignore_errors=True)
        return
    wdir = os.path.join(work, "weaviate")
    port = free_base()
    subprocess.run(["bash", os.path.join(HERE, "weaviate.sh"), "start", wdir, str(port)], check=True, capture_output=True)
    url = f"http://127.0.0.1:{port}"
    corpora = []
    try:
        if a.docs:
            repo = os.path.join(work, "docs")
            sh(["git", "clone", "-q", a.docs, repo], work)
            corpora.append(("docs", repo, "docs-dev.jsonl"))
        if a.polaris:
            repo = os.path.join(work, "polaris")
            sh(["git", "clone", "-q", a.polaris, repo], work)
            corpora.append(("polaris", repo, "polaris-dev.jsonl"))
        if a.gosrc:
            repo = os.path.join(work, "gosrc")
            shutil.copytree(a.gosrc, repo, symlinks=True)
            sh(["git", "init", "-q"], repo)
            sh(["git", "add", "-A"], repo)
            sh(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "go src"], repo)
            corpora.append(("gosrc", repo, "code-dev.jsonl"))
        for name, repo, _ in corpora:
            sh(["git", "config", "kb.org.url", url], repo)
            sh(["git", "config", "kb.org.timeoutMs", "120000"], repo)
            sh([kb, "index", "--quiet"], repo)
            st, ms = publish(kb, repo, name)
            again, ms2 = publish(kb, repo, name)
            print(json.dumps({"figure": "publish", "corpus": name, "files": st["files"], "chunks": st["chunks"],
                              "written": st["written"], "seconds": round(ms / 1000, 1),
                              "chunks_per_s": round(st["written"] / (ms / 1000), 1),
                              "republish_written": again["written"], "republish_seconds": round(ms2 / 1000, 2)}), flush=True)
        query_figures(kb, a.queries_dir, corpora)
        if a.docs and a.copies > 1:
            name, repo, qfile = corpora[0]
            qs = load(os.path.join(a.queries_dir, qfile))[: a.scale_queries]
            published = 1 + (1 if a.gosrc else 0) + (1 if a.polaris else 0)
            marks = sorted({n for n in (1, 2, 5, a.copies) if n <= a.copies})
            n = 1
            for mark in marks:
                while n < mark:
                    n += 1
                    publish(kb, repo, f"docs-copy-{n}")
                ms = [timed([kb, "search", "--org", "--json", "-n", "10", q["query"]], repo)[1] for q in qs]
                objs = sh(["curl", "-s", url + "/v1/graphql", "-H", "Content-Type: application/json", "-d",
                           '{"query":"{Aggregate{GitKB{meta{count}}}}"}'], work).stdout
                count = json.loads(objs)["data"]["Aggregate"]["GitKB"][0]["meta"]["count"]
                print(json.dumps({"figure": "scale", "docs_copies": mark, "repos": mark + published - 1, "objects": count,
                                  "org_ms_p50": round(pct(ms, 50)), "org_ms_p95": round(pct(ms, 95))}), flush=True)
    finally:
        if not a.keep:
            subprocess.run(["bash", os.path.join(HERE, "weaviate.sh"), "stop", wdir])
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}, server {url}", file=sys.stderr)


if __name__ == "__main__":
    main()
