package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/store"
)

// TestGCOnANearlyFullDisk: gc on a disk with a little more free than the
// index's size (room for its logs' reserve, not for the tables compaction
// writes beside them) refuses with the space error, where it used to die
// of a SIGBUS with a Go crash dump; the index stays searchable. Needs a
// tmpfs (root on Linux), like the fault matrix's full disk.
func TestGCOnANearlyFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and mounts a tmpfs")
	}
	bin := gitKBBinary(t)
	dir := gittest.New(t, genDocs(6000, 11, "docs"))
	if r := runBin(t, bin, dir, "", "index", "-q"); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.err)
	}
	kbDir := filepath.Join(dir, ".git", "kb")
	size := store.DirSize(filepath.Join(kbDir, "db"))
	mnt := tmpfsOrSkip(t, dir, fmt.Sprint(4*size+(8<<20)))
	// Leave a tenth more than the index's size free.
	fill := store.FreeSpace(mnt) - size*107/100
	if err := os.WriteFile(filepath.Join(mnt, "filler"), make([]byte, fill), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, bin, dir, "", "gc")
	t.Logf("size %d free %d: exit %d\n%s\n%s", size, store.FreeSpace(mnt), r.code, r.out, r.err)
	if crashDump(r) || strings.Contains(r.err, "SIGBUS") {
		t.Fatalf("gc crashed on a nearly full disk:\n%s", r.err)
	}
	if r.code == 0 || !strings.Contains(r.err, "free") {
		t.Errorf("gc with %d bytes free for a %d-byte index: exit %d, stderr %q", store.FreeSpace(mnt), size, r.code, r.err)
	}
	if s := runBin(t, bin, dir, "", "search", "--no-index", "-q", "回滚"); s.code != 0 || s.out == "" {
		t.Errorf("search after the refused gc: %d %s", s.code, s.err)
	}
}
