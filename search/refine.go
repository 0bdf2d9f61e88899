package search

import (
	"encoding/hex"
	"fmt"
	"iter"
	"path"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// maxTextChecks bounds how many hits are read to verify phrases: past it,
// results are already far below what anyone reads.
const maxTextChecks = 2000

// inPaths is the matcher of a parsed query's path: globs, compiled once
// for queryScope and checkFiles; nil when it has none.
func inPaths(q *Query) (func(string) bool, error) {
	if q == nil || len(q.Paths) == 0 {
		return nil, nil
	}
	return PathScope(strings.Join(q.Paths, ","))
}

// queryScope is the path side of a parsed query (path: as matched by in,
// lang:, @file), combined with the request's own scope; nil when there is
// none.
func queryScope(req Request, in func(string) bool) (func(string) bool, error) {
	q := req.Parsed
	var tests []func(string) bool
	if req.Scope != nil {
		tests = append(tests, req.Scope)
	}
	if in != nil {
		tests = append(tests, in)
	}
	if q != nil && len(q.Files) > 0 {
		files := q.Files
		tests = append(tests, func(p string) bool {
			for _, f := range files {
				f = strings.TrimSuffix(f, "/")
				if p == f || strings.HasPrefix(p, f+"/") {
					return true
				}
			}
			return false
		})
	}
	if q != nil && len(q.Langs) > 0 {
		langs := q.Langs
		tests = append(tests, func(p string) bool { return langIn(chunk.Lang(p), langs) })
	}
	if q != nil && len(q.NotPaths) > 0 {
		m, err := PathScope(strings.Join(q.NotPaths, ","))
		if err != nil {
			return nil, err
		}
		tests = append(tests, func(p string) bool { return !m(p) })
	}
	if q != nil && len(q.NotLangs) > 0 {
		langs := q.NotLangs
		tests = append(tests, func(p string) bool { return !langIn(chunk.Lang(p), langs) })
	}
	switch len(tests) {
	case 0:
		return nil, nil
	case 1:
		return tests[0], nil
	}
	return func(p string) bool {
		for _, t := range tests {
			if !t(p) {
				return false
			}
		}
		return true
	}, nil
}

// PathError says an @path of a query names no indexed file or
// directory of the view. Near are indexed paths of the same name, for
// "did you mean".
type PathError struct {
	Path   string
	Near   []string
	Commit string
}

func (e *PathError) Error() string {
	msg := fmt.Sprintf("@%s names no indexed file or directory at %.12s", e.Path, e.Commit)
	if len(e.Near) > 0 {
		return msg + "; did you mean @" + strings.Join(e.Near, ", @") + "?"
	}
	return msg + " (@ takes a path from the repository's top, as @docs/runbook.md or @docs/; README's \"What gets indexed\" lists the files left out: binary files, vendored code, secrets files, .kbignore, kb.maxFileSize)"
}

// maxNear is how many paths NearPaths suggests.
const maxNear = 3

// NearPaths lists up to three of paths that end with p or have its file
// name (a file at the top too), and with dirs the directories named p
// inside them ("docs/runbook/" for runbook): what a path missing its
// leading directories meant.
func NearPaths(p string, paths iter.Seq[string], dirs bool) []string {
	p = strings.Trim(p, "/")
	base := "/" + path.Base(p)
	var near []string
	for q := range paths {
		switch {
		case strings.HasSuffix(q, "/"+p) || strings.HasSuffix("/"+q, base):
		case dirs && strings.Contains(q, "/"+p+"/"):
			q = q[:strings.Index(q, "/"+p+"/")+len(p)+2]
		default:
			continue
		}
		if !slices.Contains(near, q) {
			if near = append(near, q); len(near) == maxNear {
				break
			}
		}
	}
	return near
}

// bareAtWords is q with each @word that names no indexed file or
// directory, nor any path near it (NearPaths), read as a word of the
// question where it was typed: "SET @a 存的值" asks about a MySQL user
// variable, "@Transactional 不生效" about a Java annotation. An @word with
// a / or a . in it (@docs/x.md, @x.md), or one a path is near (@runbook
// for docs/runbook/), stays a scope, which checkFiles refuses with a
// "did you mean". q itself is left as it is.
func bareAtWords(q *Query, paths iter.Seq[string]) *Query {
	if q == nil || len(q.atWords) == 0 {
		return q
	}
	var words []atWord
	for _, a := range q.atWords {
		if !namesPath(a.file, paths) && len(NearPaths(a.file, paths, true)) == 0 {
			words = append(words, a)
		}
	}
	if len(words) == 0 {
		return q
	}
	c := *q
	c.Files, c.atWords = nil, nil
	// From the last to the first, so each offset still holds.
	for i := len(words) - 1; i >= 0; i-- {
		a := words[i]
		switch {
		case c.Text == "":
			c.Text = a.word
		case a.pos == 0:
			c.Text = a.word + " " + c.Text
		default:
			c.Text = c.Text[:a.pos] + " " + a.word + c.Text[a.pos:]
		}
	}
	for _, f := range q.Files {
		if !slices.ContainsFunc(words, func(a atWord) bool { return a.file == f }) {
			c.Files = append(c.Files, f)
		}
	}
	for _, a := range q.atWords {
		if !slices.Contains(words, a) {
			c.atWords = append(c.atWords, a)
		}
	}
	return &c
}

// namesPath says whether f is one of paths or a directory holding one.
func namesPath(f string, paths iter.Seq[string]) bool {
	f = strings.TrimSuffix(f, "/")
	for p := range paths {
		if p == f || strings.HasPrefix(p, f+"/") {
			return true
		}
	}
	return false
}

// viewPaths yields the paths of v's files.
func viewPaths(v *store.View) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range v.Entries {
			if !yield(v.Entries[i].Path) {
				return
			}
		}
	}
}

