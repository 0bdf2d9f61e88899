package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// A path with a colon in it (notes/12:30.md) is HEAD's file when the text
// before the colon is no revision; <rev>:<path> keeps working, and an
// argument that reads both ways says which it took.
func TestShowPathWithColon(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold a colon")
	}
	dir := gittest.New(t, map[string]string{
		"docs/a:b.md":    "# a:b\n\ncolon in the name\n",
		"notes/12:30.md": "standup\nat half past twelve\n",
		"a:b.md":         "top-level a:b\n",
		"b.md":           "b at branch a\n",
	})
	first := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "branch", "a")     // a:b.md now reads two ways
	gittest.Git(t, dir, "tag", "notes/12") // a revision without 30.md
	gittest.Commit(t, dir, "change b", map[string]string{"b.md": "b at HEAD\n"})

	for _, c := range []struct{ arg, out, note string }{
		{"docs/a:b.md", "# a:b\n\ncolon in the name\n", ""},
		{"docs/a:b.md#L3", "colon in the name\n", ""},
		{"notes/12:30.md#L2", "at half past twelve\n", "since revision notes/12 has no 30.md"},
		{"HEAD:notes/12:30.md#L1", "standup\n", ""},
		{first[:12] + ":b.md", "b at branch a\n", ""},
		{"HEAD:b.md", "b at HEAD\n", ""},
		{"HEAD:a:b.md", "top-level a:b\n", ""},
		// Branch a has b.md and HEAD has a:b.md: the revision wins.
		{"a:b.md", "b at branch a\n", "a:b.md reads two ways: showing b.md at revision a, not HEAD's file a:b.md (write HEAD:a:b.md for that one)"},
	} {
		out, errs, code := kb(t, dir, "show", c.arg)
		if code != 0 || out != c.out {
			t.Errorf("show %s: code %d, out %q, want %q; stderr %q", c.arg, code, out, c.out, errs)
			continue
		}
		if c.note == "" && errs != "" || !strings.Contains(errs, c.note) {
			t.Errorf("show %s: stderr %q, want the note %q", c.arg, errs, c.note)
		}
	}
	// Neither a revision nor a path: both readings are named.
	if _, errs, code := kb(t, dir, "show", "docs/zz:b.md"); code != exitError ||
		!strings.Contains(errs, `unknown revision "docs/zz"`) || !strings.Contains(errs, "nor is docs/zz:b.md a file at HEAD") {
		t.Errorf("show of neither: code %d %q", code, errs)
	}
	// A real revision without the path keeps its own error and suggestions.
	if _, errs, code := kb(t, dir, "show", "a:docs/nope/a:b.md"); code != exitError || !strings.Contains(errs, "docs/a:b.md?") {
		t.Errorf("show of a missing path at a revision: code %d %q", code, errs)
	}
}
