package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/mcp"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/review"
	"github.com/git-kb/git-kb/search"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// gitKBBinary builds the real git-kb binary once per test run, for tests
// that must talk to it as a separate process.
func gitKBBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gitkb-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "git-kb")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("build git-kb: %v\n%s", binErr, binPath)
	}
	return binPath
}

// mcpSession starts `git-kb mcp` in dir and connects the SDK's client.
func mcpSession(t *testing.T, dir string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(gitKBBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = dir, gittest.Env()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	client := sdk.NewClient(&sdk.Implementation{Name: "git-kb-test", Version: "1"}, nil)
	s, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// callTool calls a tool and decodes its structured result into out. It
// returns the tool error's text, or "" on success.
func callTool(t *testing.T, s *sdk.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	if res.IsError {
		var msg []string
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				msg = append(msg, tc.Text)
			}
		}
		return strings.Join(msg, "\n")
	}
	if out != nil {
		// Decode into a zero value: a reused struct would keep fields
		// that this result omits.
		reflect.ValueOf(out).Elem().SetZero()
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s result: %v\n%s", name, err, b)
		}
	}
	return ""
}

func TestMCPServer(t *testing.T) {
	dir := gittest.New(t, docs)
	first := gittest.Git(t, dir, "rev-parse", "HEAD")
	os.WriteFile(filepath.Join(dir, "draft.md"), []byte("# 草稿\n未提交的文件\n"), 0o644)
	s := mcpSession(t, dir)

	// Tools: the five, each with a description and an input schema.
	lt, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 40 || tool.InputSchema == nil || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s: thin description, no schema or not read-only: %+v", tool.Name, tool)
		}
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "blame_context,context_pack,get_document,hybrid_search,index_status,keyword_search,list_collections" {
		t.Fatalf("tools: %v", names)
	}

	// hybrid_search indexes HEAD on first use; without an embedder it is
	// lexical. Citations pin the commit.
	var r search.Response
	if msg := callTool(t, s, "hybrid_search", map[string]any{"query": "回滚", "top_k": 3}, &r); msg != "" {
		t.Fatal(msg)
	}
	if r.Commit != first || len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
		t.Fatalf("hybrid_search: %+v", r)
	}
	if !strings.HasPrefix(r.Results[0].Citation, first+":docs/runbook/rollback.md#L") {
		t.Errorf("citation %q", r.Results[0].Citation)
	}

	// keyword_search with a path scope keeps only matching files.
	var kr search.Response
	if msg := callTool(t, s, "keyword_search", map[string]any{"query": "retry_count", "path": "*.go"}, &kr); msg != "" {
		t.Fatal(msg)
	}
	if len(kr.Results) == 0 {
		t.Fatal("keyword_search found nothing in *.go")
	}
	for _, x := range kr.Results {
		if !strings.HasSuffix(x.Path, ".go") {
			t.Errorf("path scope *.go returned %s", x.Path)
		}
	}

	// A path scope written the Windows way (as get_document reads paths).
	if msg := callTool(t, s, "keyword_search", map[string]any{"query": "回滚", "path": `docs\runbook\`}, &kr); msg != "" || len(kr.Results) == 0 || kr.Results[0].Path != "docs/runbook/rollback.md" {
		t.Errorf("keyword_search with path docs\\runbook\\: %q %+v", msg, kr)
	}

	// get_document from a citation: those lines, numbered, at that commit.
	var doc mcp.Document
	if msg := callTool(t, s, "get_document", map[string]any{"path": r.Results[0].Citation}, &doc); msg != "" {
		t.Fatal(msg)
	}
	if doc.Commit != first || doc.Path != "docs/runbook/rollback.md" || doc.StartLine != r.Results[0].StartLine || !strings.Contains(doc.Text, "回滚") {
		t.Errorf("get_document(citation): %+v", doc)
	}
	if msg := callTool(t, s, "get_document", map[string]any{"path": "docs/runbook/rollback.md", "start_line": 1, "end_line": 1}, &doc); msg != "" || !strings.HasPrefix(doc.Text, "1\t") || strings.Count(doc.Text, "\n") != 1 {
		t.Errorf("get_document(path, 1-1): %q %+v", msg, doc)
	}

	// Refused: traversal, absolute paths, untracked and missing files.
	for _, p := range []string{"../../etc/passwd", "/etc/passwd", "docs/../../etc/passwd", `..\..\etc\passwd`, "C:/Windows/win.ini", "draft.md", "nope.md", "HEAD:../../etc/passwd"} {
		msg := callTool(t, s, "get_document", map[string]any{"path": p}, nil)
		if msg == "" {
			t.Errorf("get_document(%q) succeeded", p)
		} else if !strings.Contains(msg, "outside the repository") && !strings.Contains(msg, "absolute path") && !strings.Contains(msg, "not a file tracked") {
			t.Errorf("get_document(%q): unclear refusal %q", p, msg)
		}
	}

	// Bad arguments are tool errors that say what is wrong, and the
	// server goes on serving.
	bad := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"hybrid_search", map[string]any{"query": "x", "top_k": "ten"}, "top_k"},
		{"hybrid_search", map[string]any{}, "query"},
		{"hybrid_search", map[string]any{"query": "  "}, "empty"},
		{"hybrid_search", map[string]any{"query": "x", "mode": "fuzzy"}, "lexical, dense or hybrid"},
		{"hybrid_search", map[string]any{"query": "x", "mode": "dense"}, "embedder"},
		{"hybrid_search", map[string]any{"query": "x", "top_k": 500}, "1 to 50"},
		{"hybrid_search", map[string]any{"query": "x", "rev": "no-such-branch"}, "no-such-branch"},
		{"keyword_search", map[string]any{"query": "x", "path": "/abs"}, "relative"},
		{"keyword_search", map[string]any{"query": "x", "path": `C:\Windows`}, "relative"},
		{"keyword_search", map[string]any{"query": "x", "path": `..\x`}, "relative"},
		{"hybrid_search", map[string]any{"query": "x", "path": `\etc`}, "relative"},
		{"index_status", map[string]any{"repo": "elsewhere"}, "no repository named"},
		{"get_document", map[string]any{"path": "docs/runbook/rollback.md", "start_line": 9999}, "outside"},
	}
	for _, b := range bad {
		msg := callTool(t, s, b.tool, b.args, nil)
		if !strings.Contains(msg, b.want) {
			t.Errorf("%s(%v): error %q, want it to mention %q", b.tool, b.args, msg, b.want)
		}
	}

	var st index.Report
	if msg := callTool(t, s, "index_status", nil, &st); msg != "" || !st.HeadIndex || st.Behind != 0 || st.Dense.On {
		t.Errorf("index_status: %q %+v", msg, st)
	}

	// A view written by another process shows up without a restart.
	second := gittest.Commit(t, dir, "add a postmortem", map[string]string{"docs/postmortem.md": "# 故障复盘\n\n熔断器配置错误导致雪崩。\n"})
	if msg := callTool(t, s, "index_status", nil, &st); msg != "" || st.HeadIndex || st.Behind != 1 {
		t.Errorf("index_status before indexing the new commit: %q %+v", msg, st)
	}
	indexer := exec.Command(gitKBBinary(t), "index", "--quiet")
	indexer.Dir, indexer.Env = dir, gittest.Env()
	if out, err := indexer.CombinedOutput(); err != nil {
		t.Fatalf("index: %v %s", err, out)
	}
	if msg := callTool(t, s, "index_status", nil, &st); msg != "" || !st.HeadIndex || st.LastIndexed != second {
		t.Errorf("index_status after another process indexed: %q %+v", msg, st)
	}
	if callTool(t, s, "keyword_search", map[string]any{"query": "熔断器"}, &kr); len(kr.Results) == 0 || kr.Commit != second {
		t.Errorf("new view not searched: %+v", kr)
	}
	if callTool(t, s, "keyword_search", map[string]any{"query": "熔断器", "rev": first}, &kr); len(kr.Results) != 0 || kr.Commit != first {
		t.Errorf("rev=%s should not know the new doc: %+v", first, kr)
	}

	// context_pack: blocks with citations within the budget.
	var pk pack.Pack
	if msg := callTool(t, s, "context_pack", map[string]any{"query": "熔断器 配置", "budget": 1000}, &pk); msg != "" || len(pk.Blocks) == 0 || pk.Tokens > 1000 || pk.Commit != second {
		t.Errorf("context_pack: %q %+v", msg, pk)
	}
	if msg := callTool(t, s, "context_pack", map[string]any{"query": "x", "budget": 5}, nil); !strings.Contains(msg, "100 to 100000") {
		t.Errorf("context_pack with a tiny budget: %q", msg)
	}

	// blame_context explains the last commit: the postmortem was added.
	var rep review.Report
	if msg := callTool(t, s, "blame_context", map[string]any{}, &rep); msg != "" || len(rep.Files) != 2 || rep.Head != second || rep.Base != first {
		t.Errorf("blame_context: %q %+v", msg, rep)
	}
	if msg := callTool(t, s, "blame_context", map[string]any{"range": "nope..HEAD"}, nil); !strings.Contains(msg, "nope") {
		t.Errorf("blame_context of a bad range: %q", msg)
	}

	var cols mcp.Collections
	if msg := callTool(t, s, "list_collections", nil, &cols); msg != "" || len(cols.Repos) != 1 || !cols.Repos[0].Default || len(cols.Repos[0].Views) != 2 || !cols.Repos[0].Fresh {
		t.Errorf("list_collections: %q %+v", msg, cols)
	}
	// (gittest.Commit staged draft.md with the postmortem.)
	if out := gittest.Git(t, dir, "status", "--porcelain"); out != "" {
		t.Errorf("the server changed the working tree: %q", out)
	}
}

func TestMCPServesSeveralRepos(t *testing.T) {
	main := gittest.New(t, docs)
	other := gittest.New(t, map[string]string{"wiki/oncall.md": "# 值班手册\n\n告警升级流程：先电话，再群通知。\n"})
	gittest.Git(t, main, "config", "--add", "kb.mcp.repos", other)
	s := mcpSession(t, main)
	var cols mcp.Collections
	if msg := callTool(t, s, "list_collections", nil, &cols); msg != "" || len(cols.Repos) != 2 {
		t.Fatalf("list_collections: %q %+v", msg, cols)
	}
	name := cols.Repos[1].Name
	var r search.Response
	if msg := callTool(t, s, "hybrid_search", map[string]any{"query": "告警升级", "repo": name}, &r); msg != "" || len(r.Results) == 0 || r.Results[0].Path != "wiki/oncall.md" {
		t.Errorf("search of %s: %q %+v", name, msg, r)
	}
	if callTool(t, s, "hybrid_search", map[string]any{"query": "告警升级"}, &r); len(r.Results) != 0 {
		t.Errorf("the default repo should not know the other's docs: %+v", r)
	}
}

func TestMCPHTTPAddress(t *testing.T) {
	for _, c := range []struct {
		http, listen, want string
		ok                 bool
	}{
		{":8765", "", "127.0.0.1:8765", true},
		{"127.0.0.1:8765", "", "127.0.0.1:8765", true},
		{"localhost:8765", "", "localhost:8765", true},
		{"[::1]:8765", "", "[::1]:8765", true},
		{"0.0.0.0:8765", "", "", false},
		{"10.1.2.3:8765", "", "", false},
		{"8765", "", "", false},
		{"", "0.0.0.0:8765", "0.0.0.0:8765", true},
		{":1", ":2", "", false},
	} {
		got, err := httpAddr(c.http, c.listen)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("httpAddr(%q, %q) = %q, %v", c.http, c.listen, got, err)
		}
	}
}

// TestMCPDenseWithGraphs: with stored HNSW graphs the server searches them
// (warm), and on a small view finds what the CLI's exact scan finds.
func TestMCPDenseWithGraphs(t *testing.T) {
	files := map[string]string{}
	for k, v := range docs {
		files[k] = v
	}
	topics := []string{"连接池", "回滚", "熔断", "限流", "告警", "备份", "扩容", "证书", "缓存", "索引"}
	for i := range 60 {
		a, b := topics[i%len(topics)], topics[(i*7+3)%len(topics)]
		files[fmt.Sprintf("notes/n%02d.md", i)] =
			"# 笔记 " + a + "\n\n" + a + "和" + b + "的处理经验：先看监控，再查日志。\n"
	}
	dir := gittest.New(t, files)
	gittest.Git(t, dir, "config", "kb.embed.provider", "hash")
	gittest.Git(t, dir, "config", "kb.ann.graphMin", "1")
	st := indexJSON(t, dir)
	if st.Embed == nil || st.Embed.Graphs == 0 {
		t.Fatalf("no graph built: %+v", st.Embed)
	}
	s := mcpSession(t, dir)
	for _, q := range []string{"连接池打满怎么办", "熔断和限流", "证书过期"} {
		cli := searchJSON(t, dir, "--mode", "dense", "-n", "5", q)
		var got search.Response
		if msg := callTool(t, s, "hybrid_search", map[string]any{"query": q, "mode": "dense", "top_k": 5}, &got); msg != "" {
			t.Fatal(msg)
		}
		if strings.Join(paths(got), ",") != strings.Join(paths(cli), ",") {
			t.Errorf("%s: MCP (graph) %v, CLI (exact) %v", q, paths(got), paths(cli))
		}
	}
	var hy search.Response
	if msg := callTool(t, s, "hybrid_search", map[string]any{"query": "回滚"}, &hy); msg != "" || hy.Mode != search.ModeHybrid || hy.Dense == nil {
		t.Errorf("hybrid by default with an embedder: %q %+v", msg, hy)
	}
}

// serveMCPHTTP starts git kb mcp --http on a free loopback port in dir,
// stopped when the test ends, and returns the URL it serves.
func serveMCPHTTP(t *testing.T, dir string) string {
	t.Helper()
	line := startServer(t, dir, gittest.Env(), "mcp", "--http", "127.0.0.1:0")
	return strings.Fields(line[strings.Index(line, "http://"):])[0]
}

// startServer starts git-kb ARGS (an mcp server over HTTP) in dir with
// env, and returns the first line it writes to stderr, which says where it
// serves; the server is killed at the end of the test.
func startServer(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(gitKBBinary(t), args...)
	cmd.Dir, cmd.Env = dir, env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || !strings.Contains(line, "http://") {
		t.Fatalf("no address printed: %q %v", line, err)
	}
	return line
}

// TestMCPOverHTTP: the streamable HTTP transport, on a loopback port.
func TestMCPOverHTTP(t *testing.T) {
	dir := gittest.New(t, docs)
	url := serveMCPHTTP(t, dir)
	client := sdk.NewClient(&sdk.Implementation{Name: "git-kb-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer s.Close()
	var r search.Response
	if msg := callTool(t, s, "keyword_search", map[string]any{"query": "maxOpenConns"}, &r); msg != "" || len(r.Results) == 0 {
		t.Fatalf("search over HTTP: %q %+v", msg, r)
	}
}

// TestMCPOrgCitation: get_document reads an org search's citation
// (<repo>@<commit>:<path>#L..) from the served repository published under
// that name, and names the repository to open when none is.
func TestMCPOrgCitation(t *testing.T) {
	main := gittest.New(t, docs)
	other := gittest.New(t, map[string]string{"wiki/oncall.md": "# 值班手册\n\n告警升级流程：先电话，再群通知。\n"})
	gittest.Git(t, main, "config", "kb.org.repo", "team/main")
	gittest.Git(t, other, "config", "kb.org.repo", "team/wiki")
	gittest.Git(t, main, "config", "--add", "kb.mcp.repos", other)
	head := strings.TrimSpace(gittest.Git(t, other, "rev-parse", "HEAD"))
	s := mcpSession(t, main)
	var doc mcp.Document
	cite := "team/wiki@" + head + ":wiki/oncall.md#L3-L3"
	if msg := callTool(t, s, "get_document", map[string]any{"path": cite}, &doc); msg != "" || doc.Path != "wiki/oncall.md" || doc.Commit != head || !strings.Contains(doc.Text, "3\t告警升级流程") || strings.Contains(doc.Text, "值班手册") {
		t.Fatalf("get_document(%s): %q %+v", cite, msg, doc)
	}
	// The caller named the served repository that is not team/wiki.
	cols := mcp.Collections{}
	callTool(t, s, "list_collections", nil, &cols)
	msg := callTool(t, s, "get_document", map[string]any{"path": cite, "repo": cols.Repos[0].Name}, &doc)
	if !strings.Contains(msg, "team/wiki") || !strings.Contains(msg, "published as team/main") {
		t.Errorf("a citation of team/wiki read from team/main: %q", msg)
	}
	msg = callTool(t, s, "get_document", map[string]any{"path": "team/elsewhere@" + head + ":wiki/oncall.md#L1-L2"}, &doc)
	if !strings.Contains(msg, "open a clone of team/elsewhere") || !strings.Contains(msg, "team/main") {
		t.Errorf("a citation of a repository not served: %q", msg)
	}
}

// TestMCPRepositoryDeleted: the repository deleted while the server runs
// is reported as gone, not as a repository with no commits yet (whose
// advice, commit some files first, sends an agent the wrong way).
func TestMCPRepositoryDeleted(t *testing.T) {
	dir := gittest.New(t, docs)
	s := mcpSession(t, dir)
	var r search.Response
	if msg := callTool(t, s, "keyword_search", map[string]any{"query": "回滚"}, &r); msg != "" || len(r.Results) == 0 {
		t.Fatalf("keyword_search: %q %+v", msg, r)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"keyword_search", map[string]any{"query": "回滚"}},
		{"get_document", map[string]any{"path": "docs/runbook/rollback.md"}},
		{"index_status", nil},
	} {
		if msg := callTool(t, s, c.tool, c.args, nil); !strings.Contains(msg, "deleted or moved") || strings.Contains(msg, "no commits") {
			t.Errorf("%s after the repository was deleted: %q", c.tool, msg)
		}
	}
	var cols mcp.Collections
	if msg := callTool(t, s, "list_collections", nil, &cols); msg != "" || len(cols.Repos) != 1 || !strings.Contains(cols.Repos[0].Error, "deleted or moved") {
		t.Errorf("list_collections after the repository was deleted: %q %+v", msg, cols)
	}
}

// TestMCPBlameContextTooBig: blame_context whose report cannot fit in
// max_bytes even with every optional item dropped says so in its notes,
// as the command says so on stderr, instead of returning more than was
// asked for without a word.
func TestMCPBlameContextTooBig(t *testing.T) {
	dir := gittest.New(t, docs)
	s := mcpSession(t, dir)
	var rep review.Report
	if msg := callTool(t, s, "blame_context", map[string]any{"max_bytes": 100}, &rep); msg != "" || len(rep.Files) == 0 || !rep.Truncated {
		t.Fatalf("blame_context: %q %+v", msg, rep)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "does not fit in 100 bytes") {
		t.Errorf("notes of a report over max_bytes: %q", rep.Notes)
	}
	if msg := callTool(t, s, "blame_context", map[string]any{}, &rep); msg != "" || len(rep.Notes) != 0 {
		t.Errorf("a report that fits has notes: %q %q", msg, rep.Notes)
	}
}

// TestMCPBlameContextMaxBytesCeiling: max_bytes has a ceiling, stated in
// the schema, and a call over it is refused with what to ask for instead
// of a report of any size.
func TestMCPBlameContextMaxBytesCeiling(t *testing.T) {
	dir := gittest.New(t, docs)
	s := mcpSession(t, dir)
	var rep review.Report
	if msg := callTool(t, s, "blame_context", map[string]any{"max_bytes": 262144}, &rep); msg != "" || len(rep.Files) == 0 {
		t.Fatalf("max_bytes at the ceiling: %q %+v", msg, rep)
	}
	for _, n := range []int{262145, 1 << 40} {
		msg := callTool(t, s, "blame_context", map[string]any{"max_bytes": n}, &rep)
		if !strings.Contains(msg, fmt.Sprintf("max_bytes %d: want 1 to 262144", n)) {
			t.Errorf("max_bytes %d: %q, want a refusal naming the ceiling", n, msg)
		}
	}
	desc := toolSchemaDesc(t, s, "blame_context", "max_bytes")
	if !strings.Contains(desc, "1 to 262144") {
		t.Errorf("max_bytes description %q does not state the ceiling", desc)
	}
}

// toolSchemaDesc is the description of tool's argument arg, as the server
// lists it.
func toolSchemaDesc(t *testing.T, s *sdk.ClientSession, tool, arg string) string {
	t.Helper()
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != tool {
			continue
		}
		var schema struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		b, _ := json.Marshal(tl.InputSchema)
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		return schema.Properties[arg].Description
	}
	t.Fatalf("no tool %s", tool)
	return ""
}

// TestMCPRelatedBeyondTopK: hybrid_search's related results come after
// its top_k matches, are not counted in them, and number at most
// search.RelatedMax, as top_k's and related's descriptions say.
func TestMCPRelatedBeyondTopK(t *testing.T) {
	dir := gittest.New(t, shop)
	s := mcpSession(t, dir)
	top := toolSchemaDesc(t, s, "hybrid_search", "top_k")
	rel := toolSchemaDesc(t, s, "hybrid_search", "related")
	if !strings.Contains(top, "not counted") || !strings.Contains(rel, fmt.Sprintf("at most %d more results, beyond top_k", search.RelatedMax)) {
		t.Errorf("top_k %q, related %q: the descriptions do not say how related results count", top, rel)
	}
	for _, k := range []int{1, 2} {
		var plain, r search.Response
		if msg := callTool(t, s, "hybrid_search", map[string]any{"query": "Charge 扣款 已退款", "top_k": k}, &plain); msg != "" {
			t.Fatal(msg)
		}
		if msg := callTool(t, s, "hybrid_search", map[string]any{"query": "Charge 扣款 已退款", "top_k": k, "related": true}, &r); msg != "" {
			t.Fatal(msg)
		}
		matches, related := 0, 0
		for i, x := range r.Results {
			if x.Related == nil {
				if related > 0 || i >= len(plain.Results) || x.Path != plain.Results[i].Path {
					t.Errorf("top_k %d: result %d %s: the matches differ from those without related, or follow related ones", k, i, x.Path)
				}
				matches++
			} else {
				related++
			}
		}
		if matches != len(plain.Results) || matches > k || related == 0 || related > search.RelatedMax {
			t.Errorf("top_k %d: %d matches (%d without related), %d related: %v", k, matches, len(plain.Results), related, paths(r))
		}
	}
}

// TestMCPStdioBadLine: git kb mcp (a real process over stdin/stdout)
// answers a line that is not JSON-RPC with a JSON-RPC error and keeps
// serving: a search after it is answered, and the server exits 0 when
// its input ends. The SDK's reader alone ended the server at such a line.
func TestMCPStdioBadLine(t *testing.T) {
	dir := gittest.New(t, docs)
	cmd := exec.Command(gitKBBinary(t), "mcp")
	cmd.Dir, cmd.Env = dir, gittest.Env()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// next is the first line written, in any order (the answers to
	// concurrent requests), that holds want.
	var seen []string
	next := func(want string) string {
		t.Helper()
		deadline := time.After(time.Minute)
		for i := 0; ; {
			for ; i < len(seen); i++ {
				if strings.Contains(seen[i], want) {
					return seen[i]
				}
			}
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("git kb mcp ended its output waiting for %s; stderr: %s", want, stderr.String())
				}
				seen = append(seen, l)
			case <-deadline:
				t.Fatalf("no %s in %q", want, seen)
			}
		}
	}
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`oops, not json`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"keyword_search","arguments":{"query":"maxOpenConns"}}}`,
	} {
		if _, err := fmt.Fprintln(in, l); err != nil {
			t.Fatal(err)
		}
	}
	next(`"id":1,"result"`)
	if l := next(`"code":-32700`); !strings.Contains(l, `"id":null`) {
		t.Errorf("parse error %q: want id null", l)
	}
	if l := next(`"id":2`); !strings.Contains(l, `"citation"`) || strings.Contains(l, `"isError":true`) {
		t.Errorf("search after the bad line: %.300s", l)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("git kb mcp at the end of its input: %v; stderr: %s", err, stderr.String())
	}
}

