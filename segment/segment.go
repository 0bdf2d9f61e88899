package segment

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-ego/gse"
	"golang.org/x/text/width"
)

// Analyzer turns text into terms. The zero value is not usable; use Tiny or
// Full. Both produce identical terms; they differ only in cost profile.
type Analyzer struct {
	full bool
	// pre is a tiny dictionary built once for the Chinese runs in runs
	// (For); a run not among them gets its own, as Tiny does.
	pre  *gse.Segmenter
	runs map[string]bool
	// vocab is the repository's own words (nil: none); see Vocab.
	vocab *Vocab
}

// Tiny returns an analyzer that builds a dictionary per call from the words
// occurring in the text: no start-up cost, ~microseconds per Han character.
// Right for queries and small indexing runs.
func Tiny() *Analyzer { return &Analyzer{} }

// Full returns an analyzer backed by the whole dictionary, loaded into gse
// once per process on first use (~1 s). Right for large indexing runs.
func Full() *Analyzer { return &Analyzer{full: true} }

// FullWorthIt reports whether loading the full dictionary is cheaper than
// building tiny ones for hanBytes bytes of Han text (measured break-even:
// a full load costs about as much as ~1 MB of Han text in tiny mode).
func FullWorthIt(hanBytes int) bool { return hanBytes > 600_000 }

// Terms returns the index terms of text, in order of appearance, with
// repetitions (callers count term frequencies).
func (a *Analyzer) Terms(text string) []string {
	text = Normalize(text)
	var terms, runs []string
	scanRuns(text, false, func(start, end int) {
		terms = appendWordTerms(terms, strings.TrimRight(text[start:end], ".-"))
	}, func(start, end int) {
		runs = append(runs, text[start:end])
	})
	if len(runs) > 0 {
		terms = a.appendHanTerms(terms, runs)
	}
	return terms
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// segmenter is the gse segmenter for runs (normalized Han runs): the full
// dictionary's, the one For built when it holds every run, else a tiny one
// for these runs. All cut the runs alike (see tinySegmenter).
func (a *Analyzer) segmenter(runs []string) *gse.Segmenter {
	if a.full {
		if a.vocab != nil {
			return a.vocab.full()
		}
		return fullSegmenter()
	}
	if a.pre != nil {
		all := true
		for _, r := range runs {
			all = all && a.runs[r]
		}
		if all {
			return a.pre
		}
	}
	return loadTable().tinySegmenter(a.vocab, runs)
}

// Vocab is the vocabulary the analyzer cuts with (nil: none).
func (a *Analyzer) Vocab() *Vocab { return a.vocab }

func (a *Analyzer) appendHanTerms(terms, runs []string) []string {
	seg := a.segmenter(runs)
	for _, run := range runs {
		for _, sg := range seg.Segment([]byte(run)) {
			terms = a.appendTokenTerms(terms, sg.Token())
		}
	}
	return terms
}

// Word is a word of the analyzer's cut of a Chinese run, with its cut into
// shorter words (none when the word is not cut further): 翻译成 is cut
// 翻译 + 成. Terms emits a word and, search-engine style, the words of
// two or more characters inside it.
type Word struct {
	Text  string
	Parts []Word
}

// Words is the analyzer's own cut of run, a run of Han characters, into
// words: the top-level words gse finds with this analyzer's dictionary and
// vocabulary, stop words included, in order (their texts concatenate to
// run once normalized). It is for a caller that must agree with the
// analyzer on where a word ends: query expansion looks the query's words
// up in other dictionaries.
func (a *Analyzer) Words(run string) []Word {
	run = Normalize(run)
	if run == "" {
		return nil
	}
	var out []Word
	for _, sg := range a.segmenter([]string{run}).Segment([]byte(run)) {
		out = append(out, tokenWord(sg.Token()))
	}
	return out
}

func tokenWord(tok *gse.Token) Word {
	w := Word{Text: tok.Text()}
	if subs := tok.Segments(); len(subs) > 1 {
		for _, sub := range subs {
			w.Parts = append(w.Parts, tokenWord(sub.Token()))
		}
	}
	return w
}

// IsStop reports whether the analyzer drops w as a stop word (的, 如何,
// the): a function word, no term of its own.
func IsStop(w string) bool { return zhStop[w] || enStop[w] }

// appendTokenTerms emits a dictionary word and, search-engine style, the
// shorter dictionary words inside it (中华人民共和国 -> 中华, 人民, 共和国...),
// so a query for a part finds the whole. gse's own CutSearch is not used: it
// refuses to return a run that is one word as that word (配置 -> 配, 置).
//
// A vocabulary word emits all the pieces the built-in dictionary cuts it
// into, single characters too (回滚 -> 回滚, 回, 滚): it adds a term for
// the whole and leaves matchable whatever matched without it.
func (a *Analyzer) appendTokenTerms(terms []string, tok *gse.Token) []string {
	w := tok.Text()
	if !zhStop[w] {
		terms = append(terms, w)
	}
	own := a.vocab.Has(w)
	if !own && utf8.RuneCountInString(w) <= 2 {
		return terms
	}
	for _, sub := range tok.Segments() {
		if own || utf8.RuneCountInString(sub.Token().Text()) >= 2 {
			terms = a.appendTokenTerms(terms, sub.Token())
		}
	}
	return terms
}

// appendWordTerms emits a word or identifier lower-cased and whole, then its
// parts when it has several (retryCount -> retrycount, retry, count).
func appendWordTerms(terms []string, word string) []string {
	if word == "" {
		return terms
	}
	lower := strings.ToLower(word)
	parts := splitIdent(word)
	if len(parts) <= 1 {
		if enStop[lower] {
			return terms
		}
		return append(terms, stem(lower))
	}
	terms = append(terms, lower)
	for _, p := range parts {
		p = strings.ToLower(p)
		if utf8.RuneCountInString(p) < 2 || enStop[p] {
			continue // single letters and digits of an identifier are noise
		}
		terms = append(terms, stem(p))
	}
	return terms
}

// splitIdent splits at '_', '.', '-' and camelCase boundaries:
// HTTPServer -> HTTP, Server; retry_count -> retry, count; v7.5.0 -> v7, 5, 0.
func splitIdent(s string) []string {
	var parts []string
	rs := []rune(s)
	start := 0
	emit := func(end int) {
		if end > start {
			parts = append(parts, string(rs[start:end]))
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '_' || r == '.' || r == '-' {
			emit(i)
			start = i + 1
			continue
		}
		if i > start && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				emit(i)
				start = i
			}
		}
	}
	emit(len(rs))
	return parts
}

