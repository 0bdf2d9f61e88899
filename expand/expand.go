// Package expand bridges Chinese and English query words: a Chinese
// question gains the English words code and English docs use (归档 ->
// archive, tar), an English word gains the Chinese terms of Chinese docs
// (rollback -> 回滚).
//
// Two sources: glossary.tsv, a hand-written software-engineering glossary
// (see GLOSSARY.md), which wins wherever it has an entry; and CC-CEDICT,
// a general Chinese-English dictionary (see CC-CEDICT.md for its licence
// and internal/gencedict for what is kept of it).
//
// `go generate ./expand` turns both into sorted tables (glossary_zh.tsv,
// glossary_en.tsv, cedict_zh.tsv, cedict_en.tsv), embedded and searched
// in place by bisection: a search parses nothing at start-up (parsing the
// glossary was 5 ms of every Chinese query).
//
// The package only finds words; how much they weigh is search's business.
package expand

//go:generate go run ./internal/genglossary -dir .
//go:generate go run ./internal/gencedict -out .

import (
	_ "embed"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	//go:embed glossary_zh.tsv
	glossaryZh string
	//go:embed glossary_en.tsv
	glossaryEn string
	//go:embed cedict_zh.tsv
	cedictZh string
	//go:embed cedict_en.tsv
	cedictEn string
)

// Sources of an expansion.
const (
	SourceGlossary = "glossary"
	SourceCEDICT   = "cedict"
)

// Expansion is one of the user's words and the words it adds.
type Expansion struct {
	From   string   `json:"from"`
	To     []string `json:"to"`
	Source string   `json:"source"` // SourceGlossary or SourceCEDICT
}

// maxZhMatch is the longest Chinese word looked up, in characters: the
// glossary's longest terms (基于角色的访问控制, 多用途互联网邮件扩展) have
// 9 and 10; a longer one would never match (TestTablesInStep checks).
// CC-CEDICT is asked up to maxCedictMatch only: its longer entries are
// idioms and proper names, not words of a technical question.
const (
	maxZhMatch     = 10
	maxCedictMatch = 6
)

// Expand finds the expansions of a query's text: the Chinese words in it
// (the run's best cut into words of both sources, see cutHan), and its
// English words.
// Glossary entries win over CC-CEDICT's for the same word; CC-CEDICT is
// not asked for single characters (too many senses each).
func Expand(text string) []Expansion {
	var out []Expansion
	seen := map[string]bool{}
	add := func(from, to, source string) {
		if to != "" && !seen[from] {
			seen[from] = true
			out = append(out, Expansion{From: from, To: strings.Split(to, "|"), Source: source})
		}
	}
	for _, run := range hanRuns(text) {
		for _, m := range cutHan([]rune(run)) {
			add(m.word, m.value, m.source)
		}
	}
	for _, w := range latinWords(text) {
		if v, ok := lookup(glossaryEn, w); ok {
			add(w, v, SourceGlossary)
		} else if v, ok := lookup(cedictEn, w); ok {
			add(w, v, SourceCEDICT)
		}
	}
	return out
}

// hanMatch is a word of a Han run found in one of the sources.
type hanMatch struct {
	word, value, source string
}

// cutHan cuts a run of Han characters into the words of the two sources
// that cover it best: maximum matching by dynamic programming, a word of n
// characters scoring n*n (long words beat their pieces), a glossary word a
// little more (it wins a tie). Greedy longest-match-first let a general
// CC-CEDICT word cut into the glossary term after it: 中指 (middle finger)
// took 中指定's 指定, 上下 took 上下游's 下游, 本文 took 本文档's 文档.
func cutHan(rs []rune) []hanMatch {
	type step struct {
		score float64
		n     int // characters taken here; 0: none matched, skip one
		m     hanMatch
	}
	best := make([]step, len(rs)+1)
	for i := len(rs) - 1; i >= 0; i-- {
		best[i] = step{score: best[i+1].score}
		// Shortest first, stopping where no longer key of either table
		// starts with the characters so far: most runs need two or three
		// lookups a character, not maxZhMatch.
		gMore, cMore := true, true
		for l := 1; l <= min(maxZhMatch, len(rs)-i) && (gMore || cMore); l++ {
			w := string(rs[i : i+l])
			var m hanMatch
			var sc float64
			var gv, cv string
			var gok, cok bool
			if gMore {
				gv, gok, gMore = seek(glossaryZh, w)
			}
			if cMore = cMore && l <= maxCedictMatch; cMore {
				cv, cok, cMore = seek(cedictZh, w)
			}
			switch {
			case gok:
				m, sc = hanMatch{w, gv, SourceGlossary}, float64(l*l)+0.5
			case cok && l >= 2:
				m, sc = hanMatch{w, cv, SourceCEDICT}, float64(l*l)
			default:
				continue
			}
			// on a tie the longer word wins, but not over skipping a character
			if s := sc + best[i+l].score; s > best[i].score || s == best[i].score && best[i].n > 0 {
				best[i] = step{score: s, n: l, m: m}
			}
		}
	}
	var out []hanMatch
	for i := 0; i < len(rs); {
		if n := best[i].n; n > 0 {
			out = append(out, best[i].m)
			i += n
		} else {
			i++
		}
	}
	return out
}

// seek is lookup that also tells whether a longer key of t starts with
// key (in a sorted table such keys come right after key's place).
func seek(t, key string) (v string, ok, more bool) {
	lo, hi := 0, len(t)
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := lo + strings.LastIndexByte(t[lo:mid], '\n') + 1
		e := lineEnd(t, s)
		if k, _, _ := strings.Cut(t[s:e], "\t"); k < key {
			lo = e + 1
		} else {
			hi = s
		}
	}
	if lo >= len(t) { // lo: the first line whose key is not below key
		return "", false, false
	}
	e := lineEnd(t, lo)
	k, v, _ := strings.Cut(t[lo:e], "\t")
	if k != key {
		return "", false, strings.HasPrefix(k, key)
	}
	if e+1 < len(t) {
		next, _, _ := strings.Cut(t[e+1:lineEnd(t, e+1)], "\t")
		more = strings.HasPrefix(next, key)
	}
	return v, true, more
}

// lineEnd is the index of the newline ending the line that starts at s,
// or len(t).
func lineEnd(t string, s int) int {
	if e := strings.IndexByte(t[s:], '\n'); e >= 0 {
		return s + e
	}
	return len(t)
}

// lookup finds key's value in a table of sorted "key<TAB>value" lines by
// bisection over the bytes.
func lookup(t, key string) (string, bool) {
	lo, hi := 0, len(t)
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := lo + strings.LastIndexByte(t[lo:mid], '\n') + 1
		e := strings.IndexByte(t[s:], '\n')
		if e < 0 {
			e = len(t)
		} else {
			e += s
		}
		k, v, _ := strings.Cut(t[s:e], "\t")
		switch {
		case k == key:
			return v, true
		case k < key:
			lo = e + 1
		default:
			hi = s
		}
	}
	return "", false
}

// hanRuns are the maximal runs of Han characters in text.
func hanRuns(text string) []string {
	var out []string
	start := -1
	for i, r := range text {
		if unicode.Is(unicode.Han, r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

// latinWords are text's words of Latin letters, lower-cased, identifiers
// split at case changes and underscores (retryCount -> retry, count).
func latinWords(text string) []string {
	var out []string
	word := []rune{}
	flush := func() {
		if len(word) > 1 {
			out = append(out, strings.ToLower(string(word)))
		}
		word = word[:0]
	}
	var prev rune
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf && unicode.IsLetter(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			word = append(word, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}
