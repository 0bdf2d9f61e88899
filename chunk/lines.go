package chunk

import (
	"strings"
	"unicode/utf8"
)

// lines splits text into lines without their terminators ("\r\n" or "\n").
func lines(text string) []string {
	if text == "" {
		return nil
	}
	ls := strings.Split(text, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

func size(ls []string) int {
	n := 0
	for _, l := range ls {
		n += len(l) + 1
	}
	return n
}

// windows cuts ls (whose first line is 1-based line first+1) into chunks of
// about Target bytes, breaking at blank lines when possible, else at line
// ends, and overlapping ~15% with the previous chunk. A single line longer
// than Max becomes several chunks cut at sentence ends, all citing that line.
func windows(ls []string, first int, heading string) []Chunk {
	var out []Chunk
	for start := 0; start < len(ls); {
		end, n := start, 0
		lastBreak := -1
		for end < len(ls) && (n == 0 || n+len(ls[end])+1 <= Target) {
			n += len(ls[end]) + 1
			end++
			if end < len(ls) && strings.TrimSpace(ls[end]) == "" {
				lastBreak = end
			}
		}
		if end == start+1 && len(ls[start]) > Max {
			out = append(out, splitLongLine(ls[start], first+start+1, heading)...)
			start++
			continue
		}
		// Prefer to stop at a paragraph break in the last half of the window.
		if end < len(ls) && lastBreak > start && size(ls[start:lastBreak]) >= Target/2 {
			end = lastBreak
		}
		// Keep the tail below Max, and fold a tiny remainder into this chunk.
		if end < len(ls) && size(ls[end:]) < tiny && size(ls[start:]) <= Max {
			end = len(ls)
		}
		out = append(out, Chunk{StartLine: first + start + 1, EndLine: first + end, Heading: heading, Text: strings.Join(ls[start:end], "\n")})
		if end >= len(ls) {
			break
		}
		// Step back ~15% for overlap, but always advance.
		next, back := end, 0
		for next-1 > start+1 && back+len(ls[next-1])+1 <= overlap {
			back += len(ls[next-1]) + 1
			next--
		}
		start = next
	}
	return out
}

// splitLongLine cuts one very long line at sentence ends (。！？. ; \n)
// into pieces of about Target bytes.
func splitLongLine(line string, lineNo int, heading string) []Chunk {
	var out []Chunk
	for len(line) > 0 {
		cut := len(line)
		if cut > Target {
			cut = sentenceCut(line, Target)
		}
		out = append(out, Chunk{StartLine: lineNo, EndLine: lineNo, Heading: heading, Text: line[:cut]})
		line = line[cut:]
	}
	return out
}

// sentenceCut returns a cut position <= limit (on a rune boundary), after the
// last sentence terminator in the second half of line[:limit] if any.
func sentenceCut(line string, limit int) int {
	for limit > 0 && !utf8.RuneStart(line[limit]) {
		limit--
	}
	best := -1
	for i, r := range line[:limit] {
		switch r {
		case '。', '！', '？', '；', '!', '?', ';':
			best = i + utf8.RuneLen(r)
		case '.', ' ':
			if i+1 < len(line) && (line[i+1] == ' ' || r == ' ') {
				best = i + 1
			}
		}
	}
	if best >= limit/2 {
		return best
	}
	if limit == 0 { // a single rune longer than the limit cannot happen, but never loop forever
		_, n := utf8.DecodeRuneInString(line)
		return n
	}
	return limit
}
