package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunCoalescesABurst(t *testing.T) {
	kb := t.TempDir()
	spawned := 0
	for range 50 {
		spawn, err := Trigger(kb, "wt")
		if err != nil {
			t.Fatal(err)
		}
		if spawn {
			spawned++
		}
	}
	var runs atomic.Int32
	index := func(context.Context, string) (string, error) {
		runs.Add(1)
		return "0123456789abcdef0123456789abcdef01234567", nil
	}
	if err := Run(context.Background(), kb, "wt", index); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 1 || spawned != 50 {
		t.Errorf("50 hook calls: %d index runs (want 1); %d asked for a runner", runs.Load(), spawned)
	}
	last := ReadLast(kb)
	if last == nil || !last.OK || last.Runs != 1 || !strings.HasPrefix(last.Commit, "0123") {
		t.Errorf("last: %+v", last)
	}
}

func TestRunnerIsAlone(t *testing.T) {
	kb := t.TempDir()
	Trigger(kb, "wt")
	started := make(chan struct{})
	release := make(chan struct{})
	var runs atomic.Int32
	slow := func(context.Context, string) (string, error) {
		if runs.Add(1) == 1 {
			close(started)
			<-release
			return "0123456789abcdef0123456789abcdef01234567", nil
		}
		return "", errors.New("boom") // a failed run backs off (TestRunBacksOffAfterFailure)
	}
	done := make(chan error)
	go func() { done <- Run(context.Background(), kb, "wt", slow) }()
	<-started
	// While a runner works, hooks do not start another, and a second
	// runner exits at once.
	if spawn, _ := Trigger(kb, "wt"); spawn {
		t.Error("a hook wanted a second runner")
	}
	if err := Run(context.Background(), kb, "wt", slow); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The trigger during the run caused exactly one more run.
	if runs.Load() != 2 {
		t.Errorf("%d runs, want 2", runs.Load())
	}
	if last := ReadLast(kb); last == nil || last.OK || last.Error != "boom" {
		t.Errorf("failure not recorded: %+v", last)
	}
	logb, _ := os.ReadFile(filepath.Join(kb, LogFile))
	if !strings.Contains(string(logb), "index failed") {
		t.Errorf("log: %s", logb)
	}
}

func TestInstallChainUninstall(t *testing.T) {
	dir := t.TempDir()
	mine := []byte("#!/bin/sh\nexit 0\n")
	os.WriteFile(filepath.Join(dir, "post-merge"), mine, 0o700)
	if _, err := Install(dir, "/usr/bin/git-kb"); err != nil {
		t.Fatal(err)
	}
	for _, h := range Status(dir) {
		if !h.Ours || h.Chained != (h.Name == "post-merge") {
			t.Errorf("%+v", h)
		}
	}
	// A new binary path rewrites our hooks and keeps the chain.
	did, err := Install(dir, "/opt/git kb/git-kb")
	if err != nil || !strings.Contains(strings.Join(did, "\n"), "updated") {
		t.Errorf("reinstall with another path: %v %v", did, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "post-commit"))
	if !strings.Contains(string(b), `kb='/opt/git kb/git-kb'`) {
		t.Errorf("path not quoted for the shell:\n%s", b)
	}
	if _, err := Uninstall(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "post-merge"))
	entries, _ := os.ReadDir(dir)
	if string(got) != string(mine) || len(entries) != 1 {
		t.Errorf("after uninstall: %q, %d files", got, len(entries))
	}
}

