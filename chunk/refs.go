package chunk

import (
	"go/parser"
	"go/scanner"
	"go/token"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// Import is one reference from a file to another file or package, as the
// file writes it: a Go import path, a Markdown link target, a Python
// module, a JavaScript module specifier, a C include.
type Import struct {
	Spec  string // as written, fragment and query removed
	Alias string // the name the file uses for it (Go, Python), if any
	Line  int    // 1-based
}

var (
	mdInlineLink = lazyRE(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	mdRefLink    = lazyRE(`(?m)^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	pyImport     = lazyRE(`^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)`)
	pyFrom       = lazyRE(`^\s*from\s+(\.*[\w.]*)\s+import\s+`)
	jsImport     = lazyRE(`(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"\n]+)['"]`)
	cInclude     = lazyRE(`^\s*#\s*include\s*"([^"]+)"`)
	rustMod      = lazyRE(`^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;`)
	javaImport   = lazyRE(`^\s*import\s+(?:static\s+)?([\w.]+)\s*;`)
)

// Imports lists what a file of language lang refers to. Only references
// that can name a file of the same repository are kept: web links,
// anchors within the page and mail addresses are dropped.
func Imports(lang, text string) []Import {
	switch lang {
	case "go":
		return goImports(text)
	case "markdown":
		return markdownLinks(text)
	}
	var out []Import
	for i, line := range strings.Split(text, "\n") {
		add := func(spec, alias string) {
			if spec != "" {
				out = append(out, Import{Spec: spec, Alias: alias, Line: i + 1})
			}
		}
		switch lang {
		case "python":
			if m := pyFrom().FindStringSubmatch(line); m != nil {
				add(m[1], "")
			} else if m := pyImport().FindStringSubmatch(line); m != nil {
				for _, part := range strings.Split(m[1], ",") {
					f := strings.Fields(part)
					alias := ""
					if len(f) == 3 {
						alias = f[2]
					}
					add(f[0], alias)
				}
			}
		case "javascript", "typescript":
			for _, m := range jsImport().FindAllStringSubmatch(line, -1) {
				add(m[1], "")
			}
		case "c":
			if m := cInclude().FindStringSubmatch(line); m != nil {
				add(m[1], "")
			}
		case "rust":
			if m := rustMod().FindStringSubmatch(line); m != nil {
				add(m[1], "")
			}
		case "java":
			if m := javaImport().FindStringSubmatch(line); m != nil {
				add(m[1], "")
			}
		}
	}
	return out
}

func goImports(text string) []Import {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", text, parser.ImportsOnly|parser.SkipObjectResolution)
	if err != nil && f == nil {
		return nil
	}
	var out []Import
	for _, s := range f.Imports {
		p, err := strconv.Unquote(s.Path.Value)
		if err != nil || p == "C" {
			continue
		}
		alias := GoPackageName(p)
		if s.Name != nil {
			alias = s.Name.Name
		}
		out = append(out, Import{Spec: p, Alias: alias, Line: fset.PositionFor(s.Pos(), false).Line})
	}
	return out
}

// GoPackageName guesses the name a Go import path declares, by the
// conventions nearly every package follows: the last element, without a
// major-version suffix (v2, yaml.v3) or a go- prefix.
func GoPackageName(importPath string) string {
	parts := strings.Split(importPath, "/")
	name := parts[len(parts)-1]
	if len(parts) > 1 && isMajorVersion(name) {
		name = parts[len(parts)-2]
	}
	if i := strings.Index(name, ".v"); i > 0 && isMajorVersion(name[i+1:]) {
		name = name[:i]
	}
	name = strings.TrimPrefix(name, "go-")
	return strings.NewReplacer("-", "_", ".", "_").Replace(name)
}

func isMajorVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	_, err := strconv.Atoi(s[1:])
	return err == nil
}

func markdownLinks(text string) []Import {
	var out []Import
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		var specs []string
		for _, m := range mdInlineLink().FindAllStringSubmatch(line, -1) {
			specs = append(specs, m[1])
		}
		if m := mdRefLink().FindStringSubmatch(line); m != nil {
			specs = append(specs, m[1])
		}
		for _, s := range specs {
			if s = localTarget(s); s != "" {
				out = append(out, Import{Spec: s, Line: i + 1})
			}
		}
	}
	return out
}

