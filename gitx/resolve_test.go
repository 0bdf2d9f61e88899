package gitx_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// Resolve takes what git takes for a commit and refuses the rest, as git
// rev-parse <rev>^{commit} does: a revision with a path (v1:x.md, the
// form of a citation, passed where a revision goes) or peeled to a tree
// is no commit, where go-git alone read both as the commit before them.
func TestResolveRefusesWhatNamesNoCommit(t *testing.T) {
	dir := gittest.New(t, map[string]string{"x.md": "# x\n"})
	gittest.Git(t, dir, "tag", "v1")
	gittest.Commit(t, dir, "second", map[string]string{"y.md": "# y\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	head, _, err := repo.Resolve(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	first, _, err := repo.Resolve(ctx, "v1")
	if err != nil || first == head {
		t.Fatalf("v1: %v %v", first, err)
	}
	for rev, want := range map[string]gitx.Hash{"HEAD@{0}": head, "HEAD^{/second}": head, "v1^{commit}": first, "HEAD~1": first} {
		if got, _, err := repo.Resolve(ctx, rev); err != nil || got != want {
			t.Errorf("Resolve(%q) = %v, %v; want %v", rev, got, err, want)
		}
	}
	for rev, miss := range map[string]error{
		"HEAD:x.md":    gitx.ErrNotACommit, // a blob
		"HEAD:":        gitx.ErrNotACommit, // a tree
		"HEAD^{tree}":  gitx.ErrNotACommit,
		"v1:y.md":      gitx.ErrNoSuchRev, // v1 has no y.md
		"v1:nothing":   gitx.ErrNoSuchRev,
		"main:x.md:zz": gitx.ErrNoSuchRev,
	} {
		got, _, err := repo.Resolve(ctx, rev)
		if !errors.Is(err, miss) || !strings.Contains(err.Error(), rev) {
			t.Errorf("Resolve(%q) = %v, %v; want %v naming the revision", rev, got, err, miss)
		}
	}
}

// FileAt says what is at a path that holds no file: a directory, or a
// submodule (a gitlink, whose commit is another repository's); either is
// still ErrNoSuchPath to a caller telling misses apart.
func TestFileAtNamesDirectoriesAndSubmodules(t *testing.T) {
	dir := gittest.New(t, map[string]string{"docs/x.md": "# x\n"})
	sub := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD"))
	gittest.Git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+sub+",vendor/lib")
	gittest.Git(t, dir, "commit", "-qm", "gitlink")
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, _, err := repo.Resolve(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"docs": "docs is a directory, not a file", "vendor/lib": "vendor/lib is a submodule", "nope.md": "nope.md: path not in commit"} {
		_, _, err := repo.FileAt(head, p)
		if !errors.Is(err, gitx.ErrNoSuchPath) || !strings.Contains(err.Error(), want) {
			t.Errorf("FileAt(%s) = %v; want ErrNoSuchPath saying %q", p, err, want)
		}
	}
}

// A repository deleted (or moved) after Open is gone, not empty: Resolve
// says so instead of "no commits yet, commit some files first", which is
// what a long-lived server (git kb mcp) would otherwise tell its agent.
func TestResolveRepositoryGone(t *testing.T) {
	dir := gittest.New(t, map[string]string{"x.md": "# x\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := repo.Resolve(t.Context(), "HEAD"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"HEAD", "main"} {
		_, _, err := repo.Resolve(t.Context(), rev)
		if errors.Is(err, gitx.ErrEmptyRepo) || !errors.Is(err, gitx.ErrNotARepo) || !strings.Contains(fmt.Sprint(err), "deleted or moved") {
			t.Errorf("Resolve(%s) of a deleted repository: %v", rev, err)
		}
	}
}
