//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestTeamSynonymsFIFO: a named pipe as kb.synonyms is refused at once,
// by search and doctor alike, instead of blocking them (an open of a
// FIFO waits for a writer, and a signal does not end the wait).
func TestTeamSynonymsFIFO(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.md": "# 熔断\n\n熔断的配置。\n"})
	indexJSON(t, dir)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.txt"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	gittest.Git(t, dir, "config", "kb.synonyms", "fifo.txt")
	if _, errs, code := kb(t, dir, "search", "熔断"); code != 1 || !strings.Contains(errs, "not a regular file") {
		t.Errorf("search: exit %d, %s", code, errs)
	}
	if out, _, code := kb(t, dir, "doctor"); code == 0 || !strings.Contains(out, "not a regular file") {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}
	if _, errs, code := kb(t, dir, "search", "--synonyms", filepath.Join(dir, "fifo.txt"), "--no-synonyms", "熔断"); code != 2 {
		t.Errorf("--synonyms with --no-synonyms: exit %d, %s", code, errs)
	}
}
