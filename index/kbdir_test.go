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

// TestKBDirNotADirectory: where .git/kb is a file, or a link to a
// directory that is gone (an index moved to another disk, since
// unmounted), an index run says what is wrong and what to do, and doctor
// reports it as an error. The run said "mkdir .git/kb: file exists", and
// doctor said "no index yet; run: git kb index", which then failed so.
func TestKBDirNotADirectory(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(kb string) error
		want string
	}{
		{"file", func(kb string) error { return os.WriteFile(kb, []byte("x\n"), 0o644) }, "not a directory"},
		{"dangling link", func(kb string) error { return os.Symlink(filepath.Join(filepath.Dir(kb), "gone", "kb"), kb) }, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
			repo, err := gitx.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.make(repo.KBDir()); err != nil {
				t.Fatal(err)
			}
			_, err = Run(context.Background(), repo, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), repo.KBDir()) {
				t.Errorf("index: %v; want it to say %q of %s", err, tc.want, repo.KBDir())
			}
			checks, err := Doctor(context.Background(), repo, nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, c := range checks {
				if c.Status == "error" && strings.Contains(c.Detail, tc.want) && c.Fix != "" {
					found = true
				}
			}
			if !found {
				t.Errorf("doctor does not report it: %+v", checks)
			}
		})
	}
}
