#!/usr/bin/env python3
"""Do two git-kb binaries give the same `search --json` answers?

For a refactor that must not change behaviour: runs every query of the
given query files through both binaries, on one indexed repository, with
several flag sets (plain, -n 3 --per-file 2, --related, query operators),
and compares the JSON byte for byte after dropping what is timing, not
ranking (took_ms, timings_ms). Prints the first difference and exits 1 if
any; otherwise one line of counts.

Both binaries read the same index, so they must share a pipeline version;
or, with --new-repo DIR (a copy of --repo at the same commits, indexed by
the new binary), each reads its own: for a change to how indexes are
built or stored, which an older binary may not read.

Usage: search_identical.py --old BIN --new BIN --repo DIR [--new-repo DIR] --queries FILE.jsonl [FILE...]
       [--flags '--mode lexical' ...] [--rev REV ...]
"""
import argparse, json, subprocess, sys

DEFAULT_FLAGS = ["", "-n 3 --per-file 2", "--related", "--mode lexical -n 20"]


def answer(kb, repo, query, flags):
    p = subprocess.run([kb, "search", "--json", "-q", *flags.split(), query],
                       cwd=repo, capture_output=True, text=True)
    if p.returncode:
        return f"exit {p.returncode}: {p.stderr.strip()}"
    out = json.loads(p.stdout)
    out.pop("took_ms", None)
    out.pop("timings_ms", None)
    return json.dumps(out, ensure_ascii=False, sort_keys=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--new-repo", help="where the new binary answers (default --repo)")
    ap.add_argument("--rev", action="append", default=[], help="also ask at these commits (--rev REV)")
    ap.add_argument("--queries", nargs="+", required=True)
    ap.add_argument("--flags", action="append", help="flag sets to try (default: %s)" % DEFAULT_FLAGS)
    a = ap.parse_args()
    queries = []
    for f in a.queries:
        with open(f, encoding="utf-8") as fh:
            queries += [json.loads(l)["query"] for l in fh if l.strip()]
    # Operators of the query language, built from the set's own queries.
    extra = []
    for q in queries[:5]:
        w = q.split()
        extra.append(f'{q} -{w[-1]}' if len(w) > 1 else f'"{q}"')
        extra.append(f'{q} path:*.md')
    n = 0
    flag_sets = a.flags or DEFAULT_FLAGS
    flag_sets = flag_sets + [f"--rev {r}" for r in a.rev]
    for flags in flag_sets:
        for q in queries + extra:
            old, new = answer(a.old, a.repo, q, flags), answer(a.new, a.new_repo or a.repo, q, flags)
            n += 1
            if old != new:
                print(f"DIFFERENT for {q!r} with flags {flags!r}:\n old: {old[:2000]}\n new: {new[:2000]}")
                sys.exit(1)
    print(f"identical: {n} answers ({len(queries) + len(extra)} queries x {len(flag_sets)} flag sets) in {a.repo}"
          + (f" and {a.new_repo}" if a.new_repo else ""))


if __name__ == "__main__":
    main()
