package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/search"
)

// A Windows checkout (core.autocrlf=true) has CRLF files in the work tree
// but the same blobs in git. Everything keyed by blob (chunks, lines,
// citations, snippets) must come out the same as from an LF checkout,
// with and without --worktree (git sees no change, so there is no overlay).
func TestCRLFCheckoutSameResults(t *testing.T) {
	src := gittest.New(t, docs)
	lf := gittest.Clone(t, src)
	crlf := filepath.Join(t.TempDir(), "crlf")
	gittest.Git(t, filepath.Dir(crlf), "clone", "-q", "-c", "core.autocrlf=true", src, crlf)
	b, err := os.ReadFile(filepath.Join(crlf, "docs/runbook/rollback.md"))
	if err != nil || !strings.Contains(string(b), "\r\n") {
		t.Fatalf("autocrlf checkout has no CRLF (err %v): the test would prove nothing", err)
	}
	if st := gittest.Git(t, crlf, "status", "--porcelain"); st != "" {
		t.Fatalf("git status in the CRLF checkout: %q", st)
	}

	strip := func(r search.Response) search.Response {
		r.TookMs = 0
		return r
	}
	for _, q := range []string{"发布失败后如何回滚", "连接池 retry_count", "RetryCount"} {
		want := strip(searchJSON(t, lf, q))
		if len(want.Results) == 0 {
			t.Fatalf("%q: no results in the LF checkout", q)
		}
		for _, args := range [][]string{{q}, {"--worktree", q}} {
			got := strip(searchJSON(t, crlf, args...))
			if !reflect.DeepEqual(got.Results, want.Results) || got.Commit != want.Commit {
				t.Errorf("search %v: CRLF checkout differs from LF:\n got %+v\nwant %+v", args, got.Results, want.Results)
			}
		}
	}
	cite := searchJSON(t, lf, "发布失败后如何回滚").Results[0].Citation
	wantShow, _, _ := kb(t, lf, "show", cite)
	gotShow, errs, code := kb(t, crlf, "show", cite)
	if code != 0 || gotShow != wantShow || strings.Contains(gotShow, "\r") {
		t.Errorf("show %s in the CRLF checkout: exit %d %s\n%q\nwant %q", cite, code, errs, gotShow, wantShow)
	}
}
