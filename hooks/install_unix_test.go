//go:build unix

package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInstallThatCannotWriteKeepsTheHooks: an install whose write fails
// (a full disk; here the file-size limit, which fails the write the same
// way) leaves the hooks directory as it was. It used to move the user's
// post-checkout aside to post-checkout.pre-git-kb first, so git ran no
// post-checkout hook at all, left an empty post-checkout.git-kb-tmp, and
// printed "post-checkout: installed, chaining the existing hook".
func TestInstallThatCannotWriteKeepsTheHooks(t *testing.T) {
	dir := t.TempDir()
	mine := []byte("#!/bin/sh\necho mine\n")
	if err := os.WriteFile(filepath.Join(dir, "post-checkout"), mine, 0o755); err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	lim := old
	lim.Cur = 16 // our script is longer: its write fails (EFBIG)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	did, err := Install(dir, "/usr/bin/git-kb")
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if err == nil {
		t.Fatalf("install under a 16-byte file limit: no error (%q)", did)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "post-checkout")); !bytes.Equal(got, mine) {
		t.Errorf("post-checkout after the failed install: %q, want the user's %q", got, mine)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 {
		t.Errorf("hooks dir after the failed install: %q, want only post-checkout", names)
	}
	if s := strings.Join(did, "\n"); strings.Contains(s, "installed") {
		t.Errorf("the failed install reports %q", s)
	}
}
