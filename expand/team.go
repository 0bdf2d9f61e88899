package expand

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-kb/git-kb/segment"
)

// SourceTeam marks an expansion from the team's own synonyms file
// (kb.synonyms, a Synonyms).
const SourceTeam = "team"

// Limits of a synonyms file. A side of more than maxTeamWords words is a
// list of topics, not of synonyms; a file of more than maxTeamEntries
// entries is not a team's jargon (and every query scans the keys).
const (
	maxTeamWords   = 8
	maxTeamEntries = 20000
)

// Synonyms is a team's own synonyms: the words its code, comments and
// docs use for what people ask in other words (熔断 and circuitbreaker,
// 挂了 for 不健康). It is read from the file kb.synonyms names, in the
// synonym format of Solr and Elasticsearch, one entry a line:
//
//	# a comment
//	熔断, circuitbreaker, circuit breaker   # equivalent: each finds the others
//	挂了, 掉线 => 不健康, unhealthy          # one way: the left finds the right
//
// A key matches wherever a question holds it: Chinese needs no word
// boundary (熔断 in 服务熔断了), Latin letters and digits do (lb is not
// found in lbs). Case, width, traditional characters and the separators
// between Latin words (space, -, _, .) do not matter: circuit-breaker and
// Circuit_Breaker are circuit breaker. Where keys overlap in a question,
// the longest wins, as in the paraphrase table.
type Synonyms struct {
	keys []teamKey // longest first, then in file order
}

type teamKey struct {
	key   string   // folded (foldTeam)
	from  string   // as written in the file, normalised
	to    []string // the words it adds, normalised
	latin [2]bool  // whether the key starts, ends with a Latin letter or digit: those ends need a boundary
}

// ParseSynonyms reads a synonyms file; name is what errors call it. An
// error names the line and what is wrong with it.
func ParseSynonyms(r io.Reader, name string) (*Synonyms, error) {
	type entry struct {
		from, fold string
		to         []string
	}
	var (
		entries []entry
		at      = map[string]int{} // folded key -> its entry
	)
	add := func(from teamWord, to []teamWord) {
		i, ok := at[from.fold]
		if !ok {
			i = len(entries)
			at[from.fold] = i
			entries = append(entries, entry{from: from.text, fold: from.fold})
		}
		for _, w := range to { // a key in two entries adds the words of both
			if w.fold != from.fold && !slices.Contains(entries[i].to, w.text) {
				entries[i].to = append(entries[i].to, w.text)
			}
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF") // a byte-order mark some editors write
		}
		if i := commentAt(line); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !utf8.ValidString(line) {
			return nil, fmt.Errorf("%s:%d: not UTF-8 text: save the file as UTF-8", name, n)
		}
		line = segment.Normalize(line)
		left, right, oneWay := strings.Cut(line, "=>")
		if oneWay && strings.Contains(right, "=>") {
			return nil, fmt.Errorf("%s:%d: more than one =>: an entry is `words => words` or `word, word, word`", name, n)
		}
		lw, err := teamWords(left)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if !oneWay {
			if len(lw) < 2 {
				return nil, fmt.Errorf("%s:%d: %q alone: list its synonyms after it, separated by commas (熔断, circuitbreaker), or say what it finds with => (挂了 => 不健康)", name, n, line)
			}
			for _, w := range lw {
				add(w, lw)
			}
		} else {
			rw, err := teamWords(right)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			if len(lw) == 0 || len(rw) == 0 {
				return nil, fmt.Errorf("%s:%d: both sides of => need a word (挂了 => 不健康)", name, n)
			}
			for _, w := range lw {
				add(w, rw)
			}
		}
		if len(entries) > maxTeamEntries {
			return nil, fmt.Errorf("%s:%d: more than %d keys: a synonyms file lists a team's own words, not a dictionary", name, n, maxTeamEntries)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, n+1, err)
	}
	s := &Synonyms{}
	for _, e := range entries {
		if len(e.to) == 0 {
			continue // its line named it twice (Polaris, polaris) and nothing else
		}
		rs := []rune(e.fold)
		s.keys = append(s.keys, teamKey{key: e.fold, from: e.from, to: e.to,
			latin: [2]bool{isLatin(rs[0]), isLatin(rs[len(rs)-1])}})
	}
	slices.SortStableFunc(s.keys, func(a, b teamKey) int { return len(b.key) - len(a.key) })
	return s, nil
}

