package main

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
)

// TestKillNineWhileSpilling: under a memory budget small enough that the
// indexer spills sorted runs to .git/kb/spill and merges them, a SIGKILL
// while it spills or merges leaves the previous view searchable, never a
// partial one; the next run clears the spill directory and agrees with a
// clean index, and doctor finds nothing wrong.
func TestKillNineWhileSpilling(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a real indexer 4 times")
	}
	dir, a, b, wantA, wantB, _ := crashRepo(t, 1200)
	gittest.Git(t, dir, "config", "kb.index.memoryMB", "1")
	spill := index.SpillDir(filepath.Join(dir, ".git", "kb"))
	runs := func() int { es, _ := os.ReadDir(spill); return len(es) }
	// How long a run takes once it has spilled, and that it spills at all.
	rebase := func() {
		os.RemoveAll(filepath.Join(dir, ".git", "kb"))
		kbBin(t, dir, "index", "--quiet", "--rev", a)
	}
	rebase()
	out := kbBin(t, dir, "index", "--json", "--embed", "off")
	if !strings.Contains(out, `"spill_runs"`) || strings.Contains(out, `"spill_runs": 0`) {
		t.Fatalf("the big commit does not spill under 1 MiB: %s", out)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 4 {
		rebase()
		cmd := exec.Command(gitKBBinary(t), "index", "--quiet", "--embed", "off")
		cmd.Dir, cmd.Env = dir, gittest.Env()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the first run on disk, then kill at once (mid-spill)
		// or a little later (later spills, the merge, the write).
		deadline := time.Now().Add(2 * time.Minute)
		for runs() == 0 && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		if i > 0 {
			time.Sleep(time.Duration(rng.Int64N(int64(3 * time.Second))))
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		for _, q := range crashQueries {
			if r, errs, code := searchBin(t, dir, "--no-index", "--rev", a, q); code != 0 || resultKey(r) != wantA[q] {
				t.Errorf("kill %d: search of A %q: exit %d %s", i, q, code, errs)
			}
			r, errs, code := searchBin(t, dir, "--no-index", "--rev", b, q)
			if !(code != 0 && strings.Contains(errs, "not indexed") || code == 0 && resultKey(r) == wantB[q]) {
				t.Errorf("kill %d: search of B %q: exit %d %s", i, q, code, errs)
			}
		}
		if code := kbIndexExit(t, dir); code != 0 {
			t.Fatalf("index after kill %d: exit %d", i, code)
		}
		if n := runs(); n != 0 {
			t.Errorf("kill %d: %d files left in %s after the next run", i, n, spill)
		}
		for _, q := range crashQueries {
			if r, errs, code := searchBin(t, dir, "--no-index", "--rev", b, q); code != 0 || resultKey(r) != wantB[q] {
				t.Errorf("kill %d: after re-indexing, %q differs from a clean index: %s", i, q, errs)
			}
		}
		doctor := exec.Command(gitKBBinary(t), "doctor")
		doctor.Dir, doctor.Env = dir, gittest.Env()
		if out, err := doctor.CombinedOutput(); err != nil {
			t.Errorf("kill %d: doctor: %v\n%s", i, err, out)
		}
	}
}
