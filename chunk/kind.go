package chunk

import (
	"path"
	"strings"
)

// File kinds: what a file is besides its words. Search demotes them
// (never hides them) unless the query asks for them.
const (
	KindTest      = "test"      // a test, or test data
	KindExample   = "example"   // examples and fixtures
	KindGenerated = "generated" // says it was generated (Code generated ... DO NOT EDIT.)
	KindData      = "data"      // mostly literal constants: a table, not logic
	KindChangelog = "changelog" // release notes and changelogs
	KindMigration = "migration" // a versioned schema migration (one release's changes)
	KindAgent     = "agent"     // instructions for AI coding agents (AGENTS.md, CLAUDE.md, .cursor/rules)
	KindStrings   = "strings"   // source whose Chinese text is all in string literals: API docs or messages built in code
	KindReference = "reference" // a Markdown reference: sections each headed by a code name (a setting, variable, flag, function)
)

// PathKind tells tests, test data, examples and fixtures from their path
// alone, so it holds for files indexed by any pipeline version; "" for
// anything else.
func PathKind(p string) string {
	base := path.Base(p)
	switch {
	case strings.HasSuffix(base, "_test.go"),
		strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")),
		hasInfix(base, ".spec."), hasInfix(base, ".test."),
		strings.HasSuffix(base, "Test.java"), strings.HasSuffix(base, "Tests.java"),
		strings.HasSuffix(base, "_test.rs"), strings.HasSuffix(base, "_test.c"), strings.HasSuffix(base, "_test.cc"):
		return KindTest
	}
	if isChangelog(p) {
		return KindChangelog
	}
	if isMigration(p) {
		return KindMigration
	}
	if isAgentInstructions(p) {
		return KindAgent
	}
	kind := ""
	for rest := path.Dir(p); rest != "" && rest != "."; {
		var d string
		d, rest, _ = strings.Cut(rest, "/")
		switch d {
		case "testdata", "__tests__", "test", "tests", "__snapshots__",
			// Test support: helpers and doubles only tests import.
			"testutil", "testutils", "testhelper", "testhelpers", "testenv", "testkit", "mock", "mocks":
			return KindTest
		case "examples", "example", "_examples", "fixtures", "__fixtures__", "__mocks__":
			kind = KindExample // unless a test directory is deeper
		}
	}
	if kind != "" {
		return kind
	}
	switch {
	case strings.HasSuffix(base, ".pb.go"), strings.HasSuffix(base, ".pb.gw.go"), strings.HasSuffix(base, "_pb2.py"),
		strings.HasSuffix(base, "_pb2_grpc.py"), strings.HasPrefix(base, "zz_generated"):
		return KindGenerated
	}
	return ""
}

// changelogNames are the base names (lower case, extension dropped) of
// changelog files.
var changelogNames = map[string]bool{
	"changelog": true, "changes": true, "history": true, "news": true, "whatsnew": true,
	"release-notes": true, "release_notes": true, "releasenotes": true, "releases": true,
}

// versioned matches a version in a file name: release-7.5.0, v1.2, 8.1.
var versioned = lazyRE(`(^|[^0-9])v?[0-9]+\.[0-9]+`)

// isChangelog tells release notes and changelogs from their path: a
// changelog file (CHANGELOG.md, HISTORY.rst, RELEASE_NOTES), a document
// in a changelog directory, or a versioned document in a releases
// directory (releases/release-7.5.0.md). They mention every feature in a
// line, so they match many questions that the feature's own page
// answers. A singular release/ (deployment files, often) is not one.
func isChangelog(p string) bool {
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	switch ext {
	case ".md", ".markdown", ".rst", ".txt", ".adoc", "":
	default:
		return false
	}
	if changelogNames[strings.TrimSuffix(base, ext)] {
		return true
	}
	if ext == "" {
		return false
	}
	for rest := strings.ToLower(path.Dir(p)); rest != "" && rest != "."; {
		var d string
		d, rest, _ = strings.Cut(rest, "/")
		switch d {
		case "changelog", "changelogs", "release-notes", "release_notes", "releasenotes":
			return true
		case "releases":
			if versioned().MatchString(base) {
				return true
			}
		}
	}
	return false
}

