package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/hooks"
	"github.com/git-kb/git-kb/index"
	"github.com/gofrs/flock"
)

// kbBin runs the real binary in dir (hooks must call a real executable).
func kbBin(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(gitKBBinary(t), args...)
	cmd.Dir, cmd.Env = dir, gittest.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git-kb %v: %v\n%s", args, err, out)
	}
	return string(out)
}

type hooksState struct {
	Dir   string       `json:"dir"`
	Hooks []hooks.Hook `json:"hooks"`
	Last  *hooks.Last  `json:"last_run"`
}

func hooksStatus(t *testing.T, dir string) hooksState {
	t.Helper()
	var st hooksState
	if err := json.Unmarshal([]byte(kbBin(t, dir, "hooks", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// waitIndexed waits for the background runner to have indexed HEAD.
func waitIndexed(t *testing.T, dir, what string) {
	t.Helper()
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var rep index.Report
		out, _, code := kb(t, dir, "status", "--json")
		if code == 0 && json.Unmarshal([]byte(out), &rep) == nil && rep.HeadIndex && rep.Head == head {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	common := gittest.Git(t, dir, "rev-parse", "--git-common-dir")
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	log, _ := os.ReadFile(filepath.Join(common, "kb", hooks.LogFile))
	t.Fatalf("after %s, HEAD %s was not indexed within 60s; hooks.log:\n%s", what, head[:12], log)
}

// waitRunnerDone waits up to 60 s for the hooks' background runner of the
// repository whose common git dir is commonDir to end, and keeps another
// from starting until the test ends. Status sees HEAD indexed while the
// runner still writes its log and looks for more hook calls: a runner
// alive at the end of a test writes into the directory t.TempDir's
// cleanup removes.
func waitRunnerDone(t *testing.T, commonDir string) {
	t.Helper()
	l := flock.New(hooks.RunnerLock(filepath.Join(commonDir, "kb")))
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ok, err := l.TryLock()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hooks' runner did not end within 60s")
		}
	}
	t.Cleanup(func() { l.Unlock() })
}

// waitLogged waits up to 20 s for the hooks log to hold want: the runner
// writes its line after it publishes the view, a moment after status can
// see HEAD indexed.
func waitLogged(t *testing.T, commonDir, want, failure string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		log, _ := os.ReadFile(filepath.Join(commonDir, "kb", hooks.LogFile))
		if strings.Contains(string(log), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s; hooks.log:\n%s", failure, log)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// runsLogged counts index runs in the hooks log.
func runsLogged(t *testing.T, commonDir string) int {
	b, _ := os.ReadFile(filepath.Join(commonDir, "kb", hooks.LogFile))
	return strings.Count(string(b), "indexed ")
}

func TestHooksInstallChainsAndUninstallRestores(t *testing.T) {
	dir := gittest.New(t, docs)
	hookDir := filepath.Join(dir, ".git", "hooks")
	os.MkdirAll(hookDir, 0o755)
	// A user's post-rewrite hook that records its arguments and stdin, and
	// fails: git must still see its status (post-rewrite's is ignored by
	// git, so the test runs the hook directly too).
	user := []byte("#!/bin/sh\necho \"args:$*\" >> \"$(git rev-parse --git-dir)/user-hook.log\"\ncat >> \"$(git rev-parse --git-dir)/user-hook.log\"\nexit 3\n")
	os.WriteFile(filepath.Join(hookDir, "post-rewrite"), user, 0o750)
	listDir := func() string {
		entries, _ := os.ReadDir(hookDir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	initial := listDir()

	out := kbBin(t, dir, "hooks", "install")
	if !strings.Contains(out, "post-rewrite: installed, chaining") {
		t.Errorf("install output:\n%s", out)
	}
	st := hooksStatus(t, dir)
	for _, h := range st.Hooks {
		if !h.Ours || h.Chained != (h.Name == "post-rewrite") {
			t.Errorf("after install: %+v", h)
		}
	}
	before, _ := os.ReadFile(filepath.Join(hookDir, "post-commit"))
	if again := kbBin(t, dir, "hooks", "install"); strings.Count(again, "already installed") != 4 {
		t.Errorf("second install:\n%s", again)
	}
	if after, _ := os.ReadFile(filepath.Join(hookDir, "post-commit")); !bytes.Equal(before, after) {
		t.Error("second install rewrote a hook")
	}

	// The chained hook runs with its arguments and stdin, and its exit
	// status is the hook's.
	cmd := exec.Command(filepath.Join(hookDir, "post-rewrite"), "amend")
	cmd.Dir, cmd.Env = dir, gittest.Env()
	cmd.Stdin = strings.NewReader("aaa bbb\n")
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("chained exit status not preserved: %v", err)
	}
	// And through git: amend fires post-rewrite.
	gittest.Git(t, dir, "commit", "-q", "--amend", "-m", "amended")
	logb, _ := os.ReadFile(filepath.Join(dir, ".git", "user-hook.log"))
	if strings.Count(string(logb), "args:amend") != 2 || !strings.Contains(string(logb), "aaa bbb") {
		t.Errorf("user hook log:\n%s", logb)
	}
	waitIndexed(t, dir, "commit --amend")

	out = kbBin(t, dir, "hooks", "uninstall")
	if !strings.Contains(out, "post-rewrite: removed, previous hook restored") {
		t.Errorf("uninstall output:\n%s", out)
	}
	got, _ := os.ReadFile(filepath.Join(hookDir, "post-rewrite"))
	fi, _ := os.Stat(filepath.Join(hookDir, "post-rewrite"))
	// Windows has no mode bits to restore (Git for Windows runs any hook).
	if !bytes.Equal(got, user) || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o750) {
		t.Errorf("user hook not restored exactly: %q %v", got, fi.Mode())
	}
	for _, n := range []string{"post-commit", "post-checkout", "post-merge"} {
		if _, err := os.Stat(filepath.Join(hookDir, n)); !os.IsNotExist(err) {
			t.Errorf("%s left behind", n)
		}
	}
	if now := listDir(); now != initial {
		t.Errorf("hooks dir after uninstall:\n%s\nbefore install:\n%s", now, initial)
	}
}

func TestHooksFollowCheckoutMergePullRebase(t *testing.T) {
	remote := t.TempDir()
	src := gittest.New(t, docs)
	gittest.Git(t, remote, "clone", "-q", "--bare", src, ".")
	dir := filepath.Join(t.TempDir(), "work")
	gittest.Git(t, filepath.Dir(dir), "clone", "-q", remote, dir)
	kbBin(t, dir, "hooks", "install")

	gittest.Commit(t, dir, "a commit", map[string]string{"docs/a.md": "# 甲\n\n熔断器的超时配置。\n"})
	waitIndexed(t, dir, "commit")

	gittest.Git(t, dir, "checkout", "-q", "-b", "topic")
	gittest.Commit(t, dir, "topic work", map[string]string{"docs/topic.md": "# 主题\n\n限流阈值调整记录。\n"})
	waitIndexed(t, dir, "commit on topic")
	gittest.Git(t, dir, "checkout", "-q", "main")
	waitIndexed(t, dir, "checkout main")
	gittest.Git(t, dir, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
	waitIndexed(t, dir, "merge")
	if r := searchJSON(t, dir, "--no-index", "限流阈值"); len(r.Results) == 0 {
		t.Error("merged doc not searchable")
	}

	// Someone else pushes; pull brings it in.
	gittest.Commit(t, src, "upstream change", map[string]string{"docs/upstream.md": "# 上游\n\n证书轮换步骤。\n"})
	gittest.Git(t, src, "push", "-q", remote, "main")
	gittest.Git(t, dir, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
	waitIndexed(t, dir, "pull")
	if r := searchJSON(t, dir, "--no-index", "证书轮换"); len(r.Results) == 0 {
		t.Error("pulled doc not searchable")
	}

	// A rebase of 20 commits fires a hook per commit; the runner indexes
	// the final HEAD, not each one.
	gittest.Git(t, dir, "checkout", "-q", "-b", "long", "HEAD~1")
	for i := range 20 {
		gittest.Commit(t, dir, fmt.Sprintf("step %d", i), map[string]string{fmt.Sprintf("steps/%02d.md", i): fmt.Sprintf("# 步骤 %d\n\n第 %d 步。\n", i, i)})
	}
	waitIndexed(t, dir, "20 commits")
	before := runsLogged(t, filepath.Join(dir, ".git"))
	gittest.Git(t, dir, "rebase", "-q", "main")
	waitIndexed(t, dir, "rebase")
	time.Sleep(2 * hooks.Debounce) // let a late runner finish its loop
	runs := runsLogged(t, filepath.Join(dir, ".git")) - before
	t.Logf("a 20-commit rebase: %d index runs", runs)
	if runs > 3 {
		t.Errorf("a 20-commit rebase caused %d index runs; hooks should coalesce", runs)
	}
	if st := hooksStatus(t, dir); st.Last == nil || !st.Last.OK || st.Last.Commit != gittest.Git(t, dir, "rev-parse", "HEAD") {
		t.Errorf("last run: %+v", st.Last)
	}
}

func TestHooksPathAndWorktree(t *testing.T) {
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "core.hooksPath", ".githooks")
	kbBin(t, dir, "hooks", "install")
	if _, err := os.Stat(filepath.Join(dir, ".githooks", "post-commit")); err != nil {
		t.Fatalf("core.hooksPath not honoured: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "post-commit")); err == nil {
		t.Error("installed into .git/hooks despite core.hooksPath")
	}
	gittest.Commit(t, dir, "with hooksPath", map[string]string{"docs/b.md": "# 乙\n\n备份策略。\n"})
	waitIndexed(t, dir, "commit with core.hooksPath")

	// A worktree shares the hooks and the index of the common git dir.
	// The runner the commit above started may still be alive when the
	// worktree's hooks fire (status sees HEAD indexed before it ends; on
	// a loaded machine it lingers): they then start no runner of their
	// own, and that one must index the worktree's HEAD, not its own.
	gittest.Git(t, dir, "config", "--unset", "core.hooksPath")
	kbBin(t, dir, "hooks", "install")
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, dir, "worktree", "add", "-q", "-b", "wt", wt)
	gittest.Commit(t, wt, "in the worktree", map[string]string{"docs/wt.md": "# 工作树\n\n灰度发布检查单。\n"})
	waitIndexed(t, wt, "commit in a worktree")
	if _, err := os.Stat(filepath.Join(dir, ".git", "kb", "db")); err != nil {
		t.Errorf("the worktree's index is not in the common dir: %v", err)
	}
	if r := searchJSON(t, wt, "--no-index", "灰度发布检查单"); len(r.Results) == 0 {
		t.Error("worktree commit not searchable")
	}
	waitRunnerDone(t, filepath.Join(dir, ".git"))
}
