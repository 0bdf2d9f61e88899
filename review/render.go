package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Markdown renders the report as a pull-request comment: one collapsible
// section per file, short lines, citations in code spans.
func Markdown(r *Report) string {
	var b strings.Builder
	head := short(r.Head)
	if r.Staged {
		head = "staged changes"
	}
	fmt.Fprintf(&b, "### git kb blame-context: %s\n\n", r.Range)
	fmt.Fprintf(&b, "%d files changed, `%s`..%s", len(r.Files), short(r.Base), code(head))
	if r.Truncated {
		fmt.Fprintf(&b, " (%d least relevant items left out to fit the size limit)", r.Dropped)
	}
	b.WriteString("\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n> %s\n", n)
	}
	for _, f := range r.Files {
		name := f.Path
		if f.OldPath != "" {
			name = f.OldPath + " → " + f.Path
		}
		fmt.Fprintf(&b, "\n<details><summary><code>%s</code> %s, +%d −%d</summary>\n\n", html(name), f.Status, f.Added, f.Removed)
		if f.Note != "" {
			fmt.Fprintf(&b, "_%s_\n\n", f.Note)
		}
		if len(f.Symbols) > 0 {
			fmt.Fprintf(&b, "Touches: %s\n\n", codes(f.Symbols))
		}
		if len(f.History) > 0 {
			b.WriteString("**History** (who last changed these lines)\n\n")
			for _, c := range f.History {
				fmt.Fprintf(&b, "- `%s` %s %s: %s", c.Short[:min(7, len(c.Short))], c.Date, c.Author, mdText(c.Subject))
				var extra []string // references the subject does not already show
				for _, ref := range c.Refs {
					if !strings.Contains(c.Subject, ref) {
						extra = append(extra, ref)
					}
				}
				if len(extra) > 0 {
					fmt.Fprintf(&b, " (%s)", strings.Join(extra, ", "))
				}
				fmt.Fprintf(&b, " · %s\n", lineCount(c))
			}
			b.WriteString("\n")
		}
		if len(f.Docs) > 0 {
			b.WriteString("**Docs**\n\n")
			for _, d := range f.Docs {
				fmt.Fprintf(&b, "- %s: `%s`\n", mdText(orPath(d.Heading, d.Path)), d.Citation)
			}
			b.WriteString("\n")
		}
		if len(f.Code) > 0 {
			b.WriteString("**Code elsewhere**\n\n")
			for _, c := range f.Code {
				fmt.Fprintf(&b, "- `%s` %s in `%s`\n", c.Symbol, c.Kind, c.Citation)
			}
			b.WriteString("\n")
		}
		b.WriteString("</details>\n")
	}
	return b.String()
}

func lineCount(c Commit) string {
	lines := func(n int) string {
		if n == 1 {
			return "1 line"
		}
		return fmt.Sprintf("%d lines", n)
	}
	switch {
	case c.Lines > 0 && c.Nearby > 0:
		return fmt.Sprintf("%d changed + %s nearby", c.Lines, lines(c.Nearby))
	case c.Lines > 0:
		return lines(c.Lines) + " changed"
	}
	return lines(c.Nearby) + " nearby"
}

func orPath(heading, path string) string {
	if heading != "" {
		return heading
	}
	return path
}

func code(s string) string {
	if strings.Contains(s, " ") {
		return s
	}
	return "`" + s + "`"
}

func codes(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "`" + x + "`"
	}
	return strings.Join(out, ", ")
}

// mdText keeps commit subjects and headings from breaking the Markdown
// around them.
func mdText(s string) string {
	return html(strings.NewReplacer("`", "'", "\n", " ", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`).Replace(s))
}

func html(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// Fit drops the least relevant items until render(r) fits in maxBytes:
// the deepest-ranked entry among all files' history, docs and code lists
// goes first (so each file keeps its best items longest), then hunk
// details. It reports whether the result fits.
//
// Every drop shrinks the rendering, so the fewest drops that fit are
// found by bisection over their number: a few renders, where rendering
// after each drop cost the square of the report's size (hours for a
// range of a few hundred files).
func Fit(r *Report, maxBytes int, render func(*Report) ([]byte, error)) (bool, error) {
	out, err := render(r)
	if err != nil {
		return false, err
	}
	if maxBytes <= 0 || len(out) <= maxBytes {
		return true, nil
	}
	total := 0
	for c := clone(r); dropOne(c); {
		total++
	}
	if total == 0 {
		return false, nil
	}
	// after is r with the first n drops made.
	after := func(n int) *Report {
		c := clone(r)
		for range n {
			dropOne(c)
		}
		c.Truncated, c.Dropped = true, r.Dropped+n
		return c
	}
	fits := func(n int) (bool, error) {
		out, err := render(after(n))
		return err == nil && len(out) <= maxBytes, err
	}
	lo, hi := 1, total // the answer is in [lo, hi], or nothing fits
	ok, err := fits(hi)
	if err != nil {
		return false, err
	}
	for ok && lo < hi {
		mid := lo + (hi-lo)/2
		f, err := fits(mid)
		if err != nil {
			return false, err
		}
		if f {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	*r = *after(hi)
	return ok, nil
}

// clone copies r as far as dropOne changes it: the files, not the lists
// they hold (dropOne only shortens or clears those).
func clone(r *Report) *Report {
	c := *r
	c.Files = slices.Clone(r.Files)
	return &c
}

// dropOne removes the last item of the longest list; ties go to code,
// then docs, then history (history is what blame-context is for).
func dropOne(r *Report) bool {
	best, bestLen, kind := -1, 0, 0
	for i := range r.Files {
		f := &r.Files[i]
		for k, n := range []int{len(f.History), len(f.Docs), len(f.Code)} {
			if n > bestLen || n == bestLen && n > 0 && k > kind {
				best, bestLen, kind = i, n, k
			}
		}
	}
	if best >= 0 && bestLen > 0 {
		f := &r.Files[best]
		switch kind {
		case 0:
			f.History = f.History[:len(f.History)-1]
		case 1:
			f.Docs = f.Docs[:len(f.Docs)-1]
		case 2:
			f.Code = f.Code[:len(f.Code)-1]
		}
		return true
	}
	for i := len(r.Files) - 1; i >= 0; i-- {
		if f := &r.Files[i]; len(f.Hunks) > 0 || len(f.Symbols) > 0 {
			f.Hunks, f.Symbols = nil, nil
			return true
		}
	}
	return false
}

// JSON renders the report as indented JSON.
func JSON(r *Report) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(r)
	return b.Bytes(), err
}
