package segment

import (
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"
)

// zht2s is the traditional -> simplified character table: a few comment
// lines, then "traditional<TAB>simplified" lines. Generated from CC-CEDICT
// by go generate ./expand; it holds only characters that no simplified
// word uses, each folding to a character of the same UTF-8 length (see
// expand/internal/gencedict/t2s.go).
//
//go:embed zht2s.txt
var zht2s string

// t2s is zht2s parsed: dense over the CJK blocks the dictionary index
// covers, a map for the few characters beyond them.
var t2s struct {
	once  sync.Once
	dense []rune // r-indexLo -> simplified, 0 for none
	other map[rune]rune
}

func loadT2S() {
	t2s.dense = make([]rune, indexHi-indexLo)
	t2s.other = map[rune]rune{}
	for line := range strings.Lines(zht2s) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		tr, sm, ok := strings.Cut(strings.TrimRight(line, "\n"), "\t")
		if !ok {
			continue
		}
		t, _ := utf8.DecodeRuneInString(tr)
		s, _ := utf8.DecodeRuneInString(sm)
		if t >= indexLo && t < indexHi {
			t2s.dense[t-indexLo] = s
		} else {
			t2s.other[t] = s
		}
	}
}

// simplified is the simplified form of a traditional character, or 0 when
// r has none (it is simplified already, or not Chinese).
func simplified(r rune) rune {
	if r < indexLo {
		return 0
	}
	t2s.once.Do(loadT2S)
	if r < indexHi {
		return t2s.dense[r-indexLo]
	}
	return t2s.other[r]
}

// foldTraditional writes traditional characters in their simplified form
// (體驗 -> 体验), so a question typed in one script meets documents
// written in the other. Every pair has the same UTF-8 length, so byte
// offsets into s hold for the result.
func foldTraditional(s string) string {
	at := firstTraditional(s)
	if at < 0 {
		return s
	}
	b := []byte(s)
	for i := at; i < len(b); {
		if b[i] < minHanLead {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if to := simplified(r); to != 0 {
			utf8.EncodeRune(b[i:], to)
		}
		i += size
	}
	return string(b)
}

// minHanLead is the first byte of U+3400 (CJK Extension A) in UTF-8:
// every character the table folds starts with this byte or a higher one,
// so ASCII and most punctuation are passed over a byte at a time.
const minHanLead = 0xE3

// firstTraditional is the byte offset of s's first character the table
// folds, or -1.
func firstTraditional(s string) int {
	for i := 0; i < len(s); {
		if s[i] < minHanLead {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if simplified(r) != 0 {
			return i
		}
		i += size
	}
	return -1
}