// migrationName matches the name of a versioned migration script: a
// version (v1_17_3-v1_18_0.sql, V2.1__add_user.sql) or a sequence or
// timestamp prefix (0007_add_index.sql, 20240101120000_init.sql).
var migrationName = lazyRE(`(?i)(^|[^0-9a-z])v?[0-9]+[._][0-9]+|^[0-9]{3,}[_-]`)

// isMigration tells a versioned schema migration from its path: an SQL
// script whose name carries a version or a sequence number. Each holds
// one release's changes, with the comments of every column it touches,
// so it matches questions about those tables that the code (or the full
// schema, named without a version) answers.
func isMigration(p string) bool {
	base := path.Base(p)
	return strings.EqualFold(path.Ext(base), ".sql") && migrationName().MatchString(strings.TrimSuffix(base, path.Ext(base)))
}

// agentFiles are the base names (lower case) of the instruction files
// AI coding agents read: the AGENTS.md convention and each tool's own
// (Claude Code, Gemini CLI, Copilot, Cursor, Windsurf, Cline, Roo, Goose).
var agentFiles = map[string]bool{
	"agents.md": true, "claude.md": true, "claude.local.md": true, "gemini.md": true,
	"copilot-instructions.md": true, ".cursorrules": true, ".windsurfrules": true, ".clinerules": true,
	".roorules": true, ".goosehints": true,
}

// agentDirs are the directories (lower case) where those tools keep their
// rules, prompts and commands; .github/instructions and .github/prompts
// are Copilot's.
var agentDirs = map[string]bool{
	".cursor": true, ".windsurf": true, ".clinerules": true, ".claude": true, ".gemini": true,
	".roo": true, ".trae": true, ".kiro": true, ".augment": true, ".continue": true,
}

// isAgentInstructions tells the files written for AI coding agents from
// their path. They summarise the whole project for a model (its layout,
// every module's job, its conventions), often copied once per tool, so
// they match a little of every question that the code itself answers:
// hubs, like a generated spec.
func isAgentInstructions(p string) bool {
	lp := strings.ToLower(p)
	if agentFiles[path.Base(lp)] {
		return true
	}
	dir := path.Dir(lp)
	if dir == ".github/instructions" || dir == ".github/prompts" ||
		strings.HasPrefix(dir, ".github/instructions/") || strings.HasPrefix(dir, ".github/prompts/") {
		return true
	}
	for rest := dir; rest != "" && rest != "."; {
		var d string
		d, rest, _ = strings.Cut(rest, "/")
		if agentDirs[d] {
			return true
		}
	}
	return false
}

// hasInfix reports whether s has sub inside it, not at either end
// (foo.spec.ts, not .spec.ts or x.spec).
func hasInfix(s, sub string) bool {
	i := strings.Index(s, sub)
	return i > 0 && i+len(sub) < len(s)
}

// generatedHeader is the marker tools write at the top of generated
// files: Go's convention (https://go.dev/s/generatedcode), Facebook's
// @generated, and the common "auto-generated ... do not edit" wording.
var generatedHeader = lazyRE(`(?i)(code generated .*do not edit|@generated|auto-?generated.*do not (edit|modify)|generated by .*do not (edit|modify))`)

// Data-table detection: a file is a table when at least dataMinLines of
// its lines are code and at least dataFraction of those are literal
// entries (a trailing comment left out). Measured on Go's source
// (go1.26.8): at 0.7 and 100 lines it catches syscall/zerrors_*,
// zsysnum_* (with the BSDs' commented entries), unicode/tables.go,
// html/entity.go, the assemblers' anames.go, debug/elf/elf.go (3,681
// lines of constants and their name tables) and syscall/tables_js.go, and
// keeps every implementation file the dev queries point at.
const (
	dataMinLines = 100
	dataFraction = 0.7
)

