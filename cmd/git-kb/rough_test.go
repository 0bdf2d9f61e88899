package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/review"
)

// TestJSONFlagEverywhere: every command with a machine-readable output
// takes --json, as the same as --format json where --format exists.
func TestJSONFlagEverywhere(t *testing.T) {
	dir := gittest.New(t, docs)
	gittest.Commit(t, dir, "pool docs", map[string]string{"docs/adr/0001-connection-pool.md": docs["docs/adr/0001-connection-pool.md"] + "\n连接池打满时也要看 maxIdleConns。\n"})
	var p pack.Pack
	kbJSON(t, dir, &p, "context", "-q", "--json", "--budget", "2000", "连接池打满")
	if len(p.Blocks) == 0 {
		t.Errorf("context --json: no blocks: %+v", p)
	}
	var r review.Report
	kbJSON(t, dir, &r, "blame-context", "-q", "--json", "HEAD")
	if len(r.Files) != 1 || r.Files[0].Path != "docs/adr/0001-connection-pool.md" {
		t.Errorf("blame-context --json: %+v", r.Files)
	}
	for _, args := range [][]string{{"index", "--json"}, {"search", "--json", "连接池"}, {"status", "--json"}, {"doctor", "--json"}, {"gc", "--json"}} {
		out, errs, code := kb(t, dir, args...)
		if code != 0 || !json.Valid([]byte(out)) {
			t.Errorf("%v: exit %d, %s\n%s", args, code, errs, out)
		}
	}
	for _, bad := range [][]string{{"context", "--json", "--format", "xml", "x"}, {"blame-context", "--json", "--format", "md"}} {
		if _, errs, code := kb(t, dir, bad...); code != exitUsage || !strings.Contains(errs, "disagree") {
			t.Errorf("%v: exit %d %q, want 2 and a clear message", bad, code, errs)
		}
	}
}

// TestRevNotACommit: a blob or tree SHA given as --rev says what it is
// and that a commit is needed, instead of "unknown revision".
func TestRevNotACommit(t *testing.T) {
	dir := gittest.New(t, docs)
	blob := gittest.Git(t, dir, "rev-parse", "HEAD:README.md")
	tree := gittest.Git(t, dir, "rev-parse", "HEAD^{tree}")
	for _, c := range []struct{ rev, want string }{{blob, "is a blob"}, {tree, "is a tree"}, {blob[:10], "is a blob"}} {
		for _, args := range [][]string{{"search", "--rev", c.rev, "回滚"}, {"index", "--rev", c.rev}, {"context", "--rev", c.rev, "回滚"}} {
			_, errs, code := kb(t, dir, args...)
			if code != exitError || !strings.Contains(errs, c.want) || !strings.Contains(errs, "give a commit") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("%v: exit %d %q, want 1 and %q", args, code, errs, c.want)
			}
		}
	}
	if _, errs, code := kb(t, dir, "search", "--rev", "no-such-branch", "x"); code != exitError || !strings.Contains(errs, "unknown revision") {
		t.Errorf("unknown rev: %d %q", code, errs)
	}
}