// localTarget is a link target as a repository path, or "" for links that
// leave the repository (a scheme, //host) or stay on the page (#anchor).
func localTarget(s string) string {
	if i := strings.IndexAny(s, "#?"); i >= 0 {
		s = s[:i]
	}
	if s == "" || strings.HasPrefix(s, "//") {
		return ""
	}
	if i := strings.Index(s, ":"); i > 0 && !strings.ContainsAny(s[:i], "/.") {
		return "" // http:, mailto:, data:, ...
	}
	if u, err := url.PathUnescape(s); err == nil {
		s = u
	}
	return s
}

// Call is a name a piece of code calls or refers to through a package:
// Name alone (Qual "") or Qual.Name.
type Call struct {
	Qual, Name string
}

var (
	callPattern  = lazyRE(`(?:\b([A-Za-z_]\w*)\s*(?:\.|::|->)\s*)?\b([A-Za-z_]\w*)\s*\(`)
	callKeywords = setOf(`if for while switch return func def fn function catch sizeof typeof new delete
		print println printf elif else and or not in is lambda yield await async assert with try except raise
		super self this match case when do until unless loop defer go select range make len cap append copy
		panic recover close new complex real imag min max clear int string bool byte rune float32 float64 int64 uint32 uint64 int32 error`)
)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Calls lists, in order of first use, the functions a piece of code calls,
// as name( or qual.name(. Language keywords and Go builtins are left out.
func Calls(lang, text string) []Call {
	seen := map[Call]bool{}
	var out []Call
	add := func(c Call) {
		if c.Name == "" || callKeywords[c.Name] && c.Qual == "" || seen[c] {
			return
		}
		seen[c] = true
		out = append(out, c)
	}
	if lang == "go" {
		goCalls(text, add)
		return out
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") && lang != "c" || strings.HasPrefix(t, "*") {
			continue
		}
		for _, m := range callPattern().FindAllStringSubmatch(line, -1) {
			q := m[1]
			if q == "self" || q == "this" {
				q = ""
			}
			add(Call{Qual: q, Name: m[2]})
		}
	}
	return out
}

// goCalls scans tokens rather than parsing, so a chunk cut out of a file
// (which need not parse on its own) still yields its calls.
func goCalls(text string, add func(Call)) {
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(text))
	s.Init(file, []byte(text), nil, 0)
	var toks [4]struct { // the last four tokens
		tok token.Token
		lit string
	}
	// A declaration's own name is not a call: func Name( and, after a
	// receiver, func (r T) Name(.
	prevFunc, recvDepth, declName := false, 0, false
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return
		}
		switch {
		case recvDepth > 0:
			if tok == token.LPAREN {
				recvDepth++
			} else if tok == token.RPAREN {
				if recvDepth--; recvDepth == 0 {
					declName = true
				}
			}
		case prevFunc && tok == token.LPAREN:
			recvDepth = 1
		case (prevFunc || declName) && tok == token.IDENT:
			prevFunc, declName = false, false
			copy(toks[:3], toks[1:])
			toks[3].tok, toks[3].lit = token.ILLEGAL, ""
			continue
		default:
			declName = false
		}
		prevFunc = tok == token.FUNC
		copy(toks[:3], toks[1:])
		toks[3].tok, toks[3].lit = tok, lit
		// x.Name( (x a package or a value: the resolver decides) and
		// name(. Types and fields used (time.Duration, r.Body) are not
		// followed: they are everywhere and rarely what a reader needs.
		if toks[3].tok != token.LPAREN || toks[2].tok != token.IDENT {
			continue
		}
		if toks[1].tok == token.PERIOD && toks[0].tok == token.IDENT {
			add(Call{Qual: toks[0].lit, Name: toks[2].lit})
		} else if toks[1].tok != token.PERIOD {
			add(Call{Name: toks[2].lit})
		}
	}
}

// Dir is path.Dir without the "." for top-level files.
func Dir(p string) string {
	d := path.Dir(p)
	if d == "." {
		return ""
	}
	return d
}

// DocLinks counts the distinct documents a Markdown text links to within
// its repository (links to other pages, not to images, code or the web):
// a page's out-degree in the repository's link graph, which search
// weighs against its in-degree to tell overview pages from the pages they
// point to.
func DocLinks(text string) int {
	seen := map[string]bool{}
	for _, imp := range markdownLinks(text) {
		switch strings.ToLower(path.Ext(imp.Spec)) {
		case ".md", ".mdx", ".markdown":
			seen[path.Clean(imp.Spec)] = true
		}
	}
	return len(seen)
}
