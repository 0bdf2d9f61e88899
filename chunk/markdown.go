package chunk

import (
	"strings"
)

// splitMarkdown chunks by heading sections, keeping the heading path, after
// reading YAML front-matter into Meta.
func splitMarkdown(text string) Doc {
	ls := lines(text)
	d := Doc{Meta: map[string]string{}}
	body := 0
	if len(ls) > 0 && strings.TrimSpace(ls[0]) == "---" {
		for i := 1; i < len(ls); i++ {
			if t := strings.TrimSpace(ls[i]); t == "---" || t == "..." {
				d.Meta = frontMatter(ls[1:i])
				body = i + 1
				break
			}
		}
	}
	d.Title = d.Meta["title"]

	type section struct {
		start, end int // line indexes, end exclusive
		path       string
	}
	var secs []section
	var stack []string // heading texts by level-1
	cur := section{start: body}
	var fence codeFence
	for i := body; i < len(ls); i++ {
		if fence.skip(ls[i]) {
			continue
		}
		level, title := atxHeading(ls[i])
		if level == 0 {
			continue
		}
		if d.Title == "" && level == 1 {
			d.Title = title
		}
		cur.end = i
		secs = append(secs, cur)
		if len(stack) >= level {
			stack = stack[:level-1]
		}
		for len(stack) < level-1 {
			stack = append(stack, "")
		}
		stack = append(stack, title)
		cur = section{start: i, path: headingPath(stack)}
	}
	cur.end = len(ls)
	secs = append(secs, cur)

	for i := 0; i < len(secs); i++ {
		s := secs[i]
		// A section that is only a heading (or nearly) joins the next one,
		// which is its first subsection: "## 部署" + "### 步骤" read as one.
		for i+1 < len(secs) && size(ls[s.start:s.end]) < tiny && secs[i+1].end-s.start < 1<<20 {
			s.end = secs[i+1].end
			s.path = secs[i+1].path
			i++
		}
		if s.end <= s.start || strings.TrimSpace(strings.Join(ls[s.start:s.end], "")) == "" {
			continue
		}
		d.Chunks = append(d.Chunks, windows(ls[s.start:s.end], s.start, s.path)...)
	}
	return d
}

// atxHeading recognises "# Title" .. "###### Title".
func atxHeading(line string) (int, string) {
	if len(line) == 0 || line[0] != '#' {
		return 0, ""
	}
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n > 6 || (n < len(line) && line[n] != ' ' && line[n] != '\t') {
		return 0, ""
	}
	title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[n:]), "#"))
	// Drop trailing anchors such as "{#custom-id}".
	if i := strings.LastIndex(title, "{#"); i > 0 && strings.HasSuffix(title, "}") {
		title = strings.TrimSpace(title[:i])
	}
	return n, title
}

func headingPath(stack []string) string {
	var parts []string
	for _, s := range stack {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " > ")
}

// frontMatter reads the flat subset of YAML that docs use: "key: value",
// "key: [a, b]", "key:" followed by "- item" lines, and a block scalar
// ("key: >" or "key: |" and indented lines: a long description). Lists
// join with ",", a block's lines with " ".
func frontMatter(ls []string) map[string]string {
	m := map[string]string{}
	key := ""
	block := false // key's value is the indented lines that follow
	for _, l := range ls {
		t := strings.TrimSpace(l)
		if block {
			if t == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				if t != "" {
					if m[key] != "" {
						m[key] += " "
					}
					m[key] += t
				}
				continue
			}
			block = false
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasPrefix(t, "- ") && key != "" {
			item := unquote(strings.TrimSpace(t[2:]))
			if m[key] != "" {
				m[key] += ","
			}
			m[key] += item
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			var items []string
			for _, it := range strings.Split(v[1:len(v)-1], ",") {
				if it = unquote(strings.TrimSpace(it)); it != "" {
					items = append(items, it)
				}
			}
			v = strings.Join(items, ",")
		} else if v != "" && (v[0] == '>' || v[0] == '|') && strings.Trim(v[1:], "+-123456789") == "" {
			block, v = true, ""
		} else {
			v = unquote(v)
		}
		m[key] = v
	}
	return m
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// codeFence follows Markdown's fenced code blocks (``` or ~~~) line by
// line: a heading inside one is code, not a section. Splitting and the
// reference-page test read fences the same way through it.
type codeFence string

// skip reports whether line opens, closes or lies inside a fence.
func (f *codeFence) skip(line string) bool {
	t := strings.TrimSpace(line)
	if *f != "" {
		if strings.HasPrefix(t, string(*f)) {
			*f = ""
		}
		return true
	}
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		*f = codeFence(t[:3])
		return true
	}
	return false
}
