package search

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-kb/git-kb/segment"
)

// Query is a parsed query: free text ranked by BM25 (and vectors), plus
// operators that filter or steer the results.
//
//	"exact phrase"   the chunk must contain it, words in order (“短语”
//	                 and 「短语」 too: what a Chinese IME types)
//	-word -"phrase"  drop chunks containing it
//	path:GLOB        only files matching (PathScope syntax)
//	-path:GLOB       drop files matching (a directory: -path:vendor)
//	lang:go          only files of that language
//	-lang:go         drop files of that language
//	tag:x owner:x    only docs whose front-matter says so
//	@path/to/file    only that file (or directory); a bare @word that
//	                 no path is named or near is a word (bareAtWords)
//	@@Symbol         the chunk declaring Symbol first
type Query struct {
	Raw      string
	Text     string // what is ranked: free words, phrase words, symbols
	Phrases  []string
	Excludes []string // words or phrases
	Paths    []string
	Langs    []string
	NotPaths []string // -path:GLOB
	NotLangs []string // -lang:X
	Tags     []string
	Owners   []string
	Files    []string
	Symbols  []string

	// atWords are the @words among Files that may be words instead
	// (bareAtWords).
	atWords []atWord
}

// atWord is an @word of a query with no / or . in it: @runbook may be a
// directory at the top, and @a, @Transactional or @alice a MySQL user
// variable, a Java annotation or a mention the question quotes.
type atWord struct {
	file string // as in Files
	word string // as typed
	pos  int    // where in Text it was typed (a byte offset between words)
}

// QueryError points at the malformed part of a query.
type QueryError struct {
	Query string
	Pos   int // byte offset
	Msg   string
}

func (e *QueryError) Error() string {
	col := utf8.RuneCountInString(e.Query[:e.Pos])
	return fmt.Sprintf("query: %s at column %d\n  %s\n  %s^", e.Msg, col+1, e.Query, strings.Repeat(" ", displayWidth(e.Query[:e.Pos])))
}

// displayWidth counts CJK characters as two columns, so the caret lines up
// under the bad part in a terminal.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r >= 0xFF01 && r <= 0xFF60 {
			w += 2
		} else {
			w++
		}
	}
	return w
}

// MaxQueryRunes bounds a query. Longer ones are refused rather than
// searched: token counting of a context pack is quadratic in the longest
// word, and a 100 KB query took minutes there; no question is that long.
const MaxQueryRunes = 4096

// CheckQueryLength refuses a query longer than MaxQueryRunes.
func CheckQueryLength(raw string) error {
	if n := utf8.RuneCountInString(raw); n > MaxQueryRunes {
		return fmt.Errorf("the query is %d characters long; at most %d: shorten it to what you are looking for", n, MaxQueryRunes)
	}
	return nil
}

var operators = map[string]bool{"path": true, "lang": true, "tag": true, "owner": true}

