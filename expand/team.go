package expand

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/git-kb/git-kb/segment"
)

// SourceTeam marks an expansion from the team's own synonyms file
// (kb.synonyms, a Synonyms).
const SourceTeam = "team"

// Limits of a synonyms file, each an error naming the line. A side of
// more than MaxTeamWords words is a list of topics, not of synonyms, and
// so is a key that gathers more than maxTeamKeyWords over several lines;
// a file of more than maxTeamKeys keys, or a word of more than
// maxTeamWordRunes characters, is not a team's jargon. MaxTeamFileSize
// bounds what a search reads (the caller checks it before parsing).
const (
	MaxTeamWords     = 8
	maxTeamKeyWords  = 32
	maxTeamKeys      = 20000
	maxTeamWordRunes = 64
	MaxTeamFileSize  = 4 << 20
	maxTeamLine      = 64 << 10
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
// A key matches wherever a question holds it: Chinese (and Japanese and
// Thai, written without spaces) needs no word boundary (熔断 in 服务熔断了),
// other letters and digits do (lb is not found in lbs, nor c in C++).
// Case, width, traditional characters, Unicode composition and the
// separators between words (space, -, _, .) do not matter:
// circuit-breaker and Circuit_Breaker are circuit breaker. A question is
// read left to right; at each place the longest key there is taken, as
// in the paraphrase table, and each key counts once.
type Synonyms struct {
	byFirst map[rune][]teamKey // keys by their first rune, longest first, then in file order
	n       int
}

type teamKey struct {
	key   string   // folded (foldTeam)
	from  string   // as written in the file, normalised
	to    []string // the words it adds, normalised
	latin bool     // whether the key ends in a letter or digit that needs a word boundary
}

// teamWord is a word of an entry, as written (normalised) and folded.
type teamWord struct{ text, fold string }

// ParseSynonyms reads a synonyms file; name is what errors call it. An
// error names the line and what is wrong with it, quoting at most a few
// words of it.
func ParseSynonyms(r io.Reader, name string) (*Synonyms, error) {
	type entry struct {
		from, fold string
		to         []string
		line       int // where the key was first seen
	}
	var (
		entries []*entry
		at      = map[string]*entry{} // folded key -> its entry
		has     = map[string]bool{}   // folded key NUL word: the key adds the word
	)
	add := func(n int, from teamWord, to []teamWord) error {
		e := at[from.fold]
		if e == nil {
			if len(entries) == maxTeamKeys {
				return fmt.Errorf("more than %d keys: a synonyms file lists a team's own words, not a dictionary", maxTeamKeys)
			}
			e = &entry{from: from.text, fold: from.fold, line: n}
			at[from.fold] = e
			entries = append(entries, e)
		}
		for _, w := range to { // a key on several lines adds the words of each
			if kw := e.fold + "\x00" + w.text; w.fold != e.fold && !has[kw] {
				has[kw] = true
				e.to = append(e.to, w.text)
			}
		}
		if len(e.to) > maxTeamKeyWords {
			return fmt.Errorf("%s gathers more than %d words over this line and the ones before (the first at line %d): a synonym list names one thing; split it", quote(from.text), maxTeamKeyWords, e.line)
		}
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxTeamLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\uFEFF") // a byte-order mark some editors write
		}
		if !utf8.ValidString(line) || strings.ContainsRune(line, 0) {
			return nil, fmt.Errorf("%s:%d: not UTF-8 text (UTF-16? GBK?): save the file as UTF-8", name, n)
		}
		// Normalised first, so a full-width ＃ or an ideographic space
		// before a comment counts as # and a space.
		line = nfc(segment.Normalize(line))
		if i := commentAt(line); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.ContainsRune(line, '\\') {
			return nil, fmt.Errorf("%s:%d: a backslash: escapes (Solr's \\,) are not supported; write the word without it", name, n)
		}
		left, right, oneWay := strings.Cut(line, "=>")
		if oneWay && strings.Contains(right, "=>") {
			return nil, fmt.Errorf("%s:%d: more than one =>: an entry is `words => words` or `word, word, word`", name, n)
		}
		lw, err := teamWords(left)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		rw := lw
		if oneWay {
			if rw, err = teamWords(right); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			if len(lw) == 0 || len(rw) == 0 {
				return nil, fmt.Errorf("%s:%d: both sides of => need a word (挂了 => 不健康)", name, n)
			}
		} else if len(lw) < 2 {
			return nil, fmt.Errorf("%s:%d: %s alone: list its synonyms after it, separated by commas (熔断, circuitbreaker), or say what it finds with => (挂了 => 不健康)", name, n, quote(lw[0].text))
		}
		// Spellings of one word (TiDB Lightning, tidb-lightning) add
		// nothing to each other: a key never adds what folds as it does.
		for _, w := range lw {
			if err := add(n, w, rw); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d KiB: a synonyms file holds short lines of words", name, n+1, maxTeamLine>>10)
		}
		return nil, fmt.Errorf("%s:%d: %w", name, n+1, err)
	}
	s := &Synonyms{byFirst: map[rune][]teamKey{}}
	for _, e := range entries {
		if len(e.to) == 0 {
			continue
		}
		first, _ := utf8.DecodeRuneInString(e.fold)
		last, _ := utf8.DecodeLastRuneInString(e.fold)
		s.byFirst[first] = append(s.byFirst[first], teamKey{key: e.fold,
			from: e.from, to: e.to, latin: needsBoundary(last)})
		s.n++
	}
	for _, ks := range s.byFirst {
		// Two keys that match at one place are a prefix of one another,
		// so the longer in bytes is the longer in characters.
		slices.SortStableFunc(ks, func(a, b teamKey) int { return len(b.key) - len(a.key) })
	}
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
			return nil, fmt.Errorf("an empty word between commas in %s", quote(strings.TrimSpace(side)))
		}
		f := foldTeam(w)
		if !strings.ContainsFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			return nil, fmt.Errorf("%s has no letter, digit or Chinese character", quote(w))
		} else if rs := []rune(f); len(rs) == 1 && unicode.Is(unicode.Han, rs[0]) {
			return nil, fmt.Errorf("%s is one Chinese character: it would match inside too many words; write the words it stands for (库 -> 数据库, 仓库)", quote(w))
		} else if len(rs) > maxTeamWordRunes {
			return nil, fmt.Errorf("%s is longer than %d characters: a synonym is a word or a short phrase", quote(w), maxTeamWordRunes)
		}
		// Kept as written: the analyzer cuts HealthCheck into health and
		// check, healthcheck not, so both may be wanted.
		if !slices.ContainsFunc(out, func(o teamWord) bool { return o.text == w }) {
			out = append(out, teamWord{w, f})
		}
	}
	if len(out) > MaxTeamWords {
		return nil, fmt.Errorf("%d words on one side (at most %d): a synonym list names one thing; split it into entries", len(out), MaxTeamWords)
	}
	return out, nil
}

