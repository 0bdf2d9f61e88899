package chunk

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkRanges asserts every chunk's text is exactly its cited lines (or a
// piece of its one line, for over-long lines).
func checkRanges(t *testing.T, text string, d Doc) {
	t.Helper()
	ls := lines(text)
	for i, c := range d.Chunks {
		if c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > len(ls) {
			t.Fatalf("chunk %d: bad range L%d-L%d of %d lines", i, c.StartLine, c.EndLine, len(ls))
		}
		want := strings.Join(ls[c.StartLine-1:c.EndLine], "\n")
		if c.Text != want && !(c.StartLine == c.EndLine && strings.Contains(want, c.Text)) {
			t.Fatalf("chunk %d text does not match L%d-L%d:\n%q\nvs\n%q", i, c.StartLine, c.EndLine, c.Text, want)
		}
		if len(c.Text) > Max {
			t.Fatalf("chunk %d is %d bytes, max %d", i, len(c.Text), Max)
		}
	}
}

func TestMarkdown(t *testing.T) {
	text := `---
title: "回滚手册"
owner: sre
tags:
  - release
  - rollback
confidence: high
last_reviewed: 2026-01-01
---

# 回滚手册

intro

## 步骤

` + "```sh\n# not a heading\n```\n" + `
step text

### 细节

detail text that is long enough to stand alone as a section of its own, more than the tiny threshold of two hundred bytes: ` + strings.Repeat("填充内容。", 30) + `
`
	d := Split("docs/rollback.md", text)
	checkRanges(t, text, d)
	if d.Lang != "markdown" || d.Title != "回滚手册" || d.Meta["owner"] != "sre" || d.Meta["tags"] != "release,rollback" || d.Meta["last_reviewed"] != "2026-01-01" {
		t.Fatalf("doc = %+v", d)
	}
	var headings []string
	for _, c := range d.Chunks {
		headings = append(headings, c.Heading)
	}
	if got := headings[len(headings)-1]; got != "回滚手册 > 步骤 > 细节" {
		t.Errorf("last heading path %q (all %q)", got, headings)
	}
	for _, c := range d.Chunks {
		if strings.Contains(c.Heading, "not a heading") {
			t.Errorf("fenced comment taken as heading: %q", c.Heading)
		}
	}
}

func TestLongSectionsSplitWithOverlap(t *testing.T) {
	var b strings.Builder
	b.WriteString("# 长文\n\n")
	for i := 0; i < 200; i++ {
		b.WriteString("这是一段用于测试切分的中文段落，包含若干句子。第二句话在这里！\n")
		if i%5 == 4 {
			b.WriteString("\n")
		}
	}
	text := b.String()
	d := Split("long.md", text)
	checkRanges(t, text, d)
	if len(d.Chunks) < 5 {
		t.Fatalf("want several chunks, got %d", len(d.Chunks))
	}
	for i := 1; i < len(d.Chunks); i++ {
		if d.Chunks[i].StartLine > d.Chunks[i-1].EndLine+1 {
			t.Errorf("gap between chunk %d and %d", i-1, i)
		}
		if d.Chunks[i].StartLine > d.Chunks[i-1].EndLine {
			t.Errorf("no overlap between chunk %d (..L%d) and %d (L%d..)", i-1, d.Chunks[i-1].EndLine, i, d.Chunks[i].StartLine)
		}
	}
}

func TestHugeSingleLine(t *testing.T) {
	text := strings.Repeat("一句话。", 100000) // 1.2 MB on one line
	d := Split("one.txt", text)
	checkRanges(t, text, d)
	total := 0
	for _, c := range d.Chunks {
		total += len(c.Text)
	}
	if total != len(text) {
		t.Fatalf("pieces cover %d of %d bytes", total, len(text))
	}
}

func TestGoDeclarations(t *testing.T) {
	p := filepath.Join(runtime.GOROOT(), "src", "strings", "strings.go")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Skip(err)
	}
	d := Split("strings/strings.go", string(b))
	checkRanges(t, string(b), d)
	found := false
	for _, c := range d.Chunks {
		for _, s := range c.Symbols {
			if s == "Builder" || s == "Fields" {
				found = true
				if !strings.Contains(c.Text, "func Fields") && !strings.Contains(c.Text, "Builder") {
					t.Errorf("symbol %s not in its chunk", s)
				}
			}
		}
	}
	if !found {
		t.Error("symbol Fields not recorded")
	}
	// Doc comments start the chunk of their declaration.
	for _, c := range d.Chunks {
		if strings.HasPrefix(c.Heading, "func Fields(") && !strings.HasPrefix(c.Text, "//") {
			t.Errorf("Fields chunk does not start with its doc comment: %q", c.Text[:40])
		}
	}
	// Methods are recorded with their receiver.
	d = Split("x.go", "package x\n\ntype T struct{}\n\n// M does it.\nfunc (t *T) M() {\n"+strings.Repeat("\t_ = 1\n", 40)+"}\n")
	if len(d.Chunks) == 0 || !strings.Contains(strings.Join(d.Chunks[len(d.Chunks)-1].Symbols, ","), "T.M") {
		t.Errorf("method symbol: %+v", d.Chunks)
	}
}

