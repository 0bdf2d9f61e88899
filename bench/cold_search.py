#!/usr/bin/env python3
"""Cold `git kb search` latency, side by side with `git grep -i` (and
optionally a second git-kb binary) in one run.

Each query runs as a fresh process (what a user at a shell waits for); the
page cache is warm, the same for every contender. The contenders alternate
query by query, in a rotating order, so that a busy machine slows all of
them alike. The git-kb binaries must have indexed each repository already
(different pipeline versions live side by side in one index).

For each repository prints one JSON line: wall and CPU p50/p95 of each
contender and the ratios of the medians (kb/grep, and new/old when --old
is given). `git grep` is run as bench.py runs it: `git grep -i -l -F -e
WORD ...` over the query's words.

Usage:
  cold_search.py --new BIN --repo DIR --queries FILE.jsonl [FILE...] [--rounds 3]
  cold_search.py --new BIN --corpus DIR=FILE.jsonl [--corpus DIR=FILE.jsonl ...]
                 [--old BIN] [--no-grep] [--rounds 5]
                 [--old-flags '...'] [--new-flags '--no-expand']
                 [--old-env NAME=VALUE] [--new-env GOGC=400]

Example (issue 16's cold-start target, both corpora):
  bench/cold_search.py --new /tmp/kb/git-kb --rounds 5 \\
      --corpus /tmp/docs=../shared/eval/docs-dev.jsonl \\
      --corpus /tmp/gosrc=../shared/eval/code-dev.jsonl
"""
import argparse, json, os, resource, statistics, subprocess, time


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(args, repo, env=None):
    """Wall time and CPU time (user+sys) of one process, in ms, and the process."""
    t, c = time.perf_counter(), cpu()
    p = subprocess.run(args, cwd=repo, capture_output=True, env=env)
    return ((time.perf_counter() - t) * 1000, (cpu() - c) * 1000), p


def kb_search(kb, flags, env):
    if os.sep in kb:
        kb = os.path.abspath(kb)  # each search runs in its repository
    env = dict(os.environ, **dict(e.split("=", 1) for e in env)) if env else None
    def once(repo, q):
        m, p = run([kb, "search", "--json", "-q", "-n", "10", *flags, q], repo, env)
        if p.returncode:
            raise SystemExit(f"{kb} search {q!r}: exit {p.returncode}: {p.stderr.decode()}")
        return m
    return once


def git_grep(repo, q):
    args = ["git", "grep", "-i", "-l", "-F"]
    for w in q.split():
        args += ["-e", w]
    m, p = run(args, repo)
    if p.returncode not in (0, 1):  # 1: no match
        raise SystemExit(f"git grep {q!r}: exit {p.returncode}: {p.stderr.decode()}")
    return m


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def load(files):
    qs = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            qs += [json.loads(l)["query"] for l in fh if l.strip()]
    return qs


def bench(repo, qs, contenders, rounds):
    times = {name: [] for name, _ in contenders}
    for r in range(rounds):
        for i, q in enumerate(qs):
            # Rotate who goes first, so none always runs right after
            # another's page faults or always first after a pause.
            k = (i + r) % len(contenders)
            for name, fn in contenders[k:] + contenders[:k]:
                times[name].append(fn(repo, q))
    out = {"repo": repo, "queries": len(qs), "rounds": rounds}
    # Wall time is what a user waits; CPU time is steadier on a shared
    # machine (other processes stretch wall time, not our CPU time).
    for i, what in ((0, "wall"), (1, "cpu")):
        med = {}
        for name, _ in contenders:
            xs = [x[i] for x in times[name]]
            med[name] = statistics.median(xs)
            out[f"{name}_{what}_p50_ms"] = round(med[name], 1)
            out[f"{name}_{what}_p95_ms"] = round(pct(xs, 95), 1)
        if "grep" in med:
            for name in ("old", "new"):
                if name in med:
                    out[f"{name}_vs_grep_{what}_p50"] = round(med[name] / med["grep"], 3)
        if "old" in med:
            out[f"{what}_ratio_p50"] = round(med["new"] / med["old"], 3)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", help="a second git-kb binary to compare with (e.g. main's)")
    ap.add_argument("--new", required=True, help="the git-kb binary under test")
    ap.add_argument("--repo", help="one repository (with --queries)")
    ap.add_argument("--queries", nargs="+", default=[])
    ap.add_argument("--corpus", action="append", default=[], metavar="DIR=FILE.jsonl[,FILE...]",
                    help="a repository and its query files; repeatable")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-grep", action="store_true", help="leave git grep out")
    ap.add_argument("--old-flags", default="")
    ap.add_argument("--new-flags", default="")
    ap.add_argument("--old-env", action="append", default=[], metavar="NAME=VALUE", help="environment of the old binary's searches")
    ap.add_argument("--new-env", action="append", default=[], metavar="NAME=VALUE")
    a = ap.parse_args()
    corpora = []
    if a.repo:
        corpora.append((a.repo, a.queries))
    for c in a.corpus:
        d, _, fs = c.partition("=")
        corpora.append((d, fs.split(",")))
    if not corpora:
        ap.error("give --repo DIR --queries FILE, or --corpus DIR=FILE")
    contenders = [("new", kb_search(a.new, a.new_flags.split(), a.new_env))]
    if a.old:
        contenders.append(("old", kb_search(a.old, a.old_flags.split(), a.old_env)))
    if not a.no_grep:
        contenders.append(("grep", git_grep))
    for repo, files in corpora:
        out = bench(os.path.abspath(repo), load(files), contenders, a.rounds)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
