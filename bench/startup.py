#!/usr/bin/env python3
"""What a git-kb start costs before it does any work, and how much of that
the packages linked only for package org (the official Weaviate client and
what it pulls in: gRPC, protobuf, go-openapi, ...) cost.

Go runs the initialiser of every linked package at start, whether the
command uses it or not, and a larger binary takes more page faults and a
longer itab table: so a package linked only for `git kb publish` and
`search --org` is paid by every `git kb search`. This script builds two
probes from the module (with `go build -overlay`, nothing written to the
tree) as install.sh builds git-kb:

  hello    a Go program that prints a line (the runtime's own start);
  orgdeps  the same, with a blank import of every package that cmd/git-kb
           links only through github.com/git-kb/git-kb/org (the import
           graph of `go list -deps`, less the edge engine -> org);

and runs them and `git-kb --version` interleaved (rotating order), N times
each, printing one JSON line: median wall, CPU (user+sys) and minor page
faults of each; the sum over packages of the fastest GODEBUG=inittrace=1
initialiser time seen, and in git-kb's own trace the part of it that the
org-only packages take (exact) and its largest initialisers; and the
orgdeps probe's CPU above hello as a share of git-kb's above hello (an
upper bound of org's share of the start: the probe also starts packages
git-kb links anyway, such as net/http and crypto/tls).

Usage: startup.py --kb BIN [--runs 40]
"""
import argparse, json, os, resource, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN = "github.com/git-kb/git-kb/cmd/git-kb"
CUT = ("github.com/git-kb/git-kb/engine", "github.com/git-kb/git-kb/org")
BUILD = ["go", "build", "-trimpath", "-tags", "ne"]


def go_env():
    return dict(os.environ, CGO_ENABLED="0")


def org_only():
    """Packages cmd/git-kb links only through package org."""
    out = subprocess.run(["go", "list", "-deps", "-tags", "ne", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./cmd/git-kb"],
                         cwd=ROOT, env=go_env(), check=True, capture_output=True, text=True).stdout
    graph = {}
    for line in out.splitlines():
        p, *imps = line.split()
        graph[p] = imps

    def reach(cut):
        seen, todo = set(), [MAIN]
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            todo += [q for q in graph.get(p, []) if (p, q) != cut]
        return seen
    return sorted(reach(None) - reach(CUT))


def build_probe(tmp, name, imports):
    """Builds a main package of blank imports inside the module (overlay)."""
    src = "package main\n\nimport (\n\t\"os\"\n" + "".join(f"\t_ \"{p}\"\n" for p in imports) + \
        ")\n\nfunc main() { os.Stdout.WriteString(\"hi\\n\") }\n"
    real = os.path.join(tmp, name + ".go")
    with open(real, "w") as f:
        f.write(src)
    virtual = os.path.join(ROOT, "zz_startup_" + name, "main.go")
    ov = os.path.join(tmp, name + ".json")
    with open(ov, "w") as f:
        json.dump({"Replace": {virtual: real}}, f)
    out = os.path.join(tmp, name)
    subprocess.run(BUILD + ["-overlay", ov, "-o", out, "./zz_startup_" + name], cwd=ROOT, env=go_env(), check=True)
    return out


def usage():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime, r.ru_minflt


def run(args, env=None):
    t, (c, f) = time.perf_counter(), usage()
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=tempfile.gettempdir())
    c2, f2 = usage()
    return (time.perf_counter() - t) * 1000, (c2 - c) * 1000, f2 - f, p.stderr.decode()


def init_times(args, runs):
    """Each package's fastest initialiser time seen (ms)."""
    best = {}
    for _ in range(runs):
        _, _, _, err = run(args, dict(os.environ, GODEBUG="inittrace=1"))
        for line in err.splitlines():
            w = line.split()
            if len(w) >= 5 and w[0] == "init":
                best[w[1]] = min(best.get(w[1], 1e9), float(w[4]))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", required=True, help="the git-kb binary")
    ap.add_argument("--runs", type=int, default=40)
    a = ap.parse_args()
    kb = os.path.abspath(a.kb)
    only = org_only()
    imports = [p for p in only if "/internal" not in p and p != CUT[1] and "/vendor/" not in p]
    with tempfile.TemporaryDirectory() as tmp:
        hello = build_probe(tmp, "hello", [])
        orgdeps = build_probe(tmp, "orgdeps", imports)
        contenders = [("hello", [hello]), ("orgdeps", [orgdeps]), ("git-kb", [kb, "--version"])]
        m = {n: [] for n, _ in contenders}
        for r in range(a.runs):
            k = r % len(contenders)
            for n, args in contenders[k:] + contenders[:k]:
                m[n].append(run(args))
        out = {"runs": a.runs, "org_only_packages": len(only)}
        for n, args in contenders:
            xs = m[n]
            out[n] = {"wall_ms": round(statistics.median(x[0] for x in xs), 1),
                      "cpu_ms": round(statistics.median(x[1] for x in xs), 1),
                      "minflt": int(statistics.median(x[2] for x in xs))}
            t = init_times(args, max(10, a.runs // 2))
            out[n]["init_ms"], out[n]["packages"] = round(sum(t.values()), 2), len(t)
            if n == "git-kb":
                # In git-kb's own start: the initialisers of the packages
                # linked only for org, exactly.
                o = set(only)
                out[n]["init_org_only_ms"] = round(sum(v for p, v in t.items() if p in o), 2)
                out[n]["init_top"] = {p: v for p, v in sorted(t.items(), key=lambda x: -x[1])[:8]}
        # orgdeps also starts what git-kb links anyway (net/http, crypto,
        # encoding/json...): its cost above hello bounds org's from above.
        base = out["hello"]["cpu_ms"]
        if out["git-kb"]["cpu_ms"] > base:
            out["orgdeps_above_hello_of_gitkb_above_hello_cpu"] = round((out["orgdeps"]["cpu_ms"] - base) / (out["git-kb"]["cpu_ms"] - base), 2)
        if out["git-kb"]["init_ms"] > 0:
            out["org_only_share_of_gitkb_init"] = round(out["git-kb"]["init_org_only_ms"] / out["git-kb"]["init_ms"], 2)
        print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
