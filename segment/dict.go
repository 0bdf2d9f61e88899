package segment

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-ego/gse"
)

// zhdict is gse's simplified-Chinese dictionary reduced to Han-only words,
// sorted by bytes: a "#total\t<F>" header line, then "word\tfreq" lines.
//
//go:embed zhdict.txt
var zhdict string

// zhdictIndex says where each first character's words start in zhdict's
// body: for each rune r from indexLo to indexHi, a little-endian uint32,
// the byte offset of the first word whose first character is r or later.
// A lookup then searches a few dozen lines, most of them in one page,
// instead of some 22 steps over 4 MB: highlighting a docs search's
// snippets made thousands of lookups, a tenth of the search's own CPU.
// Written by gendict with zhdict.txt; TestDictIndex checks it against
// the table.
//
//go:embed zhdict.idx
var zhdictIndex string

// The first characters zhdictIndex covers (CJK Extension A and the
// Unified Ideographs); words starting with others (a few dozen, in
// Extension B and later) are found by a search of the whole table.
const indexLo, indexHi = 0x3400, 0xA000

// table is a read-only view of zhdict that answers prefix queries by binary
// search, without parsing the 4 MB file.
type table struct {
	body   string  // zhdict without the header line
	total  float64 // gse's total frequency for the full dictionary
	maxLen int     // longest word, in runes
}

var loadTable = sync.OnceValue(func() *table {
	nl := strings.IndexByte(zhdict, '\n')
	header := strings.Split(zhdict[:nl], "\t") // "#total", total, max word length
	if len(header) != 3 || header[0] != "#total" {
		panic("segment: corrupt embedded dictionary header") // build-time invariant
	}
	total, err1 := strconv.ParseFloat(header[1], 64)
	maxLen, err2 := strconv.Atoi(header[2])
	if err1 != nil || err2 != nil {
		panic("segment: corrupt embedded dictionary header") // build-time invariant
	}
	return &table{body: zhdict[nl+1:], total: total, maxLen: maxLen}
})

// lineAt returns the line containing byte offset off, and the offset just past it.
func (t *table) lineAt(off int) (word, freq string, next int) {
	start := strings.LastIndexByte(t.body[:off], '\n') + 1
	end := start + strings.IndexByte(t.body[start:], '\n')
	line := t.body[start:end]
	tab := strings.IndexByte(line, '\t')
	return line[:tab], line[tab+1:], end + 1
}

// lowerBound returns the first word >= key, or "" at the end of the table.
func (t *table) lowerBound(key string) (word, freq string) {
	lo, hi := t.span(key)
	lo = t.search(key, lo, hi)
	if lo >= len(t.body) {
		return "", ""
	}
	w, f, _ := t.lineAt(lo)
	return w, f
}

// span is where the first word >= key lies: at or after lo, at or before
// hi, both line starts. When the index covers key's first character r,
// that is r's words and the first word after them; else the whole table.
func (t *table) span(key string) (lo, hi int) {
	r, _ := utf8.DecodeRuneInString(key)
	if r < indexLo || r >= indexHi || len(zhdictIndex) != 4*(indexHi-indexLo+1) {
		return 0, len(t.body)
	}
	i := 4 * int(r-indexLo)
	return indexAt(i), indexAt(i + 4)
}

// indexAt is the little-endian uint32 at byte i of zhdictIndex.
func indexAt(i int) int {
	x := zhdictIndex[i : i+4]
	return int(uint32(x[0]) | uint32(x[1])<<8 | uint32(x[2])<<16 | uint32(x[3])<<24)
}

// search returns the start of the first line >= key, given that every
// line starting before lo is < key and the line at hi (a line start, or
// the end of the table) is >= key.
func (t *table) search(key string, lo, hi int) int {
	// invariant: every line starting before lo is < key
	for lo < hi {
		mid := lo + (hi-lo)/2
		w, _, next := t.lineAt(mid)
		if w < key {
			lo = next
		} else {
			// The line containing mid is >= key; continue left of its start.
			hi = strings.LastIndexByte(t.body[:mid], '\n') + 1
		}
	}
	return lo
}

// wordsIn adds to dst every dictionary word that occurs in the Han run s.
func (t *table) wordsIn(s string, dst map[string]string) {
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		lo, hi := t.span(s[i:])
		end := i
		for n := 0; n < t.maxLen && end < len(s); n++ {
			_, sz := utf8.DecodeRuneInString(s[end:])
			end += sz
			key := s[i:end]
			if _, seen := dst[key]; seen {
				continue
			}
			// key extends the keys before it, so every line before
			// their first word >= them is < key too: search from there.
			lo = t.search(key, lo, hi)
			w, f := "", ""
			if lo < len(t.body) {
				w, f, _ = t.lineAt(lo)
			}
			if w == key {
				dst[key] = f
			} else if !strings.HasPrefix(w, key) {
				break // no dictionary word starts with key, nor with anything longer
			}
		}
		i += size
	}
}

// fillerWord cannot occur in a Han run, so it never matches; it only carries
// the frequency that keeps the tiny dictionary's total equal to the full one.
const fillerWord = "\uE000\uE001"

// tinySegmenter builds a gse segmenter whose dictionary holds only the words
// (of the table and of v, which may be nil) occurring in runs. It segments
// those runs exactly as the full dictionary with v's words.
func (t *table) tinySegmenter(v *Vocab, runs []string) *gse.Segmenter {
	words := make(map[string]string)
	for _, r := range runs {
		t.wordsIn(r, words)
		if v != nil {
			v.wordsIn(r, words)
		}
	}
	return t.segmenter(v, func(add func(word, freq string)) {
		for w, f := range words {
			add(w, f)
		}
	})
}

// fullSegmenter loads the whole table into gse, once per process.
var fullSegmenter = sync.OnceValue(func() *gse.Segmenter {
	t := loadTable()
	return t.segmenter(nil, t.eachWord)
})

// eachWord calls add with every word of the table.
func (t *table) eachWord(add func(word, freq string)) {
	for rest := t.body; rest != ""; {
		i := strings.IndexByte(rest, '\n')
		line := rest[:i]
		tab := strings.IndexByte(line, '\t')
		add(line[:tab], line[tab+1:])
		rest = rest[i+1:]
	}
}

// segmenter builds a gse segmenter from the words each calls add with, plus
// the filler entry that brings the total frequency up to the full table's
// and v's (nil: none) together.
func (t *table) segmenter(v *Vocab, each func(add func(word, freq string))) *gse.Segmenter {
	var b strings.Builder
	sum := 0.0
	each(func(word, freq string) {
		v, _ := strconv.ParseFloat(freq, 64)
		sum += v
		b.WriteString(word)
		b.WriteByte(' ')
		b.WriteString(freq)
		b.WriteByte('\n')
	})
	b.WriteString(fillerWord + " ")
	total := t.total
	if v != nil {
		total += v.extra
	}
	b.WriteString(strconv.FormatFloat(total-sum, 'g', -1, 64))
	seg := &gse.Segmenter{SkipLog: true, NotLoadHMM: true}
	_ = seg.LoadDictStr(b.String()) // LoadDictStr never fails on a string
	return seg
}
