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
  scale     --org (its default, and lexical) and local p50/p95 (same
            queries, same run) as the collection grows to 1, 2, 5 and
            --copies published copies of the first corpus (other
            kb.org.repo names; deleted at the end)

--hybrid embeds with the hash embedder and measures, per dev set, local
lexical and hybrid search beside --org lexical, hybrid with our fusion and
hybrid with Weaviate's (R@10, MRR@10, p50/p95, top-10 overlap with the
local search of the same mode). --use NAME=DIR=SET.jsonl measures
repositories already published on a running server instead (--copies 1:
no scale figures).
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
import urllib.request

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


# What --hybrid measures per query, each in its own process: local search
# lexical and hybrid, --org lexical and hybrid with our fusion and with
# Weaviate's. (name, --org?, extra flags, the local variant it is compared with)
HYBRID_VARIANTS = [
    ("local_lexical", False, ["--mode", "lexical"], None),
    ("local_hybrid", False, ["--mode", "hybrid"], None),
    ("org_lexical", True, ["--mode", "lexical"], "local_lexical"),
    ("org_hybrid_rrf", True, ["--mode", "hybrid", "--fusion", "rrf"], "local_hybrid"),
    ("org_hybrid_weaviate", True, ["--mode", "hybrid", "--fusion", "weaviate"], "local_hybrid"),
]
DEFAULT_VARIANTS = [("local", False, [], None), ("org", True, [], "local")]


def query_figures(kb, queries_dir, corpora, variants=DEFAULT_VARIANTS, baseline=None):
    if baseline:
        variants = variants + [("org_old", True, [], "local")]
    for name, repo, qfile in corpora:
        qs = load(os.path.join(queries_dir, qfile))
        ms = {v[0]: [] for v in variants}
        rows = {v[0]: [] for v in variants}
        overlap = {v[0]: [] for v in variants if v[3]}
        modes = {v[0]: set() for v in variants}
        for qi, q in enumerate(qs):
            got = {}
            # Local search first (the others are compared with it); the
            # --org variants in rotating order, so that none is always
            # the first to find Weaviate's caches warm.
            orgs = [v for v in variants if v[1]]
            orgs = orgs[qi % len(orgs):] + orgs[:qi % len(orgs)] if orgs else []
            for vname, org, flags, ref in [v for v in variants if not v[1]] + orgs:
                query = q["query"] + (" repo:" + name if org else "")  # --org narrowed to this repository
                bin_ = baseline if vname == "org_old" else kb
                out, t = timed([bin_, "search"] + (["--org"] if org else []) + flags + ["--json", "-n", "10", query], repo)
                got[vname] = paths(out)
                r = json.loads(out)
                modes[vname].add(r.get("mode", "") + ("/" + r["fusion"] if r.get("fusion") else ""))
                ms[vname].append(t)
                rows[vname].append((got[vname], q["relevant"]))
                if ref:
                    overlap[vname].append(len(set(got[ref]) & set(got[vname])) / max(1, len(got[ref])))
        fig = {"figure": "queries", "corpus": name, "set": qfile, "queries": len(qs)}
        for vname, _, _, ref in variants:
            rec, mrr = metrics(rows[vname])
            fig[vname + "_ms_p50"] = round(pct(ms[vname], 50))
            fig[vname + "_ms_p95"] = round(pct(ms[vname], 95))
            fig[vname + "_recall10"], fig[vname + "_mrr10"] = rec, mrr
            if ref:
                fig[vname + "_top10_overlap"] = round(statistics.mean(overlap[vname]), 3)
            if flags_of(variants, vname):
                fig[vname + "_modes"] = sorted(modes[vname])
        print(json.dumps(fig), flush=True)


def flags_of(variants, vname):
    return next(v[2] for v in variants if v[0] == vname)


