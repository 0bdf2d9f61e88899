package segment

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-ego/gse"
	"golang.org/x/text/width"
)

// Span is one term of a text with where it came from: text[Start:End] is
// the word, identifier part or Chinese word that produced Term.
type Span struct {
	Start, End int // byte offsets into the text given to Spans
	Term       string
}

// Spans cuts text exactly as Terms does (the same terms in the same order)
// and says where each term came from, in bytes of the original text. It is
// what highlighting uses, so that only what the analyzer cut is marked:
// the query term "ti" (from TiKV) is a part of "TiKV", never of "duration".
func (a *Analyzer) Spans(text string) []Span {
	spans, runs := wordSpans(text)
	if len(runs) > 0 {
		spans = a.appendHanSpans(spans, text, runs)
	}
	return spans
}

// For returns an analyzer that cuts each of texts (and the highlights of
// each, with Spans, Match and Mark) exactly as a does, from one dictionary
// built for all of them. A tiny analyzer builds a dictionary per call,
// from the words of the text's Chinese runs: highlighting ten snippets
// built ten, a tenth of a search's time. Other texts are cut as a cuts
// them.
func (a *Analyzer) For(texts []string) *Analyzer {
	if a.full || a.pre != nil {
		return a
	}
	runs := map[string]bool{}
	var strs []string
	for _, text := range texts {
		_, rs := wordSpans(text)
		for _, r := range rs {
			if s := Normalize(text[r.start:r.end]); !runs[s] {
				runs[s] = true
				strs = append(strs, s)
			}
		}
	}
	if len(strs) == 0 {
		return a
	}
	return &Analyzer{pre: loadTable().tinySegmenter(a.vocab, strs), runs: runs, vocab: a.vocab}
}

// ForMatch is For for Match(text, terms) of each of texts: its dictionary
// holds the words of only those Chinese runs that hold one of terms, the
// only runs Match cuts (see matchSpans). Highlighting a docs search's
// snippets cut some 3,000 characters to mark a few words; each of their
// first characters' dictionary pages was a page fault.
func (a *Analyzer) ForMatch(texts, terms []string) *Analyzer {
	if a.full || a.pre != nil {
		return a
	}
	want := wantSet(terms)
	runs := map[string]bool{}
	var strs []string
	for _, text := range texts {
		_, rs := wordSpans(text)
		for _, r := range rs {
			if s := Normalize(text[r.start:r.end]); !runs[s] && holdsAny(s, want) {
				runs[s] = true
				strs = append(strs, s)
			}
		}
	}
	if len(strs) == 0 {
		return a
	}
	return &Analyzer{pre: loadTable().tinySegmenter(a.vocab, strs), runs: runs, vocab: a.vocab}
}

// wantSet is the terms as Match looks them up: lower-cased, normalized.
func wantSet(terms []string) map[string]bool {
	want := make(map[string]bool, len(terms))
	for _, t := range terms {
		if t != "" {
			want[strings.ToLower(Normalize(t))] = true
		}
	}
	return want
}

