package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/store"
)

// tmpfsOrSkip is kbOnTmpfs for a test that needs the tmpfs: it skips
// where none can be mounted and fails where the index does not fit.
func tmpfsOrSkip(t *testing.T, dir, size string) string {
	t.Helper()
	mnt, err := kbOnTmpfs(t, dir, size)
	if errors.Is(err, errNoFit) {
		t.Fatal(err)
	}
	if err != nil {
		t.Skip(err)
	}
	return mnt
}

// TestIndexJustAboveTheSpaceCheck: an index run on a disk with a little
// more free than its space check asks for completes. The check asked for
// twice the run's write estimate, but the run reserves the estimate in
// each of Badger's two logs and then writes the tables beside them: on a
// tmpfs with 1.05x what the check wanted free (tidb-docs-cn: 21.3 MB free,
// 20.2 MiB asked), Badger's table flush died of a SIGBUS with a Go crash
// dump. Needs a tmpfs (root on Linux), like the fault matrix's full disk.
func TestIndexJustAboveTheSpaceCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and mounts a tmpfs")
	}
	bin := gitKBBinary(t)
	dir := gittest.New(t, genDocs(4000, 12, "docs"))
	mnt := tmpfsOrSkip(t, dir, "96m")
	filler := filepath.Join(mnt, "filler")
	fill := func(leave int64) {
		t.Helper()
		os.Remove(filler)
		if err := os.WriteFile(filler, make([]byte, store.FreeSpace(mnt)-leave), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// What the space checks ask for: their errors say. A run on a full
	// disk meets the check of the database's open first (a small
	// figure), then, with that much free, the read phase's.
	re := regexp.MustCompile(`about ([0-9.]+) (KiB|MiB) needed`)
	var r faultRun
	need, free := float64(0), int64(0)
	for range 4 {
		fill(int64(need*1.05) + 64<<10)
		free = store.FreeSpace(mnt)
		r = runBin(t, bin, dir, "", "index", "-q")
		m := re.FindStringSubmatch(r.err)
		if r.code == 0 || m == nil {
			break
		}
		asked, _ := strconv.ParseFloat(m[1], 64)
		asked *= map[string]float64{"KiB": 1 << 10, "MiB": 1 << 20}[m[2]]
		if asked <= need {
			t.Fatalf("index with %.1f MiB free refused, asking for %.1f MiB: %s", float64(free)/(1<<20), asked/(1<<20), r.err)
		}
		need = asked
	}
	// With a little more than the checks ask free, the run must fit.
	t.Logf("asked %.1f MiB, free %.1f MiB: exit %d %s", need/(1<<20), float64(free)/(1<<20), r.code, r.err)
	if need < 8<<20 {
		t.Fatalf("the read phase's check never refused the full disk: asked %.1f MiB", need/(1<<20))
	}
	if crashDump(r) || strings.Contains(r.err, "SIGBUS") {
		t.Fatalf("index crashed on a disk with room for what its space check asked:\n%.2000s", r.err)
	}
	if r.code != 0 {
		t.Fatalf("index with room for what its space check asked: exit %d: %s", r.code, r.err)
	}
	if s := runBin(t, bin, dir, "", "search", "--no-index", "-q", "-n", "1", "连接池 超时"); s.code != 0 || !strings.Contains(s.out, "连接池") {
		t.Errorf("search after the index: exit %d %s%s", s.code, s.out, s.err)
	}
}

// TestRebuildOnAFullDiskKeepsTheIndex: git kb index --rebuild on a disk
// without room for a new index fails with the space error and leaves the
// index as it was. It used to move the index
// aside to .git/kb/damaged first and then fail: searches had no index at
// all ("no index yet"), and the working one sat among the damaged ones,
// for gc to delete after 14 days.
func TestRebuildOnAFullDiskKeepsTheIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and mounts a tmpfs")
	}
	bin := gitKBBinary(t)
	dir := gittest.New(t, genDocs(1500, 13, "docs"))
	if r := runBin(t, bin, dir, "", "index", "-q"); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.err)
	}
	mnt := tmpfsOrSkip(t, dir, "64m")
	want := runBin(t, bin, dir, "", "search", "--no-index", "-q", "-n", "3", "连接池 超时")
	if want.code != 0 || want.out == "" {
		t.Fatalf("search before: %d %s", want.code, want.err)
	}
	filler := filepath.Join(mnt, "filler")
	if err := os.WriteFile(filler, make([]byte, store.FreeSpace(mnt)-(2<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, bin, dir, "", "index", "--rebuild")
	if r.code == 0 || !strings.Contains(r.err, "disk") || strings.Contains(r.err, "moved the") {
		t.Errorf("index --rebuild with 2 MiB free: exit %d, stderr %q", r.code, r.err)
	}
	if s := runBin(t, bin, dir, "", "search", "--no-index", "-q", "-n", "3", "连接池 超时"); s.code != 0 || s.out != want.out {
		t.Errorf("search after the failed rebuild: exit %d %s\n%s", s.code, s.err, s.out)
	}
	if names, _ := filepath.Glob(filepath.Join(mnt, "damaged", "*")); len(names) != 0 {
		t.Errorf("the index is among the damaged ones: %q", names)
	}
	os.Remove(filler)
	if r := runBin(t, bin, dir, "", "index", "--rebuild", "-q"); r.code != 0 {
		t.Errorf("rebuild with room: exit %d %s", r.code, r.err)
	}
}
