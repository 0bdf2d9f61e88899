#!/usr/bin/env python3
"""Do two git-kb binaries give the same MCP tool results?

The MCP side of search_identical.py: starts `git-kb mcp` of each binary in
REPO and calls, for every query of the files, hybrid_search (top 10, and
with related), keyword_search (top 20), context_pack for the first five,
then index_status, list_collections, get_document (a range, and a path
outside the repository) and blame_context HEAD~3..HEAD. Results are
compared after dropping took_ms and timings_ms; prints the first
difference and exits 1, else one line of counts.

Usage: mcp_identical.py OLD_BIN NEW_BIN REPO QUERIES.jsonl
"""
import json, subprocess, sys
def session(binary, repo):
    p = subprocess.Popen([binary, "mcp"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    n = [0]
    def call(method, params, notify=False):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            n[0] += 1; msg["id"] = n[0]
        p.stdin.write(json.dumps(msg) + "\n"); p.stdin.flush()
        if notify: return None
        while True:
            r = json.loads(p.stdout.readline())
            if r.get("id") == n[0]: return r
    call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cmp", "version": "1"}})
    call("notifications/initialized", {}, notify=True)
    return p, call
def norm(r):
    s = r.get("result", r.get("error"))
    def drop(o):
        if isinstance(o, dict):
            return {k: drop(v) for k, v in o.items() if k not in ("took_ms", "timings_ms")}
        if isinstance(o, list): return [drop(x) for x in o]
        return o
    s = drop(s)
    if isinstance(s, dict) and "content" in s:  # text content carries took_ms too
        s["content"] = [drop(json.loads(c["text"])) if c.get("type") == "text" and c["text"].startswith("{") else c for c in s["content"]]
    return json.dumps(s, ensure_ascii=False, sort_keys=True)
old_bin, new_bin, repo, qfile = sys.argv[1:5]
qs = [json.loads(l)["query"] for l in open(qfile) if l.strip()]
calls = []
for q in qs:
    calls += [("hybrid_search", {"query": q, "top_k": 10}), ("keyword_search", {"query": q, "top_k": 20}), ("hybrid_search", {"query": q, "related": True})]
for q in qs[:5]:
    calls.append(("context_pack", {"query": q, "budget": 3000}))
calls += [("index_status", {}), ("list_collections", {}), ("get_document", {"path": "README.md", "start_line": 1, "end_line": 9}), ("get_document", {"path": "../etc/passwd"}), ("blame_context", {"range": "HEAD~3..HEAD"})]
po, old = session(old_bin, repo); pn, new = session(new_bin, repo)
for i, (tool, args) in enumerate(calls):
    a = norm(old("tools/call", {"name": tool, "arguments": args})); b = norm(new("tools/call", {"name": tool, "arguments": args}))
    if a != b:
        print("DIFFERENT", tool, args, "\n old:", a[:1500], "\n new:", b[:1500]); sys.exit(1)
print(f"identical: {len(calls)} MCP tool calls ({len(qs)} queries) in {repo}")
po.kill(); pn.kill()
