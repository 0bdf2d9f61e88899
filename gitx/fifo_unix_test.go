//go:build unix

package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// within fails the test if f takes longer than a few seconds: what it
// tests is that nothing blocks.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// TestFIFOObjectIsUnreadable: a named pipe where a loose object (or a
// pack index) should be is refused without blocking, by the object store
// and by the reader, which does not hand it to git either (git's open of
// a FIFO waits for a writer forever); the other blobs still read, and a
// FIFO pack index is left out like a garbled one.
func TestFIFOObjectIsUnreadable(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "# A\n", "b.md": "# B\n"})
	a := ParseHash(gittest.Git(t, dir, "rev-parse", "HEAD:a.md"))
	b := ParseHash(gittest.Git(t, dir, "rev-parse", "HEAD:b.md"))
	objects := filepath.Join(dir, ".git", "objects")
	fifo := loosePath(objects, a)
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(objects, "pack", "pack-0000000000000000000000000000000000000000.idx"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	isFIFO := func(what string, err error) {
		t.Helper()
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Path != fifo || nr.Mode&os.ModeNamedPipe == 0 {
			t.Fatalf("%s: %v, want a NotRegularError naming %s", what, err, fifo)
		}
	}
	within(t, "the object store", func() {
		s, ok := newObjectStore(repo.CommonDir)
		if !ok {
			t.Fatal("the store declines the repository")
		}
		defer s.close()
		_, err := s.readBlob(a)
		isFIFO("object store", err)
		if got, err := s.readBlob(b); err != nil || string(got) != "# B\n" {
			t.Fatalf("the other blob: %q %v", got, err)
		}
	})
	read := func(name string) {
		t.Helper()
		within(t, name, func() {
			br := repo.NewBlobReader()
			defer br.Close()
			_, err := br.Read(a)
			isFIFO(name, err)
			br.Prefetch([]Hash{a, b})
			_, err = br.Read(a)
			isFIFO(name+", prefetched", err)
			if got, err := br.Read(b); err != nil || string(got) != "# B\n" {
				t.Fatalf("%s: the other blob after the FIFO: %q %v", name, got, err)
			}
		})
	}
	read("the reader")
	within(t, "go-git's read", func() {
		_, err := repo.ReadBlob(a)
		isFIFO("ReadBlob", err)
	})
	// An alternate object directory: the store declines the repository,
	// and every blob would go to git.
	alt := filepath.Join(t.TempDir(), "objects")
	os.MkdirAll(alt, 0o755)
	if err := os.WriteFile(filepath.Join(objects, "info", "alternates"), []byte(alt+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := newObjectStore(repo.CommonDir); ok {
		t.Fatal("alternates: the store reads the repository")
	}
	os.Remove(filepath.Join(objects, "pack", "pack-0000000000000000000000000000000000000000.idx")) // git would wait on it
	read("the reader through git")
}
