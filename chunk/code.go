package chunk

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Lang names a file's language from its name.
func Lang(p string) string {
	base := strings.ToLower(path.Base(p))
	switch base {
	case "makefile", "gnumakefile":
		return "make"
	case "dockerfile":
		return "dockerfile"
	}
	switch path.Ext(base) {
	case ".md", ".markdown", ".mdx":
		return "markdown"
	case ".go":
		return "go"
	case ".py", ".pyi":
		return "python"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "javascript"
	case ".ts", ".tsx", ".mts", ".cts":
		return "typescript"
	case ".java", ".kt", ".kts", ".scala":
		return "java"
	case ".rs":
		return "rust"
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm":
		return "c"
	case ".sh", ".bash", ".zsh", ".ksh":
		return "shell"
	case ".sql":
		return "sql"
	case ".yaml", ".yml":
		return "yaml"
	case ".json":
		return "json"
	case ".toml":
		return "toml"
	case ".txt", ".rst", ".adoc":
		return "text"
	}
	return "text"
}

// splitGo chunks Go source by top-level declarations with their doc
// comments. Source that does not parse falls back to pattern splitting.
func splitGo(text string) Doc {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", text, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return splitByDecls(text, declPatterns()["go"])
	}
	ls := lines(text)
	var decls []decl
	for _, d := range f.Decls {
		start := fset.PositionFor(d.Pos(), false).Line
		var names []string
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				start = fset.PositionFor(d.Doc.Pos(), false).Line
			}
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				if r := recvType(d.Recv.List[0].Type); r != "" {
					name = r + "." + name
				}
			}
			names = append(names, name)
		case *ast.GenDecl:
			if d.Doc != nil {
				start = fset.PositionFor(d.Doc.Pos(), false).Line
			}
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
		decls = append(decls, decl{line: start - 1, symbols: names})
	}
	return Doc{Chunks: chunkDecls(ls, decls)}
}

func recvType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvType(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvType(t.X)
	case *ast.IndexListExpr:
		return recvType(t.X)
	}
	return ""
}

// decl is where a declaration starts (0-based line, including its leading
// comment) and the names it declares.
type decl struct {
	line    int
	symbols []string
}

// chunkDecls turns declaration starts into chunks: each declaration runs to
// the next one; tiny neighbours merge; big ones split into windows.
func chunkDecls(ls []string, decls []decl) []Chunk {
	// Keep starts inside the file and strictly increasing, whatever the
	// parser or pattern reported.
	kept := decls[:0]
	for _, d := range decls {
		if d.line < 0 || d.line >= len(ls) || len(kept) > 0 && d.line <= kept[len(kept)-1].line {
			if len(kept) > 0 {
				kept[len(kept)-1].symbols = append(kept[len(kept)-1].symbols, d.symbols...)
			}
			continue
		}
		kept = append(kept, d)
	}
	decls = kept
	if len(decls) == 0 || decls[0].line > 0 {
		decls = append([]decl{{line: 0}}, decls...) // package clause, imports, file comment
	}
	var out []Chunk
	for i := 0; i < len(decls); i++ {
		start := decls[i].line
		syms := append([]string(nil), decls[i].symbols...)
		end := len(ls)
		if i+1 < len(decls) {
			end = decls[i+1].line
		}
		for i+1 < len(decls) && size(ls[start:end]) < tiny {
			i++
			syms = append(syms, decls[i].symbols...)
			end = len(ls)
			if i+1 < len(decls) {
				end = decls[i+1].line
			}
		}
		if end <= start || strings.TrimSpace(strings.Join(ls[start:end], "")) == "" {
			continue
		}
		heading := firstCodeLine(ls[start:end])
		ws := windows(ls[start:end], start, heading)
		for j := range ws {
			ws[j].Symbols = syms
		}
		out = append(out, ws...)
	}
	return out
}

// maxHeading is the longest heading a declaration's first line gives, in bytes.
const maxHeading = 120

