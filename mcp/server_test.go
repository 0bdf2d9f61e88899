package mcp

import "testing"

func TestRepoPath(t *testing.T) {
	ok := map[string]string{
		"docs/a.md":       "docs/a.md",
		"./docs//a.md":    "docs/a.md",
		"docs/x/../a.md":  "docs/a.md",
		"README.md":       "README.md",
		"中文/文档.md":        "中文/文档.md",
		`docs\windows.md`: "docs/windows.md",
		"a:b.md":          "a:b.md",
		"12:30.md":        "12:30.md",
		"notes/12:30.md":  "notes/12:30.md",
		"C:":              "C:",
	}
	for in, want := range ok {
		if got, err := repoPath(in); err != nil || got != want {
			t.Errorf("repoPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"../x", "../../etc/passwd", "docs/../../x", "/etc/passwd", `..\..\x`, "C:/Windows", `C:\x`, "c:/x", `d:\`, ".", "", "a\x00b"} {
		if got, err := repoPath(bad); err == nil {
			t.Errorf("repoPath(%q) = %q, accepted", bad, got)
		}
	}
}