// checkFiles refuses a query whose @paths, path: globs or lang: names
// match no file of the view: a scope that holds nothing answers nothing,
// and "no results" would not say why. (A view holds only files with
// chunks.) Only each operator alone is checked: path:docs/ lang:go in a
// repository with both but no Go under docs/ is an honest "no results".
// in is the path: globs' matcher (inPaths).
func checkFiles(req Request, in func(string) bool) error {
	if req.Parsed == nil || req.View == nil {
		return nil
	}
	q := req.Parsed
	commit := hex.EncodeToString(req.Commit[:])
	paths := viewPaths(req.View)
	for _, f := range q.Files {
		if !namesPath(f, paths) {
			f = strings.TrimSuffix(f, "/")
			return &PathError{Path: f, Near: NearPaths(f, paths, true), Commit: commit}
		}
	}
	if in != nil && !anyPath(paths, in) {
		return &FilterError{Op: "path", Values: q.Paths, Commit: commit}
	}
	if len(q.Langs) > 0 && !anyPath(paths, func(p string) bool { return langIn(chunk.Lang(p), q.Langs) }) {
		return &FilterError{Op: "lang", Values: q.Langs, Commit: commit, Langs: viewLangs(paths)}
	}
	return nil
}

// anyPath says whether in accepts one of paths.
func anyPath(paths iter.Seq[string], in func(string) bool) bool {
	for p := range paths {
		if in(p) {
			return true
		}
	}
	return false
}

// FilterError says a path: or lang: operator of a query matches no file
// of the view. Langs are the view's languages with their file counts,
// the most files first, for a lang: that named none of them (lang:zh
// for Chinese text: lang: is a file's language, not its words').
type FilterError struct {
	Op     string // "path" or "lang"
	Values []string
	Commit string
	Langs  []LangCount
}

// LangCount is how many files of the view are of a language.
type LangCount struct {
	Lang  string
	Files int
}

// maxLangsShown bounds the languages a FilterError lists.
const maxLangsShown = 8

func (e *FilterError) Error() string {
	ops := e.Op + ":" + strings.Join(e.Values, " "+e.Op+":")
	msg := fmt.Sprintf("%s matches no indexed file at %.12s", ops, e.Commit)
	if e.Op == "path" {
		return msg + " (path: takes a glob from the repository's top: docs/, *.go, docs/**/*.md; README's \"What gets indexed\" lists the files left out)"
	}
	var have []string
	for i, l := range e.Langs {
		if i == maxLangsShown {
			have = append(have, fmt.Sprintf("and %d more", len(e.Langs)-i))
			break
		}
		files := "files"
		if l.Files == 1 {
			files = "file"
		}
		have = append(have, fmt.Sprintf("%s (%d %s)", l.Lang, l.Files, files))
	}
	if len(have) == 0 {
		return msg
	}
	return msg + "; lang: takes a file's language, and this commit has " + strings.Join(have, ", ")
}