// ContentKind tells generated files and data tables from their text
// (the indexer records it); "" for anything else. A generated table is
// data: the stronger of the two.
func ContentKind(p, text string) string {
	lang := Lang(p)
	switch lang {
	case "markdown":
		if referencePage(text) {
			return KindReference
		}
		return ""
	case "text":
		return ""
	}
	all := text
	code, data := 0, 0
	generated := false
	lineNo := 0
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		lineNo++
		s := strings.TrimSpace(line)
		// The regexp only where the word is: it was most of this function's time.
		if lineNo <= 40 && !generated && len(s) < 300 && (strings.Contains(s, "enerated") || strings.Contains(s, "ENERATED")) && generatedHeader().MatchString(s) {
			generated = true
		}
		if s == "" || strings.HasPrefix(s, "//") || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "/*") || strings.HasPrefix(s, "*") {
			continue
		}
		code++
		if literalEntry(withoutTrailingComment(s)) {
			data++
		}
	}
	if code >= dataMinLines && float64(data) >= dataFraction*float64(code) {
		return KindData
	}
	if proseInStrings(lang, all) {
		return KindStrings
	}
	if generated {
		return KindGenerated
	}
	return ""
}

// String-table detection (KindStrings). A team that writes Chinese
// comments writes its code's explanations in them; a source file whose
// Chinese is nearly all inside string literals is a table of text built
// in code: the API docs of every route (go-restful's Doc("创建配置文件组"),
// Swagger annotations as strings), an error-message or i18n table. Like
// a generated spec it names every operation in a line, so it matches a
// little of every question whose answer is the code each entry names.
// Only languages whose prose lives in comments are judged: a front end's
// strings are its pages' own text (JavaScript, TypeScript), Python's
// docstrings are string literals. Chinese (CJK ideographs) is the signal
// of human text: English strings are not told from identifiers so
// cheaply, and a repository written in English keeps its help texts as
// they are. Measured on polaris (a Chinese team's Go service): the six
// apidoc files its API server builds docs with, and no other non-test
// file (third_access.go, 88% of its Chinese in strings, stays code).
const (
	stringsMinCJK  = 30  // ideographs in the file, at least
	stringsShare   = 0.9 // of them inside string literals
	stringsPerLine = 0.5 // ideographs in strings per non-blank line: text is most of what the file holds
)

// proseLangs are the languages judged for KindStrings, and whether a
// single quote opens a literal in them (Rust's lifetimes: no).
var proseLangs = map[string]bool{"go": true, "java": true, "c": true, "rust": false}

// proseInStrings reports whether text, in lang, is a string table by the
// rule above.
func proseInStrings(lang, text string) bool {
	quote, ok := proseLangs[lang]
	if !ok || !hasCJKLead(text) {
		return false
	}
	const (
		code = iota
		lineComment
		blockComment
		str
	)
	state, closer := code, byte(0)
	inStr, total, lines := 0, 0, 0
	cur, opened := 0, 0 // ideographs in the literal open now, where it opened
	blank := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\n' {
			if !blank {
				lines++
			}
			blank = true
			if state == lineComment || state == str && closer != '`' {
				if state == str {
					inStr += cur
				}
				state = code // an interpreted literal does not span lines; a bad one ends here
			}
			continue
		}
		if c != ' ' && c != '\t' && c != '\r' {
			blank = false
		}
		if cjkLead(c) && i+2 < len(text) {
			total++
			if state == str {
				cur++
			}
			i += 2
			continue
		}
		switch state {
		case code:
			switch {
			case c == '/' && i+1 < len(text) && text[i+1] == '/':
				state = lineComment
				i++
			case c == '/' && i+1 < len(text) && text[i+1] == '*':
				state = blockComment
				i++
			case c == '"', c == '`' && lang == "go":
				state, closer, cur, opened = str, c, 0, i
			case c == '\'' && quote:
				// A character literal: at most a few bytes; further on
				// the quote was something else.
				if j := strings.IndexByte(text[i+1:min(len(text), i+12)], '\''); j >= 0 {
					i += j + 1
				}
			}
		case blockComment:
			if c == '*' && i+1 < len(text) && text[i+1] == '/' {
				state = code
				i++
			}
		case str:
			switch {
			case c == '\\' && closer != '`':
				i++
			case c == closer:
				// A Go struct tag (`gorm:"comment:用户名"`) describes its
				// field as a comment would: a model is not a string table.
				if closer != '`' || !strings.Contains(text[opened:i], `:"`) {
					inStr += cur
				}
				state = code
			}
		}
	}
	if !blank {
		lines++
	}
	if state == str {
		inStr += cur
	}
	return total >= stringsMinCJK && float64(inStr) >= stringsShare*float64(total) &&
		float64(inStr) >= stringsPerLine*float64(lines)
}

