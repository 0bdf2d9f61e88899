package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
)

func TestGCKeepsBranchHeadsAndRecentDropsTheRest(t *testing.T) {
	dir := gittest.New(t, map[string]string{"old/a.md": "# 旧文档\n\n旧的熔断配置说明。\n", "keep.md": "# 保留\n\n值班手册。\n"})
	first := gittest.Git(t, dir, "rev-parse", "HEAD")
	indexJSON(t, dir)
	// The second commit drops every file of the first but keep.md, so the
	// first segment stays live only through keep.md ...
	gittest.Remove(t, dir, "drop old", "old/a.md")
	gittest.Commit(t, dir, "new docs", map[string]string{"new/b.md": "# 新文档\n\n限流阈值说明。\n"})
	second := gittest.Git(t, dir, "rev-parse", "HEAD")
	indexJSON(t, dir)
	// ... and a branch keeps a third commit alive.
	gittest.Git(t, dir, "checkout", "-q", "-b", "feature")
	gittest.Commit(t, dir, "feature doc", map[string]string{"feature.md": "# 特性\n\n灰度开关说明。\n"})
	feature := gittest.Git(t, dir, "rev-parse", "HEAD")
	indexJSON(t, dir)
	gittest.Git(t, dir, "checkout", "-q", "main")
	mid := gittest.Git(t, dir, "rev-parse", "HEAD~1")
	indexJSON(t, dir, "--rev", mid)
	before := searchJSON(t, dir, "--no-index", "限流阈值")

	var dry index.GCReport
	kbJSON(t, dir, &dry, "gc", "--json", "--dry-run", "--keep-recent", "0")
	if dry.RefsDropped != 2 || dry.RefsKept != 2 || !dry.DryRun {
		t.Fatalf("dry run: %+v", dry)
	}
	if r := searchJSON(t, dir, "--no-index", "--rev", first, "熔断"); len(r.Results) == 0 {
		t.Fatal("dry run dropped something")
	}

	var rep index.GCReport
	kbJSON(t, dir, &rep, "gc", "--json", "--keep-recent", "0")
	kept := strings.Join(rep.Kept, ",")
	if rep.RefsDropped != 2 || !strings.Contains(kept, second) || !strings.Contains(kept, feature) || rep.KeysDeleted == 0 {
		t.Errorf("gc: %+v", rep)
	}
	for _, c := range []string{first, mid} {
		if _, errs, code := kb(t, dir, "search", "--no-index", "--rev", c, "熔断"); code != 1 || !strings.Contains(errs, "not indexed") {
			t.Errorf("view of %s should be gone: exit %d %s", c[:8], code, errs)
		}
	}
	if after := searchJSON(t, dir, "--no-index", "限流阈值"); strings.Join(paths(after), ",") != strings.Join(paths(before), ",") {
		t.Errorf("kept view changed: %v -> %v", paths(before), paths(after))
	}
	if r := searchJSON(t, dir, "--no-index", "--rev", "feature", "灰度开关"); len(r.Results) == 0 {
		t.Error("the branch head's view was dropped")
	}
	// A dropped commit can be indexed again.
	if r := searchJSON(t, dir, "--rev", first, "熔断"); len(r.Results) == 0 || r.Results[0].Path != "old/a.md" {
		t.Errorf("re-indexing a collected commit: %+v", r)
	}

	// doctor agrees with git.
	out, errs, code := kb(t, dir, "doctor", "--json")
	var checks []index.Check
	if code != 0 || json.Unmarshal([]byte(out), &checks) != nil {
		t.Fatalf("doctor: exit %d %s %s", code, out, errs)
	}
	for _, c := range checks {
		if c.Status == "error" {
			t.Errorf("doctor: %+v", c)
		}
	}
}

func TestGCDropsWholeSegmentsAndCommitsGoneFromGit(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "# 甲\n\n" + strings.Repeat("证书轮换步骤。", 200) + "\n"})
	indexJSON(t, dir)
	// One commit is one commit, not "1 of 1 indexed commits".
	if out, _, _ := kb(t, dir, "doctor"); !strings.Contains(out, "the indexed commit is consistent with git") {
		t.Errorf("doctor of one commit:\n%s", out)
	}
	if out, _, _ := kb(t, dir, "gc", "--dry-run"); !strings.Contains(out, "kept 1 indexed commit;") {
		t.Errorf("gc of one commit:\n%s", out)
	}
	// Rewrite history: the first commit's content is replaced, and once
	// git has pruned it, its view is the only thing using segment 1.
	gittest.Git(t, dir, "rm", "-q", "a.md")
	gittest.Commit(t, dir, "replace", map[string]string{"b.md": "# 乙\n\n备份恢复演练。\n"})
	indexJSON(t, dir)
	out, _, _ := kb(t, dir, "doctor")
	if !strings.Contains(out, "2 of 2 indexed commits") {
		t.Errorf("doctor before pruning:\n%s", out)
	}
	// Squash both commits into one orphan and prune the old objects.
	gittest.Git(t, dir, "checkout", "-q", "--orphan", "fresh")
	gittest.Git(t, dir, "commit", "-q", "-m", "fresh start")
	gittest.Git(t, dir, "branch", "-D", "main")
	gittest.Git(t, dir, "reflog", "expire", "--expire=now", "--all")
	gittest.Git(t, dir, "gc", "-q", "--prune=now")
	out, _, code := kb(t, dir, "doctor")
	if code != 0 || !strings.Contains(out, "no longer in the repository") || !strings.Contains(out, "git kb gc") {
		t.Errorf("doctor after pruning: exit %d\n%s", code, out)
	}
	indexJSON(t, dir)
	var rep index.GCReport
	kbJSON(t, dir, &rep, "gc", "--json")
	if rep.RefsDropped != 2 || rep.SegmentsDropped != 1 || rep.BlobsDropped != 1 {
		t.Errorf("gc after history rewrite: %+v", rep)
	}
	out, _, code = kb(t, dir, "doctor")
	if code != 0 || strings.Contains(out, "WARN") {
		t.Errorf("doctor after gc: exit %d\n%s", code, out)
	}
}

// TestGCReportsTheSizeOnDisk: gc's before and after are what the disk
// holds with the database closed, not with the room gc's own session
// reserved counted in (Go's source: "145 MiB -> 104 MiB" for 81 MB -> 41).
func TestGCReportsTheSizeOnDisk(t *testing.T) {
	dir := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
	// kb.gc.auto off: an in-process index run must not start a gc of its own.
	gittest.Git(t, dir, "config", "kb.gc.auto", "false")
	plantPipeline(t, dir, index.PipelineVersion-1)
	indexJSON(t, dir)
	db := filepath.Join(dir, ".git", "kb", "db")
	for _, args := range [][]string{{"gc", "--json", "--auto", "--dry-run"}, {"gc", "--json", "--auto"}, {"gc", "--json"}} {
		before := store.DirSize(db)
		var rep index.GCReport
		kbJSON(t, dir, &rep, args...)
		if after := store.DirSize(db); rep.BytesBefore != before || rep.BytesAfter != after {
			t.Errorf("%v: reported %d -> %d bytes, the disk held %d -> %d", args, rep.BytesBefore, rep.BytesAfter, before, after)
		}
	}
}
