package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/mcp"
	"github.com/git-kb/git-kb/search"
)

// TestMCPPathWithColon: get_document reads a path with a colon in it
// (a:b.md, notes/12:30.md) as git kb show does (search.ReadCited): the
// path when the text before the colon is no revision, <rev>:<path> when
// both readings name a file (with a note saying how to read the other),
// both readings named when neither does; search citations of such files
// and org citations read back.
func TestMCPPathWithColon(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold a colon")
	}
	dir := gittest.New(t, map[string]string{
		"a:b.md":         "# a:b\n\ntop-level a:b, about zebrafish\n",
		"12:30.md":       "lunch\nat half past twelve\n",
		"notes/12:30.md": "standup\nat half past twelve\n",
		"b.md":           "b at branch a\n",
	})
	first := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD"))
	gittest.Git(t, dir, "branch", "a")     // a:b.md now reads two ways
	gittest.Git(t, dir, "tag", "notes/12") // a revision without 30.md
	gittest.Git(t, dir, "config", "kb.org.repo", "team/notes")
	gittest.Commit(t, dir, "change b", map[string]string{"b.md": "b at HEAD\n", "notes/12:30.md": "standup moved\nto one o'clock\n"})
	head := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD"))
	s := mcpSession(t, dir)

	// A search (HEAD indexed into Badger) cites the file with its colon;
	// the citation reads back.
	var r search.Response
	if msg := callTool(t, s, "keyword_search", map[string]any{"query": "zebrafish"}, &r); msg != "" || len(r.Results) == 0 || r.Results[0].Path != "a:b.md" {
		t.Fatalf("keyword_search zebrafish: %q %+v", msg, r)
	}
	var doc mcp.Document
	if msg := callTool(t, s, "get_document", map[string]any{"path": r.Results[0].Citation}, &doc); msg != "" || doc.Path != "a:b.md" || doc.Commit != head || !strings.Contains(doc.Text, "zebrafish") || doc.Note != "" {
		t.Errorf("get_document(%s): %q %+v", r.Results[0].Citation, msg, doc)
	}

	for _, c := range []struct {
		path, rev, commit, file, text, note string
	}{
		{"12:30.md", "", head, "12:30.md", "1\tlunch\n2\tat half past twelve\n", ""},
		{"notes/12:30.md#L2", "", head, "notes/12:30.md", "2\tto one o'clock\n", "since revision notes/12 has no 30.md"},
		{"notes/12:30.md", first, first, "notes/12:30.md", "1\tstandup\n2\tat half past twelve\n", ""},
		{"HEAD:notes/12:30.md#L1", "", head, "notes/12:30.md", "1\tstandup moved\n", ""},
		{"HEAD:b.md", "", head, "b.md", "1\tb at HEAD\n", ""},
		{"HEAD:a:b.md#L3", "", head, "a:b.md", "3\ttop-level a:b, about zebrafish\n", ""},
		// Branch a has b.md and HEAD has a:b.md: the revision wins, and
		// the note says how to read the other.
		{"a:b.md", "", first, "b.md", "1\tb at branch a\n", "a:b.md reads two ways: showing b.md at revision a, not HEAD's file a:b.md (write HEAD:a:b.md for that one)"},
		// A rev argument names the revision: the path is a path.
		{"a:b.md#L1", "HEAD", head, "a:b.md", "1\t# a:b\n", ""},
		{"a:b.md#L1", first, first, "a:b.md", "1\t# a:b\n", ""},
		// An org search's citation of a path with a colon.
		{"team/notes@" + head + ":notes/12:30.md#L1-L1", "", head, "notes/12:30.md", "1\tstandup moved\n", ""},
	} {
		args := map[string]any{"path": c.path}
		if c.rev != "" {
			args["rev"] = c.rev
		}
		msg := callTool(t, s, "get_document", args, &doc)
		if msg != "" || doc.Commit != c.commit || doc.Path != c.file || doc.Text != c.text {
			t.Errorf("get_document(%v): %q, got %s:%s %q, want %s:%s %q", args, msg, sha12(doc.Commit), doc.Path, doc.Text, sha12(c.commit), c.file, c.text)
			continue
		}
		if c.note == "" && doc.Note != "" || !strings.Contains(doc.Note, c.note) {
			t.Errorf("get_document(%v): note %q, want %q", args, doc.Note, c.note)
		}
	}

	// Neither a revision nor a path: the error names both readings.
	if msg := callTool(t, s, "get_document", map[string]any{"path": "zz:b.md"}, &doc); !strings.Contains(msg, `unknown revision "zz"`) || !strings.Contains(msg, "nor is zz:b.md a file at HEAD") {
		t.Errorf("get_document of neither: %q", msg)
	}
	// A rev argument and a citation of another revision, when the path
	// reading names nothing: both said.
	if msg := callTool(t, s, "get_document", map[string]any{"path": "a:nope.md", "rev": "HEAD"}, &doc); !strings.Contains(msg, "not a file tracked") || !strings.Contains(msg, `revision "a" contradicts rev "HEAD"`) {
		t.Errorf("get_document of a citation against rev: %q", msg)
	}
}

func sha12(s string) string { return s[:min(12, len(s))] }