// firstCodeLine is the declaration's signature: the first line that is not
// a comment, trimmed.
func firstCodeLine(ls []string) string {
	for _, l := range ls {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "--") {
			continue
		}
		t = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(t, "{")), ":")
		if len(t) > maxHeading {
			// Cut on a rune boundary: a minified file's first line
			// is all heading, and a cut rune is not text.
			n := maxHeading
			for n > 0 && !utf8.RuneStart(t[n]) {
				n--
			}
			t = t[:n]
		}
		return t
	}
	return ""
}

// declPatterns match a line that starts a declaration; the last non-empty
// submatch is the declared name.
var declPatterns = sync.OnceValue(func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		"go":         regexp.MustCompile(`^(?:func\s+(?:\([^)]*\)\s*)?(\w+)|type\s+(\w+)|var\s+(\w+)|const\s+(\w+))`),
		"python":     regexp.MustCompile(`^(?:async\s+def\s+(\w+)|def\s+(\w+)|class\s+(\w+))|^    (?:async\s+)?def\s+(\w+)`),
		"javascript": regexp.MustCompile(`^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*(\w+)|class\s+(\w+)|(?:const|let|var)\s+(\w+)\s*=)`),
		"typescript": regexp.MustCompile(`^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\s*\*?\s*(\w+)|class\s+(\w+)|interface\s+(\w+)|type\s+(\w+)\s*[=<]|enum\s+(\w+)|(?:const|let|var)\s+(\w+)\s*[:=])`),
		"java":       regexp.MustCompile(`^\s{0,4}(?:@\w+\s+)*(?:(?:public|private|protected|static|final|abstract|sealed|open|data|internal|override|suspend)\s+)*(?:class|interface|enum|record|object|fun)\s+(\w+)|^\s{2,4}(?:(?:public|private|protected|static|final|abstract|synchronized)\s+)+[\w<>\[\],\s]+\s+(\w+)\s*\(`),
		"rust":       regexp.MustCompile(`^\s{0,4}(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|mod|type|const|static|macro_rules!)\s+(\w+)|^impl(?:<[^>]*>)?\s+([\w:]+)`),
		"c":          regexp.MustCompile(`^(?:(?:static|inline|extern|const|unsigned|signed|struct|enum|virtual)\s+)*[A-Za-z_][\w:<>,\s\*&]*?[\s\*&]+\**([A-Za-z_][\w:~]*)\s*\([^;]*$|^(?:typedef\s+)?(?:struct|class|enum|union|namespace)\s+(\w+)|^#define\s+(\w+)`),
		"shell":      regexp.MustCompile(`^(?:function\s+([\w-]+)|([\w-]+)\s*\(\)\s*\{?)`),
		"sql":        regexp.MustCompile(`(?i)^\s*create\s+(?:or\s+replace\s+)?(?:temporary\s+)?(?:unique\s+)?(?:table|view|index|function|procedure|trigger|sequence|type|materialized\s+view)\s+(?:if\s+not\s+exists\s+)?([\w\.` + "`" + `"]+)`),
	}
})

// splitByDecls finds declaration lines by pattern and attaches the comment
// lines just above each declaration to it.
func splitByDecls(text string, re *regexp.Regexp) Doc {
	ls := lines(text)
	var decls []decl
	for i, l := range ls {
		m := re.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		name := ""
		for _, s := range m[1:] {
			if s != "" {
				name = s
			}
		}
		start := i
		for start > 0 && isComment(ls[start-1]) {
			start--
		}
		if len(decls) > 0 && start <= decls[len(decls)-1].line {
			start = i
		}
		var syms []string
		if name != "" {
			syms = []string{strings.Trim(name, "`\"")}
		}
		decls = append(decls, decl{line: start, symbols: syms})
	}
	return Doc{Chunks: chunkDecls(ls, decls)}
}

func isComment(l string) bool {
	t := strings.TrimSpace(l)
	for _, p := range []string{"//", "#", "/*", "*", "--", "@", "\"\"\""} {
		if strings.HasPrefix(t, p) && !strings.HasPrefix(t, "#define") && !strings.HasPrefix(t, "#include") {
			return true
		}
	}
	return false
}