// holdsAny reports whether one of want is a substring of the normalized
// Chinese run s. Every term a run is cut into (a word gse finds, or a
// word inside one) is a substring of it, so a run holding none of want
// has no span Match would mark.
func holdsAny(s string, want map[string]bool) bool {
	for t := range want {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// matchSpans is Spans(text) less the spans of the Chinese runs that hold
// none of want: those Match would compare with want and drop.
func (a *Analyzer) matchSpans(text string, want map[string]bool) []Span {
	spans, runs := wordSpans(text)
	kept := runs[:0]
	for _, r := range runs {
		if holdsAny(Normalize(text[r.start:r.end]), want) {
			kept = append(kept, r)
		}
	}
	if len(kept) > 0 {
		spans = a.appendHanSpans(spans, text, kept)
	}
	return spans
}

// wordSpans cuts the words and identifiers of text as Spans does, and
// returns the Han runs between them, to be cut by a dictionary.
func wordSpans(text string) ([]Span, []hanRun) {
	var spans []Span
	var runs []hanRun
	scanRuns(text, true, func(start, end int) {
		for end > start && (text[end-1] == '.' || text[end-1] == '-') {
			end--
		}
		spans = appendWordSpans(spans, text, start, end)
	}, func(start, end int) {
		runs = append(runs, hanRun{start, end})
	})
	return spans, runs
}

// scanRuns walks text's Han runs and its words (letters, digits and '_',
// with a '.' or '-' inside a dotted name, version or code: git.PlainOpen,
// v7.5.0, ER-1105), calling word or han with each one's byte range in
// order. Terms and Spans cut text the same way because both use it; fold
// folds full-width characters as Normalize does, for a text not
// normalized yet (Spans keeps the original's offsets).
//
// Words inside encoded data (see dataRuns) are not passed to word.
func scanRuns(text string, fold bool, word, han func(start, end int)) {
	if data := dataRuns(text, fold); len(data) > 0 {
		inner := word
		word = func(start, end int) {
			for len(data) > 0 && data[0][1] <= start {
				data = data[1:]
			}
			if len(data) > 0 && data[0][0] < end {
				return // overlaps encoded data
			}
			inner(start, end)
		}
	}
	hanStart, wordStart := -1, -1
	flushWord := func(end int) {
		if wordStart >= 0 {
			word(wordStart, end)
			wordStart = -1
		}
	}
	flushHan := func(end int) {
		if hanStart >= 0 {
			han(hanStart, end)
			hanStart = -1
		}
	}
	for i, r := range text {
		if fold && r >= 0x3000 {
			r = foldRune(r)
		}
		switch {
		case unicode.Is(unicode.Han, r):
			flushWord(i)
			if hanStart < 0 {
				hanStart = i
			}
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			flushHan(i)
			if wordStart < 0 {
				wordStart = i
			}
		case (r == '.' || r == '-') && wordStart >= 0 && i+1 < len(text) && isWordByte(text[i+1]):
		default:
			flushWord(i)
			flushHan(i)
		}
	}
	flushWord(len(text))
	flushHan(len(text))
}

type hanRun struct{ start, end int }

// MaxDataRun is the longest run of base64 or hex characters (ASCII
// letters, digits, + / = _ -) without a space or other punctuation whose
// words are terms. A longer run is encoded data (a base64 blob, a data:
// URI, a dump of digits or a hash list run together), not words anyone
// searches for: it yields no terms. Each of its pieces would be a term of
// its own, nearly all of them distinct, and a 70 MB base64 file made
// millions of them, the bulk of that file's indexing time and memory.
//
// Data wrapped into lines (a PEM certificate or key at 64 columns, MIME
// base64 at 76, a hex dump) is a block of consecutive lines each of them
// base64 or hex alone, all of one width but the last, which may be
// shorter; a block of more than MaxDataRun characters is encoded data
// too, line by line.
const MaxDataRun = 1000

// minWrapWidth is the narrowest line of a wrapped block: encoders wrap
// at 60 (xxd -p), 64 (PEM, PGP), 70 (OpenSSH) or 76 (MIME) columns.
const minWrapWidth = 40

// isDigestWidth: a block of hex lines of one of these widths is a list
// of hashes (MD5 32, SHA-1 40, SHA-224 56, SHA-256 64, SHA-384 96,
// SHA-512 128: a .git-blame-ignore-revs, a checksum list), each line a
// name someone searches for, not data wrapped into lines.
func isDigestWidth(n int) bool {
	switch n {
	case 32, 40, 56, 64, 96, 128:
		return true
	}
	return false
}

// dataRuns returns the byte ranges of text's runs longer than MaxDataRun,
// and of the lines of its wrapped blocks of data (see MaxDataRun), in
// order (with fold, full-width characters count as their ASCII forms, as
// scanRuns reads them).
func dataRuns(text string, fold bool) [][2]int {
	if len(text) <= MaxDataRun {
		return nil
	}
	var out, block [][2]int
	start, n := -1, 0 // the current run's start byte and its length in characters
	end := func(i int) {
		if start >= 0 && n > MaxDataRun {
			out = append(out, [2]int{start, i})
		}
		start, n = -1, 0
	}
	// The current line: its one run of data characters, if it is base64
	// or hex alone between blanks (pure), its length in characters, and
	// whether they are all hex digits.
	lineRun, lineN, pure, lineHex := [2]int{-1, -1}, 0, true, true
	// The current block: its lines, their width, its characters, whether
	// a shorter line ended it, and whether all its lines are hex.
	width, total, closed, blockHex := 0, 0, false, true
	flush := func() {
		if len(block) > 1 && total > MaxDataRun && !(blockHex && isDigestWidth(width)) {
			for _, r := range block {
				out = append(out, r)
			}
		}
		block, width, total, closed, blockHex = block[:0], 0, 0, false, true
	}
	endLine := func() {
		switch {
		case !pure || lineN == 0:
			flush()
		case len(block) > 0 && !closed && lineN == width:
			block, total, blockHex = append(block, lineRun), total+lineN, blockHex && lineHex
		case len(block) > 0 && !closed && lineN < width:
			block, total, closed, blockHex = append(block, lineRun), total+lineN, true, blockHex && lineHex
		default:
			flush()
			if lineN >= minWrapWidth {
				block, width, total, blockHex = append(block, lineRun), lineN, lineN, lineHex
			}
		}
		lineRun, lineN, pure, lineHex = [2]int{-1, -1}, 0, true, true
	}
	for i := 0; i < len(text); {
		b, size := text[i], 1
		if b >= utf8.RuneSelf {
			// Only a full-width form of an ASCII character can be data.
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			if fold && r >= 0x3000 {
				if f := foldRune(r); f < utf8.RuneSelf {
					b = byte(f)
				}
			}
		}
		switch {
		case b < utf8.RuneSelf && isDataByte(b):
			if start < 0 {
				start = i
			}
			n++
			if lineRun[0] >= 0 && lineRun[1] < i || !isBase64Byte(b) {
				pure = false // a second run on the line, or base64url
			}
			if !isHexByte(b) {
				lineHex = false
			}
			if lineRun[0] < 0 {
				lineRun[0] = i
			}
			lineRun[1] = i + size
			lineN++
		case b == '\n':
			end(i)
			endLine()
		default:
			end(i)
			if b != ' ' && b != '\t' && b != '\r' {
				pure = false
			}
		}
		i += size
	}
	end(len(text))
	endLine()
	flush()
	// A block's lines come after the runs ended on the line that closed
	// it, and a line over MaxDataRun may be both.
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	return slices.Compact(out)
}

func isHexByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// isBase64Byte: standard base64 (hex is a part of it).
func isBase64Byte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '='
}

func isDataByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '=' || b == '_' || b == '-'
}