// stem is a deliberately light English plural folding (files -> file,
// indexes -> index, policies -> policy). Heavier stemmers mangle identifiers.
func stem(w string) string {
	n := len(w)
	if n < 4 || !isASCIILetters(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:n-1]
	}
	return w
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// Normalize folds full-width forms to half-width (ＡＢＣ１２３ -> ABC123,
// full-width punctuation -> ASCII), traditional Chinese characters to
// simplified (慢查詢 -> 慢查询: the dictionary is simplified, and a team's
// docs and questions may be written in either), and replaces invalid
// UTF-8. Case is kept: identifier splitting needs it.
func Normalize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if hasWide(s) {
		s = width.Fold.String(s)
	}
	return foldTraditional(s)
}

func hasWide(s string) bool {
	for _, r := range s {
		if r >= 0x3000 && r <= 0x3000 || r >= 0xFF01 && r <= 0xFF5E {
			return true
		}
	}
	return false
}

// HanBytes counts the bytes of Han characters in s, to size the dictionary choice.
func HanBytes(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x2E80 && unicode.Is(unicode.Han, r) {
			n += utf8.RuneLen(r)
		}
	}
	return n
}

var zhStop = setOf(`的 了 是 在 和 与 及 或 等 也 都 就 而 被 把 从 对 为 以 之 其 这 那 该 此 个 吗 呢 吧 啊 呀 哪 么 着 过 我 你 他 她 它 我们 你们 他们 如何 怎么 怎样 怎么办 什么 哪些 哪个 为什么 是否 能否 可以 能 会 要 想 请问 一下 有没有 还是 然后 以及 并且 或者 如果 因为 所以 但是 这个 那个 这些 那些 时候`)

var enStop = setOf(`a an the and or of to in on at by for from with as is are was were be been being it its this that these those do does did how what why when where which who can could should would will i we you he she they my our your not no yes if then else than so such there here into about`)

func setOf(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
