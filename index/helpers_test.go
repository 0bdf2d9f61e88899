package index

import (
	"context"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/store"
)

// indexedRepo commits files to a new repository and indexes HEAD.
func indexedRepo(t *testing.T, files map[string]string) *gitx.Repo {
	t.Helper()
	repo, _ := indexDir(t, gittest.New(t, files))
	return repo
}

// indexDir opens the repository at dir and indexes HEAD.
func indexDir(t *testing.T, dir string) (*gitx.Repo, *Stats) {
	t.Helper()
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return repo, st
}

// readIndex opens repo's index read-only for f, and closes it at once: an
// open reader holds off the next index run's writes.
func readIndex[T any](t *testing.T, repo *gitx.Repo, f func(db *store.DB) T) T {
	t.Helper()
	db, err := store.Open(context.Background(), DBDir(repo), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return f(db)
}

// headView is the view of the checkout's HEAD in db.
func headView(t *testing.T, db *store.DB, dir string) *store.View {
	t.Helper()
	v, err := db.View(PipelineVersion, gitx.ParseHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD^{tree}"))))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// anyPosting reports whether one of terms has postings in segs (all of
// db's segments when segs is nil).
func anyPosting(t *testing.T, db *store.DB, segs map[uint32]bool, terms ...string) bool {
	t.Helper()
	if segs == nil {
		all, err := db.Segments()
		if err != nil {
			t.Fatal(err)
		}
		segs = map[uint32]bool{}
		for id := range all {
			segs[id] = true
		}
	}
	found := false
	for _, term := range terms {
		if err := db.Postings(PipelineVersion, term, segs, func(uint32, []byte) error { found = true; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return found
}
