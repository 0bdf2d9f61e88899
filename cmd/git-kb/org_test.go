package main

import (
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/org/orgtest"
	"github.com/git-kb/git-kb/search"
)

// TestOrgCommands: git kb publish, search --org and show of an org
// citation, against a real Weaviate; and what --org refuses.
func TestOrgCommands(t *testing.T) {
	dir := gittest.New(t, docs)
	for _, args := range [][]string{
		{"search", "--org", "--rev", "HEAD", "回滚"},
		{"search", "--org", "--worktree", "回滚"},
		{"search", "--org", "--mode", "fuzzy", "回滚"},
		{"search", "--org", "--fusion", "max", "回滚"},
		{"search", "--org", "--alpha", "2", "回滚"},
		{"search", "--org", "--fusion", "rrf", "--alpha", "0.5", "回滚"},
		{"search", "--org", "--mode", "lexical", "--alpha", "0.5", "回滚"},
		{"search", "--alpha", "0.5", "回滚"},
		{"publish", "extra"},
	} {
		if _, errs, code := kb(t, dir, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errs)
		}
	}
	if _, errs, code := kb(t, dir, "search", "--org", "回滚"); code != 1 || !strings.Contains(errs, "kb.org.url") {
		t.Errorf("--org without kb.org.url: exit %d: %s", code, errs)
	}

	// Without the Chinese tokenizer's dictionary: it starts faster, and
	// the text property falls back to trigrams (--org does not use it).
	srv := orgtest.Cluster(t, 1, "WEAVIATE_GSE_CH=false")[0]
	gittest.Git(t, dir, "config", "kb.org.url", srv.URL)
	gittest.Git(t, dir, "config", "kb.org.repo", "team/runbooks")
	// A dry run before the collection exists says what a publish would do.
	out, errs, code := kb(t, dir, "publish", "--dry-run")
	if code != 0 || !strings.Contains(out, "would publish team/runbooks") || !strings.Contains(out, "publishing would create it") {
		t.Fatalf("publish --dry-run before the first publish: exit %d: %s%s", code, out, errs)
	}
	out, errs, code = kb(t, dir, "publish")
	if code != 0 || !strings.Contains(out, "published team/runbooks") {
		t.Fatalf("publish: exit %d: %s%s", code, out, errs)
	}
	r := searchJSON(t, dir, "--org", "发布失败后如何回滚")
	if len(r.Results) == 0 || r.Results[0].Repo != "team/runbooks" || r.Commit != "" || !strings.HasPrefix(r.Results[0].Citation, "team/runbooks@"+gittest.Git(t, dir, "rev-parse", "HEAD")+":") {
		t.Fatalf("search --org: %+v", r)
	}
	cit := r.Results[0].Citation
	out, errs, code = kb(t, dir, "show", cit)
	if code != 0 || !strings.Contains(out, "回滚") {
		t.Fatalf("show %s: exit %d: %s%s", cit, code, out, errs)
	}
	other := "team/else" + cit[strings.Index(cit, "@"):]
	if _, errs, code = kb(t, dir, "show", other); code != 1 || !strings.Contains(errs, "team/else") || !strings.Contains(errs, "team/runbooks") {
		t.Errorf("show of another repository's citation: exit %d: %s", code, errs)
	}
	out, _, code = kb(t, dir, "search", "--org", "发布失败后如何回滚")
	if code != 0 || !strings.Contains(out, "team/runbooks") || !strings.Contains(out, cit) {
		t.Errorf("search --org text: %s", out)
	}

	// MCP: hybrid_search org: true answers as search --org, takes mode
	// (no embedder here: lexical, said so) and min_score as for this
	// repository (min_score was left out for org).
	s := mcpSession(t, dir)
	var mr search.Response
	if msg := callTool(t, s, "hybrid_search", map[string]any{"query": "发布失败后如何回滚", "org": true}, &mr); msg != "" || len(mr.Results) == 0 || mr.Results[0].Citation != cit {
		t.Fatalf("hybrid_search org: %s %+v", msg, mr)
	}
	top := mr.Results[0].Score
	if msg := callTool(t, s, "hybrid_search", map[string]any{"query": "发布失败后如何回滚", "org": true, "mode": "hybrid"}, &mr); msg != "" || mr.Mode != search.ModeLexical || !strings.Contains(mr.Degraded, "no embedder") || len(mr.Results) == 0 {
		t.Errorf("hybrid_search org, mode hybrid without an embedder: %s %+v", msg, mr)
	}
	if msg := callTool(t, s, "hybrid_search", map[string]any{"query": "发布失败后如何回滚", "org": true, "min_score": top * 2}, &mr); msg != "" || len(mr.Results) != 0 {
		t.Errorf("hybrid_search org, min_score %v above the best score: %s %+v", top*2, msg, mr.Results)
	}
}
