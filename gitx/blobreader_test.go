package gitx_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/go-git/go-git/v5/plumbing"
)

// The reader returns what go-git's ReadBlob returns, for blobs read in any
// order and again, from loose objects and from a pack; a missing object
// and a tree are errors that leave it working.
func TestBlobReaderMatchesReadBlob(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "# A\n\nalpha\n", "b/c.go": "package b\n", "empty.txt": ""})
	gittest.Commit(t, dir, "more", map[string]string{"a.md": "# A\n\nalpha, beta\n", "d.txt": string(make([]byte, 200_000))})
	check := func(name string) {
		t.Run(name, func(t *testing.T) {
			repo, err := gitx.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			var blobs []gitx.Hash
			for _, rev := range []string{"HEAD", "HEAD~1"} {
				_, tree, err := repo.Resolve(t.Context(), rev)
				if err != nil {
					t.Fatal(err)
				}
				entries, err := repo.ListTree(t.Context(), tree)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					blobs = append(blobs, e.Blob)
				}
			}
			br := repo.NewBlobReader()
			defer br.Close()
			for _, h := range append(blobs, blobs...) {
				want, err := repo.ReadBlob(h)
				if err != nil {
					t.Fatal(err)
				}
				got, err := br.Read(h)
				if err != nil {
					t.Fatalf("%s: %v", h, err)
				}
				if string(got) != string(want) {
					t.Fatalf("%s: got %d bytes %q..., want %d bytes", h, len(got), got[:min(len(got), 20)], len(want))
				}
			}
			if _, err := br.Read(plumbing.NewHash("0123456789012345678901234567890123456789")); !errors.Is(err, plumbing.ErrObjectNotFound) {
				t.Fatalf("missing blob: err = %v, want ErrObjectNotFound", err)
			}
			tree := gitx.ParseHash(gittest.Git(t, dir, "rev-parse", "HEAD^{tree}"))
			if _, err := br.Read(tree); err == nil {
				t.Fatal("reading a tree as a blob: no error")
			}
			// Still in step after both errors, also from goroutines.
			var wg sync.WaitGroup
			for _, h := range blobs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					want, _ := repo.ReadBlob(h)
					if got, err := br.Read(h); err != nil || string(got) != string(want) {
						t.Errorf("%s after errors: %v, %d bytes want %d", h, err, len(got), len(want))
					}
				}()
			}
			wg.Wait()
			if err := br.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := br.Read(blobs[0]); err == nil {
				t.Fatal("Read after Close: no error")
			}
		})
	}
	check("loose")
	gittest.Git(t, dir, "gc", "-q")
	check("packed")
}

// Prefetch: blobs asked for ahead read as Read reads them, in any order,
// twice, with a missing object and a tree among them, mixed with Reads
// of blobs not asked for and a second Prefetch, and Close ends a reader
// whose answers were never taken.
func TestBlobReaderPrefetch(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "# A\n\nalpha\n", "b/c.go": "package b\n", "empty.txt": "", "big.txt": strings.Repeat("big line\n", 40_000)})
	gittest.Git(t, dir, "gc", "-q")
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	blob := func(p string) gitx.Hash { return gitx.ParseHash(gittest.Git(t, dir, "rev-parse", "HEAD:"+p)) }
	a, c, empty, big := blob("a.md"), blob("b/c.go"), blob("empty.txt"), blob("big.txt")
	missing := plumbing.NewHash("0123456789012345678901234567890123456789")
	tree := gitx.ParseHash(gittest.Git(t, dir, "rev-parse", "HEAD^{tree}"))
	same := func(h gitx.Hash, got []byte, err error) {
		t.Helper()
		want, werr := repo.ReadBlob(h)
		if werr != nil {
			t.Fatal(werr)
		}
		if err != nil || string(got) != string(want) {
			t.Fatalf("%s: %d bytes, %v; want %d bytes", h, len(got), err, len(want))
		}
	}
	br := repo.NewBlobReader()
	br.Prefetch([]gitx.Hash{big, missing, a, tree, a, empty})
	got, err := br.Read(empty) // out of order: waits for the answers before it
	same(empty, got, err)
	if _, err := br.Read(missing); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Fatalf("missing blob asked ahead: err = %v, want ErrObjectNotFound", err)
	}
	got, err = br.Read(c) // not asked ahead: waits for the rest, then asks
	same(c, got, err)
	if _, err := br.Read(tree); err == nil {
		t.Fatal("a tree asked ahead read as a blob: no error")
	}
	got, err = br.Read(big)
	same(big, got, err)
	br.Prefetch([]gitx.Hash{c, a}) // a is still waiting from the first
	for _, h := range []gitx.Hash{a, c, a, big} {
		got, err := br.Read(h)
		same(h, got, err)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	br = repo.NewBlobReader()
	br.Prefetch([]gitx.Hash{big, a})
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := br.Read(c); err == nil {
		t.Fatal("Read after Close: no error")
	}
}

// A reader never read from starts no process, and closes cleanly.
func TestBlobReaderUnused(t *testing.T) {
	repo, err := gitx.Open(gittest.New(t, map[string]string{"a": "a\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.NewBlobReader().Close(); err != nil {
		t.Fatal(err)
	}
}

// Start starts git in the background: a Read waits for it, a Close right
// after it ends it, and a second Start is harmless.
func TestBlobReaderStart(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "alpha\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	blob := gitx.ParseHash(gittest.Git(t, dir, "rev-parse", "HEAD:a.md"))
	br := repo.NewBlobReader()
	br.Start()
	br.Start()
	if got, err := br.Read(blob); err != nil || string(got) != "alpha\n" {
		t.Fatalf("Read after Start: %q, %v", got, err)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	br = repo.NewBlobReader()
	br.Start()
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := br.Read(blob); err == nil {
		t.Fatal("Read after Close: no error")
	}
}

// HeadCommit agrees with Resolve for HEAD on a branch (loose and packed
// refs) and detached, and declines anything else.
func TestHeadCommit(t *testing.T) {
	dir := gittest.Init(t)
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := repo.HeadCommit("HEAD"); ok {
		t.Fatal("unborn HEAD: ok")
	}
	gittest.Commit(t, dir, "one", map[string]string{"a": "a\n"})
	gittest.Commit(t, dir, "two", map[string]string{"a": "b\n"})
	check := func(what string) {
		t.Helper()
		want, _, err := repo.Resolve(t.Context(), "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		for _, rev := range []string{"", "HEAD"} {
			if got, ok := repo.HeadCommit(rev); !ok || got != want {
				t.Fatalf("%s: HeadCommit(%q) = %s %v, want %s", what, rev, got, ok, want)
			}
		}
	}
	check("loose ref")
	gittest.Git(t, dir, "pack-refs", "--all")
	check("packed ref")
	gittest.Git(t, dir, "checkout", "-q", "--detach", "HEAD~1")
	check("detached")
	for _, rev := range []string{"main", "HEAD~1", "HEAD^{tree}"} {
		if _, ok := repo.HeadCommit(rev); ok {
			t.Fatalf("HeadCommit(%q): ok", rev)
		}
	}
}