// cjkLead reports whether c leads the UTF-8 encoding of a character in
// U+4000-U+9FFF (CJK Unified Ideographs, with the end of Extension A):
// three bytes, E4 to E9 first.
func cjkLead(c byte) bool { return c >= 0xE4 && c <= 0xE9 }

// hasCJKLead reports whether text may hold an ideograph: a byte scan, so
// the many files without any cost one pass and no decoding.
func hasCJKLead(text string) bool {
	for i := 0; i < len(text); i++ {
		if cjkLead(text[i]) {
			return true
		}
	}
	return false
}

// withoutTrailingComment is a code line without the comment that ends it
// (// or /* */, outside string literals): SYS_EXIT = 1 // { void
// sys_exit(int rval); } is a table entry with a note, and the note's
// words are not the line's names. Without this the BSD zsysnum_* tables,
// whose every entry carries the C prototype, read as code.
func withoutTrailingComment(s string) string {
	for i := 0; i+1 < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'', '`':
			i = closingQuote(s, i)
		case '/':
			if s[i+1] == '/' || s[i+1] == '*' && strings.HasSuffix(s, "*/") {
				return strings.TrimSpace(s[:i])
			}
		}
	}
	return s
}

// dataKeywords are words that make a line logic rather than an entry.
var dataKeywords = map[string]bool{
	"func": true, "if": true, "for": true, "return": true, "switch": true, "case": true, "var": true,
	"type": true, "go": true, "defer": true, "select": true, "else": true, "range": true, "struct": true,
	"interface": true, "package": true, "import": true, "def": true, "class": true, "while": true,
	"fn": true, "let": true, "function": true,
}

// literalEntry reports whether a code line is a table entry: it holds a
// literal (number or string) and at most two names (a constant and a
// type), and no keyword or assignment of a computed value.
func literalEntry(s string) bool {
	if strings.Contains(s, ":=") {
		return false
	}
	lits, names := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			lits++
			i = closingQuote(s, i) + 1
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && (isWordByte(s[j]) || s[j] == '.') {
				j++
			}
			lits++
			i = j
		case isWordByte(c):
			j := i + 1
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			if dataKeywords[s[i:j]] {
				return false
			}
			names++
			i = j
		default:
			i++
		}
	}
	return lits > 0 && names <= 2
}

// closingQuote is where the literal opened by the quote at s[i] closes
// (a backslash escapes the next byte, except in a raw string), or
// len(s) or beyond when the line ends first.
func closingQuote(s string, i int) int {
	c := s[i]
	j := i + 1
	for j < len(s) && s[j] != c {
		if s[j] == '\\' && c != '`' {
			j++
		}
		j++
	}
	return j
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// A reference page (KindReference) is a list of named entries: a
// configuration file's keys, a program's system variables or flags, a
// library's functions, each a section whose heading is the name in code
// (### `tidb_gc_life_time`). It says a line or two about everything its
// entries touch, so its best section matches many questions a little;
// the page about the feature explains it. At least refMinHeadings
// headings below the title, refCodeShare of them starting with a code
// span.
const (
	refMinHeadings = 10
	refCodeShare   = 0.6
)

// referencePage reports whether a Markdown text is a reference page:
// its section headings (level 2 and deeper, outside code fences, as
// splitMarkdown reads them) mostly start with a code span.
func referencePage(text string) bool {
	heads, code := 0, 0
	var fence codeFence
	for line := range strings.Lines(text) {
		if fence.skip(line) {
			continue
		}
		if level, title := atxHeading(strings.TrimLeft(line, " ")); level >= 2 && title != "" {
			heads++
			if title[0] == '`' {
				code++
			}
		}
	}
	return heads >= refMinHeadings && float64(code) >= refCodeShare*float64(heads)
}
