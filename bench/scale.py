#!/usr/bin/env python3
"""How indexing and search cost grow with the repository (issue 20).

Builds one commit holding N copies of Go's src ($(go env GOROOT)/src), each
text file of copy i ending in a line of its own ("// scale copy i"), so no
blob is shared between copies and the repository really is N times bigger
for git kb (identical blobs would be indexed once). For each N prints:

  full `git kb index --embed off` wall time and the indexer's peak RSS
  index size on disk (.git/kb)
  one-file commit re-index time, wall and CPU (user+sys, git's children
  included: the figure to compare on a loaded machine), median of --edits
  commits
  cold `git kb search` p50 (a new process per query) and `git grep -il` p50
  over the same queries in the same run, and their ratio

Repositories are kept under --work (default /tmp/kb-scale) and reused by
later runs (each run resets the repository to its base commit and deletes
.git/kb first). Run heavy sizes under nice: 8x reads ~600 MiB of text.

With --old BIN, each N is measured for BIN first and then for --kb, in
the same run (each from a fresh index), and the rows say which is which.

Usage: scale.py --kb PATH [--old PATH] [--n 1 2 4 8] [--queries FILE.jsonl]
                [--work DIR] [--edits 3] [--json]
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import du  # noqa: E402  (bench.py runs nothing on import)

ENV = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="b@example.invalid",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="b@example.invalid")


def sh(args, cwd, check=True):
    return subprocess.run(args, cwd=cwd, env=ENV, check=check, capture_output=True, text=True)


def is_text(path):
    with open(path, "rb") as fh:
        return b"\0" not in fh.read(8000)


def build_repo(gosrc, n, work):
    """The N-copy repository, built once and kept; returns its path."""
    repo = os.path.join(work, f"gosrc-{n}x")
    if os.path.exists(os.path.join(repo, ".git", "refs", "tags", "base")):
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    os.makedirs(repo)
    for i in range(n):
        dst = os.path.join(repo, f"copy{i}")
        shutil.copytree(gosrc, dst, symlinks=True)
        for root, _, files in os.walk(dst):
            for f in files:
                p = os.path.join(root, f)
                if os.path.islink(p) or not is_text(p):
                    continue
                with open(p, "ab") as fh:
                    fh.write(f"\n// scale copy {i}\n".encode())
    sh(["git", "init", "-q"], repo)
    sh(["git", "add", "-A"], repo)
    sh(["git", "commit", "-qm", f"{n} copies of go src"], repo)
    sh(["git", "tag", "base"], repo)
    return repo


def run_index(kb, repo):
    """Wall seconds, peak RSS (KiB), CPU seconds (user+sys, children
    included) and the --json stats of one index run."""
    with tempfile.NamedTemporaryFile("r") as tf:
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", tf.name, kb, "index", "--embed", "off", "--json", "-q"],
                           cwd=repo, env=ENV, capture_output=True, text=True)
        secs = time.perf_counter() - t
        if p.returncode:
            sys.exit(f"index failed in {repo}: {p.stderr.strip()}")
        rss, user, system = tf.read().strip().splitlines()[-1].split()
    return secs, int(rss), float(user) + float(system), json.loads(p.stdout)


def bench(kb, repo, n, queries, edits):
    out = {"n": n}
    sh(["git", "reset", "-q", "--hard", "base"], repo)
    shutil.rmtree(os.path.join(repo, ".git", "kb"), ignore_errors=True)
    secs, rss, _, st = run_index(kb, repo)
    out["files"] = st["files"]
    out["read_mib"] = round(st["bytes_read"] / 2**20, 1)
    out["chunks"] = st["chunks"]
    out["index_s"] = round(secs, 1)
    out["index_rss_mib"] = round(rss / 1024)
    out["index_mib"] = round(du(os.path.join(repo, ".git", "kb")) / 2**20, 1)
    out["index_per_read"] = round(out["index_mib"] / max(out["read_mib"], 0.1), 2)

    # One-file commits: the same file each time, as a developer iterating.
    target = os.path.join(repo, "copy0", "net", "http", "server.go")
    times, cpu = [], []
    for e in range(edits):
        with open(target, "a") as fh:
            fh.write(f"\n// scale edit {e}\n")
        sh(["git", "commit", "-qam", f"scale: edit {e}"], repo)
        secs, _, cpus, st = run_index(kb, repo)
        if st["blobs_new"] != 1:
            sys.exit(f"one-file commit read {st['blobs_new']} blobs, want 1")
        times.append(secs * 1000)
        cpu.append(cpus * 1000)
    out["reindex_one_file_ms"] = round(statistics.median(times))
    out["reindex_cpu_ms"] = round(statistics.median(cpu))

    kb_lat, grep_lat = [], []
    for i, q in enumerate(queries):
        grep = ["git", "grep", "-i", "-l", "-F"]
        for w in q.split():
            grep += ["-e", w]
        runs = [("kb", [kb, "search", "--json", "-q", "-n", "10", q]), ("grep", grep)]
        if i % 2:  # alternate who goes first, so neither always meets a cold cache
            runs.reverse()
        for who, args in runs:
            t = time.perf_counter()
            p = subprocess.run(args, cwd=repo, env=ENV, capture_output=True, text=True)
            ms = (time.perf_counter() - t) * 1000
            if who == "kb":
                if p.returncode:
                    sys.exit(f"search {q!r} failed: {p.stderr.strip()}")
                kb_lat.append(ms)
            else:
                grep_lat.append(ms)
    out["search_p50_ms"] = round(statistics.median(kb_lat))
    out["grep_p50_ms"] = round(statistics.median(grep_lat))
    out["search_vs_grep"] = round(out["search_p50_ms"] / out["grep_p50_ms"], 2)
    sh(["git", "reset", "-q", "--hard", "base"], repo)
    return out


COLS = [("n", "N"), ("files", "files"), ("read_mib", "MiB read"), ("chunks", "chunks"), ("index_s", "index s"),
        ("index_rss_mib", "peak RSS MiB"), ("index_mib", "index MiB"), ("index_per_read", "index/read"),
        ("reindex_one_file_ms", "1-file re-index ms"), ("reindex_cpu_ms", "1-file re-index CPU ms"),
        ("search_p50_ms", "search p50 ms"),
        ("grep_p50_ms", "grep -il p50 ms"), ("search_vs_grep", "search/grep")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", required=True, help="the git-kb binary to measure")
    ap.add_argument("--old", help="a second git-kb binary, measured before --kb for each N")
    ap.add_argument("--n", type=int, nargs="+", default=[1, 2, 4, 8], help="copies of Go's src (default 1 2 4 8)")
    ap.add_argument("--gosrc", default=None, help="default $(go env GOROOT)/src")
    shared = os.environ.get("GITKB_SHARED", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
    ap.add_argument("--queries", default=os.path.join(shared, "eval", "code-dev.jsonl"),
                    help="JSON lines with a query field (default $GITKB_SHARED/eval/code-dev.jsonl)")
    ap.add_argument("--work", default="/tmp/kb-scale")
    ap.add_argument("--edits", type=int, default=3, help="one-file commits to time (median)")
    ap.add_argument("--json", action="store_true", help="one JSON line per N instead of a table")
    a = ap.parse_args()
    gosrc = a.gosrc or os.path.join(sh(["go", "env", "GOROOT"], ".").stdout.strip(), "src")
    with open(a.queries, encoding="utf-8") as fh:
        queries = [json.loads(l)["query"] for l in fh if l.strip()]
    kbs = [("new", os.path.abspath(a.kb))]
    if a.old:
        kbs.insert(0, ("old", os.path.abspath(a.old)))
    cols = ([("binary", "binary")] if a.old else []) + COLS
    os.makedirs(a.work, exist_ok=True)
    if not a.json:
        print("| " + " | ".join(h for _, h in cols) + " |")
        print("|" + "---|" * len(cols))
    for n in a.n:
        repo = build_repo(gosrc, n, a.work)
        for name, kb in kbs:
            r = bench(kb, repo, n, queries, a.edits)
            r["binary"] = name
            if a.json:
                print(json.dumps(r), flush=True)
            else:
                print("| " + " | ".join(str(r[k]) for k, _ in cols) + " |", flush=True)


if __name__ == "__main__":
    main()
