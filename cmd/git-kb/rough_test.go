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

// tikvDoc holds words with "ti" inside them (duration, compactions, tidb)
// beside TiKV itself: the query's identifier parts must not be marked in them.
const tikvDoc = `# TiKV 磁盘空间

TiKV 磁盘快满了时，先调大 max-sub-compactions，再检查 duration 和 tidb 的配置。

处理步骤：扩容磁盘，或者清理过期数据。
`

// TestHighlightsWholeTokens: for "TiKV 磁盘快满了应该怎么处理" no output marks
// a piece of a word (dura**ti**on), in text, --json highlights and ask.
func TestHighlightsWholeTokens(t *testing.T) {
	dir := gittest.New(t, map[string]string{"docs/tikv.md": tikvDoc})
	const q = "TiKV 磁盘快满了应该怎么处理"
	bad := []string{"**ti**", "**Ti**D", "dura**", "compac**", "**kv**"}
	check := func(what, out string) {
		t.Helper()
		if !strings.Contains(out, "**TiKV**") || !strings.Contains(out, "**磁盘") {
			t.Errorf("%s: TiKV and 磁盘 not marked:\n%s", what, out)
		}
		for _, b := range bad {
			if strings.Contains(out, b) {
				t.Errorf("%s: marks a piece of a word (%s):\n%s", what, b, out)
			}
		}
	}
	out, errs, code := kb(t, dir, "search", "-q", q)
	if code != 0 {
		t.Fatalf("search: exit %d %s", code, errs)
	}
	check("search", out)
	r := searchJSON(t, dir, q)
	if len(r.Results) == 0 {
		t.Fatal("no results")
	}
	hl := r.Results[0].Highlights
	if !contains(hl, "TiKV") {
		t.Errorf("--json highlights %q lack TiKV", hl)
	}
	for _, h := range hl {
		// Each highlight, searched for as written, lands only on whole words.
		for _, w := range []string{"duration", "compactions", "tidb"} {
			if strings.Contains(w, strings.ToLower(h)) {
				t.Errorf("--json highlight %q is a piece of %q", h, w)
			}
		}
	}
	out, errs, code = kb(t, dir, "ask", "-q", "--no-stream", q)
	if code != 0 {
		t.Fatalf("ask: exit %d %s", code, errs)
	}
	check("ask", out)
}
