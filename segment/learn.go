package segment

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Learner finds the words a corpus treats as units that the built-in
// dictionary lacks (回滚, 扩缩容, 慢查询): strings of Han characters that
// occur often (MinCount), hold together far more than chance would put
// their parts side by side (cohesion: the pointwise mutual information of
// the weakest split, MinPMI), and are used in varied contexts on both
// sides (boundary entropy: the entropy of the characters before and after
// it, MinEntropy), the classic unsupervised new-word test. A string that
// fails the last test is part of a longer unit (滚动升 is always followed
// by 级), one that fails the second is two words that merely meet often.
//
// Only words the built-in dictionary would cut with a single character
// among the pieces are kept: those are where a whole-word term adds
// precision (回滚 -> 回|滚); a string of dictionary words (数据库|备份) is
// matched well by its words already.
type Learner struct {
	runs  [][]rune
	runes int
	// Limit caps the runes of text collected (0: DefaultLearnLimit);
	// later text is ignored, so the cost is bounded on huge repositories.
	Limit int
}

// DefaultLearnLimit bounds the text a Learner reads: 4M Han characters
// (12 MB) keep counting under a few seconds and a few hundred MB.
const DefaultLearnLimit = 4 << 20

// LearnOptions are the learner's thresholds. The zero value takes the
// defaults (DefaultLearnOptions).
type LearnOptions struct {
	MaxLen     int     // longest word, in runes
	MinCount   int     // occurrences in the text read
	MinPMI     float64 // natural log of p(w) / (p(a) p(b)) for the weakest split a|b
	MinEntropy float64 // nats, of the left and of the right neighbours
	Max        int     // words kept, the most frequent first
}

// DefaultLearnOptions are the thresholds tuned on the dev corpora (see
// the vocabulary section of the README for the figures).
var DefaultLearnOptions = LearnOptions{MaxLen: 4, MinCount: 8, MinPMI: 3, MinEntropy: 1.2, Max: 3000}

// Add collects the Han runs of text.
func (l *Learner) Add(text string) {
	limit := l.Limit
	if limit == 0 {
		limit = DefaultLearnLimit
	}
	if l.runes >= limit || HanBytes(text) == 0 {
		return
	}
	text = Normalize(text)
	start := -1
	flush := func(end int) {
		if start >= 0 {
			r := []rune(text[start:end])
			if len(r) >= 2 {
				l.runs = append(l.runs, r)
				l.runes += len(r)
			}
			start = -1
		}
	}
	for i, r := range text {
		if unicode.Is(unicode.Han, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
}

// Runes is how many Han characters were collected.
func (l *Learner) Runes() int { return l.runes }

// Words returns the learned words, the most frequent first, with their
// counts in the text read.
func (l *Learner) Words(o LearnOptions) []VocabWord {
	d := DefaultLearnOptions
	if o.MaxLen == 0 {
		o.MaxLen = d.MaxLen
	}
	if o.MinCount == 0 {
		o.MinCount = d.MinCount
	}
	if o.MinPMI == 0 {
		o.MinPMI = d.MinPMI
	}
	if o.MinEntropy == 0 {
		o.MinEntropy = d.MinEntropy
	}
	if o.Max == 0 {
		o.Max = d.Max
	}
	o.MaxLen = min(o.MaxLen, MaxVocabRunes)
	if l.runes == 0 {
		return nil
	}

	// Pass 1: counts of every n-gram up to MaxLen runes. The keys share
	// the bytes of one string per run.
	strs := make([]string, len(l.runs))
	for i, r := range l.runs {
		strs[i] = string(r)
	}
	counts := map[string]int32{}
	for _, s := range strs {
		forNGrams(s, o.MaxLen, func(_, _ int, g string) { counts[g]++ })
	}
	total := float64(l.runes)

	// Candidates: frequent, cohesive, unknown to the dictionary, and cut by
	// it with a single character among the pieces.
	t := loadTable()
	type cand struct {
		count       int32
		left, right map[rune]int32
		edgeL       int32 // occurrences at the start of a run
		edgeR       int32
	}
	cands := map[string]*cand{}
	p := func(s string) float64 { return float64(counts[s]) / total }
	for g, c := range counts {
		n := utf8.RuneCountInString(g)
		if n < 2 || int(c) < o.MinCount || hasStopRune(g) || phraseEdge(g) {
			continue
		}
		pmi := math.Inf(1)
		for i, r := range g {
			if i == 0 {
				continue
			}
			_ = r
			pmi = min(pmi, math.Log(p(g)/(p(g[:i])*p(g[i:]))))
		}
		if pmi < o.MinPMI {
			continue
		}
		if w, _ := t.lowerBound(g); w == g {
			continue
		}
		cands[g] = &cand{count: c, left: map[rune]int32{}, right: map[rune]int32{}}
	}

	// Pass 2: the neighbours of each candidate's occurrences.
	for _, s := range strs {
		forNGrams(s, o.MaxLen, func(start, end int, g string) {
			c := cands[g]
			if c == nil {
				return
			}
			if start == 0 {
				c.edgeL++
			} else {
				r, _ := utf8.DecodeLastRuneInString(s[:start])
				c.left[r]++
			}
			if end == len(s) {
				c.edgeR++
			} else {
				r, _ := utf8.DecodeRuneInString(s[end:])
				c.right[r]++
			}
		})
	}

	var out []VocabWord
	for g, c := range cands {
		if min(entropy(c.left, c.edgeL), entropy(c.right, c.edgeR)) < o.MinEntropy {
			continue
		}
		if !cutWithSingle(t, g) {
			continue
		}
		out = append(out, VocabWord{Word: g, Freq: float64(c.count)})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Freq > out[j].Freq || out[i].Freq == out[j].Freq && out[i].Word < out[j].Word
	})
	return out[:min(len(out), o.Max)]
}

// forNGrams calls f with each substring of s of 1 to maxLen runes and its
// byte range.
func forNGrams(s string, maxLen int, f func(start, end int, g string)) {
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		end := i
		for n := 0; n < maxLen && end < len(s); n++ {
			_, sz := utf8.DecodeRuneInString(s[end:])
			end += sz
			f(i, end, s[i:end])
		}
		i += size
	}
}

