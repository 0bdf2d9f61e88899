package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/hooks"
)

// waitRunLogged checks that the hook runner built the index: it logs its
// run after the view is published, so the line may come a moment after
// status sees HEAD indexed.
func waitRunLogged(t *testing.T, commonDir, what string) {
	t.Helper()
	waitLogged(t, commonDir, "indexed ", what+" was not built by the hook runner")
}

// needTool finds a hook manager on PATH or skips the test, saying how to
// get it (.ci/run installs them).
func needTool(t *testing.T, name, how string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed (%s): skipping the test with the real %s", name, how, name)
	}
	return p
}

// run runs a command in dir with the test's git environment.
func runIn(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, gittest.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// pathWithout is PATH without the directories that hold the program name.
func pathWithout(path, name string) string {
	var keep []string
	for _, d := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// snapshot reads every file under root (relative path -> bytes + mode).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		rel, _ := filepath.Rel(root, p)
		m[rel] = fi.Mode().String() + "\n" + string(b)
		return nil
	})
	return m
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s: %s changed or removed", what, k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s: %s left behind", what, k)
		}
	}
}

func gitClean(t *testing.T, dir, when string) {
	t.Helper()
	if st := gittest.Git(t, dir, "status", "--porcelain", "--ignored=no"); st != "" {
		t.Errorf("%s: git status not clean:\n%s", when, st)
	}
}

// Husky 9: `husky` points core.hooksPath at .husky/_ and rewrites that
// folder on every npm install. Our hooks go beside the team's in .husky/,
// untracked and excluded; a tracked team hook is not touched.
func TestHooksWithHusky9(t *testing.T) {
	husky := needTool(t, "husky", "npm install -g husky@9")
	dir := gittest.New(t, docs)
	runIn(t, dir, husky)
	if hp := gittest.Git(t, dir, "config", "core.hooksPath"); hp != ".husky/_" {
		t.Fatalf("husky set core.hooksPath=%q; is it husky 9?", hp)
	}
	teamHook := "#!/usr/bin/env sh\necho team post-merge\n"
	gittest.Commit(t, dir, "husky hooks", map[string]string{".husky/pre-commit": "echo team pre-commit\n", ".husky/post-merge": teamHook})
	husky0 := snapshot(t, filepath.Join(dir, ".husky"))
	exclude := filepath.Join(dir, ".git", "info", "exclude")
	exclude0, _ := os.ReadFile(exclude)

	out := kbBin(t, dir, "hooks", "install")
	if !strings.Contains(out, "post-merge: .husky/post-merge is the team's (tracked): left unchanged") || !strings.Contains(out, "husky:") {
		t.Errorf("install output:\n%s", out)
	}
	gitClean(t, dir, "after install")
	if b, _ := os.ReadFile(filepath.Join(dir, ".husky/post-merge")); string(b) != teamHook {
		t.Errorf("tracked .husky/post-merge changed without --shared:\n%s", b)
	}

	// npm install runs husky again: _ is rewritten; our hooks survive.
	runIn(t, dir, husky)
	gittest.Commit(t, dir, "after husky re-ran", map[string]string{"docs/new.md": "# 新文档\n\n灰度发布检查项。\n"})
	waitIndexed(t, dir, "a commit after husky re-ran")
	gittest.Git(t, dir, "checkout", "-q", "-b", "other", "HEAD~1")
	waitIndexed(t, dir, "a checkout after husky re-ran")
	gitClean(t, dir, "after commits")

	// A hook removed behind our back: said once by search, warned by doctor.
	os.Remove(filepath.Join(dir, ".husky/post-commit"))
	_, errs, _ := kb(t, dir, "search", "-q", "灰度发布")
	if !strings.Contains(errs, "are gone") || strings.Count(errs, "\n") > 1 {
		t.Errorf("first search after the hook vanished, stderr:\n%s", errs)
	}
	if _, errs, _ = kb(t, dir, "search", "-q", "灰度发布"); strings.Contains(errs, "are gone") {
		t.Errorf("the notice repeated: %s", errs)
	}
	if out, _, _ := kb(t, dir, "doctor"); !strings.Contains(out, "WARN  hooks") || !strings.Contains(out, "now gone") {
		t.Errorf("doctor does not warn:\n%s", out)
	}
	kbBin(t, dir, "hooks", "install")
	if in := hooks.ReadInstalled(filepath.Join(dir, ".git", "kb")); in == nil || len(in.Missing()) != 0 {
		t.Errorf("reinstall did not put the hooks back: %+v", in)
	}

	out = kbBin(t, dir, "hooks", "uninstall")
	runIn(t, dir, husky) // _ as husky would have it anyway
	sameSnapshot(t, "husky's files after uninstall", husky0, snapshot(t, filepath.Join(dir, ".husky")))
	if b, _ := os.ReadFile(exclude); string(b) != string(exclude0) {
		t.Errorf("info/exclude not restored:\n%q\nwant %q", b, exclude0)
	}
	gitClean(t, dir, "after uninstall")
}

