//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
)

// stoppedIndexer starts a real git-kb index in dir and stops it (SIGSTOP)
// as soon as it holds the index lock; it is killed at the end of the test.
func stoppedIndexer(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(gitKBBinary(t), "index", "--quiet", "--embed", "off")
	cmd.Dir, cmd.Env = dir, gittest.Env()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
	})
	kbDir := filepath.Join(dir, ".git", "kb")
	holder := filepath.Join(kbDir, "index.lock.holder")
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, err := os.Stat(holder); err == nil {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGSTOP)
	if !index.Running(kbDir) {
		t.Fatal("the indexer did not hold the lock when stopped (finished first?)")
	}
	return cmd
}

// indexWait runs git-kb index --wait WAIT in dir: its exit code, stderr
// and how long it took.
func indexWait(t *testing.T, dir, wait string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(gitKBBinary(t), "index", "--embed", "off", "--wait", wait)
	cmd.Dir, cmd.Env = dir, gittest.Env()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	began := time.Now()
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, errb.String(), time.Since(began)
}

// TestIndexWaitsForStoppedIndexer: behind an indexer stopped with SIGSTOP
// (^Z), git kb index says after a second who holds the lock and that it
// is stopped, gives up after --wait with one line saying what to do, and
// loses nothing: resumed, the first finishes and the next run finds the
// commit indexed. A killed holder's lock is taken over at once.
func TestIndexWaitsForStoppedIndexer(t *testing.T) {
	dir := gittest.New(t, genDocs(400, 11, "base"))
	first := stoppedIndexer(t, dir)
	pid := strconv.Itoa(first.Process.Pid)

	code, stderr, took := indexWait(t, dir, "2s")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 1 || took < 2*time.Second || took > 20*time.Second || len(lines) != 2 {
		t.Fatalf("behind a stopped indexer: exit %d after %s, stderr:\n%s", code, took, stderr)
	}
	if l := lines[0]; !strings.Contains(l, "waiting for another git kb index") || !strings.Contains(l, "pid "+pid) || !strings.Contains(l, "stopped") || !strings.Contains(l, "kill -CONT "+pid) {
		t.Errorf("notice %q: want who holds the lock, that it is stopped and how to resume it", l)
	}
	if l := lines[1]; !strings.Contains(l, "pid "+pid) || !strings.Contains(l, "after a wait of 2s") || !strings.Contains(l, "resume it (kill -CONT "+pid+") or end it (kill "+pid+")") {
		t.Errorf("error %q: want who, how long and what to do", l)
	}
	if code, stderr, _ := indexWait(t, dir, "0"); code != 1 || !strings.Contains(stderr, "after a wait of 0s") || strings.Contains(stderr, "waiting for") {
		t.Errorf("--wait 0: exit %d, stderr:\n%s", code, stderr)
	}
	if code, stderr, _ := indexWait(t, dir, "soon"); code != 2 || !strings.Contains(stderr, "--wait soon: want a duration") {
		t.Errorf("--wait soon: exit %d, stderr:\n%s", code, stderr)
	}

	// Resumed, the first run finishes; nothing was lost.
	first.Process.Signal(syscall.SIGCONT)
	if code, stderr, _ := indexWait(t, dir, "2m"); code != 0 {
		t.Fatalf("after SIGCONT: exit %d: %s", code, stderr)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the resumed indexer: %v", err)
	}
	if r, errs, code := searchBin(t, dir, "--no-index", "手册"); code != 0 || len(r.Results) == 0 {
		t.Fatalf("search after both runs: exit %d, %d results: %s", code, len(r.Results), errs)
	}

	// A holder killed while stopped: the next run takes its lock at once.
	gittest.Commit(t, dir, "more", genDocs(400, 12, "more"))
	killed := stoppedIndexer(t, dir)
	killed.Process.Kill()
	killed.Wait()
	if code, stderr, _ := indexWait(t, dir, "0"); code != 0 || strings.Contains(stderr, "waiting") {
		t.Fatalf("after the holder was killed: exit %d: %s", code, stderr)
	}
}
