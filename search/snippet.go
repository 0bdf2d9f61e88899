package search

import (
	"strings"
	"unicode/utf8"

	"github.com/git-kb/git-kb/segment"
)

// snippetRunes bounds a snippet's length.
const snippetRunes = 240

// snippet picks the lines of [start, end] (1-based) that contain the most
// distinct query terms (highlight marks them).
func snippet(lines []string, start, end int, terms []string) string {
	if start < 1 || start > len(lines) {
		return ""
	}
	end = min(end, len(lines))
	useful := usefulTerms(terms)
	best, bestScore := start, -1
	for i := start; i <= end; i++ {
		l := strings.ToLower(segment.Normalize(lines[i-1]))
		if strings.TrimSpace(l) == "" || markup(lines[i-1]) {
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
	text := joinLines(lines, best, end, true)
	if text == "" {
		// Markup alone (a section that is a shortcode and an empty
		// fence): better shown than nothing.
		text = joinLines(lines, start, end, false)
	}
	return clip(text, useful)
}

// joinLines joins the non-blank lines from..end, trimmed, with " ⏎ ",
// until the snippet's length; skipMarkup leaves out markup lines.
func joinLines(lines []string, from, end int, skipMarkup bool) string {
	var b strings.Builder
	for i := from; i <= end && utf8.RuneCountInString(b.String()) < snippetRunes; i++ {
		l := strings.TrimSpace(strings.TrimRight(lines[i-1], "\r"))
		if l == "" || skipMarkup && markup(l) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" ⏎ ")
		}
		b.WriteString(l)
	}
	return b.String()
}

// markup reports whether a line is a docs generator's markup alone,
// which says nothing in a one-line snippet: Hugo shortcodes ({{< copyable
// "sql" >}}, {{% note %}}, side by side or nested), HTML comments, or a
// code fence (```sql, ~~~). Text outside them (a shortcode, words, a
// shortcode) makes the line content; an unterminated shortcode or
// comment is content too. The code inside a fence stays; the citation's
// lines are unchanged.
func markup(line string) bool {
	l := strings.TrimSpace(line)
	if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
		return !strings.ContainsAny(strings.TrimLeft(l, "`~"), " \t`")
	}
	depth, seen := 0, false // shortcodes open; any markup met
	for i := 0; i < len(l); {
		switch r := l[i:]; {
		case depth == 0 && strings.HasPrefix(r, "<!--"):
			j := strings.Index(r[4:], "-->")
			if j < 0 {
				return false
			}
			i, seen = i+4+j+3, true
		case strings.HasPrefix(r, "{{<"), strings.HasPrefix(r, "{{%"):
			depth, seen = depth+1, true
			i += 3
		case depth > 0 && (strings.HasPrefix(r, ">}}") || strings.HasPrefix(r, "%}}")):
			depth--
			i += 3
		case depth == 0 && r[0] != ' ' && r[0] != '\t':
			return false
		default:
			i++
		}
	}
	return seen && depth == 0
}

// usefulTerms are the terms worth marking: single Han characters are not
// highlighted, alone they match everywhere.
func usefulTerms(terms []string) []string {
	var useful []string
	for _, t := range terms {
		if utf8.RuneCountInString(t) > 1 || t[0] < 0x80 {
			useful = append(useful, t)
		}
	}
	return useful
}

// highlight sets the Highlights of results: the words of each snippet
// that match, as written and as the analyzer cut them ("TiKV", never the
// "ti" inside "duration"). One dictionary serves all the snippets
// (segment's For): built per snippet, they were a tenth of a search.
func highlight(rs []Result, terms []string) {
	useful := usefulTerms(terms)
	snippets := make([]string, len(rs))
	for i, r := range rs {
		snippets[i] = r.Snippet
	}
	an := segment.Tiny().ForMatch(snippets, useful)
	for i := range rs {
		rs[i].Highlights = an.Match(rs[i].Snippet, useful).Words
	}
}

// clip shortens s to snippetRunes runes, keeping the first match in view.
func clip(s string, terms []string) string {
	n := utf8.RuneCountInString(s)
	if n <= snippetRunes {
		return s
	}
	from := clipFrom(s, terms)
	to := min(n, from+snippetRunes)
	// Runes from..to of s, each invalid byte one U+FFFD, as []rune has
	// them, without a []rune of s: that was four bytes per byte of a
	// one-line file of megabytes.
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	i := 0
	for _, r := range s {
		if i >= to {
			break
		}
		if i >= from {
			b.WriteRune(r)
		}
		i++
	}
	if to < n {
		b.WriteString("…")
	}
	return b.String()
}

// clipFrom is the rune of s a clipped snippet starts at: a quarter of
// the snippet before the first match of terms, 0 without one.
func clipFrom(s string, terms []string) int {
	low := strings.ToLower(s)
	first := len(low)
	for _, t := range terms {
		if i := strings.Index(low, t); i >= 0 && i < first {
			first = i
		}
	}
	if first == len(low) {
		return 0
	}
	return max(0, utf8.RuneCountInString(low[:first])-snippetRunes/4)
}

// Snippet is the snippet of lines start..end (1-based) for the analyzed
// query terms, as a result shows it, and Highlight marks the matching
// words of results' snippets: for results ranked elsewhere (git kb search
// --org).
func Snippet(lines []string, start, end int, terms []string) string {
	return snippet(lines, start, end, terms)
}

// Highlight sets rs' Highlights for the analyzed query terms.
func Highlight(rs []Result, terms []string) { highlight(rs, terms) }
