package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/mcp"
)

// git kb show and get_document read the same lines for a path written
// another way than the tree writes it (./x, a//b, d/../x: what shell
// completion and joined paths produce) and for a range starting at #L0
// (line 1: lines count from 1); a range that ends before it starts, or a
// start_line below 1, is refused by both in so many words.
func TestShowAndGetDocumentAgreeOnPaths(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"docs/guide.md": "one\ntwo\nthree\n",
		"README.md":     "readme\n",
	})
	s := mcpSession(t, dir)
	for _, c := range []struct{ arg, want string }{
		{"./docs/guide.md", "one\ntwo\nthree\n"},
		{"docs//guide.md#L2", "two\n"},
		{"docs/../docs/guide.md#L2-L3", "two\nthree\n"},
		{"HEAD:./docs/guide.md#L3", "three\n"},
		{"docs/guide.md#L0-L2", "one\ntwo\n"},
		{"docs/guide.md#L0", "one\n"},
		{`.\docs\guide.md#L2`, "two\n"}, // Windows' separators
	} {
		out, errs, code := kb(t, dir, "show", c.arg)
		if code != 0 || out != c.want {
			t.Errorf("show %s: exit %d %q %s, want %q", c.arg, code, out, errs, c.want)
		}
		var doc mcp.Document
		if msg := callTool(t, s, "get_document", map[string]any{"path": c.arg}, &doc); msg != "" || doc.Path != "docs/guide.md" || stripNumbers(doc.Text) != c.want {
			t.Errorf("get_document %s: %q %s %q, want %q", c.arg, msg, doc.Path, doc.Text, c.want)
		}
	}
	if _, errs, code := kb(t, dir, "show", "docs/guide.md#L3-L1"); code != exitUsage || !strings.Contains(errs, "ends before it starts") {
		t.Errorf("show of a reversed range: exit %d %s", code, errs)
	}
	// A negative --context printed nothing and succeeded.
	if out, errs, code := kb(t, dir, "show", "-C", "-3", "docs/guide.md#L1-L2"); code != exitUsage || out != "" || !strings.Contains(errs, "0 or more") {
		t.Errorf("show -C -3: exit %d %q %s", code, out, errs)
	}
	var doc mcp.Document
	for _, args := range []map[string]any{
		{"path": "docs/guide.md#L3-L1"},
		{"path": "docs/guide.md", "start_line": 3, "end_line": 1},
	} {
		if msg := callTool(t, s, "get_document", args, &doc); !strings.Contains(msg, "ends before it starts") {
			t.Errorf("get_document %v: %q, want the range's end said to come before its start", args, msg)
		}
	}
	if msg := callTool(t, s, "get_document", map[string]any{"path": "docs/guide.md", "start_line": -2}, &doc); !strings.Contains(msg, "start_line -2, end_line 3: lines count from 1") {
		t.Errorf("get_document start_line -2: %q", msg)
	}
	if msg := callTool(t, s, "get_document", map[string]any{"path": "docs/guide.md", "end_line": -1}, &doc); !strings.Contains(msg, "end_line -1: lines count from 1") {
		t.Errorf("get_document end_line -1: %q", msg)
	}
	// A file whose name holds a backslash (not on Windows) reads as
	// itself: the separators are read so only when it is not there.
	if runtime.GOOS != "windows" {
		gittest.Commit(t, dir, "backslash", map[string]string{`docs\guide.md`: "literal\n"})
		if out, errs, code := kb(t, dir, "show", `docs\guide.md`); code != 0 || out != "literal\n" {
			t.Errorf("show of a file named with a backslash: exit %d %q %s", code, out, errs)
		}
	}
	// A Windows absolute path is refused as one, named whole (not as
	// revision C's path \repo\docs\guide.md).
	if msg := callTool(t, s, "get_document", map[string]any{"path": `C:\repo\docs\guide.md`}, &doc); !strings.Contains(msg, `"C:\\repo\\docs\\guide.md" is an absolute path`) {
		t.Errorf("get_document of C:\\...: %q", msg)
	}
	// Still no way out of the repository by either.
	if _, errs, code := kb(t, dir, "show", "docs/../../etc/passwd"); code == 0 || strings.Contains(errs, "root:") {
		t.Errorf("show outside the repository: exit %d %s", code, errs)
	}
}

// stripNumbers drops get_document's "N\t" line prefixes.
func stripNumbers(text string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if _, rest, ok := strings.Cut(l, "\t"); ok {
			b.WriteString(rest)
		}
	}
	return b.String()
}
