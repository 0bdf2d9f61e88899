package gitx_test

import (
	"context"
	"errors"
	"path/filepath"
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

// A leased push updates a ref (fast-forward or not) only while the remote
// holds the expected value; the zero hash expects no ref at all.
func TestPushLeased(t *testing.T) {
	dir := gittest.New(t, map[string]string{"x.md": "# x\n"})
	gittest.Commit(t, dir, "two", map[string]string{"y.md": "# y\n"})
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, dir, "init", "-q", "--bare", remote)
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	one, _ := repo.RevParse(ctx, "HEAD~1")
	two, _ := repo.RevParse(ctx, "HEAD")
	const ref = "refs/kb/1/heads/x"
	at := func() string { return strings.TrimSpace(gittest.Git(t, remote, "rev-parse", ref)) }
	if _, err := repo.PushLeased(ctx, remote, map[string]gitx.Hash{ref: {}}, two.String()+":"+ref); err != nil {
		t.Fatalf("lease on a missing ref: %v", err)
	}
	// Not a fast-forward, and the lease holds: replaced.
	if _, err := repo.PushLeased(ctx, remote, map[string]gitx.Hash{ref: two}, one.String()+":"+ref); err != nil || at() != one.String() {
		t.Fatalf("lease held: %v, remote at %s", err, at())
	}
	// The remote moved on from what the lease expects: refused, untouched.
	for _, want := range []gitx.Hash{two, {}} {
		_, err := repo.PushLeased(ctx, remote, map[string]gitx.Hash{ref: want}, two.String()+":"+ref)
		if !errors.Is(err, gitx.ErrStale) || at() != one.String() {
			t.Fatalf("stale lease %s: %v, remote at %s", want, err, at())
		}
	}
}
