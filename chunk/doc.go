// Package chunk splits one file's text into retrievable chunks with exact
// 1-based line ranges: Markdown by front-matter and heading sections, Go by
// declarations (go/parser), other common languages by declaration patterns,
// everything else by paragraph-aware line windows. Long pieces are split at
// paragraph and sentence boundaries with ~15% overlap. refs.go reads what
// a file refers to: its imports and links (Imports) and the functions a
// piece of code calls (Calls).
//
// It must not import store, gitx or segment: bytes in, chunks out.
package chunk

import (
	"slices"
	"strings"
)

// Target and Max bound a chunk's size in bytes. ~2 KB is ~600 Chinese
// characters or ~500 tokens: one topic, small enough to cite precisely and
// to embed later without truncation. They bind only long sections and
// declarations (headings and declarations cut first): measured for
// ranking from 500 to 4,000 bytes, no size ranked better on every corpus
// (docs/MEASURED.md, Retrieval quality: 1,000 gained on the docs, lost Go's source).
const (
	Target  = 2000
	Max     = 3000
	overlap = Target * 15 / 100
	// tiny pieces (a lone heading, a one-line const) are merged with a
	// neighbour rather than indexed alone.
	tiny = 200
)

// Chunk is one retrievable piece of a file.
type Chunk struct {
	StartLine, EndLine int      // 1-based, inclusive
	Heading            string   // Markdown heading path ("A > B") or a code declaration's first line
	Symbols            []string // names declared in the chunk (code)
	Text               string
}

// Doc is a chunked file.
type Doc struct {
	Lang   string            // markdown, go, python, ..., text
	Title  string            // front-matter title or first H1
	Meta   map[string]string // front-matter: owner, tags, confidence, last_reviewed, ...
	Chunks []Chunk
}

// aboutKeys are the front-matter keys whose value says what the whole
// page is about, in the author's words (Hugo, Jekyll, Docusaurus, MkDocs
// and TiDB's docs write summary: or description:). Tags, owners and
// dates describe the page's place, not its subject.
var aboutKeys = []string{"summary", "description"}

// About is the page's own statement of its subject: its front-matter
// summary and description (either or both; one when they say the same).
// "" for a file without them. The title is not in it: it is indexed with
// every chunk's heading already.
func (d Doc) About() string {
	var parts []string
	for _, k := range aboutKeys {
		if v := strings.TrimSpace(d.Meta[k]); v != "" && !slices.Contains(parts, v) {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, "\n")
}

// Split chunks a file. text must be valid UTF-8 (the caller decodes).
func Split(path, text string) Doc {
	lang := Lang(path)
	var d Doc
	switch lang {
	case "markdown":
		d = splitMarkdown(text)
	case "go":
		d = splitGo(text)
	default:
		if p, ok := declPatterns()[lang]; ok {
			d = splitByDecls(text, p)
		} else {
			d = Doc{Chunks: windows(lines(text), 0, "")}
		}
	}
	d.Lang = lang
	return d
}
