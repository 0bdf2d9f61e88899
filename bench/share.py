#!/usr/bin/env python3
"""Sharing the index through git (issue 14), measured end to end.

For each corpus, with a bare remote on disk and a fake OpenAI-compatible
embeddings endpoint (in this process) that costs --ms-per-chunk per input
text, one request at a time (one GPU), and counts calls:

  - "CI" clone: clone, git kb index (lexical + embedding), first search:
    the clone-to-first-answer time of indexing locally; then git kb push:
    bytes sent for a full first push;
  - a one-file commit, index, push: bytes sent for an incremental push;
  - "laptop" clone of the first commit: clone, git kb pull, first search:
    clone-to-first-answer by pulling, and embedding calls made (want 0);
    then every query of the eval set on both clones: identical results
    (same citations in the same order, scores within float rounding);
  - the laptop pulls the one-file commit: bytes fetched.

Usage: share.py --kb PATH [--docs BUNDLE --docs-queries JSONL] [--gosrc DIR --go-queries JSONL]
"""
import argparse, hashlib, json, math, os, shutil, struct, subprocess, sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ENV = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="bench",
           GIT_AUTHOR_EMAIL="b@example.invalid", GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="b@example.invalid")


class Fake:
    calls = 0
    inputs = 0
    lock = threading.Lock()
    ms = 5.0
    dims = 256


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"]
        with Fake.lock:  # one model instance: requests queue
            Fake.calls += 1
            Fake.inputs += len(texts)
            time.sleep(Fake.ms * len(texts) / 1000)
        data = []
        for i, t in enumerate(texts):
            h = hashlib.sha256(t.encode()).digest()
            v = [((h[j % 32] ^ (j * 31)) % 255 - 127) / 127 for j in range(Fake.dims)]
            n = math.sqrt(sum(x * x for x in v)) or 1
            data.append({"object": "embedding", "index": i, "embedding": [x / n for x in v]})
        out = json.dumps({"object": "list", "data": data, "model": "fake"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def sh(args, cwd, check=True):
    p = subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True)
    if check and p.returncode:
        sys.exit(f"{' '.join(args)}: {p.stderr}")
    return p


def timed(args, cwd):
    t = time.perf_counter()
    p = sh(args, cwd)
    return time.perf_counter() - t, p


def configure(repo, url):
    for k, v in [("kb.embed.baseURL", url), ("kb.embed.model", "fake-embed"), ("kb.embed.batchSize", "64"),
                 ("user.name", "bench"), ("user.email", "b@example.invalid")]:
        sh(["git", "config", k, v], repo)


def search(kb, repo, q):
    p = sh([kb, "search", "--json", "-n", "10", "-q", q], repo)
    return json.loads(p.stdout)


def same(x, y):
    rx, ry = x["results"], y["results"]
    if len(rx) != len(ry):
        return False
    for a, b in zip(rx, ry):
        if a["citation"] != b["citation"] or abs(a["score"] - b["score"]) > 1e-6 * max(1, abs(a["score"])):
            return False
    return x["mode"] == y["mode"]


def bench(name, src, kb, url, queries, work, edit):
    out = {"corpus": name}
    remote = os.path.join(work, "remote.git")
    sh(["git", "clone", "-q", "--bare", src, remote], work)
    first = sh(["git", "rev-parse", "HEAD"], remote).stdout.strip()
    branch = sh(["git", "symbolic-ref", "--short", "HEAD"], remote).stdout.strip()

    # CI: clone, index and embed locally, first answer.
    ci = os.path.join(work, "ci")
    t0 = time.perf_counter()
    sh(["git", "clone", "-q", remote, ci], work)
    configure(ci, url)
    calls0, in0 = Fake.calls, Fake.inputs
    _, p = timed([kb, "index", "--json"], ci)
    st = json.loads(p.stdout)
    search(kb, ci, queries[0])
    out["local_clone_to_answer_s"] = round(time.perf_counter() - t0, 2)
    out["chunks"] = st["chunks"]
    out["local_embedded"] = Fake.inputs - in0
    out["local_embed_calls"] = Fake.calls - calls0

    _, p = timed([kb, "push", "--json", "origin"], ci)
    pr = json.loads(p.stdout)
    out["push_full_bytes"] = pr["bytes_sent"]
    out["push_full_objects"] = pr["objects_sent"]
    out["push_full_s"] = round(pr["seconds"], 2)
    out["records"] = pr["views"][0]["blobs"]
    out["vector_records"] = pr["views"][0]["vector_records"]
    out["withheld_secrets"] = pr["views"][0]["withheld_secrets"]  # each clone indexes and embeds these itself

    # Laptop: clone, pull, first answer; no embedding call.
    lap = os.path.join(work, "laptop")
    calls0, in0 = Fake.calls, Fake.inputs
    t0 = time.perf_counter()
    sh(["git", "clone", "-q", remote, lap], work)
    configure(lap, url)
    _, p = timed([kb, "pull", "--json", "origin"], lap)
    pl = json.loads(p.stdout)
    # Embedding during the pull: texts of what was shared must be 0; the
    # withheld files' chunks are embedded here, as on any clone.
    out["pull_embed_calls"] = Fake.calls - calls0
    out["pull_embedded_texts"] = Fake.inputs - in0
    emb = (pl.get("index") or {}).get("embed") or {}
    out["pull_vectors_from_cache"] = emb.get("cached", 0)
    out["pull_index_files_here"] = pl["index"]["blobs_new"]
    search(kb, lap, queries[0])
    out["pull_clone_to_answer_s"] = round(time.perf_counter() - t0, 2)
    out["pull_s"] = round(pl["seconds"], 2)
    out["pull_fetched_bytes"] = pl["bytes_fetched"]
    out["speedup"] = round(out["local_clone_to_answer_s"] / out["pull_clone_to_answer_s"], 1)
    ident = sum(same(search(kb, ci, q), search(kb, lap, q)) for q in queries)
    out["identical_results"] = f"{ident}/{len(queries)}"

    # One-file commit: incremental push and pull.
    edit(ci)
    sh(["git", "commit", "-qam", "one-file change"], ci)
    sh(["git", "push", "-q", "origin", branch], ci)
    sh([kb, "index", "-q"], ci)
    _, p = timed([kb, "push", "--json", "origin"], ci)
    pr = json.loads(p.stdout)
    out["push_one_file_bytes"] = pr["bytes_sent"]
    out["push_one_file_objects"] = pr["objects_sent"]
    out["push_one_file_records_exported"] = pr["views"][0]["records_exported"]
    sh(["git", "pull", "-q", "--ff-only"], lap)
    calls0 = Fake.calls
    _, p = timed([kb, "pull", "--json", "origin"], lap)
    pl = json.loads(p.stdout)
    out["pull_one_file_fetched_bytes"] = pl["bytes_fetched"]
    out["pull_one_file_imported"] = pl["blobs_imported"]
    out["pull_one_file_embed_calls"] = Fake.calls - calls0
    out["remote_kb_mb"] = round(sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(os.path.join(remote, "objects")) for f in fs) / 2**20, 1)
    return out


