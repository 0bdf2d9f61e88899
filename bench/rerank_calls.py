#!/usr/bin/env python3
"""Rerank call count and latency, cold and cached, over a dev query set.

No model runs on the test machine, so the judge is a local stand-in that
speaks the chat-completions wire format and answers at once (a score from
word overlap): the figures are git-kb's own cost and the calls it makes,
not a model's latency. Cold: an empty cache; cached: the same queries
again.

Usage: rerank_calls.py --kb PATH --repo DIR --queries FILE.jsonl
"""
import argparse, json, os, statistics, subprocess, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALLS = [0]
LOCK = threading.Lock()


class Judge(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with LOCK:
            CALLS[0] += 1
        text = body["messages"][-1]["content"]
        q, _, passage = text.partition("\n\nPassage:\n")
        words = set(q.replace("Query: ", "").split())
        score = min(10, sum(1 for w in words if w in passage) * 3)
        out = {"id": "x", "object": "chat.completion", "created": 1, "model": "judge",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": str(score)}, "finish_reason": "stop"}]}
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--queries", required=True)
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Judge)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    env = dict(os.environ, GIT_CONFIG_COUNT="2",
               GIT_CONFIG_KEY_0="kb.chat.baseURL", GIT_CONFIG_VALUE_0=f"http://127.0.0.1:{srv.server_port}/v1",
               GIT_CONFIG_KEY_1="kb.chat.model", GIT_CONFIG_VALUE_1="judge")
    qs = [json.loads(l)["query"] for l in open(a.queries) if l.strip()]
    subprocess.run(["rm", "-rf", os.path.join(a.repo, ".git", "kb", "cache", "rerank")])
    out = {}
    for phase in ("cold", "cached"):
        CALLS[0] = 0
        lat = []
        for q in qs:
            t = time.perf_counter()
            subprocess.run([a.kb, "search", "-q", "--json", "--rerank", "llm", "--", q], cwd=a.repo, env=env,
                           check=True, capture_output=True)
            lat.append((time.perf_counter() - t) * 1000)
        out[f"{phase}_calls"] = CALLS[0]
        out[f"{phase}_calls_per_query"] = round(CALLS[0] / len(qs), 1)
        out[f"{phase}_p50_ms"] = round(statistics.median(lat), 1)
        out[f"{phase}_p95_ms"] = round(sorted(lat)[int(0.95 * (len(lat) - 1))], 1)
    out["queries"] = len(qs)
    print(json.dumps(out))
    srv.shutdown()


if __name__ == "__main__":
    main()
