package search_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/search"
)

// TestReadCitedTellsGitsMissesApart: ReadCited, reading a real
// repository through gitx, tells an argument's two readings apart by the
// methods of gitx's errors (search does not import gitx): a text before
// the colon that is no revision, or names a blob (not a commit), makes
// the argument a path, plainly; a revision without that path makes it a
// path with a note; neither reading names a file, an error saying both.
func TestReadCitedTellsGitsMissesApart(t *testing.T) {
	ctx := context.Background()
	dir := gittest.New(t, map[string]string{
		"docs/x.md":      "# x\n\nline two\n",
		"a:b.md":         "a colon in the name\n",
		"main:c.md":      "a branch's name before the colon\n",
		"blobtag:b.md":   "a tag of a blob before the colon\n",
		"docs/other.txt": "other\n",
	})
	gittest.Git(t, dir, "tag", "blobtag", gittest.Git(t, dir, "rev-parse", "HEAD:docs/other.txt"))
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := func(c search.Citation) (string, error) {
		commit, _, err := repo.Resolve(ctx, c.Rev)
		if err != nil {
			return "", err
		}
		_, data, err := repo.FileAt(commit, c.Path)
		if err != nil {
			// Wrapped, as callers word it for the user: the chain is
			// what is read.
			return "", errors.Join(errors.New("reading "+c.Path), err)
		}
		return string(data), nil
	}
	for _, c := range []struct {
		arg, path, note, err string
	}{
		{arg: "docs/x.md#L2", path: "docs/x.md"},
		{arg: "HEAD:docs/x.md#L1-L2", path: "docs/x.md"},
		{arg: "a:b.md", path: "a:b.md"},             // no revision a
		{arg: "blobtag:b.md", path: "blobtag:b.md"}, // blobtag is not a commit
		{arg: "main:c.md", path: "main:c.md", note: "since revision main has no c.md"},
		{arg: "HEAD:nope.md", err: "path not in commit"},
		{arg: "nosuchrev:nope.md", err: "; nor is nosuchrev:nope.md a file at HEAD"},
	} {
		got, err := search.ReadCited(c.arg, "", read)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one saying %q", c.arg, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.arg, err)
		case got.Path != c.path || got.File == "" || (c.note == "") != (got.Note == "") || !strings.Contains(got.Note, c.note):
			t.Errorf("%s: read %s (%q), note %q; want %s, note %q", c.arg, got.Path, got.File, got.Note, c.path, c.note)
		}
	}
}
