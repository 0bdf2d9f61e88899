package gitx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestObjectStoreMatchesGit: every blob of a history read in process is
// the blob go-git reads, loose, packed with offset deltas, packed with
// reference deltas (deep chains, a few packs), and the store declines a
// repository git would read otherwise (alternates, replace refs).
func TestObjectStoreMatchesGit(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "# A\n", "b.go": "package b\n", "empty.txt": ""})
	body := strings.Repeat("a line of the long file that changes a little each commit\n", 400)
	for i := range 30 {
		gittest.Commit(t, dir, fmt.Sprint(i), map[string]string{
			"long.md": body + strings.Repeat(fmt.Sprintf("edit %d\n", i), i+1),
			"a.md":    fmt.Sprintf("# A\n\nversion %d\n", i),
		})
	}
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var blobs []Hash
	for _, h := range strings.Fields(gittest.Git(t, dir, "rev-list", "--objects", "--all")) {
		if len(h) == 40 && strings.TrimSpace(gittest.Git(t, dir, "cat-file", "-t", h)) == "blob" {
			blobs = append(blobs, ParseHash(h))
		}
	}
	if len(blobs) < 60 {
		t.Fatalf("only %d blobs", len(blobs))
	}
	check := func(name string, wantDeltas bool) {
		t.Helper()
		repo, err := Open(dir) // go-git keeps the packs it saw open
		if err != nil {
			t.Fatal(err)
		}
		s, ok := newObjectStore(repo.CommonDir)
		if !ok {
			t.Fatalf("%s: the store declines the repository", name)
		}
		defer s.close()
		for _, h := range blobs {
			want, err := repo.ReadBlob(h)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.readBlob(h)
			if err != nil || string(got) != string(want) {
				t.Fatalf("%s: %s: %d bytes, %v; want %d bytes", name, h, len(got), err, len(want))
			}
		}
		tree := ParseHash(gittest.Git(t, dir, "rev-parse", "HEAD^{tree}"))
		var nb notBlobError
		if _, err := s.readBlob(tree); !errors.As(err, &nb) {
			t.Fatalf("%s: a tree read as a blob: %v", name, err)
		}
		if _, err := s.readBlob(ParseHash("0123456789012345678901234567890123456789")); !errors.Is(err, errNotHere) {
			t.Fatalf("%s: a missing object: %v", name, err)
		}
		if wantDeltas {
			chains := 0
			for _, idx := range must(filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))) {
				for _, l := range strings.Split(gittest.Git(t, dir, "verify-pack", "-v", idx), "\n") {
					if f := strings.Fields(l); len(f) >= 7 && f[1] == "blob" {
						chains++
					}
				}
			}
			if chains < 20 {
				t.Fatalf("%s: only %d deltified blobs: the delta path is not tested", name, chains)
			}
		}
	}
	check("loose", false)
	gittest.Git(t, dir, "gc", "-q", "--aggressive")
	check("offset deltas", true)
	gittest.Git(t, dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--depth=50")
	check("reference deltas", true)
	gittest.Commit(t, dir, "loose again", map[string]string{"c.txt": "new\n"})
	blobs = append(blobs, ParseHash(gittest.Git(t, dir, "rev-parse", "HEAD:c.txt")))
	check("packed and loose", false)

	// A damaged loose object is an error (the caller then asks git),
	// never other text: its deflated bytes end early, or fail the checksum.
	c := ParseHash(gittest.Git(t, dir, "rev-parse", "HEAD:c.txt"))
	loose := filepath.Join(dir, ".git", "objects", c.String()[:2], c.String()[2:])
	raw, err := os.ReadFile(loose)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(loose, 0o644)
	for _, bad := range [][]byte{raw[:len(raw)-3], append(append([]byte{}, raw[:len(raw)-1]...), raw[len(raw)-1]^0xff)} {
		if err := os.WriteFile(loose, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		s, _ := newObjectStore(repo.CommonDir)
		if got, err := s.readBlob(c); err == nil {
			t.Fatalf("damaged loose object read as %q", got)
		}
	}
	os.WriteFile(loose, raw, 0o444)

	alt := filepath.Join(dir, ".git", "objects", "info", "alternates")
	if err := os.WriteFile(alt, []byte(filepath.Join(t.TempDir(), "objects")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := newObjectStore(repo.CommonDir); ok {
		t.Fatal("alternates: the store reads the repository")
	}
	os.Remove(alt)
	gittest.Git(t, dir, "config", "extensions.refStorage", "files")
	if _, ok := newObjectStore(repo.CommonDir); ok {
		t.Fatal("extensions.refStorage: the store reads the repository")
	}
	gittest.Git(t, dir, "config", "--unset", "extensions.refStorage")
	gittest.Git(t, dir, "replace", blobs[0].String(), blobs[1].String())
	if _, ok := newObjectStore(repo.CommonDir); ok {
		t.Fatal("replace refs: the store reads the repository")
	}
	// The reader asks git then, which applies the replacement.
	if repo, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	br := repo.NewBlobReader()
	defer br.Close()
	got, err := br.Read(blobs[0])
	want, _ := repo.ReadBlob(blobs[1])
	if err != nil || string(got) != string(want) {
		t.Fatalf("replaced blob through git: %d bytes, %v; want the replacement's %d", len(got), err, len(want))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestBlobReaderFiles: reading blobs in process opens files of the
// object directory only (a pack's index and data once each, a loose
// object while it is read), damaged ones included, and Close leaves
// none open.
func TestBlobReaderFiles(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd to list open files")
	}
	dir := gittest.New(t, map[string]string{"a.md": "# A\n", "b.md": "# B\n"})
	for i := range 5 {
		gittest.Commit(t, dir, fmt.Sprint(i), map[string]string{"a.md": strings.Repeat(fmt.Sprintf("line %d\n", i), 50)})
	}
	gittest.Git(t, dir, "gc", "-q")
	gittest.Commit(t, dir, "loose", map[string]string{"c.md": "# C\n"})
	var blobs []Hash
	for _, p := range []string{"a.md", "b.md", "c.md", "HEAD~1:a.md", "HEAD~3:a.md"} {
		if !strings.Contains(p, ":") {
			p = "HEAD:" + p
		}
		blobs = append(blobs, ParseHash(gittest.Git(t, dir, "rev-parse", p)))
	}
	// A stray index beside the packs: no pack of its own, half a header.
	os.WriteFile(filepath.Join(dir, ".git", "objects", "pack", "pack-0000000000000000000000000000000000000000.idx"), []byte("\xfftOc\x00\x00"), 0o444)
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	gitDir, _ := filepath.EvalSymlinks(filepath.Join(dir, ".git"))
	objects := filepath.Join(gitDir, "objects") + string(filepath.Separator)
	open := func() (in, out []string) {
		fds, _ := os.ReadDir("/proc/self/fd")
		for _, fd := range fds {
			p, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
			if err != nil || !strings.HasPrefix(p, gitDir+string(filepath.Separator)) {
				continue
			}
			if strings.HasPrefix(p, objects) {
				in = append(in, p)
			} else {
				out = append(out, p)
			}
		}
		return in, out
	}
	br := repo.NewBlobReader()
	br.Prefetch(blobs)
	for range 2 {
		for _, h := range append(blobs, Hash{0xde, 0xad}) {
			br.Read(h)
		}
	}
	in, out := open()
	if len(out) > 0 || len(in) > 2 {
		t.Fatalf("open while reading: %v in the object directory (want a pack's index and data), %v elsewhere in .git", in, out)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	if in, out = open(); len(in)+len(out) > 0 {
		t.Fatalf("open after Close: %v %v", in, out)
	}
	if got, err := br.Read(blobs[0]); err == nil {
		t.Fatalf("read %d bytes after Close", len(got))
	}
}
