package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/review"
	"github.com/git-kb/git-kb/search"
)

// TestBareRepository: in a real `git clone --bare` (a server's mirror, a CI
// cache), the commands that need no working tree work, with the index in
// the bare repository's kb/; hooks install, --worktree and --staged refuse
// with a clear message.
func TestBareRepository(t *testing.T) {
	src := gittest.New(t, docs)
	gittest.Commit(t, src, "pool", map[string]string{"docs/adr/0001-connection-pool.md": docs["docs/adr/0001-connection-pool.md"] + "\n连接池打满时也看 maxIdleConns。\n"})
	bare := filepath.Join(t.TempDir(), "mirror.git")
	gittest.Git(t, filepath.Dir(bare), "clone", "-q", "--bare", src, bare)
	head := gittest.Git(t, bare, "rev-parse", "HEAD")

	if st := indexJSON(t, bare); st.Commit != head {
		t.Fatalf("index: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(bare, "kb")); err != nil {
		t.Fatalf("no index under the bare repository's kb/: %v", err)
	}
	r := searchJSON(t, bare, "发布失败如何回滚")
	if r.Commit != head || len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
		t.Fatalf("search: %s %v", r.Commit, paths(r))
	}
	out, errs, code := kb(t, bare, "show", r.Results[0].Citation)
	if code != 0 || !strings.Contains(out, "回滚") {
		t.Errorf("show: exit %d %s", code, errs)
	}
	var rep index.Report
	kbJSON(t, bare, &rep, "status", "--json")
	if !rep.HeadIndex {
		t.Errorf("status: %+v", rep)
	}
	if out, errs, code = kb(t, bare, "context", "-q", "连接池打满"); code != 0 || !strings.Contains(out, "connection-pool.md") {
		t.Errorf("context: exit %d %s\n%s", code, errs, out)
	}
	var br review.Report
	kbJSON(t, bare, &br, "blame-context", "-q", "--json", "HEAD~1..HEAD")
	if len(br.Files) != 1 || br.Files[0].Path != "docs/adr/0001-connection-pool.md" {
		t.Errorf("blame-context: %+v", br.Files)
	}
	for _, args := range [][]string{{"gc", "--json"}, {"doctor", "--json"}} {
		if out, errs, code := kb(t, bare, args...); code != 0 || !strings.HasPrefix(strings.TrimSpace(out), "{") && !strings.HasPrefix(strings.TrimSpace(out), "[") {
			t.Errorf("%v: exit %d %s\n%s", args, code, errs, out)
		}
	}
	// Refusals: one clear line, exit 1, nothing written.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"hooks", "install"}, "bare repository"},
		{[]string{"search", "--worktree", "回滚"}, "no working tree"},
		{[]string{"context", "--worktree", "回滚"}, "no working tree"},
		{[]string{"blame-context", "--staged"}, "bare repository"},
	} {
		_, errs, code := kb(t, bare, c.args...)
		if code != exitError || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d %q, want 1 and %q", c.args, code, errs, c.want)
		}
	}
	for _, h := range []string{"post-checkout", "post-commit", "post-merge", "post-rewrite"} {
		if _, err := os.Stat(filepath.Join(bare, "hooks", h)); err == nil {
			t.Errorf("hook %s installed in a bare repository", h)
		}
	}

	// The MCP server, where a shared index lives.
	s := mcpSession(t, bare)
	var sr search.Response
	if msg := callTool(t, s, "keyword_search", map[string]any{"query": "连接池打满"}, &sr); msg != "" || len(sr.Results) == 0 || sr.Commit != head {
		t.Errorf("mcp keyword_search: %q %+v", msg, sr)
	}
	var doc struct {
		Text string `json:"text"`
	}
	if msg := callTool(t, s, "get_document", map[string]any{"path": "docs/runbook/rollback.md"}, &doc); msg != "" || !strings.Contains(doc.Text, "回滚") {
		t.Errorf("mcp get_document: %q %+v", msg, doc)
	}
	// No staging area: blame_context staged refuses as the command does,
	// rather than explaining every file as deleted.
	if msg := callTool(t, s, "blame_context", map[string]any{"staged": true}, &br); !strings.Contains(msg, "bare repository") {
		t.Errorf("mcp blame_context staged: %q %+v", msg, br.Files)
	}
}