def scale_figures(kb, queries_dir, name, repo, qfile, copies, nq, url):
    """--org and local p50/p95 (same queries, same run) as the collection
    grows to `copies` published copies of repo (kb.org.repo NAME-copy-N),
    which are deleted again at the end."""
    qs = load(os.path.join(queries_dir, qfile))[:nq]
    marks = sorted({n for n in (1, 2, 5, copies) if n <= copies})
    n = 1
    try:
        for mark in marks:
            while n < mark:
                n += 1
                st, pms = publish(kb, repo, f"{name}-copy-{n}")
                print(json.dumps({"figure": "scale-publish", "copy": n, "written": st["written"], "seconds": round(pms / 1000, 1)}), flush=True)
            sh(["git", "config", "kb.org.repo", name], repo)
            loc, org, lex = [], [], []
            for q in qs:
                loc.append(timed([kb, "search", "--json", "-n", "10", q["query"]], repo)[1])
                org.append(timed([kb, "search", "--org", "--json", "-n", "10", q["query"]], repo)[1])
                lex.append(timed([kb, "search", "--org", "--mode", "lexical", "--json", "-n", "10", q["query"]], repo)[1])
            objs = sh(["curl", "-s", url + "/v1/graphql", "-H", "Content-Type: application/json", "-d",
                       '{"query":"{Aggregate{GitKB{meta{count}}}}"}'], repo).stdout
            count = json.loads(objs)["data"]["Aggregate"]["GitKB"][0]["meta"]["count"]
            print(json.dumps({"figure": "scale", "copies": mark, "objects": count,
                              "local_ms_p50": round(pct(loc, 50)), "local_ms_p95": round(pct(loc, 95)),
                              "org_ms_p50": round(pct(org, 50)), "org_ms_p95": round(pct(org, 95)),
                              "org_lexical_ms_p50": round(pct(lex, 50)), "org_lexical_ms_p95": round(pct(lex, 95))}), flush=True)
    finally:
        sh(["git", "config", "kb.org.repo", name], repo)
        delete_copies(url, f"{name}-copy-*")


def delete_copies(url, pattern):
    """Deletes the objects of the repositories whose names match pattern
    (Weaviate's batch delete stops at its maximum result count: repeat)."""
    body = json.dumps({"match": {"class": "GitKB", "where": {"path": ["repo"], "operator": "Like", "valueText": pattern}},
                       "output": "minimal"}).encode()
    while True:
        req = urllib.request.Request(url + "/v1/batch/objects", data=body, method="DELETE",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=600) as r:
            res = json.load(r)["results"]
        if res.get("successful", 0) == 0 or res.get("matches", 0) < res.get("limit", 0):
            return


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
                         "the query figures (and with --copies > 1 the scale figures of the first) on its server; none started")
    ap.add_argument("--baseline", help="another git-kb binary whose --org is measured beside --kb's, in the same run")
    ap.add_argument("--hybrid", action="store_true",
                    help="embed with the hash embedder (kb.embed.provider hash) and measure local lexical and hybrid "
                         "search beside --org lexical, hybrid with our fusion (rrf) and with Weaviate's")
    a = ap.parse_args()
    kb = os.path.abspath(a.kb)
    variants = HYBRID_VARIANTS if a.hybrid else DEFAULT_VARIANTS
    work = tempfile.mkdtemp(prefix="gitkb-org-")
    if a.use:
        used = [u.split("=") for u in a.use]
        query_figures(kb, a.queries_dir, used, variants, a.baseline and os.path.abspath(a.baseline))
        if a.copies > 1:
            name, repo, qfile = used[0]
            url = sh(["git", "config", "kb.org.url"], repo).stdout.strip()
            scale_figures(kb, a.queries_dir, name, repo, qfile, a.copies, a.scale_queries, url)
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
            if a.hybrid:
                sh(["git", "config", "kb.embed.provider", "hash"], repo)
            sh([kb, "index", "--quiet"], repo)
            st, ms = publish(kb, repo, name)
            again, ms2 = publish(kb, repo, name)
            print(json.dumps({"figure": "publish", "corpus": name, "files": st["files"], "chunks": st["chunks"],
                              "written": st["written"], "seconds": round(ms / 1000, 1),
                              "chunks_per_s": round(st["written"] / (ms / 1000), 1),
                              "republish_written": again["written"], "republish_seconds": round(ms2 / 1000, 2)}), flush=True)
        query_figures(kb, a.queries_dir, corpora, variants, a.baseline and os.path.abspath(a.baseline))
        if corpora and a.copies > 1:
            name, repo, qfile = corpora[0]
            scale_figures(kb, a.queries_dir, name, repo, qfile, a.copies, a.scale_queries, url)
    finally:
        if not a.keep:
            subprocess.run(["bash", os.path.join(HERE, "weaviate.sh"), "stop", wdir])
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}, server {url}", file=sys.stderr)


if __name__ == "__main__":
    main()
