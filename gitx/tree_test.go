package gitx_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// DiffTrees between any two commits agrees with their full listings:
// applying its changes to the first tree's files gives the second's, for
// edits, additions, deletions, a mode change, a symlink, and a file that
// turns into a directory.
func TestDiffTreesMatchesListings(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "# A\n", "b/c.go": "package b\n", "b/d/e.txt": "e\n", "x": "a file\n", "run.sh": "echo\n"})
	gittest.Commit(t, dir, "edit, add", map[string]string{"a.md": "# A\n\nmore\n", "b/new.go": "package b\n\n// new\n"})
	gittest.Remove(t, dir, "remove", "b/d/e.txt")
	gittest.Git(t, dir, "rm", "-q", "x")
	gittest.WriteFile(t, dir, "x/inside.md", []byte("now a directory\n"))
	if err := os.Symlink("a.md", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-qm", "file to dir, symlink, mode")
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	revs := []string{"HEAD~3", "HEAD~2", "HEAD~1", "HEAD"}
	list := func(rev string) (gitx.Hash, map[string]gitx.Entry) {
		_, tree, err := repo.Resolve(t.Context(), rev)
		if err != nil {
			t.Fatal(err)
		}
		es, err := repo.ListTree(t.Context(), tree)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]gitx.Entry{}
		for _, e := range es {
			m[e.Path] = e
		}
		return tree, m
	}
	for _, from := range revs {
		for _, to := range revs {
			ft, files := list(from)
			tt, want := list(to)
			changes, err := repo.DiffTrees(t.Context(), ft, tt)
			if err != nil {
				t.Fatal(err)
			}
			if from == to && len(changes) != 0 {
				t.Fatalf("%s to itself: %d changes", from, len(changes))
			}
			for _, c := range changes {
				if !c.Old.IsZero() {
					if e, ok := files[c.Path]; !ok || e.Blob != c.Old || e.Mode != c.OldMode {
						t.Fatalf("%s..%s: %s was %v, listing says %v", from, to, c.Path, c.Old, e)
					}
					delete(files, c.Path)
				}
				if !c.New.IsZero() {
					files[c.Path] = gitx.Entry{Path: c.Path, Blob: c.New, Mode: c.NewMode}
				}
			}
			var got, exp []string
			for p, e := range files {
				got = append(got, p+" "+e.Blob.String()+" "+string(rune('0'+e.Mode%8)))
			}
			for p, e := range want {
				exp = append(exp, p+" "+e.Blob.String()+" "+string(rune('0'+e.Mode%8)))
			}
			sort.Strings(got)
			sort.Strings(exp)
			if len(got) != len(exp) {
				t.Fatalf("%s..%s: %v, want %v", from, to, got, exp)
			}
			for i := range got {
				if got[i] != exp[i] {
					t.Fatalf("%s..%s: %v, want %v", from, to, got, exp)
				}
			}
		}
	}
	c, _, _ := repo.Resolve(t.Context(), "HEAD")
	ps, err := repo.CommitParents(c)
	if err != nil || len(ps) != 1 {
		t.Fatalf("parents of HEAD: %v %v", ps, err)
	}
}

// DiffTrees does not read the checkout's index (.git/index, one entry per
// file: its cost grew with the repository, issue 20): with that file
// damaged, it still answers, where plain git diff-tree dies.
func TestDiffTreesSkipsTheIndex(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "# A\n", "b/c.go": "package b\n"})
	gittest.Commit(t, dir, "edit", map[string]string{"a.md": "# A\n\nmore\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, from, err := repo.Resolve(t.Context(), "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	_, to, err := repo.Resolve(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "index"), []byte("DIRC not an index at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", dir, "diff-tree", "-r", from.String(), to.String()).CombinedOutput(); err == nil {
		t.Fatalf("git diff-tree read a damaged index without complaint (%s): the test proves nothing", out)
	}
	changes, err := repo.DiffTrees(t.Context(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Path != "a.md" {
		t.Fatalf("changes %+v, want a.md only", changes)
	}
}
