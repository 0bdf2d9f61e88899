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
