package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestLostObjectIsMissingNotEmpty: a file whose blob git has lost (a
// deleted loose object; a damaged pack is the same to git) is counted
// "missing from git", as README says, not "empty". git ls-tree -l prints
// its size as "BAD", which was read as 0: the run skipped the file as
// empty without asking git for it.
func TestLostObjectIsMissingNotEmpty(t *testing.T) {
	dir := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
	gittest.Commit(t, dir, "lost", map[string]string{"lost.md": "# 失踪\n\n这篇文档的对象会丢失。\n"})
	sha := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD:lost.md"))
	if err := os.Remove(filepath.Join(dir, ".git", "objects", sha[:2], sha[2:])); err != nil {
		t.Skipf("the blob is packed: %v", err)
	}
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped[SkipMissing] != 1 || st.Skipped[SkipEmpty] != 0 || st.Indexed != 1 {
		t.Errorf("a lost blob: indexed %d, skipped %v; want 1 indexed, 1 %q", st.Indexed, st.Skipped, SkipMissing)
	}
}