// viewLangs counts the files of each language among paths, the most
// files first (files of no language left out).
func viewLangs(paths iter.Seq[string]) []LangCount {
	n := map[string]int{}
	for p := range paths {
		if l := chunk.Lang(p); l != "" {
			n[l]++
		}
	}
	out := make([]LangCount, 0, len(n))
	for l, c := range n {
		out = append(out, LangCount{l, c})
	}
	slices.SortFunc(out, func(a, b LangCount) int {
		if a.Files != b.Files {
			return b.Files - a.Files
		}
		return strings.Compare(a.Lang, b.Lang)
	})
	return out
}

// langIn says whether language l is one of those a query named, with
// their common short names.
func langIn(l string, langs []string) bool {
	for _, want := range langs {
		if l == want || want == "md" && l == "markdown" || want == "golang" && l == "go" || want == "py" && l == "python" || want == "js" && l == "javascript" || want == "ts" && l == "typescript" {
			return true
		}
	}
	return false
}

// refine applies the parts of a parsed query that need more than paths:
// exclusions, front-matter tags and owners, phrases, and @@Symbol, which
// moves the chunks declaring the symbol to the front. undeclared says
// that the query has @@Symbol and no chunk in scope declares one.
func (s *Searcher) refine(req Request, hits []hit) (_ []hit, undeclared bool, _ error) {
	q := req.Parsed
	if q == nil || !q.HasFilters() {
		return hits, false, nil
	}
	v := req.View
	// Single-word exclusions through postings; the rest by reading text.
	excluded := roaring.New()
	var textExcludes []string
	for _, ex := range q.Excludes {
		terms := s.analyzer().Terms(ex)
		if len(terms) != 1 || strings.ContainsAny(ex, " \t") {
			textExcludes = append(textExcludes, ex)
			continue
		}
		if err := s.eachPosting(req, terms[0], func(p store.Posting) { excluded.Add(p.Chunk) }); err != nil {
			return nil, false, err
		}
	}
	needText := len(q.Phrases) > 0 || len(textExcludes) > 0
	out := hits[:0:0]
	checked := 0
	for _, h := range hits {
		if excluded.Contains(h.chunk) {
			continue
		}
		e := entryOf(v, h.chunk)
		if e == nil {
			continue
		}
		if len(q.Tags) > 0 || len(q.Owners) > 0 {
			m, err := s.blobMeta(e.Blob)
			if err != nil {
				return nil, false, err
			}
			if !metaMatches(m.Meta, q.Tags, q.Owners) {
				continue
			}
		}
		if needText {
			if checked >= maxTextChecks {
				break
			}
			checked++
			text, err := s.chunkText(e, h.chunk)
			if err != nil {
				return nil, false, err
			}
			if !containsAll(text, q.Phrases) || containsAny(text, textExcludes) {
				continue
			}
			if text == "" && len(textExcludes) > 0 && s.unreadable(e.Path) {
				// Its blob could not be read (noteUnread): the excluded
				// phrase may be in it, so it is left out, as a phrase
				// filter leaves it out.
				continue
			}
		}
		out = append(out, h)
	}
	if len(q.Symbols) > 0 {
		defs, err := s.definitions(req, q.Symbols)
		if err != nil {
			return nil, false, err
		}
		undeclared = len(defs) == 0
		var rest []hit
		found := map[uint32]bool{}
		for _, c := range defs {
			found[c] = true
		}
		top := 0.0
		var lead []hit
		for _, h := range out {
			top = max(top, h.score)
			if found[h.chunk] {
				lead = append(lead, h)
				delete(found, h.chunk)
			} else {
				rest = append(rest, h)
			}
		}
		// Definitions the words did not reach come after those they did.
		for _, c := range defs {
			if found[c] {
				lead = append(lead, hit{chunk: c})
			}
		}
		// Definitions lead, scored above everything else so that file
		// grouping keeps them first.
		for i := range lead {
			lead[i].score += top + float64(len(lead)-i)
		}
		out = append(lead, rest...)
	}
	return out, undeclared, nil
}

