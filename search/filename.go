package search

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// File-name evidence (lever "name"). A file's name is its author's
// one-line summary of what it holds: delete_empty_service.go,
// identify-expensive-queries.md, time_adjust.go. Code search engines rank
// a match in the file name above one in the content (zoekt,
// Sourcegraph); our BM25F counts the path as a field of every chunk, but
// saturation lets a body that repeats a word drown it, and a chunk gains
// as much from a directory name shared by a hundred files as from its
// own name. So a file's score is scaled by how much of the question its
// name says: nameWeight times the share of the question's concepts (a
// word of the user's with its translations, so 清理 meets cleanup and 模板
// meets template) found among the words of its base name, extension left
// out. Lexical mode only: a hybrid score is a fused rank, where any
// factor is a reordering. Each concept the view holds counts alike: weighting them by IDF
// favoured the Chinese words of a code repository, rare in its text and
// never in its names, and measured a little lower on every dev set.
//
// Measured with git kb eval on every dev set (shared + testdata/eval),
// MRR@10 off -> on: see docs/MEASURED.md ("Retrieval quality", the `-name` lever).
var nameWeight = 0.2

// nameWindow is how many of the best files are weighed: the factor is
// at most 1+nameWeight, so a file further down cannot reach the page.
const nameWindow = 100

// nameConcept is one of the user's words and the forms that stand for it:
// the word and its translations.
type nameConcept struct {
	word  string // the user's word, or the word of theirs it is cut from (q.spans)
	forms []string
}

// nameConcepts groups the found query terms into concepts: each of the
// user's words with its translations. Feedback words are not the user's
// question and stay out. A concept none of whose forms the view holds is
// left out, as coverage leaves out words found nowhere: a question is not
// held against a name for words no file has.
func nameConcepts(q *query, c *lexicalCandidates) []nameConcept {
	found := map[string]bool{}
	for _, tp := range c.lists {
		found[tp.term.term] = true
	}
	// A word the analyzer cut into several of the user's terms (构建器:
	// 构建 + 器) is one concept: those terms, the word's translations and
	// theirs. A term two words span (堆 of 最小堆 and 最大堆) goes with the
	// first in the question: the same concepts on every search.
	spanOf := map[string]string{}
	for _, e := range q.expansions {
		for _, t := range q.spans[e.From] {
			if _, ok := spanOf[t]; !ok {
				spanOf[t] = e.From
			}
		}
	}
	at := map[string]int{}
	var out []nameConcept
	for _, t := range q.terms {
		if t.from != "" {
			continue
		}
		key := t.term
		if from, ok := spanOf[t.term]; ok {
			key = from
		}
		if i, ok := at[key]; ok {
			out[i].forms = append(out[i].forms, t.term)
			continue
		}
		at[key] = len(out)
		out = append(out, nameConcept{word: key, forms: []string{t.term}})
	}
	for _, t := range q.terms {
		if t.from == "" {
			continue
		}
		key := t.from
		if from, ok := spanOf[key]; ok {
			key = from
		}
		if i, ok := at[key]; ok {
			out[i].forms = append(out[i].forms, t.term)
		}
	}
	kept := out[:0]
	for _, nc := range out {
		if slices.ContainsFunc(nc.forms, func(f string) bool { return found[f] }) {
			kept = append(kept, nc)
		}
	}
	return kept
}

// nameWords are the analyzed words of a path's base name without its
// extension: config_file_template.go -> config_file_template, config,
// file, template. A name that only says "this directory's own file"
// (genericNames: views/user/index.vue, retry/__init__.py, cmd/vet/main.go,
// rate_limit/README.md) takes its directory's name instead, as module
// resolution does: the directory is what its author named.
func nameWords(p string) map[string]bool {
	base := path.Base(p)
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	stem, _, _ := strings.Cut(base, ".") // index.d.ts, index.test.js
	if dir := path.Dir(p); genericNames[strings.ToLower(stem)] && dir != "." {
		base = path.Base(dir)
	}
	words := map[string]bool{}
	for _, w := range segment.Tiny().Terms(base) {
		words[w] = true
	}
	return words
}

// genericNames are base names (lower case, extension dropped) that name
// the directory's entry point or overview rather than a subject: index
// (JavaScript, TypeScript, Vue, Markdown sites), __init__ (Python), mod
// (Rust), main and doc (Go), README.
var genericNames = map[string]bool{
	"index": true, "_index": true, "__init__": true, "mod": true, "main": true, "doc": true, "readme": true,
}

// nameCoverage is the share of concepts that words hold.
func nameCoverage(concepts []nameConcept, words map[string]bool) float64 {
	if len(concepts) == 0 {
		return 0
	}
	got := 0
	for _, c := range concepts {
		if slices.ContainsFunc(c.forms, func(f string) bool { return words[f] }) {
			got++
		}
	}
	return float64(got) / float64(len(concepts))
}

// weighNames is the name stage: it scales the best files' scores by
// their names' coverage of the question and reorders them (stably: ties
// keep the group stage's order).
func weighNames(concepts []nameConcept, files []*fileHits) {
	if len(concepts) == 0 || nameWeight <= 0 {
		return
	}
	n := min(len(files), nameWindow)
	for _, f := range files[:n] {
		if cov := nameCoverage(concepts, nameWords(f.entry.Path)); cov > 0 {
			f.nameCov = cov
			f.score *= 1 + nameWeight*cov
		}
	}
	sort.SliceStable(files[:n], func(i, j int) bool { return files[i].score > files[j].score })
}

// nameSays reports whether the base name of chunk c's file holds term
// (memoised per file in *named).
func nameSays(v *store.View, c uint32, term string, named *map[*store.ViewEntry]bool) bool {
	e := entryOf(v, c)
	if e == nil {
		return false
	}
	if *named == nil {
		*named = map[*store.ViewEntry]bool{}
	}
	ok, seen := (*named)[e]
	if !seen {
		ok = nameWords(e.Path)[term]
		(*named)[e] = ok
	}
	return ok
}
