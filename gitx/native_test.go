package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// What go-git reads in process (a one-file commit's diff, sizes and
// blobs) is what the git processes it replaces give: the same changes in
// the same order for edits, additions, deletions, a mode change, a
// symlink, a file that turns into a directory and a submodule that moves,
// turns into a file and back; the same sizes; the same bytes.
func TestNativeMatchesGit(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "# A\n", "b/c.go": "package b\n", "b/d/e.txt": "e\n", "x": "a file\n", "run.sh": "echo\n", "b-c.txt": "dash\n"})
	gitlink := func(sha string) {
		gittest.Git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+sha+",sub")
	}
	gitlink("1111111111111111111111111111111111111111")
	gittest.Git(t, dir, "commit", "-qm", "submodule")
	gittest.Commit(t, dir, "edit, add", map[string]string{"a.md": "# A\n\nmore\n", "b/new.go": "package b\n\n// new\n"})
	gitlink("2222222222222222222222222222222222222222")
	gittest.Git(t, dir, "commit", "-qm", "submodule moves")
	gittest.Remove(t, dir, "remove", "b/d/e.txt")
	gittest.Git(t, dir, "rm", "-q", "x")
	gittest.Git(t, dir, "rm", "-q", "--cached", "sub")
	gittest.WriteFile(t, dir, "x/inside.md", []byte("now a directory\n"))
	gittest.WriteFile(t, dir, "sub", []byte("a submodule no more\n"))
	if err := os.Symlink("a.md", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-qm", "file to dir, submodule to file, symlink, mode")
	gittest.Git(t, dir, "gc", "-q") // packed objects, deltas among them
	gittest.Commit(t, dir, "loose", map[string]string{"b/c.go": "package b\n\n// loose\n"})
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	revs := []string{"HEAD~5", "HEAD~4", "HEAD~3", "HEAD~2", "HEAD~1", "HEAD"}
	for _, from := range revs {
		for _, to := range revs {
			_, ft, err := r.Resolve(ctx, from)
			if err != nil {
				t.Fatal(err)
			}
			_, tt, err := r.Resolve(ctx, to)
			if err != nil {
				t.Fatal(err)
			}
			native, err := r.diffTreesNative(ctx, ft, tt)
			if err != nil {
				t.Fatalf("%s..%s in process: %v", from, to, err)
			}
			git, err := r.diffTreesGit(ctx, ft, tt)
			if err != nil {
				t.Fatal(err)
			}
			if len(native) != len(git) || len(git) > 0 && !reflect.DeepEqual(native, git) {
				t.Fatalf("%s..%s:\nin process %+v\ngit        %+v", from, to, native, git)
			}
		}
	}

	_, tree, _ := r.Resolve(ctx, "HEAD")
	es, err := r.ListTree(ctx, tree)
	if err != nil {
		t.Fatal(err)
	}
	var hs []Hash
	for _, e := range es {
		hs = append(hs, e.Blob)
	}
	sizes, err := r.BlobSizes(ctx, hs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if sizes[e.Blob].Size != e.Size || sizes[e.Blob].Type != "blob" {
			t.Errorf("%s: size %+v, ls-tree says %d", e.Path, sizes[e.Blob], e.Size)
		}
	}
	// One or two blobs come from go-git, more from cat-file: the same
	// bytes either way; a missing one is counted, the others read.
	read := func(hs []Hash) (map[Hash]string, error) {
		got := map[Hash]string{}
		err := r.ReadBlobs(ctx, hs, func(h Hash, b []byte) error { got[h] = string(b); return nil })
		return got, err
	}
	all, err := read(hs)
	if err != nil || len(all) != len(es) {
		t.Fatalf("read %d of %d blobs: %v", len(all), len(es), err)
	}
	for i := range hs {
		one, err := read(hs[i : i+1])
		if err != nil || one[hs[i]] != all[hs[i]] {
			t.Fatalf("%s alone: %q, %v; with the others %q", es[i].Path, one[hs[i]], err, all[hs[i]])
		}
	}
	missing := Hash{0xde, 0xad}
	got, err := read([]Hash{hs[0], missing})
	var me *MissingObjectsError
	if !errors.As(err, &me) || me.N != 1 || got[hs[0]] != all[hs[0]] {
		t.Fatalf("a missing blob beside a present one: %v, read %d", err, len(got))
	}
}
