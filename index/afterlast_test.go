package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// A commit on top of the last one indexed is read ahead of the database
// (one read-write session); when the database disagrees with what was
// read ahead (a revert: its blob was indexed before) or the hint is
// unreadable, the run takes the usual path. Either way the view holds
// exactly what a full index of a fresh clone holds.
func TestReadAhead(t *testing.T) {
	files := realFiles(t)
	dir := gittest.New(t, files)
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := Options{MaxFileSize: testMaxSize}
	run := func(what string, ahead bool, blobsNew int) {
		t.Helper()
		st, err := Run(ctx, repo, o)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		parent := gittest.Git(t, dir, "rev-parse", "HEAD^")
		if st.ReadAhead != ahead || st.BlobsNew != blobsNew || st.Base != parent {
			t.Fatalf("%s: read ahead %v, %d blobs new, base %.8s; want %v, %d, %.8s", what, st.ReadAhead, st.BlobsNew, st.Base, ahead, blobsNew, parent)
		}
	}
	if st, err := Run(ctx, repo, o); err != nil || st.ReadAhead {
		t.Fatalf("first run: %v, read ahead %v", err, st.ReadAhead)
	}
	orig := files["chunk/code.go"]
	if orig == "" {
		t.Fatal("chunk/code.go is not among the real files")
	}
	gittest.Commit(t, dir, "edit", map[string]string{"chunk/code.go": orig + "\n// 连接池超时的说明\n", "notes/new.md": "# 新笔记\n\n重试 与 超时\n"})
	run("an edit and a new file", true, 2)
	gittest.Commit(t, dir, "revert", map[string]string{"chunk/code.go": orig})
	run("a revert (its blob indexed before)", false, 0)
	gittest.Git(t, dir, "mv", "notes/new.md", "notes/moved.md")
	gittest.Git(t, dir, "commit", "-qm", "move")
	run("a move", true, 0)
	// Back: a blob's path terms are those of the path it was first
	// analyzed under (TestIncrementalViewEqualsRebuild), so the views
	// compared below hold it there. The tree is the revert's: indexed.
	gittest.Git(t, dir, "mv", "notes/moved.md", "notes/new.md")
	gittest.Git(t, dir, "commit", "-qm", "move back")
	if st, err := Run(ctx, repo, o); err != nil || !st.AlreadyIndexed || st.ReadAhead {
		t.Fatalf("a move back to an indexed tree: %v, already indexed %v, read ahead %v", err, st.AlreadyIndexed, st.ReadAhead)
	}
	gittest.Commit(t, dir, "edit again", map[string]string{"README.md": files["README.md"] + "\n再改一行\n"})
	if err := os.WriteFile(filepath.Join(DBDir(repo), lastFile), []byte("not a hint\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("an unreadable hint", false, 1)
	gittest.Commit(t, dir, "edit once more", map[string]string{"README.md": files["README.md"] + "\n又改一行\n"})
	run("after the usual path", true, 1)

	fresh, err := gitx.Open(gittest.Clone(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, fresh, o); err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"HEAD", "HEAD~2"} {
		if rev != "HEAD" {
			if _, err := Run(ctx, fresh, Options{Rev: rev, MaxFileSize: testMaxSize}); err != nil {
				t.Fatal(err)
			}
		}
		sameView(t, repo, fresh, rev, rev, "built commit by commit")
	}
}