// foldRune is Normalize's width folding for one rune.
func foldRune(r rune) rune {
	if r == 0x3000 || r >= 0xFF01 && r <= 0xFF5E {
		if f, _ := utf8.DecodeRuneInString(width.Fold.String(string(r))); f != utf8.RuneError {
			return f
		}
	}
	return r
}

// appendWordSpans mirrors appendWordTerms, with the offsets of the parts.
func appendWordSpans(spans []Span, text string, start, end int) []Span {
	if end <= start {
		return spans
	}
	word := Normalize(text[start:end])
	lower := strings.ToLower(word)
	parts := splitIdent(word)
	if len(parts) <= 1 {
		if enStop[lower] {
			return spans
		}
		return append(spans, Span{start, end, stem(lower)})
	}
	spans = append(spans, Span{start, end, lower})
	// Parts are in order; find each in the original text after the last.
	at := start
	for _, p := range parts {
		ps, pe := at, at
		if i, j := indexFold(text[at:end], p); i >= 0 {
			ps, pe = at+i, at+j
			at = pe
		}
		p = strings.ToLower(p)
		if utf8.RuneCountInString(p) < 2 || enStop[p] {
			continue
		}
		spans = append(spans, Span{ps, pe, stem(p)})
	}
	return spans
}

// indexFold finds a part of a normalized word in the original text: the
// same bytes unless the text had full-width letters, then the first byte
// range that normalizes to it.
func indexFold(s, part string) (int, int) {
	if i := strings.Index(s, part); i >= 0 {
		return i, i + len(part)
	}
	for i := range s {
		for j := i + 1; j <= len(s); j++ {
			if utf8.ValidString(s[i:j]) && Normalize(s[i:j]) == part {
				return i, j
			}
		}
	}
	return -1, -1
}

