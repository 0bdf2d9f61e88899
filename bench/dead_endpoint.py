#!/usr/bin/env python3
"""Latency of `git kb search --mode hybrid` when the embedding endpoint is dead.

Issue 15 targets: a degraded (lexical) answer in <= 300 ms with the
endpoint refusing connections, and <= kb.embed.queryTimeoutMs + 100 ms with
an endpoint that accepts and never answers. Measured in one run against a
lexical baseline on the same repository and queries:

  lexical        --mode lexical (the floor)
  refused        nothing listens on the port; breaker reset before each
                 query (kb.embed.cooldown 0), so every query pays the failure
  refused-open   the same, breaker open (default cooldown): dense skipped
  hanging        the endpoint accepts and never answers; cooldown 0
  hanging-open   the same, breaker open
  hybrid-ok      a working endpoint, new queries (each costs one call)

Vectors come from a fake OpenAI-compatible endpoint served by this script on
127.0.0.1 (bag of characters, 64 dims); only the query embedding fails.
Every distinct query is new to the query-vector cache.

Usage: dead_endpoint.py --kb PATH --repo DIR [--n 10] [--budget-ms 1500]
(--repo: a git repository to copy; e.g. a clone of tidb-docs-cn.bundle.)
"""
import argparse, hashlib, http.server, json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time


class Embed(http.server.BaseHTTPRequestHandler):
    hang = False

    def log_message(self, *a):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if Embed.hang:
            time.sleep(30)  # the client gives up long before
            return
        inputs = json.loads(body)["input"]
        data = []
        for i, text in enumerate(inputs):
            v = [0.0] * 64
            for ch in text:
                v[hashlib.md5(ch.encode()).digest()[0] % 64] += 1
            data.append({"object": "embedding", "index": i, "embedding": v})
        out = json.dumps({"object": "list", "data": data, "model": "fake"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def serve():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Embed)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: connections are refused
    return port


def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)


QUERIES = ["TiKV 磁盘快满了应该怎么处理", "如何扩容 PD 节点", "慢查询日志在哪里看", "备份恢复失败怎么办", "连接数打满如何排查",
           "升级后性能下降", "如何修改 GC 时间", "事务冲突 重试", "Region 分裂 热点", "内存使用过高 OOM", "DDL 卡住", "数据导入 Lightning 报错"]


def measure(kb, repo, mode, tag, n):
    ms, took, degraded = [], [], set()
    for i in range(n):
        q = f"{QUERIES[i % len(QUERIES)]} {tag}{i}"  # new to the query cache
        t = time.perf_counter()
        p = subprocess.run([kb, "search", "--json", "-q", "-n", "10", "--mode", mode, q], cwd=repo, capture_output=True, text=True)
        ms.append((time.perf_counter() - t) * 1000)
        if p.returncode:
            sys.exit(f"{tag}: exit {p.returncode}: {p.stderr}")
        r = json.loads(p.stdout)
        took.append(r["took_ms"])
        degraded.add((r["mode"], r["degraded"][:60]))
    return ms, took, degraded


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--budget-ms", type=int, default=1500)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="dead-endpoint-")
    repo = os.path.join(tmp, "repo")
    subprocess.run(["git", "clone", "-q", a.repo, repo], check=True)
    srv = serve()
    ok_url = f"http://127.0.0.1:{srv.server_address[1]}/v1"
    git(repo, "config", "kb.embed.baseURL", ok_url)
    git(repo, "config", "kb.embed.model", "fake-embed")
    git(repo, "config", "kb.embed.queryTimeoutMs", str(a.budget_ms))
    t = time.perf_counter()
    p = subprocess.run([a.kb, "index", "--json", "-q", "--embed", "sync"], cwd=repo, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"index: {p.stderr}")
    print(f"indexed with vectors in {time.perf_counter() - t:.1f}s", file=sys.stderr)

    rows = {}
    rows["lexical"] = measure(a.kb, repo, "lexical", "lex", a.n)
    rows["hybrid-ok"] = measure(a.kb, repo, "hybrid", "ok", a.n)
    git(repo, "config", "kb.embed.baseURL", f"http://127.0.0.1:{free_port()}/v1")
    git(repo, "config", "kb.embed.cooldown", "0")
    rows["refused"] = measure(a.kb, repo, "hybrid", "ref", a.n)
    git(repo, "config", "--unset", "kb.embed.cooldown")
    measure(a.kb, repo, "hybrid", "open", 1)  # opens the breaker
    rows["refused-open"] = measure(a.kb, repo, "hybrid", "refo", a.n)
    Embed.hang = True
    git(repo, "config", "kb.embed.baseURL", ok_url)
    git(repo, "config", "kb.embed.cooldown", "0")
    rows["hanging"] = measure(a.kb, repo, "hybrid", "hang", max(3, a.n // 2))
    git(repo, "config", "--unset", "kb.embed.cooldown")
    measure(a.kb, repo, "hybrid", "hopen", 1)
    rows["hanging-open"] = measure(a.kb, repo, "hybrid", "hango", a.n)
    srv.shutdown()

    base = statistics.median(rows["lexical"][0])
    out_load = os.getloadavg()[0]
    out = {"repo": a.repo, "budget_ms": a.budget_ms, "n": a.n, "load_avg_1m": round(out_load, 1)}
    for k, (ms, took, deg) in rows.items():
        med = statistics.median(ms)
        out[k] = {"p50_ms": round(med, 1), "max_ms": round(max(ms), 1), "vs_lexical": round(med / base, 2),
                  "over_lexical_ms": round(med - base, 1), "search_took_p50_ms": statistics.median(took),
                  "degraded": sorted({d for _, d in deg})}
    out["targets"] = {"refused_p50_le_300ms": out["refused"]["p50_ms"] <= 300,
                      "hanging_p50_le_budget_plus_100ms": out["hanging"]["p50_ms"] <= a.budget_ms + 100}
    print(json.dumps(out, ensure_ascii=False, indent=1))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