// commentAt is where a comment starts in line (-1: none): a # that
// starts the line or follows a space or tab. C# and issue#12 are words.
func commentAt(line string) int {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return i
		}
	}
	return -1
}

// teamWord is a word of an entry, as written (normalised) and folded.
type teamWord struct{ text, fold string }

// teamWords splits one side of an entry at its commas (ASCII or Chinese,
// which Normalize has made ASCII) and checks each word.
func teamWords(side string) ([]teamWord, error) {
	side = strings.ReplaceAll(side, "、", ",")
	var out []teamWord
	for _, w := range strings.Split(side, ",") {
		w = strings.Join(strings.Fields(w), " ")
		if w == "" {
			if strings.TrimSpace(side) == "" {
				continue
			}
			return nil, fmt.Errorf("an empty word between commas in %q", strings.TrimSpace(side))
		}
		f := foldTeam(w)
		if !strings.ContainsFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			return nil, fmt.Errorf("%q has no letter, digit or Chinese character", w)
		} else if rs := []rune(f); len(rs) == 1 && unicode.Is(unicode.Han, rs[0]) {
			return nil, fmt.Errorf("%q is one Chinese character: it would match inside too many words; write the words it stands for (库 -> 数据库, 仓库)", w)
		}
		if !slices.ContainsFunc(out, func(o teamWord) bool { return o.text == w }) {
			out = append(out, teamWord{w, f})
		}
	}
	if len(out) > maxTeamWords {
		return nil, fmt.Errorf("%d words on one side (at most %d): a synonym list names one thing; split it into entries", len(out), maxTeamWords)
	}
	return out, nil
}

// Len is the number of keys.
func (s *Synonyms) Len() int {
	if s == nil {
		return 0
	}
	return len(s.keys)
}

// Expand finds the team's keys in a question's text and what each adds,
// the longest key first where keys overlap.
func (s *Synonyms) Expand(text string) []Expansion {
	if s.Len() == 0 {
		return nil
	}
	q := foldTeam(segment.Normalize(text))
	taken := make([]bool, len(q))
	var out []Expansion
	for _, k := range s.keys {
		for off := 0; off < len(q); {
			i := strings.Index(q[off:], k.key)
			if i < 0 {
				break
			}
			i += off
			j := i + len(k.key)
			off = i + 1
			if k.latin[0] && i > 0 {
				if r, _ := utf8.DecodeLastRuneInString(q[:i]); isLatin(r) {
					continue
				}
			}
			if k.latin[1] && j < len(q) {
				if r, _ := utf8.DecodeRuneInString(q[j:]); isLatin(r) {
					continue
				}
			}
			if slices.Contains(taken[i:j], true) {
				continue // inside a longer key's match
			}
			for b := i; b < j; b++ {
				taken[b] = true
			}
			out = append(out, Expansion{From: k.from, To: slices.Clone(k.to), Source: SourceTeam})
			break // one expansion a key
		}
	}
	return out
}

// foldTeam is the form keys are matched in: lower case, and each run of
// separators (what is not a letter, a digit or one of #+@&, which words
// like C#, C++ and @Override hold) one space (circuit-breaker,
// Circuit_Breaker: circuit breaker), trimmed.
func foldTeam(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("#+@&", r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		} else {
			space = true
		}
	}
	return b.String()
}

// isLatin reports whether r is a letter or digit of a Latin-script word
// (the ones that need a word boundary).
func isLatin(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !unicode.Is(unicode.Han, r)
}