// appendHanSpans mirrors appendHanTerms: gse's words cover each run in
// order, so their offsets follow from their lengths.
func (a *Analyzer) appendHanSpans(spans []Span, text string, runs []hanRun) []Span {
	strs := make([]string, len(runs))
	for i, r := range runs {
		strs[i] = Normalize(text[r.start:r.end])
	}
	seg := a.segmenter(strs)
	for i, run := range strs {
		at := runs[i].start
		for _, sg := range seg.Segment([]byte(run)) {
			tok := sg.Token()
			spans = a.appendTokenSpans(spans, tok, at)
			at += len(tok.Text())
		}
	}
	return spans
}

// appendTokenSpans mirrors appendTokenTerms; a shorter word inside a long
// one is placed at its first occurrence after the previous one.
func (a *Analyzer) appendTokenSpans(spans []Span, tok *gse.Token, at int) []Span {
	w := tok.Text()
	if !zhStop[w] {
		spans = append(spans, Span{at, at + len(w), w})
	}
	own := a.vocab.Has(w)
	if !own && utf8.RuneCountInString(w) <= 2 {
		return spans
	}
	from := 0
	for _, sub := range tok.Segments() {
		st := sub.Token().Text()
		off := from
		if i := strings.Index(w[from:], st); i >= 0 {
			off = from + i
			from = off + len(st)
		}
		if own || utf8.RuneCountInString(st) >= 2 {
			spans = a.appendTokenSpans(spans, sub.Token(), at+off)
		}
	}
	return spans
}

// Matches is what of a query a text holds, as the analyzer cut the text.
type Matches struct {
	// Ranges are the byte ranges to highlight, sorted and merged.
	Ranges [][2]int
	// Terms are the query terms found, in the order they were given.
	Terms []string
	// Words are the distinct pieces of the text that matched, as written
	// (TiKV, 磁盘, files): what a program can mark by exact search without
	// marking "ti" inside "duration".
	Words []string
}

// Match finds terms (a query's terms, or Words of an earlier Match) in
// text. A match is a span whose term or whole text is one of terms (a word,
// identifier part or Chinese word as the analyzer cut it), or a Chinese
// term of two or more characters wherever it is written. A Latin term is
// never found inside a word it is merely a substring of.
func (a *Analyzer) Match(text string, terms []string) Matches {
	return a.match(text, terms, true)
}

