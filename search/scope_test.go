package search

import "testing"

func TestPathScope(t *testing.T) {
	cases := []struct {
		pattern string
		in, out []string
	}{
		{"docs", []string{"docs/a.md", "docs/x/y.md", "docs"}, []string{"docsx/a.md", "src/docs/a.md"}},
		{"docs/", []string{"docs/a.md"}, []string{"README.md"}},
		{"README.md", []string{"README.md"}, []string{"docs/README.md", "README.md.bak"}},
		{"*.md", []string{"a.md", "docs/x/b.md"}, []string{"a.go", "md"}},
		{"docs/*.md", []string{"docs/a.md"}, []string{"docs/x/a.md", "a.md"}},
		{"docs/**/*.md", []string{"docs/a.md", "docs/x/y/a.md"}, []string{"src/a.md", "docs/a.go"}},
		{"src/**", []string{"src/a.go", "src/x/b.go"}, []string{"srcx/a.go"}},
		{"*.go, docs", []string{"x/y.go", "docs/a.md"}, []string{"x/y.md"}},
		{"file?.txt", []string{"file1.txt"}, []string{"file12.txt"}},
		{"[ab].md", []string{"a.md", "x/b.md"}, []string{"c.md"}},
		{"a+b (1).md", []string{"a+b (1).md"}, []string{"aab (1).md"}},
		{`docs\runbook\`, []string{"docs/runbook/a.md"}, []string{"docs/a.md"}},
		{`docs\**\*.md`, []string{"docs/x/a.md"}, []string{"src/a.md"}},
	}
	for _, c := range cases {
		match, err := PathScope(c.pattern)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		for _, p := range c.in {
			if !match(p) {
				t.Errorf("%q should match %q", c.pattern, p)
			}
		}
		for _, p := range c.out {
			if match(p) {
				t.Errorf("%q should not match %q", c.pattern, p)
			}
		}
	}
	for _, bad := range []string{"", " , ", "/etc/passwd", "../x", "[ab.md", `\etc`, `..\x`, `C:\Windows`, "c:/x"} {
		if _, err := PathScope(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
