package gitx_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
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

// twoCommits makes a repository of two commits.
func twoCommits(t *testing.T) (dir string, repo *gitx.Repo, one, two gitx.Hash) {
	t.Helper()
	dir = gittest.New(t, map[string]string{"x.md": "# x\n"})
	gittest.Commit(t, dir, "two", map[string]string{"y.md": "# y\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	one, _ = repo.RevParse(ctx, "HEAD~1")
	two, _ = repo.RevParse(ctx, "HEAD")
	return dir, repo, one, two
}

// A leased push updates a ref (fast-forward or not) only while the remote
// holds the expected value; the zero hash expects no ref at all.
func TestPushLeased(t *testing.T) {
	ctx := context.Background()
	dir, repo, one, two := twoCommits(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, dir, "init", "-q", "--bare", remote)
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

// A leased push of several refs is atomic: one ref whose lease fails
// leaves every ref of the push as it was, and the error names that ref.
// A remote that does not take atomic pushes gets a plain one. Both hold
// under a translated locale too: git's message that a remote takes no
// atomic pushes is translated (German: "die Gegenseite unterstützt keinen
// atomaren Versand"), and so are the progress lines the counts come from.
func TestPushLeasedAtomic(t *testing.T) {
	for _, lang := range []string{"", "de"} {
		t.Run("LANGUAGE="+lang, func(t *testing.T) {
			if lang != "" {
				// No translated locale need be installed: under C.UTF-8,
				// gettext takes the language from LANGUAGE.
				t.Setenv("LC_ALL", "")
				t.Setenv("LC_MESSAGES", "")
				t.Setenv("LANG", "C.UTF-8")
				t.Setenv("LANGUAGE", lang)
			}
			pushLeasedAtomic(t, lang)
		})
	}
}

func pushLeasedAtomic(t *testing.T, lang string) {
	ctx := context.Background()
	dir, repo, one, two := twoCommits(t)
	const a, b = "refs/kb/1/heads/a", "refs/kb/1/heads/b"
	for _, atomic := range []bool{true, false} {
		remote := filepath.Join(t.TempDir(), "remote.git")
		gittest.Git(t, dir, "init", "-q", "--bare", remote)
		gittest.Git(t, remote, "config", "receive.advertiseAtomic", fmt.Sprint(atomic))
		gittest.Git(t, dir, "push", "-q", remote, one.String()+":"+a, one.String()+":"+b)
		if lang != "" && !atomic {
			cmd := exec.Command("git", "push", "--atomic", remote, two.String()+":"+a)
			cmd.Dir = dir
			out, _ := cmd.CombinedOutput()
			if strings.Contains(string(out), "does not support --atomic push") {
				t.Skipf("git does not translate to %s here: %s", lang, out)
			}
		}
		at := func(ref string) string { return gittest.Git(t, remote, "rev-parse", ref) }
		// b's lease expects two, the remote holds one: refused.
		_, err := repo.PushLeased(ctx, remote, map[string]gitx.Hash{a: one, b: two}, two.String()+":"+a, two.String()+":"+b)
		if !errors.Is(err, gitx.ErrStale) || !strings.Contains(err.Error(), b+" (stale info)") || strings.Contains(err.Error(), "hung up") {
			t.Fatalf("atomic %v: one stale lease: %v", atomic, err)
		}
		if at(b) != one.String() {
			t.Fatalf("atomic %v: the stale ref moved to %s", atomic, at(b))
		}
		if want := map[bool]string{true: one.String(), false: two.String()}[atomic]; at(a) != want {
			t.Fatalf("atomic %v: the other ref is at %s, want %s", atomic, at(a), want)
		}
		// Both leases hold: both updated, atomic or not; two's commit,
		// tree and blob are sent (the plain push sent them with a).
		tr, err := repo.PushLeased(ctx, remote, map[string]gitx.Hash{a: gitx.ParseHash(at(a)), b: one}, one.String()+":"+a, two.String()+":"+b)
		if err != nil {
			t.Fatalf("atomic %v: leases held: %v", atomic, err)
		}
		if at(a) != one.String() || at(b) != two.String() {
			t.Fatalf("atomic %v: remote at %s %s", atomic, at(a), at(b))
		}
		if atomic && (tr.Objects == 0 || tr.Bytes == 0) {
			t.Errorf("atomic %v: the push sent %d objects, %d bytes, as read from git's progress", atomic, tr.Objects, tr.Bytes)
		}
	}
}