// A team's tracked core.hooksPath folder: untouched without --shared;
// --shared adds one line with no machine path; uninstall takes it out.
func TestHooksTeamFolderShared(t *testing.T) {
	dir := gittest.New(t, docs)
	teamHook := "#!/bin/sh\necho team post-commit\n"
	gittest.Commit(t, dir, "team hooks", map[string]string{"githooks/post-commit": teamHook})
	os.Chmod(filepath.Join(dir, "githooks/post-commit"), 0o755)
	gittest.Git(t, dir, "commit", "-q", "-a", "-m", "executable")
	gittest.Git(t, dir, "config", "core.hooksPath", "githooks")
	team0 := snapshot(t, filepath.Join(dir, "githooks"))

	out := kbBin(t, dir, "hooks", "install")
	if !strings.Contains(out, "post-commit: githooks/post-commit is the team's (tracked): left unchanged") {
		t.Errorf("install output:\n%s", out)
	}
	gitClean(t, dir, "after a per-user install")
	if b, _ := os.ReadFile(filepath.Join(dir, "githooks/post-commit")); string(b) != teamHook {
		t.Errorf("tracked hook changed without --shared:\n%s", b)
	}
	gittest.Git(t, dir, "checkout", "-q", "-b", "side")
	gittest.Commit(t, dir, "side", map[string]string{"docs/side.md": "# 旁支\n"})
	gittest.Git(t, dir, "checkout", "-q", "HEAD~1")
	waitIndexed(t, dir, "checkout with per-user hooks in the team folder")
	kbBin(t, dir, "hooks", "uninstall")
	sameSnapshot(t, "team folder after per-user uninstall", team0, snapshot(t, filepath.Join(dir, "githooks")))
	gitClean(t, dir, "after per-user uninstall")

	// --shared: one line in the team's hook, found through PATH.
	t.Setenv("PATH", filepath.Dir(gitKBBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	out = kbBin(t, dir, "hooks", "install", "--shared")
	b, _ := os.ReadFile(filepath.Join(dir, "githooks/post-commit"))
	if string(b) != teamHook+hooks.SharedLine("post-commit")+"\n" || strings.Contains(string(b), gitKBBinary(t)) {
		t.Errorf("--shared post-commit:\n%s\ninstall said:\n%s", b, out)
	}
	gittest.Git(t, dir, "checkout", "-q", "side")
	gittest.Commit(t, dir, "shared", map[string]string{"docs/shared.md": "# 共享钩子\n"})
	waitIndexed(t, dir, "a commit through the shared line")
	kbBin(t, dir, "hooks", "uninstall")
	sameSnapshot(t, "team folder after --shared uninstall", team0, snapshot(t, filepath.Join(dir, "githooks")))
}

// lefthook: our hooks go in lefthook-local.yml (per-user, excluded), so
// `lefthook install` itself keeps them; uninstall leaves lefthook's
// hooks as they were.
func TestHooksWithLefthook(t *testing.T) {
	lefthook := needTool(t, "lefthook", "npm install -g lefthook")
	dir := gittest.New(t, docs)
	gittest.Commit(t, dir, "lefthook", map[string]string{"lefthook.yml": "post-commit:\n  commands:\n    team:\n      run: echo team post-commit\n"})
	runIn(t, dir, lefthook, "install")
	hooks0 := snapshot(t, filepath.Join(dir, ".git", "hooks"))
	exclude := filepath.Join(dir, ".git", "info", "exclude")
	exclude0, _ := os.ReadFile(exclude)

	out := kbBin(t, dir, "hooks", "install")
	if !strings.Contains(out, "lefthook-local.yml: added") || !strings.Contains(out, "ran lefthook install") {
		t.Errorf("install output:\n%s", out)
	}
	gitClean(t, dir, "after install")
	runIn(t, dir, lefthook, "install") // as a teammate's setup script would
	gittest.Commit(t, dir, "after lefthook re-ran", map[string]string{"docs/new.md": "# 新文档\n"})
	waitIndexed(t, dir, "a commit after lefthook install re-ran")
	gittest.Git(t, dir, "checkout", "-q", "HEAD~1")
	waitIndexed(t, dir, "a checkout after lefthook install re-ran")

	kbBin(t, dir, "hooks", "uninstall")
	sameSnapshot(t, ".git/hooks after uninstall", hooks0, snapshot(t, filepath.Join(dir, ".git", "hooks")))
	if b, _ := os.ReadFile(exclude); string(b) != string(exclude0) {
		t.Errorf("info/exclude not restored:\n%q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "lefthook-local.yml")); !os.IsNotExist(err) {
		t.Errorf("lefthook-local.yml left behind")
	}
	gitClean(t, dir, "after uninstall")
}

// The pre-commit framework: `pre-commit install` keeps a hook it replaces
// as <name>.legacy and runs it, so ours keep working; uninstall leaves
// pre-commit's hooks as they were.
func TestHooksWithPreCommit(t *testing.T) {
	precommit := needTool(t, "pre-commit", "apt-get install pre-commit")
	dir := gittest.New(t, docs)
	gittest.Commit(t, dir, "pre-commit", map[string]string{".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: team\n        name: team\n        entry: 'true'\n        language: system\n        pass_filenames: false\n"})
	out := kbBin(t, dir, "hooks", "install")
	if !strings.Contains(out, "repo: local") || !strings.Contains(out, "stages: [post-checkout, post-commit, post-merge, post-rewrite]") {
		t.Errorf("install does not print the pre-commit snippet:\n%s", out)
	}
	runIn(t, dir, precommit, "install", "-t", "pre-commit", "-t", "post-commit", "-t", "post-checkout")
	hooks0 := snapshot(t, filepath.Join(dir, ".git", "hooks"))
	gittest.Commit(t, dir, "after pre-commit install", map[string]string{"docs/new.md": "# 新文档\n"})
	waitIndexed(t, dir, "a commit after pre-commit install")
	if in := hooks.ReadInstalled(filepath.Join(dir, ".git", "kb")); in == nil || len(in.Missing()) != 0 {
		t.Errorf("hooks run by pre-commit counted as gone: %+v", in)
	}
	gitClean(t, dir, "after commits")

	kbBin(t, dir, "hooks", "uninstall")
	after := snapshot(t, filepath.Join(dir, ".git", "hooks"))
	for _, n := range []string{"post-commit.legacy", "post-checkout.legacy", "post-merge", "post-rewrite"} {
		delete(hooks0, n)
	}
	sameSnapshot(t, "pre-commit's hooks after uninstall", hooks0, after)
}

// --shared with the pre-commit framework: a `repo: local` hook appended to
// the team's .pre-commit-config.yaml (which pre-commit accepts), a second
// install changes nothing, and a teammate who clones the repository and
// runs `pre-commit install` gets an index that follows commits, with no
// `git kb hooks install` of their own; uninstall gives the file back byte
// for byte.
func TestHooksSharedWithPreCommit(t *testing.T) {
	precommit := needTool(t, "pre-commit", "apt-get install pre-commit")
	withoutKB := pathWithout(os.Getenv("PATH"), "git-kb")
	t.Setenv("PATH", filepath.Dir(gitKBBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH")) // `git kb` for the teammate's hook
	dir := gittest.New(t, docs)
	config := "# the team's hooks\nrepos:\n-   repo: local\n    hooks:\n    -   id: team\n        name: team\n        entry: 'true'\n        language: system\n        pass_filenames: false\n"
	gittest.Commit(t, dir, "pre-commit", map[string]string{".pre-commit-config.yaml": config})
	file := filepath.Join(dir, ".pre-commit-config.yaml")

	out := kbBin(t, dir, "hooks", "install", "--shared")
	shared, _ := os.ReadFile(file)
	if !strings.Contains(out, "added a 'repo: local' hook") || !strings.HasPrefix(string(shared), config) || !strings.Contains(string(shared), "exec git kb hooks run post-commit'") {
		t.Fatalf("install --shared:\n%s\n.pre-commit-config.yaml:\n%s", out, shared)
	}
	runIn(t, dir, precommit, "validate-config", ".pre-commit-config.yaml")
	if out := kbBin(t, dir, "hooks", "install", "--shared"); !strings.Contains(out, "already runs git kb") {
		t.Errorf("second install --shared:\n%s", out)
	}
	if again, _ := os.ReadFile(file); string(again) != string(shared) {
		t.Errorf("second install --shared changed the file:\n%s", again)
	}
	gittest.Commit(t, dir, "share git kb", map[string]string{".pre-commit-config.yaml": string(shared)})

	mate := filepath.Join(t.TempDir(), "mate")
	gittest.Git(t, dir, "clone", "-q", dir, mate)
	runIn(t, mate, precommit, "install", "-t", "post-commit", "-t", "post-checkout", "-t", "post-merge", "-t", "post-rewrite")
	gittest.Commit(t, mate, "a teammate's commit", map[string]string{"docs/new.md": "# 新文档\n"})
	waitIndexed(t, mate, "a teammate's commit through the shared pre-commit hook")
	waitRunLogged(t, filepath.Join(mate, ".git"), "the teammate's index")

	// A teammate without git-kb: the shared hook does nothing, silently.
	other := filepath.Join(t.TempDir(), "other")
	gittest.Git(t, dir, "clone", "-q", dir, other)
	runIn(t, other, precommit, "install", "-t", "post-commit")
	os.WriteFile(filepath.Join(other, "note.md"), []byte("# 笔记\n"), 0o644)
	gittest.Git(t, other, "add", "note.md")
	commit := exec.Command("git", "commit", "-q", "-m", "no git-kb here")
	commit.Dir, commit.Env = other, append(gittest.Env(), "PATH="+withoutKB)
	if out, err := commit.CombinedOutput(); err != nil || strings.Contains(string(out), "git-kb") || strings.Contains(string(out), "not a git command") || strings.Contains(string(out), "Failed") {
		t.Errorf("a commit without git-kb installed: %v\n%s", err, out)
	}

	kbBin(t, dir, "hooks", "uninstall")
	if after, _ := os.ReadFile(file); string(after) != config {
		t.Errorf("after uninstall:\n%q\nwant\n%q", after, config)
	}
}

// --shared with lefthook: our four hooks appended to the team's
// lefthook.yml, re-install a no-op, uninstall byte for byte; with the real
// lefthook, a commit is indexed through them.
func TestHooksSharedWithLefthook(t *testing.T) {
	dir := gittest.New(t, docs)
	config := "# the team's hooks\npre-commit:\n  commands:\n    team:\n      run: echo team pre-commit\n"
	gittest.Commit(t, dir, "lefthook", map[string]string{"lefthook.yml": config})
	file := filepath.Join(dir, "lefthook.yml")

	out := kbBin(t, dir, "hooks", "install", "--shared")
	shared, _ := os.ReadFile(file)
	if !strings.Contains(out, "added post-checkout, post-commit, post-merge, post-rewrite to lefthook.yml") || !strings.HasPrefix(string(shared), config) ||
		!strings.Contains(string(shared), "git kb hooks run post-commit {0}") || strings.Contains(string(shared), gitKBBinary(t)) {
		t.Fatalf("install --shared:\n%s\nlefthook.yml:\n%s", out, shared)
	}
	if out := kbBin(t, dir, "hooks", "install", "--shared"); !strings.Contains(out, "already runs git kb") {
		t.Errorf("second install --shared:\n%s", out)
	}
	if again, _ := os.ReadFile(file); string(again) != string(shared) {
		t.Errorf("second install --shared changed the file:\n%s", again)
	}
	if lefthook, err := exec.LookPath("lefthook"); err == nil {
		runIn(t, dir, lefthook, "validate")
		t.Setenv("PATH", filepath.Dir(gitKBBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
		gittest.Commit(t, dir, "after install --shared", map[string]string{"docs/new.md": "# 新文档\n"})
		waitIndexed(t, dir, "a commit through lefthook.yml's shared hook")
		waitRunLogged(t, filepath.Join(dir, ".git"), "the index")
	} else {
		t.Log("lefthook not installed (npm install -g lefthook): the shared hooks were checked as text only")
	}
	kbBin(t, dir, "hooks", "uninstall")
	if after, _ := os.ReadFile(file); string(after) != config {
		t.Errorf("after uninstall:\n%q\nwant\n%q", after, config)
	}
	// A hook the team already has: refused in one line, file untouched.
	gittest.Commit(t, dir, "team post-merge", map[string]string{"lefthook.yml": config + "post-merge:\n  commands:\n    deps:\n      run: npm ci\n"})
	cmd := exec.Command(gitKBBinary(t), "hooks", "install", "--shared")
	cmd.Dir, cmd.Env = dir, gittest.Env()
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "already has post-merge: add by hand") {
		t.Errorf("install --shared over a team post-merge: %v\n%s", err, b)
	}
	gitClean(t, dir, "after a refused install --shared")
}
