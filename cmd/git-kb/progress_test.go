package main

import (
	"regexp"
	"strconv"
	"testing"
)

// The progress line's memory figure is what the runtime holds from the
// system: a few MiB at least in any Go process, never the unsigned
// wrap-around of a subtraction gone wrong.
func TestMemoryInUse(t *testing.T) {
	got := memoryInUse()
	m := regexp.MustCompile(`^mem (\d+) MiB$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("memoryInUse() = %q, want \"mem N MiB\"", got)
	}
	if n, _ := strconv.Atoi(m[1]); n < 1 || n > 1<<20 {
		t.Errorf("memoryInUse() = %q: not a process's memory", got)
	}
}
