package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

func TestSearchWorktree(t *testing.T) {
	files := map[string]string{".gitignore": "*.log\n"}
	for k, v := range shop {
		files[k] = v
	}
	dir := gittest.New(t, files)
	gittest.Git(t, dir, "config", "kb.embed.provider", "hash")
	indexJSON(t, dir)
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	var before struct{ Views []map[string]any }
	kbJSON(t, dir, &before, "status", "--json")
	if len(before.Views) != 1 {
		t.Fatalf("status views: %v", before.Views)
	}

	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A doc being written (untracked), an edit (unstaged), a staged new
	// file, a deletion, an ignored file and a binary one.
	write("docs/canary.md", "# 灰度发布检查项\n\n灰度发布前确认回滚开关、监控面板和熔断阈值。\n")
	write("docs/runbook/payment.md", "# 支付故障手册\n\n支付网关超时时先看熔断器状态，再按重试策略处理。\n")
	write("payment/limit.go", "package payment\n\n// RateLimit 限流：每秒最多 100 笔扣款。\nfunc RateLimit() int { return 100 }\n")
	gittest.Git(t, dir, "add", "payment/limit.go")
	if err := os.Remove(filepath.Join(dir, "docs/oncall.md")); err != nil {
		t.Fatal(err)
	}
	write("debug.log", "灰度发布 检查项 灰度发布 检查项\n")
	write("docs/diagram.bin", "灰度发布\x00\x01\x02")
	statusBefore := gittest.Git(t, dir, "status", "--porcelain")

	r := searchJSON(t, dir, "--worktree", "灰度发布 检查项")
	if len(r.Results) == 0 || r.Results[0].Path != "docs/canary.md" || !strings.HasPrefix(r.Results[0].Citation, "worktree:docs/canary.md#L1-L") {
		t.Fatalf("the untracked doc should come first, cited worktree:, got %+v", r.Results)
	}
	if r.Commit != head || r.Worktree == nil || !contains(r.Worktree.Files, "docs/canary.md") || !contains(r.Worktree.Files, "payment/limit.go") || !contains(r.Worktree.Gone, "docs/oncall.md") {
		t.Fatalf("worktree report: commit %s, %+v", r.Commit, r.Worktree)
	}
	for _, x := range r.Results {
		if x.Path == "debug.log" || x.Path == "docs/diagram.bin" {
			t.Errorf("ignored or binary file searched: %s", x.Path)
		}
	}
	// Without --worktree, the committed state only.
	if r := searchJSON(t, dir, "灰度发布 检查项"); contains(paths(r), "docs/canary.md") || r.Worktree != nil {
		t.Errorf("uncommitted file found without --worktree: %v", paths(r))
	}

	// An edited file is searched as it is on disk, once, cited worktree:.
	r = searchJSON(t, dir, "--worktree", "熔断器状态")
	if len(r.Results) == 0 || r.Results[0].Citation != "worktree:docs/runbook/payment.md#L1-L3" {
		t.Fatalf("edited doc: %+v", r.Results)
	}
	r = searchJSON(t, dir, "--worktree", "支付故障手册")
	n := 0
	for _, x := range r.Results {
		if x.Path == "docs/runbook/payment.md" {
			n++
			if !strings.HasPrefix(x.Citation, "worktree:") {
				t.Errorf("committed version of an edited file shown: %s", x.Citation)
			}
		}
	}
	if n != 1 {
		t.Errorf("edited file listed %d times", n)
	}
	// A deleted file is gone; committed files still cite the commit.
	r = searchJSON(t, dir, "--worktree", "值班须知")
	if contains(paths(r), "docs/oncall.md") {
		t.Errorf("deleted file still found: %v", paths(r))
	}
	r = searchJSON(t, dir, "--worktree", "重试策略")
	for _, x := range r.Results {
		if x.Path == "docs/adr/retry.md" && !strings.HasPrefix(x.Citation, head+":") {
			t.Errorf("unchanged file should cite HEAD: %s", x.Citation)
		}
	}

	// Query operators and dense retrieval see the overlay too.
	r = searchJSON(t, dir, "--worktree", "@@RateLimit")
	if len(r.Results) == 0 || r.Results[0].Path != "payment/limit.go" {
		t.Errorf("@@RateLimit in a staged file: %v", paths(r))
	}
	r = searchJSON(t, dir, "--worktree", "灰度发布 -熔断阈值")
	if contains(paths(r), "docs/canary.md") {
		t.Errorf("exclusion ignored in the overlay: %v", paths(r))
	}
	r = searchJSON(t, dir, "--worktree", "--mode", "dense", "灰度发布检查项")
	if r.Mode != "dense" || len(r.Results) == 0 || r.Results[0].Path != "docs/canary.md" {
		t.Errorf("dense over the overlay: mode %s degraded %q, %v", r.Mode, r.Degraded, paths(r))
	}

	// Citations read back with show; packs cite and read the working tree.
	out, _, code := kb(t, dir, "show", "worktree:docs/canary.md#L3-L3")
	if code != 0 || !strings.Contains(out, "熔断阈值") {
		t.Errorf("show worktree citation: exit %d: %q", code, out)
	}
	if _, errs, code := kb(t, dir, "show", "worktree:../outside.md#L1-L1"); code == 0 || !strings.Contains(errs, "outside") {
		t.Errorf("show outside the working tree: exit %d, %s", code, errs)
	}
	out, _, code = kb(t, dir, "context", "-q", "--worktree", "--budget", "500", "灰度发布 检查项")
	if code != 0 || !strings.Contains(out, "worktree:docs/canary.md#L1-L3") || !strings.Contains(out, "回滚开关") {
		t.Errorf("context --worktree:\n%s", out)
	}
	out, _, code = kb(t, dir, "search", "-q", "--worktree", "灰度发布 检查项")
	if code != 0 || !strings.Contains(out, "[uncommitted]") {
		t.Errorf("human output should mark uncommitted files:\n%s", out)
	}
	if _, errs, code := kb(t, dir, "search", "--worktree", "--rev", "HEAD~0", "x"); code != 2 || !strings.Contains(errs, "--worktree") {
		t.Errorf("--worktree --rev: exit %d, %s", code, errs)
	}

	// Nothing was written: the working tree, the index and the commit are as they were.
	if got := gittest.Git(t, dir, "status", "--porcelain"); got != statusBefore {
		t.Errorf("git status changed:\n%s\nwas\n%s", got, statusBefore)
	}
	var after struct{ Views []map[string]any }
	kbJSON(t, dir, &after, "status", "--json")
	if !reflect.DeepEqual(after.Views, before.Views) {
		t.Errorf("the index changed:\n%v\nwas\n%v", after.Views, before.Views)
	}

	// A clean working tree: HEAD as committed, and a notice.
	clean := gittest.New(t, shop)
	r = searchJSON(t, clean, "--worktree", "支付故障手册")
	if r.Worktree == nil || len(r.Worktree.Files) != 0 || len(r.Results) == 0 || strings.HasPrefix(r.Results[0].Citation, "worktree:") {
		t.Errorf("clean tree: %+v %v", r.Worktree, paths(r))
	}
	_, errs, _ := kb(t, clean, "search", "--worktree", "支付故障手册")
	if !strings.Contains(errs, "no uncommitted changes") {
		t.Errorf("clean tree notice: %q", errs)
	}
}