// quote is s quoted for an error message, cut to its first 24
// characters: a message may reach a terminal or an AI agent, and the
// file named may not be what its owner thinks.
func quote(s string) string {
	if rs := []rune(s); len(rs) > 24 {
		return fmt.Sprintf("%q...", string(rs[:24]))
	}
	return fmt.Sprintf("%q", s)
}

// Len is the number of keys.
func (s *Synonyms) Len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// Expand finds the team's keys in a question's text and what each adds:
// left to right, the longest key at each place, each key once.
func (s *Synonyms) Expand(text string) []Expansion {
	if s.Len() == 0 {
		return nil
	}
	q := foldTeam(nfc(segment.Normalize(text)))
	var out []Expansion
	done := map[string]bool{}
	prev := rune(-1)
	for i := 0; i < len(q); {
		r, size := utf8.DecodeRuneInString(q[i:])
		n := 0
		if prev < 0 || !needsBoundary(r) || !joins(prev) { // else inside a word: a key must start it
			for _, k := range s.byFirst[r] {
				if !strings.HasPrefix(q[i:], k.key) {
					continue
				}
				if next, _ := utf8.DecodeRuneInString(q[i+len(k.key):]); k.latin && i+len(k.key) < len(q) && joins(next) {
					continue // it ends inside a word: lb in lbs, c in c++
				}
				if !done[k.key] {
					done[k.key] = true
					out = append(out, Expansion{From: k.from, To: slices.Clone(k.to), Source: SourceTeam})
				}
				n = len(k.key)
				break
			}
		}
		if n == 0 {
			n = size
		}
		prev, _ = utf8.DecodeLastRuneInString(q[:i+n])
		i += n
	}
	return out
}

// nfc is s composed (NFC), cheaply when it is already.
func nfc(s string) string {
	if norm.NFC.IsNormalString(s) {
		return s
	}
	return norm.NFC.String(s)
}

// foldTeam is the form keys are matched in: lower case, and each run of
// separators (what is not a letter, a digit or one of #+@&, which words
// like C#, C++ and @Override hold) one space (circuit-breaker,
// Circuit_Breaker: circuit breaker), trimmed.
func foldTeam(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if wordRune(r) || unicode.Is(unicode.Mn, r) {
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

// wordRune reports whether r belongs to a word: a letter, a digit, or
// one of the symbols words hold (C#, C++, @Override, R&D).
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '#' || r == '+' || r == '@' || r == '&'
}

// joins reports whether r, beside a letter or digit of a spaced script,
// makes one word with it (lbs, c++, c#; not 服务lb).
func joins(r rune) bool {
	return needsBoundary(r) || r == '#' || r == '+' || r == '@' || r == '&'
}

// needsBoundary reports whether r is a letter or digit of a script
// written with spaces between words, where a key must match whole words.
// Chinese, Japanese and Thai run their words together.
func needsBoundary(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) &&
		!unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}