// definitions finds the live, in-scope chunks that declare one of syms:
// candidates from the symbol field's postings, confirmed against the
// chunk's recorded declarations; if the analyzer drops the name (a stop
// word like "Do"), the code files' records are scanned instead.
func (s *Searcher) definitions(req Request, syms []string) ([]uint32, error) {
	v := req.View
	inScope := func(c uint32) bool {
		e := entryOf(v, c)
		return e != nil && (req.Scope == nil || req.Scope(e.Path))
	}
	seen := map[uint32]bool{}
	var out []uint32
	consider := func(c uint32) {
		if !seen[c] {
			seen[c] = true
			if inScope(c) && s.declares(v, c, syms) {
				out = append(out, c)
			}
		}
	}
	var terms []string
	for _, sym := range syms {
		terms = append(terms, s.analyzer().Terms(sym)...)
	}
	var ranges chunkRanges
	for _, e := range v.ChunkEntries(nil) {
		ranges.add(e.First, e.N)
	}
	live := ranges.bitmap()
	for _, t := range terms {
		err := s.eachPosting(req, t, func(p store.Posting) {
			if p.TF[store.FieldSymbol] > 0 && live.Contains(p.Chunk) {
				consider(p.Chunk)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		scanned := 0
		for _, e := range v.ChunkEntries(req.Scope) {
			if l := chunk.Lang(e.Path); l == "markdown" || l == "text" {
				continue
			}
			if scanned++; scanned > maxSymbolScan {
				break
			}
			for c := e.First; c < e.First+e.N; c++ {
				consider(c)
			}
		}
	}
	return out, nil
}

// eachPosting calls fn for each posting of term in the view's segments,
// then in the overlay of uncommitted files, if any.
func (s *Searcher) eachPosting(req Request, term string, fn func(store.Posting)) error {
	var buf []store.Posting
	if s.DB != nil {
		err := s.DB.Postings(s.Pipeline, term, req.View.Segments(), func(_ uint32, data []byte) error {
			var err error
			buf, err = store.DecodePostings(buf[:0], data)
			for _, p := range buf {
				fn(p)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	if req.ov == nil {
		return nil
	}
	for _, p := range req.ov.postings(term) {
		fn(p)
	}
	return nil
}

// maxSymbolScan bounds the fallback scan of code files for a symbol.
const maxSymbolScan = 20000

func (s *Searcher) declares(v *store.View, c uint32, syms []string) bool {
	e := entryOf(v, c)
	if e == nil {
		return false
	}
	m, err := s.blobMeta(e.Blob)
	if err != nil || int(c-e.First) >= len(m.Chunks) {
		return false
	}
	for _, have := range m.Chunks[c-e.First].Symbols {
		for _, want := range syms {
			if have == want || strings.EqualFold(have, want) {
				return true
			}
		}
	}
	return false
}

// chunkText is a chunk's lines, read from its blob (cached per Searcher).
func (s *Searcher) chunkText(e *store.ViewEntry, c uint32) (string, error) {
	m, err := s.blobMeta(e.Blob)
	if err != nil {
		return "", err
	}
	idx := int(c - e.First)
	if idx >= len(m.Chunks) || s.ReadBlob == nil {
		return "", nil
	}
	lines, err := s.blobLines(e.Path, e.Blob)
	if err != nil {
		return "", err
	}
	cm := m.Chunks[idx]
	lo, hi := max(1, cm.Start), min(len(lines), cm.End)
	if lo > hi {
		return "", nil
	}
	return strings.Join(lines[lo-1:hi], "\n"), nil
}

// normalize lowercases, collapses whitespace and folds as the analyzer
// does (full width, traditional characters), so a phrase matches across
// line breaks, case and script, as its words do.
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(segment.Normalize(s))), " ")
}

func containsAll(text string, phrases []string) bool {
	if len(phrases) == 0 {
		return true
	}
	t := normalize(text)
	for _, p := range phrases {
		if !strings.Contains(t, normalize(p)) {
			return false
		}
	}
	return true
}

func containsAny(text string, phrases []string) bool {
	if len(phrases) == 0 {
		return false
	}
	t := normalize(text)
	for _, p := range phrases {
		if strings.Contains(t, normalize(p)) {
			return true
		}
	}
	return false
}

// metaMatches checks front-matter: tags (a YAML list or a comma list) and
// owner, case-insensitively; every operator given must match.
func metaMatches(meta map[string]string, tags, owners []string) bool {
	if len(tags) > 0 {
		have := map[string]bool{}
		for _, t := range strings.FieldsFunc(meta["tags"], func(r rune) bool { return r == ',' || r == '[' || r == ']' || r == ' ' || r == '"' || r == '\'' }) {
			have[strings.ToLower(t)] = true
		}
		for _, t := range tags {
			if !have[t] {
				return false
			}
		}
	}
	if len(owners) > 0 {
		o := strings.ToLower(strings.TrimSpace(meta["owner"]))
		ok := false
		for _, want := range owners {
			ok = ok || o == want
		}
		if !ok {
			return false
		}
	}
	return true
}
