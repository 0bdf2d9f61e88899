package search

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Qualified names (lever "qualified"). A question that writes a name the
// way code does, package and exported identifier (errors.Is, filepath.Glob,
// http.Client.Do), says where the answer is: the file of that package that
// declares it. Words alone rank the callers as high (every file that calls
// filepath.Glob holds both words), so a file among the best whose
// directory is the package and one of whose chunks declares the name is
// scaled by 1+qualifiedWeight. Only a declaration counts (the chunker's
// symbols: Glob, Client.Do), and only in the package's own directory, so
// a variable that happens to come first (b.N, r.Body) moves nothing.
// Lexical mode only, as the name factor.
var qualifiedWeight = 0.3

// qualifiedRE matches pkg.Name and pkg.Type.Name: a lower-case package
// and exported identifiers, not inside a longer dotted word (a.b.C.d).
var qualifiedRE = regexp.MustCompile(`(?:^|[^\w.])([a-z][a-z0-9_]*)\.([A-Z]\w*(?:\.[A-Z]\w*)?)\b`)

// qualifiedName is a package-qualified identifier of the question.
type qualifiedName struct{ pkg, name string }

func (n qualifiedName) String() string { return n.pkg + "." + n.name }

// qualifiedNames are the package-qualified identifiers in text.
func qualifiedNames(text string) []qualifiedName {
	var out []qualifiedName
	for _, m := range qualifiedRE.FindAllStringSubmatch(text, -1) {
		n := qualifiedName{m[1], m[2]}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// weighQualified is the qualified-names stage: among the best files
// (nameWindow), those in a named package's directory that declare the
// name are scaled up, and the window reordered (stably).
func (s *Searcher) weighQualified(names []qualifiedName, files []*fileHits) {
	if len(names) == 0 || qualifiedWeight <= 0 {
		return
	}
	n := min(len(files), nameWindow)
	moved := false
	for _, f := range files[:n] {
		dir := strings.ToLower(path.Base(path.Dir(f.entry.Path)))
		for _, qn := range names {
			if dir != qn.pkg || !s.fileDeclares(f, qn.name) {
				continue
			}
			f.declares = qn.String()
			f.score *= 1 + qualifiedWeight
			moved = true
			break
		}
	}
	if moved {
		sort.SliceStable(files[:n], func(i, j int) bool { return files[i].score > files[j].score })
	}
}

// fileDeclares reports whether one of f's chunks declares name (the
// chunker's symbol records: Glob, Client.Do).
func (s *Searcher) fileDeclares(f *fileHits, name string) bool {
	m, err := s.blobMeta(f.entry.Blob)
	if err != nil {
		return false
	}
	for _, c := range m.Chunks {
		for _, sym := range c.Symbols {
			if sym == name {
				return true
			}
		}
	}
	return false
}