def load_queries(paths, n):
    qs = []
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.strip()
                if line:
                    qs.append(json.loads(line)["query"])
    return qs[:n] if n else qs


def append_line(path):
    def edit(repo):
        with open(os.path.join(repo, path), "a") as f:
            f.write("\n补充一行说明。\n")
    return edit


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", required=True)
    ap.add_argument("--docs")
    ap.add_argument("--gosrc", help="a directory to copy as a repository (Go's src)")
    ap.add_argument("--docs-queries", default="", help="a JSONL eval set (query field) for the docs corpus")
    ap.add_argument("--go-queries", default="", help="the same for Go's src")
    ap.add_argument("--max-queries", type=int, default=0)
    ap.add_argument("--ms-per-chunk", type=float, default=5.0)
    ap.add_argument("--dims", type=int, default=256)
    a = ap.parse_args()
    Fake.ms, Fake.dims = a.ms_per_chunk, a.dims
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_port}/v1"
    kb = os.path.abspath(a.kb)
    results = []
    # Background processes git starts (gc --auto) may still write there.
    with tempfile.TemporaryDirectory(prefix="kb-share-", ignore_cleanup_errors=True) as tmp:
        if a.docs:
            src = os.path.join(tmp, "docs-src")
            sh(["git", "clone", "-q", a.docs, src], tmp)
            w = os.path.join(tmp, "docs")
            os.makedirs(w)
            files = sh(["git", "ls-files", "*.md"], src).stdout.split()
            qs = load_queries([a.docs_queries] if a.docs_queries else [], a.max_queries) or ["回滚", "连接池"]
            results.append(bench("docs (tidb-docs-cn, with history)", src, kb, url, qs, w, append_line(files[len(files) // 2])))
            print(json.dumps(results[-1], ensure_ascii=False), flush=True)
        if a.gosrc:
            src = os.path.join(tmp, "gosrc")
            shutil.copytree(a.gosrc, src, symlinks=True)
            sh(["git", "init", "-q", "-b", "main"], src)
            sh(["git", "add", "-A"], src)
            sh(["git", "commit", "-qm", "go src"], src)
            w = os.path.join(tmp, "go")
            os.makedirs(w)
            qs = load_queries([a.go_queries] if a.go_queries else [], a.max_queries) or ["error handling", "HTTP redirect"]
            results.append(bench("Go src", src, kb, url, qs, w, append_line("net/http/server.go")))
            print(json.dumps(results[-1], ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