func TestOtherLanguages(t *testing.T) {
	tests := []struct{ path, text, symbol string }{
		{"a.py", "import os\n\n\n# Loads it.\ndef load_config(path):\n" + strings.Repeat("    x = 1\n", 30) + "\nclass Server:\n" + strings.Repeat("    y = 2\n", 30), "load_config"},
		{"a.ts", "export async function fetchUser(id: string) {\n" + strings.Repeat("  a();\n", 40) + "}\nexport interface User {\n" + strings.Repeat("  x: number;\n", 30) + "}\n", "fetchUser"},
		{"a.rs", "pub fn parse_args() -> Args {\n" + strings.Repeat("    x();\n", 40) + "}\nimpl Server {\n" + strings.Repeat("    y();\n", 30) + "}\n", "parse_args"},
		{"a.sql", "CREATE TABLE IF NOT EXISTS orders (\n" + strings.Repeat("  id INT,\n", 40) + ");\nCREATE INDEX idx_a ON t(a);\n", "orders"},
		{"a.sh", "#!/bin/sh\n\ndeploy_app() {\n" + strings.Repeat("  echo x\n", 40) + "}\n", "deploy_app"},
		{"a.java", "package x;\n\npublic class OrderService {\n" + strings.Repeat("  int a;\n", 40) + "}\n", "OrderService"},
		{"a.c", "#include <stdio.h>\n\nstatic int parse_header(const char *buf, size_t n)\n{\n" + strings.Repeat("  x++;\n", 40) + "}\n", "parse_header"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			d := Split(tt.path, tt.text)
			checkRanges(t, tt.text, d)
			for _, c := range d.Chunks {
				for _, s := range c.Symbols {
					if s == tt.symbol {
						return
					}
				}
			}
			t.Errorf("symbol %s not found in %+v", tt.symbol, d.Chunks)
		})
	}
}

func TestDecode(t *testing.T) {
	gbk := []byte{0xb4, 0xc5, 0xc5, 0xcc} // 磁盘 in GBK
	if text, enc, bin := Decode(gbk); text != "磁盘" || enc != "gb18030" || bin {
		t.Errorf("GBK: %q %q %v", text, enc, bin)
	}
	if _, _, bin := Decode([]byte("a\x00b")); !bin {
		t.Error("NUL byte not binary")
	}
	if text, _, _ := Decode([]byte("ok \xff")); text != "ok \uFFFD" {
		t.Errorf("invalid UTF-8: %q", text)
	}
	if text, _, _ := Decode([]byte("\xef\xbb\xbf# BOM")); text != "# BOM" {
		t.Errorf("BOM: %q", text)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("x.md", "# a\n\nb\n")
	f.Add("x.go", "package x\nfunc F() {}\n")
	f.Add("x.txt", "\xff\xfe\n\n\n")
	f.Fuzz(func(t *testing.T, path, data string) {
		text, _, bin := Decode([]byte(data))
		if bin {
			return
		}
		checkRanges(t, text, Split(path, text))
	})
}
func TestLineDirective(t *testing.T) {
	text := "package x\n\n//line foo.go:1000000\nfunc F() {}\n\nfunc G() {}\n"
	checkRanges(t, text, Split("x.go", text))
}

// About is what a page's front-matter says the page is about (summary,
// description; a block scalar's lines joined), never its tags or owner.
func TestAbout(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"---\ntitle: Pipelined DML\nsummary: 介绍 Pipelined DML 的使用场景、使用方法、使用限制和使用该功能的常见问题。\nowner: sql-team\ntags: [dml, bulk]\n---\n\n# Pipelined DML\n\n正文。\n",
			"介绍 Pipelined DML 的使用场景、使用方法、使用限制和使用该功能的常见问题。"},
		{"---\ntitle: Rollback\ndescription: >-\n  How to roll a release back\n  when a deploy fails.\nsidebar_position: 3\n---\n# Rollback\n",
			"How to roll a release back when a deploy fails."},
		{"---\nsummary: 回滚发布\ndescription: \"回滚发布\"\n---\n# 回滚\n", "回滚发布"},
		{"---\nsummary: 回滚发布\ndescription: 发布失败时\n---\n", "回滚发布\n发布失败时"},
		{"---\ntitle: No summary\ntags: [a]\n---\n# No summary\n", ""},
		{"# No front-matter\n\nsummary: not front-matter\n", ""},
	} {
		if got := Split("doc.md", c.text).About(); got != c.want {
			t.Errorf("About of %q = %q, want %q", c.text, got, c.want)
		}
	}
	if d := Split("doc.md", "---\ndescription: |\n  a\n  b\nowner: x\n---\n"); d.Meta["owner"] != "x" {
		t.Errorf("the key after a block scalar: Meta %v, want owner x", d.Meta)
	}
}

// TestLongLineInEveryKind: a line longer than Max, in any kind of file,
// is cut into pieces that all cite that line, are valid UTF-8 (cut
// between runes, never inside one), and put together are the line; the
// heading it gives a declaration is valid UTF-8 too.
func TestLongLineInEveryKind(t *testing.T) {
	line := "function abcde" + strings.Repeat("数据库连接池打满。retryCount=3;", 1000) + "(a) {"
	text := "// 注释\n" + line + "\n}\nend\n"
	for _, p := range []string{"a.js", "a.ts", "a.go", "a.py", "a.c", "a.java", "a.md", "a.txt", "a.json", "a.sql"} {
		d := Split(p, text)
		checkRanges(t, text, d)
		var pieces strings.Builder
		for _, c := range d.Chunks {
			if !utf8.ValidString(c.Text) || !utf8.ValidString(c.Heading) {
				t.Errorf("%s: chunk L%d-L%d: text or heading %q is not valid UTF-8", p, c.StartLine, c.EndLine, c.Heading)
			}
			if c.StartLine <= 2 && c.EndLine >= 2 && len(c.Text) > Max {
				t.Errorf("%s: chunk L%d-L%d holds %d bytes, more than Max", p, c.StartLine, c.EndLine, len(c.Text))
			}
			if c.StartLine == 2 && c.EndLine == 2 {
				pieces.WriteString(c.Text)
			}
		}
		if pieces.String() != line {
			t.Errorf("%s: the pieces citing line 2 hold %d bytes, the line %d", p, pieces.Len(), len(line))
		}
	}
}
