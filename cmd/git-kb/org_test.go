package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/hooks"
	"github.com/git-kb/git-kb/org/orgtest"
	"github.com/git-kb/git-kb/search"
)

// TestOrgCommands: git kb publish, search --org and show of an org
// citation, against a real Weaviate; what --org refuses; and
// kb.org.autoPublish through a real post-commit hook.
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

	// The team's synonyms count in what --org asks: a word only the
	// team's file knows finds the published runbook, and --no-synonyms
	// and --no-expand leave it out.
	syn := filepath.Join(t.TempDir(), "syn.txt")
	if err := os.WriteFile(syn, []byte("zqxback => 回滚\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := searchJSON(t, dir, "--org", "--synonyms", syn, "zqxback"); len(r.Results) == 0 || r.Results[0].Repo != "team/runbooks" {
		t.Errorf("search --org --synonyms: %+v", r.Results)
	}
	gittest.Git(t, dir, "config", "kb.synonyms", syn)
	if r := searchJSON(t, dir, "--org", "zqxback"); len(r.Results) == 0 {
		t.Errorf("search --org with kb.synonyms: no results")
	}
	for _, off := range []string{"--no-synonyms", "--no-expand"} {
		if r := searchJSON(t, dir, "--org", off, "zqxback"); len(r.Results) != 0 {
			t.Errorf("search --org %s: %+v", off, r.Results)
		}
	}
	gittest.Git(t, dir, "config", "--unset", "kb.synonyms")

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

	// kb.org.autoPublish: the post-commit hook's background runner
	// publishes HEAD after indexing it, on the default branch only.
	kbBin(t, dir, "hooks", "install")
	gittest.Git(t, dir, "config", "kb.org.autoPublish", "true")
	onMain := gittest.Commit(t, dir, "add the freeze runbook", map[string]string{"runbooks/freeze.md": "# 封网\n\n封网期间禁止发布，紧急变更走审批流程 zqxfreeze。\n"})
	waitLogged(t, filepath.Join(dir, ".git"), "published team/runbooks at "+onMain[:12], "the hook runner did not publish the commit on main")
	r = searchJSON(t, dir, "--org", "zqxfreeze 封网")
	if len(r.Results) == 0 || r.Results[0].Path != "runbooks/freeze.md" || !strings.HasPrefix(r.Results[0].Citation, "team/runbooks@"+onMain+":") {
		t.Fatalf("search --org after the hook published %s: %+v", onMain[:12], r.Results)
	}
	gittest.Git(t, dir, "checkout", "-q", "-b", "side")
	onSide := gittest.Commit(t, dir, "a side note", map[string]string{"runbooks/side.md": "# 旁支\n\n只在旁支上的说明 zqxside。\n"})
	// The runner logs "indexed" after its publish step: by then a
	// publish would have been logged too.
	waitLogged(t, filepath.Join(dir, ".git"), "indexed "+onSide[:12], "the hook runner did not index the commit on the side branch")
	log, _ := os.ReadFile(filepath.Join(dir, ".git", "kb", hooks.LogFile))
	if strings.Contains(string(log), "at "+onSide[:12]) {
		t.Errorf("a commit on a side branch was published:\n%s", log)
	}
	if r = searchJSON(t, dir, "--org", "zqxside 旁支"); len(r.Results) > 0 && r.Results[0].Path == "runbooks/side.md" {
		t.Errorf("search --org finds the side branch's file: %+v", r.Results[0])
	}
}
