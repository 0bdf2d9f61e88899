// Package ask turns retrieved sources into an answer: the prompt for a
// chat model, the validation of the [n] citations it writes, and, without
// a model, an extractive answer made of the sources' best sentences.
package ask

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/segment"
)

// Source is a numbered piece of retrieved text.
type Source struct {
	N        int    `json:"n"`
	Citation string `json:"citation"`
	Path     string `json:"path"`
	Heading  string `json:"heading,omitempty"`
	Start    int    `json:"start_line"`
	End      int    `json:"end_line"`
	Text     string `json:"-"`
}

const system = `You answer questions about a software team's documentation and code.
Use only the numbered sources given. Answer in the language of the question, concisely.
Cite every statement with the number of the source it comes from in square brackets, like [1] or [2][3].
Never cite a number that is not in the list. If the sources do not answer the question, say so plainly.`

// Prompt builds the chat messages.
func Prompt(question string, sources []Source) []llm.Message {
	var b strings.Builder
	b.WriteString("Sources:\n\n")
	for _, s := range sources {
		fmt.Fprintf(&b, "[%d] %s", s.N, s.Path)
		if s.Heading != "" {
			fmt.Fprintf(&b, " (%s)", s.Heading)
		}
		fmt.Fprintf(&b, "\n%s\n\n", s.Text)
	}
	fmt.Fprintf(&b, "Question: %s", question)
	return []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: b.String()}}
}

// citeRE matches [1], [1, 2], [1，2], [1、2].
var (
	citeRE   = regexp.MustCompile(`\[(\d+(?:\s*[,，、]\s*\d+)*)\]`)
	digitsRE = regexp.MustCompile(`\d+`)
)

// Validate removes citations of sources that do not exist (1..n) from the
// answer and reports them; used lists the valid ones in first-use order.
func Validate(answer string, n int) (clean string, used, invalid []int) {
	seenUsed, seenBad := map[int]bool{}, map[int]bool{}
	clean = citeRE.ReplaceAllStringFunc(answer, func(m string) string {
		var keep []string
		for _, part := range digitsRE.FindAllString(m, -1) {
			k, _ := strconv.Atoi(part)
			if k >= 1 && k <= n {
				keep = append(keep, part)
				if !seenUsed[k] {
					seenUsed[k] = true
					used = append(used, k)
				}
			} else if !seenBad[k] {
				seenBad[k] = true
				invalid = append(invalid, k)
			}
		}
		if len(keep) == 0 {
			return ""
		}
		return "[" + strings.Join(keep, ", ") + "]"
	})
	// A removed citation can leave "text ." or a double space.
	clean = strings.NewReplacer(" .", ".", " 。", "。", "  ", " ").Replace(clean)
	return clean, used, invalid
}

// sentenceEnd splits after Chinese and Western sentence ends and at line
// breaks.
var sentenceEnd = regexp.MustCompile(`[。！？!?]+|\.\s+|\n+`)

// Extractive answers without a model: from the first sources with any
// query term, their best sentences (most distinct terms), the terms in
// bold, each line cited. It returns the answer and the sources used.
func Extractive(terms []string, sources []Source, maxSources int) (string, []int) {
	var b strings.Builder
	var used []int
	for _, s := range sources {
		if len(used) == maxSources {
			break
		}
		text := s.Text
		if strings.HasPrefix(text, "---\n") { // front-matter is not prose
			if end := strings.Index(text[4:], "\n---"); end >= 0 {
				text = text[4+end+4:]
			}
		}
		type sent struct {
			text  string
			score int
			pos   int
		}
		var sents []sent
		rest := text
		pos := 0
		for rest != "" {
			loc := sentenceEnd.FindStringIndex(rest)
			end := len(rest)
			if loc != nil {
				end = loc[1]
			}
			t := strings.TrimSpace(strings.TrimLeft(rest[:end], "#>-*| \t"))
			rest = rest[end:]
			if len([]rune(t)) < 6 || strings.HasPrefix(t, "```") {
				continue
			}
			lt := strings.ToLower(t)
			score := 0
			for _, term := range terms {
				if strings.Contains(lt, strings.ToLower(term)) {
					score++
				}
			}
			if score > 0 {
				// Count only terms found as words (not "ti" inside
				// "duration"); the substring test above is the cheap filter.
				score = len(segment.Tiny().Match(t, terms).Terms)
			}
			if score > 0 {
				sents = append(sents, sent{t, score, pos})
			}
			pos++
		}
		if len(sents) == 0 {
			continue
		}
		sort.SliceStable(sents, func(i, j int) bool { return sents[i].score > sents[j].score })
		sents = sents[:min(2, len(sents))]
		sort.Slice(sents, func(i, j int) bool { return sents[i].pos < sents[j].pos })
		used = append(used, s.N)
		for _, st := range sents {
			fmt.Fprintf(&b, "- %s [%d]\n", Highlight(st.text, terms), s.N)
		}
	}
	return b.String(), used
}

// Highlight puts the query terms in bold (Markdown), as whole words the
// way the analyzer cut them: never a term inside a longer word.
func Highlight(text string, terms []string) string {
	return segment.Tiny().Mark(text, terms, "**", "**")
}

// StreamFilter passes a streamed answer through, holding back each
// [...] until it is complete so that citations of sources that do not
// exist are removed before they are shown.
type StreamFilter struct {
	N       int
	Out     func(string)
	pending strings.Builder
}

// Write takes the next piece of the answer.
func (f *StreamFilter) Write(s string) {
	for _, r := range s {
		switch {
		case f.pending.Len() == 0 && r != '[':
			f.Out(string(r))
		case f.pending.Len() == 0:
			f.pending.WriteRune(r)
		default:
			f.pending.WriteRune(r)
			if r == ']' {
				clean, _, _ := Validate(f.pending.String(), f.N)
				f.Out(clean)
				f.pending.Reset()
			} else if r == '[' || f.pending.Len() > 40 || !strings.ContainsRune("0123456789,，、 ", r) {
				// Not a citation after all.
				text := f.pending.String()
				f.pending.Reset()
				f.Out(text[:len(text)-len(string(r))])
				f.Write(string(r))
			}
		}
	}
}

// Flush emits anything held back.
func (f *StreamFilter) Flush() {
	if f.pending.Len() > 0 {
		f.Out(f.pending.String())
		f.pending.Reset()
	}
}
