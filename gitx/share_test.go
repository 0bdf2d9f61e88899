package gitx_test

import (
	"context"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// A failed push or fetch names git's reason: for a remote that does not
// exist it is the first of four lines ("fatal: 'x' does not appear to be
// a git repository"), and the error kept only the last three, the
// generic "Could not read from remote repository ... access rights".
func TestRemoteErrorKeepsTheCause(t *testing.T) {
	dir := gittest.New(t, map[string]string{"x.md": "# x\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, op := range map[string]func() error{
		"push": func() error { _, err := repo.Push(ctx, "nosuchremote", "HEAD:refs/kb/1/heads/x"); return err },
		"fetch": func() error {
			_, err := repo.Fetch(ctx, "nosuchremote", "+refs/kb/1/*:refs/kb/remotes/x/1/*")
			return err
		},
	} {
		err := op()
		if err == nil || !strings.Contains(err.Error(), "'nosuchremote' does not appear to be a git repository") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
