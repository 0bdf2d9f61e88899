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

// maxZhMatch is the longest Chinese word looked up, in characters.
const maxZhMatch = 6

// Expand finds the expansions of a query's text: the Chinese words in it
// (longest match first, against both sources), and its English words.
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
		rs := []rune(run)
		for i := 0; i < len(rs); {
			n := 0
			for l := min(maxZhMatch, len(rs)-i); l >= 1 && n == 0; l-- {
				w := string(rs[i : i+l])
				if v, ok := lookup(glossaryZh, w); ok {
					add(w, v, SourceGlossary)
					n = l
				} else if v, ok := lookup(cedictZh, w); ok && l >= 2 {
					add(w, v, SourceCEDICT)
					n = l
				}
			}
			i += max(n, 1)
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
