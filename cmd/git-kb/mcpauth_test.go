package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/search"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPTokenRules: which addresses need a token, and where it comes from.
func TestMCPTokenRules(t *testing.T) {
	dir := gittest.New(t, docs)
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	noEnv := env{Getenv: func(string) string { return "" }}
	for _, c := range []struct {
		addr, envToken, want string // want: token, or "error: <text>"
	}{
		{"127.0.0.1:8765", "", ""},
		{"[::1]:8765", "", ""},
		{"localhost:8765", "", ""},
		{"0.0.0.0:8765", "", "error: needs a bearer token"},
		{":8765", "", "error: needs a bearer token"},
		{"10.1.2.3:8765", "", "error: git config kb.mcp.token"},
		{"0.0.0.0:8765", "0123456789abcdef0123", "0123456789abcdef0123"},
		{"0.0.0.0:8765", "short", "error: at least 16"},
	} {
		e := noEnv
		if c.envToken != "" {
			e = env{Getenv: func(k string) string {
				if k == "GIT_KB_MCP_TOKEN" {
					return c.envToken
				}
				return ""
			}}
		}
		got, _, err := mcpHTTP(ctx, e, repo, c.addr)
		switch {
		case strings.HasPrefix(c.want, "error: "):
			if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(c.want, "error: ")) {
				t.Errorf("%s: want an error with %q, got %q, %v", c.addr, c.want, got, err)
			}
		case err != nil || got != c.want:
			t.Errorf("%s: got %q, %v; want %q", c.addr, got, err, c.want)
		}
	}
	gittest.Git(t, dir, "config", "kb.mcp.token", "from-git-config-0123456789")
	if got, _, err := mcpHTTP(ctx, noEnv, repo, "0.0.0.0:1"); err != nil || got != "from-git-config-0123456789" {
		t.Errorf("kb.mcp.token: %q %v", got, err)
	}
}

// bearer adds a token to every request of an HTTP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPListenNeedsToken: --listen on every interface refuses to start
// without a token; with one, requests without it or with a wrong one get
// 401 and the right one gets answers. The loopback Host check stays.
func TestMCPListenNeedsToken(t *testing.T) {
	dir := gittest.New(t, docs)
	bin := gitKBBinary(t)

	cmd := exec.Command(bin, "mcp", "--listen", "0.0.0.0:0")
	cmd.Dir, cmd.Env = dir, gittest.Env()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "kb.mcp.token") || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
		t.Fatalf("no token: want a one-line refusal saying how to set one, got %v:\n%s", err, out)
	}

	const token = "test-token-5f0c8a1e9b7d4c3a"
	line := startServer(t, dir, append(gittest.Env(), "GIT_KB_MCP_TOKEN="+token), "mcp", "--listen", "0.0.0.0:0")
	if !strings.Contains(line, "bearer token required") {
		t.Fatalf("start: %q", line)
	}
	addr := strings.Fields(line[strings.Index(line, "http://")+len("http://"):])[0]
	addr = strings.TrimSuffix(addr, "/")
	port := addr[strings.LastIndex(addr, ":")+1:]
	url := "http://127.0.0.1:" + port + "/"

	post := func(auth, host string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, auth := range []string{"", "Bearer wrong-token-0000000000", "Basic " + token, "Bearer " + token + "x", token} {
		if code := post(auth, ""); code != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, code)
		}
	}
	if code := post("Bearer "+token, ""); code != http.StatusOK {
		t.Errorf("right token: status %d", code)
	}
	// Over loopback, a foreign Host header is still refused (DNS rebinding).
	if code := post("Bearer "+token, "evil.example.com"); code != http.StatusForbidden {
		t.Errorf("foreign Host on loopback: status %d, want 403", code)
	}

	// A real client with the token.
	client := sdk.NewClient(&sdk.Implementation{Name: "git-kb-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	defer s.Close()
	var r search.Response
	if msg := callTool(t, s, "keyword_search", map[string]any{"query": "maxOpenConns"}, &r); msg != "" || len(r.Results) == 0 {
		t.Fatalf("search with the token: %q %+v", msg, r)
	}
}

// TestMCPHTTPRefusesCrossOrigin: a web page the user has open must not
// drive the loopback server: a request a browser marks cross-origin
// (Origin of another site, Sec-Fetch-Site: cross-site) gets 403, as the
// MCP transport spec asks of servers (validate Origin); same-origin
// requests and clients that send no Origin (agents) are served.
func TestMCPHTTPRefusesCrossOrigin(t *testing.T) {
	dir := gittest.New(t, docs)
	url := serveMCPHTTP(t, dir)
	origin := strings.TrimSuffix(url, "/")
	for _, c := range []struct {
		header map[string]string
		want   int
	}{
		{map[string]string{}, http.StatusOK},
		{map[string]string{"Origin": origin}, http.StatusOK},
		{map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": origin}, http.StatusOK},
		{map[string]string{"Origin": "http://evil.example.com"}, http.StatusForbidden},
		{map[string]string{"Origin": "null"}, http.StatusForbidden},
		{map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example.com"}, http.StatusForbidden},
		{map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://localhost:1"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("headers %v: status %d, want %d", c.header, resp.StatusCode, c.want)
		}
	}
}

// TestMCPHTTPClientGone: a client whose connection drops in the middle of
// a call (a timeout, a crash) gets its call cancelled, as if it had sent
// notifications/cancelled: no one can read the answer (the server keeps
// no event store to resume from), and calls to a repository run one at a
// time, so the work would hold up every other client. Here the call
// indexes a commit of thousands of files HEAD has not: cancelled, the
// view is not published.
func TestMCPHTTPClientGone(t *testing.T) {
	dir := gittest.New(t, docs)
	files := map[string]string{}
	for i := range 4000 {
		files[fmt.Sprintf("notes/%d/n%d.md", i%40, i)] = fmt.Sprintf("# 笔记 %d\n\n服务注册与发现：实例 %d 的心跳超时后被摘除，熔断与限流配置见 ADR %d。\n", i, i, i%17)
	}
	big := gittest.Commit(t, dir, "many notes", files)
	// HEAD has none of them: indexing big reads every one.
	gittest.Git(t, dir, "rm", "-q", "-r", "notes")
	gittest.Git(t, dir, "commit", "-q", "-m", "drop the notes")
	url := serveMCPHTTP(t, dir)
	connect := func(c *http.Client) *sdk.ClientSession {
		t.Helper()
		s, err := sdk.NewClient(&sdk.Implementation{Name: "git-kb-test", Version: "1"}, nil).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: c}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	other := connect(nil)
	// HEAD indexed, and the analyzer loaded, before the call under test.
	var r search.Response
	if msg := callTool(t, other, "keyword_search", map[string]any{"query": "心跳"}, &r); msg != "" {
		t.Fatal(msg)
	}
	gone := connect(&http.Client{Timeout: 300 * time.Millisecond})
	if _, err := gone.CallTool(context.Background(), &sdk.CallToolParams{Name: "keyword_search", Arguments: map[string]any{"query": "心跳", "rev": big}}); err == nil {
		t.Fatal("the call returned within the client's timeout: make the commit bigger")
	}
	// The other client's next call waits for the first to stop, then
	// finds the commit not indexed.
	var st index.Report
	if msg := callTool(t, other, "index_status", nil, &st); msg != "" {
		t.Fatal(msg)
	}
	for _, v := range st.Views {
		if v.Commit == big {
			t.Errorf("the call of a client that hung up ran to the end: %s indexed", big[:12])
		}
	}
}
