package segment

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-ego/gse"
)

// Vocab is a repository's own words: the ones its team lists (kb.dict) and
// the ones learned from its text (Learn), that gse's dictionary lacks
// (回滚, 慢查询, product names). An analyzer with a vocabulary cuts such a
// word whole and still emits the pieces the built-in dictionary would
// have cut it into, so a vocabulary word adds a term and takes none away
// (回滚 -> 回滚, 回, 滚).
//
// Documents and queries must be cut with the same vocabulary: the index
// stores the word list with the view (Encode, Fingerprint) and the search
// of that view loads it back (ParseVocab).
type Vocab struct {
	words  map[string]float64 // word -> gse frequency; none is in the built-in dictionary
	extra  float64            // the sum of the frequencies: added to the total
	maxLen int                // longest word, in runes
	fp     string
	full   func() *gse.Segmenter
}

// VocabWord is one word of a vocabulary. Freq 0 means "choose one": a
// frequency just high enough that gse prefers the whole word to the
// pieces the built-in dictionary would cut it into.
type VocabWord struct {
	Word string
	Freq float64
}

// MaxVocabRunes is the longest word a vocabulary keeps: the built-in
// dictionary's longest word is 16 runes.
const MaxVocabRunes = 16

// DefaultVocabFreq is the gse frequency of a vocabulary word given none:
// about the 90th percentile of the built-in dictionary's words (扩容 97,
// 副本 83). Single characters weigh 2 there, as do most rare words, so a
// word at the bare minimum that beats its own characters still loses to a
// rare neighbour (立即|回|滚到, 滚到 at 3): this one wins such contests and
// loses to the common words around it (返回|滚动条 stays).
const DefaultVocabFreq = 100

// preferMargin is how much cheaper (in bits of gse's path cost) a
// vocabulary word is made than the cut the built-in dictionary would give
// it alone, so the word also wins against neighbours that would otherwise
// take one of its characters (立即|回|滚到 -> 立即|回滚|到).
const preferMargin = 3

// NewVocab builds a vocabulary from words. Words that are not wholly Han
// characters (the analyzer keeps Latin words and identifiers whole
// already), shorter than two or longer than MaxVocabRunes runes, or
// already in the built-in dictionary are dropped and returned in dropped,
// in order. A word given twice keeps its higher frequency.
func NewVocab(words []VocabWord) (v *Vocab, dropped []string) {
	t := loadTable()
	v = &Vocab{words: map[string]float64{}}
	for _, w := range words {
		word := Normalize(strings.TrimSpace(w.Word))
		n := utf8.RuneCountInString(word)
		if n < 2 || n > MaxVocabRunes || HanBytes(word) != len(word) {
			dropped = append(dropped, w.Word)
			continue
		}
		if found, _ := t.lowerBound(word); found == word {
			dropped = append(dropped, w.Word) // gse knows it already
			continue
		}
		f := w.Freq
		if f <= 0 {
			f = max(DefaultVocabFreq, preferFreq(t, word))
		}
		f = max(f, 2) // gse drops words rarer than 2
		if old, ok := v.words[word]; !ok || f > old {
			v.words[word] = f
		}
	}
	var b strings.Builder
	for _, w := range v.List() {
		v.extra += v.words[w.Word]
		v.maxLen = max(v.maxLen, utf8.RuneCountInString(w.Word))
		fmt.Fprintf(&b, "%s\t%s\n", w.Word, strconv.FormatFloat(w.Freq, 'g', -1, 64))
	}
	if len(v.words) > 0 {
		sum := sha256.Sum256([]byte(b.String()))
		v.fp = hex.EncodeToString(sum[:8])
	}
	v.full = sync.OnceValue(func() *gse.Segmenter { return t.fullSegmenterWith(v) })
	return v, dropped
}

