#!/usr/bin/env python3
"""Cold `git kb search` latency of two binaries, side by side in one run.

Each query runs as a fresh process (what a user at a shell waits for),
alternating the binaries query by query so that a busy machine slows
both alike. Both must have indexed the repository already (different
pipeline versions live side by side in one index).

Prints wall and CPU p50/p95 per binary and the ratios new/old of the medians.

Usage: cold_search.py --old BIN --new BIN --repo DIR --queries FILE.jsonl [FILE...] [--rounds 3]
       [--new-flags '--no-expand']
"""
import argparse, json, os, resource, statistics, subprocess, time


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def once(kb, repo, q, flags):
    """Wall time and CPU time (user+sys) of one search process, in ms."""
    t, c = time.perf_counter(), cpu()
    p = subprocess.run([kb, "search", "--json", "-q", "-n", "10", *flags, q], cwd=os.path.abspath(repo), capture_output=True)
    if p.returncode:
        raise SystemExit(f"{kb} search {q!r}: exit {p.returncode}: {p.stderr.decode()}")
    return (time.perf_counter() - t) * 1000, (cpu() - c) * 1000


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--queries", nargs="+", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--old-flags", default="")
    ap.add_argument("--new-flags", default="")
    a = ap.parse_args()
    qs = []
    for f in a.queries:
        with open(f, encoding="utf-8") as fh:
            qs += [json.loads(l)["query"] for l in fh if l.strip()]
    old, new = [], []
    for r in range(a.rounds):
        for i, q in enumerate(qs):
            # Alternate which goes first, so neither always pays a cold cache.
            pair = [(a.old, a.old_flags.split(), old), (a.new, a.new_flags.split(), new)]
            if (i + r) % 2:
                pair.reverse()
            for kb, flags, out in pair:
                out.append(once(kb, a.repo, q, flags))
    out = {"repo": a.repo, "queries": len(qs), "rounds": a.rounds}
    # Wall time is what a user waits; CPU time is steadier on a shared
    # machine (other processes stretch wall time, not our CPU time).
    for i, what in ((0, "wall"), (1, "cpu")):
        o, n = [x[i] for x in old], [x[i] for x in new]
        out[f"old_{what}_p50_ms"] = round(statistics.median(o), 1)
        out[f"new_{what}_p50_ms"] = round(statistics.median(n), 1)
        out[f"old_{what}_p95_ms"] = round(pct(o, 95), 1)
        out[f"new_{what}_p95_ms"] = round(pct(n, 95), 1)
        out[f"{what}_ratio_p50"] = round(statistics.median(n) / statistics.median(o), 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