// A failing index (disk full) is logged once and not retried on every
// hook call until its back-off has passed.
func TestRunBacksOffAfterFailure(t *testing.T) {
	kb := t.TempDir()
	var runs atomic.Int32
	fail := func(context.Context, string) (string, error) {
		runs.Add(1)
		return "", errors.New("not enough disk space for the index")
	}
	for range 3 { // three commits, each firing a hook and a runner
		Trigger(kb, "wt")
		if err := Run(context.Background(), kb, "wt", fail); err != nil {
			t.Fatal(err)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("3 hook calls after a failure: %d index runs, want 1 (back-off)", runs.Load())
	}
	last := ReadLast(kb)
	if last == nil || last.OK || last.Failures != 1 || time.Until(last.RetryAfter) < 20*time.Second {
		t.Fatalf("last: %+v", last)
	}
	log, _ := os.ReadFile(filepath.Join(kb, LogFile))
	if n := strings.Count(string(log), "index failed"); n != 1 {
		t.Errorf("log has %d failure lines, want 1:\n%s", n, log)
	}
	// Once the pause is over the runner tries again, and a success clears it.
	last.RetryAfter = time.Now().Add(-time.Second)
	b, _ := json.Marshal(last)
	os.WriteFile(filepath.Join(kb, stateDir, lastFile), b, 0o644)
	Trigger(kb, "wt")
	if err := Run(context.Background(), kb, "wt", func(context.Context, string) (string, error) {
		runs.Add(1)
		return "0123456789abcdef0123456789abcdef01234567", nil
	}); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 2 || !ReadLast(kb).OK {
		t.Errorf("after the back-off: %d runs, last %+v", runs.Load(), ReadLast(kb))
	}
}

// TestRunIndexesTheWorktreeThatFired: a hook in another worktree while a
// runner works starts no runner of its own, so the live one indexes that
// worktree's HEAD next (it used to index its own HEAD again, and the
// other worktree's commit stayed unindexed until its next hook).
func TestRunIndexesTheWorktreeThatFired(t *testing.T) {
	kb := t.TempDir()
	Trigger(kb, "main")
	started := make(chan struct{})
	release := make(chan struct{})
	var indexed []string
	first := true
	index := func(_ context.Context, head string) (string, error) {
		indexed = append(indexed, head)
		if first {
			first = false
			close(started)
			<-release
		}
		return "0123456789abcdef0123456789abcdef01234567", nil
	}
	done := make(chan error)
	go func() { done <- Run(context.Background(), kb, "main", index) }()
	<-started
	if spawn, _ := Trigger(kb, "linked"); spawn {
		t.Error("a hook in the other worktree wanted a second runner")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Join(indexed, " ") != "main linked" {
		t.Errorf("indexed the HEADs of %q, want main then linked", indexed)
	}
	// Hooks in both worktrees during a burst: each HEAD once, in the
	// order they fired.
	indexed = nil
	Trigger(kb, "linked")
	Trigger(kb, "main")
	if err := Run(context.Background(), kb, "main", index); err != nil {
		t.Fatal(err)
	}
	if strings.Join(indexed, " ") != "linked main" {
		t.Errorf("after a burst in both worktrees, indexed %q, want linked then main", indexed)
	}
}

// TestRunRetriesTheWorktreeThatFailed: a worktree whose index run failed
// is indexed again on the next round, even when that round was started by
// a hook in another worktree.
func TestRunRetriesTheWorktreeThatFailed(t *testing.T) {
	kb := t.TempDir()
	var indexed []string
	fail := true
	index := func(_ context.Context, head string) (string, error) {
		indexed = append(indexed, head)
		if head == "linked" && fail {
			fail = false
			return "", errors.New("no space left on device")
		}
		return "0123456789abcdef0123456789abcdef01234567", nil
	}
	Trigger(kb, "linked")
	if err := Run(context.Background(), kb, "main", index); err != nil {
		t.Fatal(err)
	}
	last := ReadLast(kb)
	if last == nil || last.OK {
		t.Fatalf("last run %+v, want the failure recorded", last)
	}
	// The back-off has passed; a hook in the main worktree fires.
	last.RetryAfter = time.Now().Add(-time.Second)
	b, _ := json.Marshal(last)
	os.WriteFile(filepath.Join(kb, stateDir, lastFile), b, 0o644)
	indexed = nil
	Trigger(kb, "main")
	if err := Run(context.Background(), kb, "main", index); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(indexed, "linked") || !slices.Contains(indexed, "main") {
		t.Errorf("after the back-off, a hook in main indexed %q, want the failed linked worktree too", indexed)
	}
	if last := ReadLast(kb); last == nil || !last.OK {
		t.Errorf("last run %+v, want it OK", last)
	}
}

// TestTriggerMarkIsWhole: a runner taking the worktree marks while hooks
// write them reads each whole or not at all, never a cut one (which names
// no worktree, and would fail the run).
func TestTriggerMarkIsWhole(t *testing.T) {
	kb := t.TempDir()
	head := strings.Repeat("/a/worktree/path", 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 300 {
			if _, err := Trigger(kb, head); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	dir := filepath.Join(kb, stateDir)
	cut := 0
	for taking := true; taking; {
		select {
		case <-done:
			taking = false
		default:
		}
		for _, h := range takeHeads(dir) {
			if h != head {
				cut++
			}
		}
	}
	if cut > 0 {
		t.Errorf("took %d cut marks", cut)
	}
}

// TestTriggerWithoutAMark: a hook whose worktree mark cannot be written
// (here a file stands where its directory goes) still counts: the runner
// starts and indexes its own HEAD.
func TestTriggerWithoutAMark(t *testing.T) {
	kb := t.TempDir()
	os.MkdirAll(filepath.Join(kb, stateDir), 0o755)
	if err := os.WriteFile(filepath.Join(kb, stateDir, headsDir), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	spawn, err := Trigger(kb, "linked")
	if err != nil || !spawn {
		t.Fatalf("Trigger: spawn %v, %v", spawn, err)
	}
	var indexed []string
	err = Run(context.Background(), kb, "main", func(_ context.Context, head string) (string, error) {
		indexed = append(indexed, head)
		return "0123456789abcdef0123456789abcdef01234567", nil
	})
	if err != nil || strings.Join(indexed, " ") != "main" {
		t.Errorf("Run: %v, indexed %q, want main", err, indexed)
	}
}
