package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"testing"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/mcp"
	"github.com/git-kb/git-kb/search"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tookMs is the one field of search --json that is timing, not ranking.
var tookMs = regexp.MustCompile(`"took_ms": [0-9]+`)

// TestFrontEndsAnswerAlike is issue 16's check that the front ends only
// translate: for each question and flag set, `git kb search --json` prints
// byte for byte what the engine answers when called directly (encoded the
// same way), and the MCP tools (in process) return the same response.
// Hybrid, with the built-in hash embedder, so dense retrieval and fusion
// are on the path too.
func TestFrontEndsAnswerAlike(t *testing.T) {
	ctx := context.Background()
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "kb.embed.provider", "hash")
	if _, errs, code := kb(t, dir, "index", "-q"); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.Open(ctx, repo, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	repos, err := mcpRepos(ctx, env{Stdout: io.Discard, Stderr: io.Discard, Dir: dir}, repo)
	if err != nil {
		t.Fatal(err)
	}
	serverT, clientT := sdk.NewInMemoryTransports()
	if _, err := mcp.NewServer(version, repos).Connect(ctx, serverT, nil); err != nil {
		t.Fatal(err)
	}
	session, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	cases := []struct {
		flags []string
		req   search.Request // what the flags ask the engine for
		tool  string         // the MCP tool asking the same, if any
		args  map[string]any
	}{
		{nil, search.Request{K: 10, PerFile: 1}, "hybrid_search", map[string]any{"top_k": 10}},
		{[]string{"-n", "3", "--per-file", "2"}, search.Request{K: 3, PerFile: 2}, "", nil},
		{[]string{"--related"}, search.Request{K: 10, PerFile: 1, Related: true}, "hybrid_search", map[string]any{"top_k": 10, "related": true}},
		{[]string{"--mode", "lexical", "-n", "20"}, search.Request{K: 20, PerFile: 1, Mode: search.ModeLexical}, "keyword_search", map[string]any{"top_k": 20}},
	}
	questions := []string{"发布失败后如何回滚", "连接池 retry_count 配置", "retry count", "RetryCount", `"连接池打满" -测试`, "回滚 path:docs/", "@@RetryCount", "Demo service 是什么", "nothing matches this"}
	compared := 0
	for _, q := range questions {
		for _, c := range cases {
			cli, errs, code := kb(t, dir, append(append([]string{"search", "--json", "-q"}, c.flags...), q)...)
			if code != 0 {
				t.Fatalf("search %v %q: exit %d: %s", c.flags, q, code, errs)
			}
			req := c.req
			req.Query, req.Fusion = q, search.FusionRRF
			if req.Parsed, err = search.ParseQuery(q); err != nil {
				t.Fatal(err)
			}
			resp, err := eng.Search(ctx, engine.SearchRequest{Request: req, Rev: "HEAD"})
			if err != nil {
				t.Fatalf("engine %q: %v", q, err)
			}
			resp.Timings = nil
			var direct bytes.Buffer
			writeJSON(&direct, resp)
			if a, b := tookMs.ReplaceAllString(cli, `"took_ms": 0`), tookMs.ReplaceAllString(direct.String(), `"took_ms": 0`); a != b {
				t.Errorf("search %v %q:\ncli:    %s\nengine: %s", c.flags, q, a, b)
			}
			compared++
			if c.tool == "" {
				continue
			}
			args := map[string]any{"query": q}
			for k, v := range c.args {
				args[k] = v
			}
			var fromMCP, fromCLI search.Response
			if msg := callTool(t, session, c.tool, args, &fromMCP); msg != "" {
				t.Fatalf("%s %q: %s", c.tool, q, msg)
			}
			if err := json.Unmarshal([]byte(cli), &fromCLI); err != nil {
				t.Fatal(err)
			}
			// The tools leave out the analyzed terms (search.Response.Terms);
			// everything else is the same response.
			fromCLI.Terms, fromCLI.TookMs, fromMCP.TookMs = nil, 0, 0
			var a, b bytes.Buffer
			writeJSON(&a, fromCLI)
			writeJSON(&b, fromMCP)
			if a.String() != b.String() {
				t.Errorf("%s %q differs from search %v:\ncli: %s\nmcp: %s", c.tool, q, c.flags, a.String(), b.String())
			}
		}
	}
	if compared != len(questions)*len(cases) {
		t.Fatalf("compared %d answers", compared)
	}
}