// match is Match; with skip false it cuts all of text's Chinese runs,
// as it did before matchSpans (the tests compare the two).
func (a *Analyzer) match(text string, terms []string, skip bool) Matches {
	var m Matches
	if len(terms) == 0 || text == "" {
		return m
	}
	found := map[string]bool{}
	want := wantSet(terms)
	var spans []Span
	if skip {
		spans = a.matchSpans(text, want)
	} else {
		spans = a.Spans(text)
	}
	var rs [][2]int
	for _, s := range spans {
		surface := strings.ToLower(Normalize(text[s.Start:s.End]))
		if want[s.Term] || want[surface] {
			rs = append(rs, [2]int{s.Start, s.End})
			found[s.Term], found[surface] = true, true
		}
	}
	hanOccurrences(text, want, func(s Span) {
		rs = append(rs, [2]int{s.Start, s.End})
		found[s.Term] = true
	})
	seen := map[string]bool{}
	for _, t := range terms {
		if lt := strings.ToLower(Normalize(t)); found[lt] && !seen[lt] {
			m.Terms = append(m.Terms, t)
			seen[lt] = true
		}
	}
	// Words: the matched pieces no other matched piece contains.
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] || rs[i][0] == rs[j][0] && rs[i][1] > rs[j][1] })
	seen = map[string]bool{}
	reach := -1
	for _, r := range rs {
		if r[1] <= reach {
			continue // inside the previous piece
		}
		reach = r[1]
		if w := text[r[0]:r[1]]; !seen[w] {
			m.Words = append(m.Words, w)
			seen[w] = true
		}
	}
	m.Ranges = merge(rs)
	return m
}

// merge sorts ranges and joins those that overlap or touch, so that
// adjacent words make one bold run (**发布失败**, not **发布****失败**).
func merge(rs [][2]int) [][2]int {
	if len(rs) == 0 {
		return nil
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] || rs[i][0] == rs[j][0] && rs[i][1] > rs[j][1] })
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r[0] <= last[1] {
			last[1] = max(last[1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// hanOccurrences calls found for every place in text where a Chinese
// term of want with two or more characters is written. Chinese is written
// without spaces, and the cut of a text depends on its neighbours
// (立即|回|滚到 holds 回滚, which the query cut whole): such a term matches
// wherever it is written. Latin words and identifiers match only whole,
// as cut (Match and MatchSpans read those from the spans).
func hanOccurrences(text string, want map[string]bool, found func(Span)) {
	for t := range want {
		if HanBytes(t) != len(t) || utf8.RuneCountInString(t) < 2 {
			continue
		}
		for i := 0; ; {
			j := strings.Index(text[i:], t)
			if j < 0 {
				break
			}
			found(Span{i + j, i + j + len(t), t})
			i += j + len(t)
		}
	}
}

// MatchSpans is where in text Match finds each of terms: one span per
// match, its Term the one of terms it matched (lower-cased and
// normalized, as Match compares them), ordered by Start (then the longer
// first). Proximity scoring reads a chunk's query words' places from it,
// so that they are found where the highlights mark them: a word as the
// analyzer cut it, a Chinese term of two or more characters wherever it
// is written.
func (a *Analyzer) MatchSpans(text string, terms []string) []Span {
	if len(terms) == 0 || text == "" {
		return nil
	}
	want := wantSet(terms)
	var out []Span
	for _, s := range a.matchSpans(text, want) {
		if want[s.Term] {
			out = append(out, s)
		} else if surface := strings.ToLower(Normalize(text[s.Start:s.End])); want[surface] {
			out = append(out, Span{s.Start, s.End, surface})
		}
	}
	hanOccurrences(text, want, func(s Span) { out = append(out, s) })
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.Start != y.Start {
			return x.Start < y.Start
		}
		if x.End != y.End {
			return x.End > y.End
		}
		return x.Term < y.Term
	})
	// A Chinese word the analyzer cut is also found as written: once.
	return slices.Compact(out)
}

// Mark wraps each range that Match finds in open and close.
func (a *Analyzer) Mark(text string, terms []string, open, close string) string {
	ms := a.Match(text, terms).Ranges
	if len(ms) == 0 {
		return text
	}
	var b strings.Builder
	at := 0
	for _, m := range ms {
		b.WriteString(text[at:m[0]])
		b.WriteString(open)
		b.WriteString(text[m[0]:m[1]])
		b.WriteString(close)
		at = m[1]
	}
	b.WriteString(text[at:])
	return b.String()
}