// entropy of the neighbour counts; each occurrence at a run's edge (a
// punctuation mark, a Latin word, the end of a line) counts as a neighbour
// of its own, as the edges are varied.
func entropy(m map[rune]int32, edges int32) float64 {
	n := float64(edges)
	for _, c := range m {
		n += float64(c)
	}
	if n == 0 {
		return 0
	}
	h := 0.0
	for _, c := range m {
		q := float64(c) / n
		h -= q * math.Log(q)
	}
	if edges > 0 {
		h += float64(edges) / n * math.Log(n) // edges/n times -log(1/n)
	}
	return h
}

// cutWithSingle reports whether the built-in dictionary cuts word into
// pieces one of which is a single character.
func cutWithSingle(t *table, word string) bool {
	seg := t.tinySegmenter(nil, []string{word})
	for _, sg := range seg.Segment([]byte(word)) {
		if utf8.RuneCountInString(sg.Token().Text()) == 1 {
			return true
		}
	}
	return false
}

// hasStopRune: a word holding a function character (的, 了, 是...) is a
// phrase, not a term.
func hasStopRune(g string) bool {
	return strings.ContainsAny(g, stopRunes)
}

// phraseEdge: a string that starts with an adverb, auxiliary, measure word
// or preposition (会导致, 请参考, 不支持, 一张表) or ends with a locative or
// particle (情况下, 连接到, 完成后) is a phrase around a word, not a word.
func phraseEdge(g string) bool {
	first, _ := utf8.DecodeRuneInString(g)
	last, _ := utf8.DecodeLastRuneInString(g)
	return strings.ContainsRune(phraseStarts, first) || strings.ContainsRune(phraseEnds, last)
}

const (
	phraseStarts = "会可请不没未到则还更较才只仅若一两几种台张次有将并已再很最来向于让由每各另当能要需用如即又均所"
	phraseEnds   = "下上中到后前时里内会地得着过中者即可"
)

const stopRunes = "的了是在和与及或等也都就而被把从对为以之其这那该此个吗呢吧啊呀哪么着过我你他她它"