// ParseQuery parses the query language. A word that merely contains a
// colon (std::vector, http://x, key:value with an unknown key) is text.
func ParseQuery(raw string) (*Query, error) {
	if err := CheckQueryLength(raw); err != nil {
		return nil, err
	}
	q := &Query{Raw: raw}
	han := segment.HanBytes(raw) > 0 // a Chinese question: its -flag words are words (below)
	var text []string
	s := raw
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		start := i
		neg := false
		if s[i] == '-' && i+1 < len(s) && !unicode.IsSpace(rune(s[i+1])) && (i == 0 || unicode.IsSpace(rune(s[i-1]))) {
			neg = true
			i++
		}
		if i < len(s) && s[i] == '"' {
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return nil, &QueryError{raw, i, "unterminated quote"}
			}
			phrase := strings.TrimSpace(s[i+1 : i+1+end])
			if phrase == "" {
				return nil, &QueryError{raw, i, "empty phrase"}
			}
			i += end + 2
			text = q.addPhrase(phrase, neg, text)
			continue
		}
		if phrase, n := cjkQuoted(s[i:]); n > 0 {
			i += n
			if phrase != "" {
				text = q.addPhrase(phrase, neg, text)
			}
			continue
		}
		// A word runs to the next space; an operator value may be quoted.
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				break
			}
			if r == '"' {
				end := strings.IndexByte(s[j+1:], '"')
				if end < 0 {
					return nil, &QueryError{raw, j, "unterminated quote"}
				}
				j += end + 2
				continue
			}
			if _, n := cjkQuoted(s[j:]); n > 0 && j > i {
				break // a Chinese quotation glued to the word: a phrase of its own
			}
			j += size
		}
		word := s[i:j]
		i = j
		if neg {
			if word == "" {
				return nil, &QueryError{raw, start, "nothing to exclude after -"}
			}
			// -path: and -lang: drop files, like zoekt's -file:; other
			// negated words drop chunks containing them.
			if key, val, ok := strings.Cut(word, ":"); ok && (strings.EqualFold(key, "path") || strings.EqualFold(key, "lang")) {
				val = unquote(val)
				at := start + 1 + len(key) + 1
				if val == "" {
					return nil, &QueryError{raw, at, "-" + key + ": needs a value"}
				}
				if strings.EqualFold(key, "path") {
					if _, err := PathScope(val); err != nil {
						return nil, &QueryError{raw, at, err.Error()}
					}
					q.NotPaths = append(q.NotPaths, val)
				} else {
					q.NotLangs = append(q.NotLangs, strings.ToLower(val))
				}
				continue
			}
			// A command-line flag (go test -fuzz, -run=TestX, git log
			// --follow) is what a question quotes, not a word it leaves
			// out: in a question with Chinese words, and always with two
			// dashes. -"word" excludes such a word.
			if flagRE.MatchString(word) && (strings.HasPrefix(word, "-") || han) {
				text = append(text, s[start:j])
				continue
			}
			q.Excludes = append(q.Excludes, unquote(word))
			continue
		}
		switch {
		case strings.HasPrefix(word, "@@"):
			sym := unquote(word[2:])
			if sym == "" {
				return nil, &QueryError{raw, start, "@@ needs a symbol name, like @@RetryCount"}
			}
			q.Symbols = append(q.Symbols, sym)
			text = append(text, sym)
		case strings.HasPrefix(word, "@") && len(word) > 1:
			f := strings.TrimPrefix(unquote(word[1:]), "./")
			if strings.HasPrefix(f, "/") || f == ".." || strings.HasPrefix(f, "../") {
				return nil, &QueryError{raw, start, "@file takes a path relative to the repository root"}
			}
			q.Files = append(q.Files, f)
			if !strings.ContainsAny(f, "/.") {
				q.atWords = append(q.atWords, atWord{file: f, word: word, pos: len(strings.Join(text, " "))})
			}
		default:
			key, val, ok := strings.Cut(word, ":")
			if !ok || !operators[strings.ToLower(key)] {
				text = append(text, word)
				continue
			}
			val = unquote(val)
			if val == "" {
				return nil, &QueryError{raw, start + len(key) + 1, key + ": needs a value"}
			}
			switch strings.ToLower(key) {
			case "path":
				if _, err := PathScope(val); err != nil {
					return nil, &QueryError{raw, start + len(key) + 1, err.Error()}
				}
				q.Paths = append(q.Paths, val)
			case "lang":
				q.Langs = append(q.Langs, strings.ToLower(val))
			case "tag":
				q.Tags = append(q.Tags, strings.ToLower(val))
			case "owner":
				q.Owners = append(q.Owners, strings.ToLower(val))
			}
		}
	}
	q.Text = strings.Join(text, " ")
	if q.Text == "" {
		return nil, &QueryError{raw, 0, "nothing to search for: add words, a \"phrase\" or @@Symbol"}
	}
	return q, nil
}

// addPhrase records a quoted phrase: one to leave out (-"x"), or one the
// chunk must hold, whose words are also ranked (text).
func (q *Query) addPhrase(phrase string, neg bool, text []string) []string {
	if neg {
		q.Excludes = append(q.Excludes, phrase)
		return text
	}
	q.Phrases = append(q.Phrases, phrase)
	return append(text, phrase)
}

// cjkQuotes are the quotation marks Chinese text uses, opening and
// closing: a Chinese IME types “” where English has "".
var cjkQuotes = [][2]string{{"“", "”"}, {"「", "」"}, {"『", "』"}}

// cjkQuoted reads a Chinese quotation at the start of s (“慢查询”, 「回滚」):
// its text, trimmed, and how many bytes it takes, quotes included; 0
// when s does not start with one or it is never closed (a stray “ in
// pasted prose is a character, not syntax, unlike an unclosed ", which
// only a query writes).
func cjkQuoted(s string) (string, int) {
	for _, q := range cjkQuotes {
		if !strings.HasPrefix(s, q[0]) {
			continue
		}
		end := strings.Index(s[len(q[0]):], q[1])
		if end < 0 {
			return "", 0
		}
		return strings.TrimSpace(s[len(q[0]) : len(q[0])+end]), len(q[0]) + end + len(q[1])
	}
	return "", 0
}

// flagRE matches what follows the first dash of a command-line flag:
// fuzz, -race, run=TestX, count=1.
var flagRE = regexp.MustCompile(`^-?[A-Za-z][A-Za-z0-9_.-]*(=\S*)?$`)

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return strings.ReplaceAll(s, `"`, "")
}

// HasFilters says whether the query does more than rank words.
func (q *Query) HasFilters() bool {
	return len(q.Phrases)+len(q.Excludes)+len(q.Paths)+len(q.Langs)+len(q.NotPaths)+len(q.NotLangs)+len(q.Tags)+len(q.Owners)+len(q.Files)+len(q.Symbols) > 0
}
