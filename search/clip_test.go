package search

import (
	"runtime"
	"strings"
	"testing"
)

// clipRunes is clip as it was written, over a []rune of the text: the
// reference for what clip shows.
func clipRunes(s string, terms []string) string {
	rs := []rune(s)
	if len(rs) <= snippetRunes {
		return s
	}
	from := clipFrom(s, terms)
	to := min(len(rs), from+snippetRunes)
	out := string(rs[from:to])
	if from > 0 {
		out = "…" + out
	}
	if to < len(rs) {
		out += "…"
	}
	return out
}

// TestClip: clip shows what it showed (the runes around the first match,
// an invalid byte as U+FFFD), and for a one-line file of megabytes it
// allocates about the text's lowercased copy, not four bytes a byte.
func TestClip(t *testing.T) {
	long := strings.Repeat("连接池 retryCount=3; ", 400)
	for _, tt := range []struct {
		s     string
		terms []string
	}{
		{"short", []string{"short"}},
		{long, nil},
		{long, []string{"retrycount"}},
		{"前" + long + "TiKV 磁盘" + long, []string{"tikv"}},
		{long + "\xff\xfe bad bytes " + long, []string{"bad"}},
		{long[:len(long)-1], []string{"absent"}},
	} {
		if got, want := clip(tt.s, tt.terms), clipRunes(tt.s, tt.terms); got != want {
			t.Errorf("clip(%d bytes, %q) = %q, want %q", len(tt.s), tt.terms, got, want)
		}
	}

	huge := strings.Repeat("x", 8<<20) + " needle " + strings.Repeat("y", 8<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := clip(huge, []string{"needle"})
	runtime.ReadMemStats(&after)
	if !strings.Contains(out, "needle") {
		t.Fatalf("the match is not in the snippet: %q", out)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*uint64(len(huge)) {
		t.Errorf("clip of %d bytes allocated %d bytes", len(huge), alloc)
	}
}
