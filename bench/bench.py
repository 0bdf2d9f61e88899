#!/usr/bin/env python3
"""End-to-end benchmarks of the git-kb binary on real corpora.

For each corpus: full lexical index time and MB/s, index size vs source size,
re-index time after a one-file commit, and cold `git kb search` latency
(p50/p95, a new process per query, as a user runs it) over the eval query
set, next to `git grep -i` over the same queries in the same run.

Usage: bench.py --kb PATH [--docs BUNDLE] [--gosrc DIR] [--queries-dir DIR]
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

ENV = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="b@example.invalid",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="b@example.invalid")


def sh(args, cwd, check=True, capture=True):
    return subprocess.run(args, cwd=cwd, env=ENV, check=check, capture_output=capture, text=True)


def timed(args, cwd):
    t = time.perf_counter()
    p = subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True)
    return time.perf_counter() - t, p


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_blocks * 512
            except FileNotFoundError:
                pass
    return total


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def bench_corpus(name, repo, kb, queries):
    out = {"corpus": name}
    files = sh(["git", "ls-files", "-z"], repo).stdout.split("\0")
    src = sum(os.path.getsize(os.path.join(repo, f)) for f in files if f and os.path.isfile(os.path.join(repo, f)))
    out["source_mb"] = round(src / 2**20, 1)

    shutil.rmtree(os.path.join(repo, ".git", "kb"), ignore_errors=True)
    secs, p = timed([kb, "index", "--json"], repo)
    if p.returncode:
        sys.exit(f"index failed: {p.stderr}")
    st = json.loads(p.stdout)
    out["index_s"] = round(secs, 2)
    out["index_mb_per_s"] = round(st["bytes_read"] / 2**20 / secs, 1)
    out["chunks"] = st["chunks"]
    out["index_mb"] = round(du(os.path.join(repo, ".git", "kb")) / 2**20, 1)
    out["index_vs_source"] = round(out["index_mb"] / out["source_mb"], 2)

    secs, p = timed([kb, "index", "--json"], repo)
    out["reindex_same_commit_ms"] = round(secs * 1000, 1)

    target = next(f for f in files if f.endswith(".md") or f.endswith(".go"))
    with open(os.path.join(repo, target), "a") as fh:
        fh.write("\n<!-- bench edit -->\n" if target.endswith(".md") else "\n// bench edit\n")
    sh(["git", "commit", "-qam", "bench: one-file edit"], repo)
    secs, p = timed([kb, "index", "--json"], repo)
    st = json.loads(p.stdout)
    out["reindex_one_file_ms"] = round(secs * 1000, 1)
    out["reindex_one_file_blobs_new"] = st["blobs_new"]

    kb_lat, grep_lat = [], []
    for q in queries:
        secs, p = timed([kb, "search", "--json", "-q", "-n", "10", q], repo)
        if p.returncode:
            sys.exit(f"search failed for {q!r}: {p.stderr}")
        kb_lat.append(secs * 1000)
        args = ["git", "grep", "-i", "-l", "-F"]
        for w in q.split():
            args += ["-e", w]
        secs, _ = timed(args, repo)
        grep_lat.append(secs * 1000)
    out["queries"] = len(queries)
    out["search_cold_p50_ms"] = round(statistics.median(kb_lat), 1)
    out["search_cold_p95_ms"] = round(pct(kb_lat, 95), 1)
    out["git_grep_p50_ms"] = round(statistics.median(grep_lat), 1)
    out["git_grep_p95_ms"] = round(pct(grep_lat, 95), 1)
    out["search_vs_grep_p50"] = round(out["search_cold_p50_ms"] / out["git_grep_p50_ms"], 2)

    mcp_lat = mcp_latency(kb, repo, queries)
    out["mcp_warm_p50_ms"] = round(statistics.median(mcp_lat), 1)
    out["mcp_warm_p95_ms"] = round(pct(mcp_lat, 95), 1)
    out["cold_vs_mcp_p50"] = round(out["search_cold_p50_ms"] / out["mcp_warm_p50_ms"], 1)

    out.update(bench_blame(kb, repo, files, name))
    out.update(bench_hooks(kb, repo))

    rss = subprocess.run(["/usr/bin/time", "-f", "%M", kb, "search", "--json", "-q", queries[0]], cwd=repo, env=ENV, capture_output=True, text=True)
    out["search_rss_mb"] = round(int(rss.stderr.strip().splitlines()[-1]) / 1024, 1)
    return out


def bench_blame(kb, repo, files, name):
    """git kb blame-context timings. Docs: the corpus's real last 5 commits.
    Go: 20 files edited twice on top of the single import commit, so the
    second edit's lines have a history of two commits."""
    out = {}
    if name != "go-src":
        rng = "HEAD~5..HEAD"
    else:
        go = sorted(f for f in files if f.endswith(".go") and "/testdata/" not in f and not f.endswith("_test.go"))
        picked = go[:: max(1, len(go) // 20)][:20]
        for round_ in (1, 2):
            for f in picked:
                path = os.path.join(repo, f)
                with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                    lines = fh.read().split("\n")
                hits = [i for i, l in enumerate(lines) if l.strip().startswith("return ")][:3]
                for i in hits:
                    lines[i] = lines[i] + (" // bench edit" if round_ == 1 else " // bench edit, again")
                with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
                    fh.write("\n".join(lines))
            sh(["git", "commit", "-qam", f"bench: edit {len(picked)} files, round {round_}"], repo)
        rng = "HEAD"
    args = [kb, "blame-context", "--format", "json", "-q", rng]
    secs, p = timed(args, repo)
    if p.returncode:
        sys.exit(f"blame-context failed: {p.stderr}")
    rep = json.loads(p.stdout)
    out["blame_range"] = rng
    out["blame_files"] = len(rep["files"])
    out["blame_first_s"] = round(secs, 2)  # includes indexing the base
    warm = [timed(args, repo)[0] for _ in range(3)]
    out["blame_s"] = round(statistics.median(warm), 2)
    return out


def wait_indexed(kb, repo, head, timeout=300):
    t = time.perf_counter()
    while time.perf_counter() - t < timeout:
        p = sh([kb, "status", "--json"], repo, check=False)
        if p.returncode == 0:
            st = json.loads(p.stdout)
            if st.get("head") == head and st.get("head_indexed"):
                return time.perf_counter() - t
        time.sleep(0.02)
    sys.exit(f"HEAD {head} not indexed within {timeout}s")


def bench_hooks(kb, repo):
    """Foreground cost of each installed hook (what git waits for), and the
    time from `git pull` of a one-file change to the new view being
    searchable, in a clone with hooks installed."""
    out = {}
    work = tempfile.mkdtemp(prefix="gitkb-hooks-")
    try:
        bare, clone = os.path.join(work, "remote.git"), os.path.join(work, "clone")
        sh(["git", "clone", "-q", "--bare", repo, bare], work)
        sh(["git", "clone", "-q", bare, clone], work)
        sh([kb, "index", "--quiet"], clone)
        sh([kb, "hooks", "install"], clone)
        head = sh(["git", "rev-parse", "HEAD"], clone).stdout.strip()
        hookdir = sh(["git", "rev-parse", "--path-format=absolute", "--git-path", "hooks"], clone).stdout.strip()
        args = {"post-checkout": ["0" * 40, head, "1"], "post-commit": [], "post-merge": ["0"], "post-rewrite": ["amend"]}
        for name, a in args.items():
            lat = []
            for _ in range(10):
                secs, _ = timed([os.path.join(hookdir, name)] + a, clone)
                lat.append(secs * 1000)
            out[f"hook_{name.replace('-', '_')}_ms"] = round(statistics.median(lat), 1)
        wait_indexed(kb, clone, head)
        # Upstream commits a one-file change; the clone pulls it.
        up = os.path.join(work, "up")
        sh(["git", "clone", "-q", bare, up], work)
        target = next(f for f in sh(["git", "ls-files"], up).stdout.split("\n") if f.endswith((".md", ".go")))
        with open(os.path.join(up, target), "a") as fh:
            fh.write("\n<!-- pulled edit -->\n" if target.endswith(".md") else "\n// pulled edit\n")
        sh(["git", "commit", "-qam", "upstream one-file edit"], up)
        sh(["git", "push", "-q", "origin", "HEAD"], up)
        t = time.perf_counter()
        sh(["git", "pull", "-q", "--no-rebase", "--no-edit"], clone)
        pulled = time.perf_counter() - t
        new = sh(["git", "rev-parse", "HEAD"], clone).stdout.strip()
        waited = wait_indexed(kb, clone, new)
        out["pull_s"] = round(pulled, 2)
        out["pull_to_searchable_s"] = round(pulled + waited, 2)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def mcp_latency(kb, repo, queries):
    """Round-trip time of hybrid_search through `git kb mcp` over stdio,
    one server for all queries (after one warm-up call), as an agent sees it."""
    p = subprocess.Popen([kb, "mcp"], cwd=repo, env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
    ids = iter(range(1, 1 << 30))

    def call(method, params, notify=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            msg["id"] = next(ids)
        p.stdin.write(json.dumps(msg, ensure_ascii=False) + "\n")
        p.stdin.flush()
        if notify:
            return None
        while True:
            r = json.loads(p.stdout.readline())
            if r.get("id") == msg["id"]:
                if "error" in r or r["result"].get("isError"):
                    sys.exit(f"mcp {method} failed: {r}")
                return r["result"]

    try:
        call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "bench", "version": "1"}})
        call("notifications/initialized", {}, notify=True)
        search = lambda q: call("tools/call", {"name": "hybrid_search", "arguments": {"query": q, "top_k": 10}})
        search(queries[0])
        lat = []
        for q in queries:
            t = time.perf_counter()
            search(q)
            lat.append((time.perf_counter() - t) * 1000)
        return lat
    finally:
        p.stdin.close()
        p.wait(timeout=10)


def load_queries(path):
    with open(path) as fh:
        return [json.loads(l)["query"] for l in fh if l.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", required=True)
    ap.add_argument("--docs")
    ap.add_argument("--gosrc")
    ap.add_argument("--queries-dir")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="gitkb-bench-")
    results = []
    try:
        if a.docs:
            repo = os.path.join(work, "docs")
            sh(["git", "clone", "-q", a.docs, repo], work)
            results.append(bench_corpus("tidb-docs-cn", repo, a.kb, load_queries(os.path.join(a.queries_dir, "docs-dev.jsonl"))))
        if a.gosrc:
            repo = os.path.join(work, "gosrc")
            shutil.copytree(a.gosrc, repo, symlinks=True)
            sh(["git", "init", "-q"], repo)
            sh(["git", "add", "-A"], repo)
            sh(["git", "commit", "-qm", "go src"], repo)
            results.append(bench_corpus("go-src", repo, a.kb, load_queries(os.path.join(a.queries_dir, "code-dev.jsonl"))))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for r in results:
        print(json.dumps(r, ensure_ascii=False))


if __name__ == "__main__":
    main()
