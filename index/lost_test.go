package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestLostObjectIsMissingNotEmpty: a file whose blob git has lost (a
// deleted loose object; a damaged pack is the same to git) is counted
// "missing from git", as README says, not "empty". git ls-tree -l prints
// its size as "BAD", which was read as 0: the run skipped the file as
// empty without asking git for it. Once git has the blob again (fetched,
// or restored from a backup), the next index run of the commit adds the
// file: it used to answer "already indexed" for good.
func TestLostObjectIsMissingNotEmpty(t *testing.T) {
	dir := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
	gittest.Commit(t, dir, "lost", map[string]string{"lost.md": "# 失踪\n\n这篇文档的对象会丢失。\n"})
	sha := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD:lost.md"))
	if err := os.Remove(filepath.Join(dir, ".git", "objects", sha[:2], sha[2:])); err != nil {
		t.Skipf("the blob is packed: %v", err)
	}
	repo, st := indexDir(t, dir)
	if st.Skipped[SkipMissing] != 1 || st.Skipped[SkipEmpty] != 0 || st.Indexed != 1 {
		t.Errorf("a lost blob: indexed %d, skipped %v; want 1 indexed, 1 %q", st.Indexed, st.Skipped, SkipMissing)
	}
	// git has it again.
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env = dir, gittest.Env()
	cmd.Stdin = strings.NewReader("# 失踪\n\n这篇文档的对象会丢失。\n")
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != sha {
		t.Fatalf("restore %s: %v %s", sha, err, out)
	}
	st, err := Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed != 2 || st.Skipped[SkipMissing] != 0 || st.BlobsNew != 1 {
		t.Errorf("after git has the blob again: indexed %d, %d new blobs, skipped %v (already indexed: %v); want 2 indexed, 1 new", st.Indexed, st.BlobsNew, st.Skipped, st.AlreadyIndexed)
	}
	// Nothing to do now: the view is complete.
	if st, err = Run(context.Background(), repo, Options{}); err != nil || !st.AlreadyIndexed {
		t.Errorf("a third run: %v, already indexed %v", err, st.AlreadyIndexed)
	}
}