// TestMCPHTTPIdleSession: over HTTP a session that sends no request for
// kb.mcp.idleTimeout is ended; a session in use is not. The SDK's client
// that comes back after the timeout gets an error that says the session
// is gone ("session not found": HTTP 404), and a new session works.
func TestMCPHTTPIdleSession(t *testing.T) {
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "kb.mcp.idleTimeout", "2s")
	line := startServer(t, dir, gittest.Env(), "mcp", "--http", "127.0.0.1:0")
	if !strings.Contains(line, "a session idle for 2s ends") {
		t.Fatalf("startup line %q: want the idle timeout", line)
	}
	url := strings.Fields(line[strings.Index(line, "http://"):])[0]
	connect := func() *sdk.ClientSession {
		t.Helper()
		client := sdk.NewClient(&sdk.Implementation{Name: "git-kb-test", Version: "1"}, nil)
		s, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatalf("connect %s: %v", url, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	search := func(s *sdk.ClientSession) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "keyword_search", Arguments: map[string]any{"query": "maxOpenConns"}})
		return err
	}
	idle, busy := connect(), connect()
	if err := search(idle); err != nil {
		t.Fatal(err)
	}
	for range 7 { // 3.5s of calls every 0.5s: never idle for 2s
		if err := search(busy); err != nil {
			t.Fatalf("a session in use was ended: %v", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// The SDK's client learns it at once, from its event stream's 404
	// (the error's text; its type is the closed connection's).
	if err := search(idle); err == nil || !strings.Contains(err.Error(), sdk.ErrSessionMissing.Error()) {
		t.Fatalf("a call after 3.5s idle: %v, want the session gone", err)
	}
	if err := search(connect()); err != nil {
		t.Fatalf("a new session after the timeout: %v", err)
	}
}

// TestMCPStdioAnswersEveryRequestBeforeEOF: requests written at once and
// then the end of input, as `printf '%s\n' REQUEST... | git kb mcp` does,
// all get their replies before git kb mcp exits. The SDK ended the
// session at the end of input and dropped the calls still running (here
// the searches, the first of which indexes the repository).
func TestMCPStdioAnswersEveryRequestBeforeEOF(t *testing.T) {
	dir := gittest.New(t, docs)
	reqs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hybrid_search","arguments":{"query":"回滚"}}}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"keyword_search","arguments":{"query":"maxOpenConns"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"index_status","arguments":{}}}`,
	}
	cmd := exec.Command(gitKBBinary(t), "mcp")
	cmd.Dir, cmd.Env = dir, gittest.Env()
	cmd.Stdin = strings.NewReader(strings.Join(reqs, "\n") + "\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("git kb mcp: %v; stderr: %s", err, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("git kb mcp did not exit after its input ended; stdout: %.500s", stdout.String())
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("output line %.200q: %v", l, err)
		}
		got[string(m.ID)] = l
	}
	for _, id := range []string{`1`, `2`, `"three"`, `4`, `5`} {
		l, ok := got[id]
		if !ok {
			t.Errorf("no reply to request %s; replies: %d, stderr: %s", id, len(got), stderr.String())
			continue
		}
		if !strings.Contains(l, `"result"`) || strings.Contains(l, `"isError":true`) {
			t.Errorf("reply to %s: %.300s", id, l)
		}
	}
	if !strings.Contains(got[`2`], `"citation"`) || !strings.Contains(got[`"three"`], "maxOpenConns") {
		t.Errorf("search replies without results:\n%.300s\n%.300s", got[`2`], got[`"three"`])
	}
	if len(got) != 5 {
		t.Errorf("%d replies, want 5: %v", len(got), got)
	}
}
