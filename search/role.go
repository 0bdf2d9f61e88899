package search

import (
	"path"
	"slices"
	"sort"
	"strings"
)

// Roles (lever "role"). A language's conventions give some files a part
// in their directory that no word of theirs says: a command's entry point
// (the function main: Go's package main, cmd/vet/main.go, and C's, Rust's,
// Python's main) and a package's documentation (Go's doc.go, which holds
// the package comment, and a directory's README). A question that asks
// for the part (入口, 主函数, 主程序: main; 文档, 说明: doc, readme) and
// names the directory (vet 命令的入口, gob 编码格式说明) asks for that file,
// but words alone rank the code that talks about the subject above a
// main.go of fifty lines that hands off to it, or a doc.go written in
// prose. So a file among the best (nameWindow) that holds a part the
// question asks for, and whose name (a generic one's directory, see
// nameWords) says one of the question's other concepts, is scaled by
// 1+roleWeight, as a declaration the question names is (qualified.go).
// A word asks for a part when any of its translations names it, not
// only the first maxExpandedWords that are searched: the cut keeps a
// word's evidence to its most specific translations, while asking is a
// yes or no (说明: note, description, explain, readme); and only the
// glossary's translations, not the words CC-CEDICT's senses are cut
// into (主要, "main, principal", asks for no entry point). Lexical mode
// only, as the name factor.
var roleWeight = 0.3

// fileRole is a part a file plays in its directory.
type fileRole struct {
	name  string          // shown in --explain
	asked map[string]bool // words (as the analyzer cuts them) that ask for it
	holds func(s *Searcher, f *fileHits) bool
}

var fileRoles = []fileRole{
	{
		name:  "entry point",
		asked: map[string]bool{"main": true, "entrypoint": true},
		holds: func(s *Searcher, f *fileHits) bool { return s.fileDeclares(f, "main") },
	},
	{
		name:  "package documentation",
		asked: map[string]bool{"doc": true, "docs": true, "documentation": true, "godoc": true, "readme": true},
		holds: func(_ *Searcher, f *fileHits) bool {
			base := strings.ToLower(path.Base(f.entry.Path))
			stem, _, _ := strings.Cut(base, ".")
			return stem == "readme" || stem == "doc" && path.Ext(base) == ".go"
		},
	},
}

// asksRole reports whether concept c of q asks for role r: its word, or
// one of the user's terms it spans (the main of "main function"), is a
// word of r (main, readme), or one of the word's translations in the
// glossary (every one, q.allTo) is. A translation CC-CEDICT gives does
// not ask: 主要 (main, principal) and 基本 (basic, main) say main of
// what matters most, not of a program's entry.
func (q *query) asksRole(c nameConcept, r fileRole) bool {
	if r.asked[c.word] || slices.ContainsFunc(q.spans[c.word], func(t string) bool { return r.asked[t] }) {
		return true
	}
	for _, to := range q.allTo[c.word] {
		if slices.ContainsFunc(q.an.Terms(to), func(t string) bool { return r.asked[t] }) {
			return true
		}
	}
	return false
}

// weighRoles is the role stage: among the best files, those holding a
// part the question asks for, named by another of its concepts, are
// scaled up, and the window reordered (stably).
func (s *Searcher) weighRoles(q *query, concepts []nameConcept, files []*fileHits) {
	if roleWeight <= 0 || len(concepts) < 2 {
		return
	}
	n := min(len(files), nameWindow)
	moved := false
	for _, r := range fileRoles {
		var subject []nameConcept
		for _, c := range concepts {
			if !q.asksRole(c, r) {
				subject = append(subject, c)
			}
		}
		if len(subject) == len(concepts) || len(subject) == 0 {
			continue // the question does not ask for r, or asks nothing else
		}
		for _, f := range files[:n] {
			if slices.ContainsFunc(f.priors, func(p PriorFactor) bool { return p.Name == "role" }) ||
				nameCoverage(subject, nameWords(f.entry.Path)) == 0 || !r.holds(s, f) {
				continue
			}
			f.factor(PriorFactor{Name: "role", Factor: 1 + roleWeight,
				Reason: "the question asks for the " + r.name + " of what its name says"})
			moved = true
		}
	}
	if moved {
		sort.SliceStable(files[:n], func(i, j int) bool { return files[i].score > files[j].score })
	}
}
