package main

import (
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestDocsCorpus indexes the real Chinese documentation repository (with
// its real history) and checks answers a TiDB operator would expect.
func TestDocsCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 1222 real documents")
	}
	dir := gittest.Clone(t, gittest.CorpusBundle(t, "tidb-docs-cn.bundle"))

	// Index the parent first, then HEAD: only the blobs HEAD changed are read.
	changed := strings.Fields(gittest.Git(t, dir, "diff", "--name-only", "--no-renames", "--diff-filter=AM", "HEAD~1", "HEAD"))
	st := indexJSON(t, dir, "--rev", "HEAD~1")
	if st.Files != 1222 && st.Files < 1000 {
		t.Fatalf("HEAD~1 has %d files", st.Files)
	}
	st = indexJSON(t, dir)
	if st.BlobsNew != len(changed) {
		t.Fatalf("HEAD after HEAD~1: %d new blobs, want %d (the files HEAD changed)", st.BlobsNew, len(changed))
	}

	for _, tt := range []struct{ query, want string }{
		{"TiDB Lightning 断点续传", "tidb-lightning/tidb-lightning-checkpoints.md"},
		{"OOM 内存溢出 排查", "troubleshoot-tidb-oom.md"},
		{"慢查询日志", "identify-slow-queries.md"},
	} {
		r := searchJSON(t, dir, "-n", "3", tt.query)
		if !contains(paths(r), tt.want) {
			t.Errorf("%q: want %s in top 3, got %v", tt.query, tt.want, paths(r))
		}
	}

	// An old commit answers from its own tree, cited at its own SHA.
	old := gittest.Git(t, dir, "rev-parse", "HEAD~100")
	r := searchJSON(t, dir, "--rev", "HEAD~100", "-n", "1", "慢查询日志")
	if r.Commit != old || len(r.Results) != 1 || !strings.HasPrefix(r.Results[0].Citation, old+":") {
		t.Fatalf("--rev HEAD~100: %+v", r)
	}
	out, _, code := kb(t, dir, "show", r.Results[0].Citation)
	if code != 0 || strings.TrimSpace(out) == "" {
		t.Fatalf("show %s: %d", r.Results[0].Citation, code)
	}
}

// TestDocsCorpusHybrid embeds the real corpus with the hash embedder and
// checks hybrid answers, the vectors' coverage, and that a second index run
// embeds nothing.
func TestDocsCorpusHybrid(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds 13k real chunks")
	}
	dir := gittest.Clone(t, gittest.CorpusBundle(t, "tidb-docs-cn.bundle"))
	gittest.Git(t, dir, "config", "kb.embed.provider", "hash")
	st := indexJSON(t, dir)
	if st.Embed == nil || st.Embed.Embedded != st.Chunks {
		t.Fatalf("embedding: %+v, %d chunks", st.Embed, st.Chunks)
	}
	for _, tt := range []struct{ query, want string }{
		{"TiDB Lightning 断点续传", "tidb-lightning/tidb-lightning-checkpoints.md"},
		{"慢查询日志", "identify-slow-queries.md"},
	} {
		r := searchJSON(t, dir, "-n", "5", tt.query)
		if r.Mode != "hybrid" || r.Dense == nil || r.Dense.Vectors != r.Dense.Chunks {
			t.Fatalf("%q: mode %s, dense %+v", tt.query, r.Mode, r.Dense)
		}
		if !contains(paths(r), tt.want) {
			t.Errorf("%q: want %s in top 5, got %v", tt.query, tt.want, paths(r))
		}
	}
	if again := indexJSON(t, dir); again.Embed.Embedded != 0 {
		t.Fatalf("second run embedded %d chunks", again.Embed.Embedded)
	}
}
