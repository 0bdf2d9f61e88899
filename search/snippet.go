package search

import (
	"strings"
	"unicode/utf8"

	"github.com/git-kb/git-kb/segment"
)

// snippetRunes bounds a snippet's length.
const snippetRunes = 240

// snippet picks the lines of [start, end] (1-based) that contain the most
// distinct query terms, and returns them with the terms they contain.
// Single Han characters are not highlighted: alone they match everywhere.
func snippet(lines []string, start, end int, terms []string) (string, []string) {
	if start < 1 || start > len(lines) {
		return "", nil
	}
	end = min(end, len(lines))
	var useful []string
	for _, t := range terms {
		if utf8.RuneCountInString(t) > 1 || t[0] < 0x80 {
			useful = append(useful, t)
		}
	}
	best, bestScore := start, -1
	for i := start; i <= end; i++ {
		l := strings.ToLower(segment.Normalize(lines[i-1]))
		if strings.TrimSpace(l) == "" {
			continue
		}
		sc := 0
		for _, t := range useful {
			if strings.Contains(l, t) {
				sc += utf8.RuneCountInString(t)
			}
		}
		if sc > bestScore {
			best, bestScore = i, sc
		}
	}
	var b strings.Builder
	for i := best; i <= end && utf8.RuneCountInString(b.String()) < snippetRunes; i++ {
		l := strings.TrimSpace(strings.TrimRight(lines[i-1], "\r"))
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" ⏎ ")
		}
		b.WriteString(l)
	}
	s := b.String()
	s = clip(s, useful)
	// Highlights are the words of the snippet that match, as written and
	// as the analyzer cut them: "TiKV", never the "ti" inside "duration".
	return s, segment.Tiny().Match(s, useful).Words
}

// clip shortens s to snippetRunes runes, keeping the first match in view.
func clip(s string, terms []string) string {
	rs := []rune(s)
	if len(rs) <= snippetRunes {
		return s
	}
	low := strings.ToLower(s)
	first := len(low)
	for _, t := range terms {
		if i := strings.Index(low, t); i >= 0 && i < first {
			first = i
		}
	}
	from := 0
	if first < len(low) {
		from = max(0, utf8.RuneCountInString(low[:first])-snippetRunes/4)
	}
	to := min(len(rs), from+snippetRunes)
	out := string(rs[from:to])
	if from > 0 {
		out = "…" + out
	}
	if to < len(rs) {
		out += "…"
	}
	return out
}