// preferFreq is the frequency at which gse cuts word whole rather than as
// the built-in dictionary's best cut of it, by preferMargin bits.
func preferFreq(t *table, word string) float64 {
	seg := t.tinySegmenter(nil, []string{word})
	cost := 0.0
	logTotal := math.Log2(t.total)
	for _, sg := range seg.Segment([]byte(word)) {
		if f := sg.Token().Freq(); f > 0 && sg.Token().Pos() != "x" {
			cost += logTotal - math.Log2(f)
		} else {
			cost += 32 // gse's cost of a character it does not know
		}
	}
	return math.Ceil(t.total * math.Exp2(preferMargin-cost))
}

// ParseVocab reads a word list: one word a line, optionally followed by
// white space and a frequency (gse's dictionary format); blank lines and
// lines starting with # are skipped. It is the format of kb.dict and of
// Encode. Words NewVocab drops are returned in dropped.
func ParseVocab(text string) (v *Vocab, dropped []string, err error) {
	var words []VocabWord
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		w := VocabWord{Word: fields[0]}
		if len(fields) > 1 {
			f, perr := strconv.ParseFloat(fields[1], 64)
			if perr != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, nil, fmt.Errorf("line %d: %q: the frequency after the word must be a non-negative number", n, line)
			}
			w.Freq = f
		}
		words = append(words, w)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	v, dropped = NewVocab(words)
	return v, dropped, nil
}

// Merge is the union of vocabularies; a word in several keeps its highest
// frequency.
func Merge(vs ...*Vocab) *Vocab {
	var words []VocabWord
	for _, v := range vs {
		words = append(words, v.List()...)
	}
	m, _ := NewVocab(words)
	return m
}

// Len is the number of words.
func (v *Vocab) Len() int {
	if v == nil {
		return 0
	}
	return len(v.words)
}

// List returns the words with their frequencies, sorted by word.
func (v *Vocab) List() []VocabWord {
	if v == nil {
		return nil
	}
	out := make([]VocabWord, 0, len(v.words))
	for w, f := range v.words {
		out = append(out, VocabWord{w, f})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Word < out[j].Word })
	return out
}

// Has reports whether word is one of the vocabulary's words.
func (v *Vocab) Has(word string) bool {
	if v == nil {
		return false
	}
	_, ok := v.words[word]
	return ok
}

// Fingerprint names the word list: two vocabularies cut text alike when
// their fingerprints are equal. It is "" for an empty vocabulary, which
// cuts as no vocabulary does.
func (v *Vocab) Fingerprint() string {
	if v == nil {
		return ""
	}
	return v.fp
}

// Encode is the word list in the format ParseVocab reads, sorted, with
// the frequencies chosen for it (so a stored list re-reads to the same
// fingerprint).
func (v *Vocab) Encode() string {
	var b strings.Builder
	for _, w := range v.List() {
		fmt.Fprintf(&b, "%s\t%s\n", w.Word, strconv.FormatFloat(w.Freq, 'g', -1, 64))
	}
	return b.String()
}

// Tiny is a Tiny analyzer that also knows v's words.
func (v *Vocab) Tiny() *Analyzer {
	if v.Len() == 0 {
		return Tiny()
	}
	return &Analyzer{vocab: v}
}

// Full is a Full analyzer that also knows v's words; its gse dictionary is
// loaded once per vocabulary, on first use.
func (v *Vocab) Full() *Analyzer {
	if v.Len() == 0 {
		return Full()
	}
	return &Analyzer{full: true, vocab: v}
}

// wordsIn adds to dst every vocabulary word occurring in the Han run s.
func (v *Vocab) wordsIn(s string, dst map[string]string) {
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		end := i + size
		for n := 2; n <= v.maxLen && end < len(s); n++ {
			_, sz := utf8.DecodeRuneInString(s[end:])
			end += sz
			if f, ok := v.words[s[i:end]]; ok {
				dst[s[i:end]] = strconv.FormatFloat(f, 'g', -1, 64)
			}
		}
		i += size
	}
}

// fullSegmenterWith loads the whole table and v's words into gse.
func (t *table) fullSegmenterWith(v *Vocab) *gse.Segmenter {
	return t.segmenter(v, func(add func(word, freq string)) {
		t.eachWord(add)
		for w, f := range v.words {
			add(w, strconv.FormatFloat(f, 'g', -1, 64))
		}
	})
}
