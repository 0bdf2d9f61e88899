package search

import (
	"fmt"
	"math"

	"github.com/git-kb/git-kb/chunk"
)

// focusExp is the power of the share of a page's sections that the
// question matches, by which focus scales the page's score. Chosen on the
// dev sets among 0.1, 0.15, 0.2 and 0.25, Markdown only (MRR@10 docs-dev
// .814 -> .815 / .815 / .818 / .820, docs-more .781 -> .781 / .782 / .783
// / .779; code-dev .867 -> .892 at each: a design note in Go's source
// passed the implementation): see docs/MEASURED.md, "Retrieval quality".
var focusExp = 0.2

// focus scales a Markdown page by the share of its sections (its chunks)
// that hold a word of the question, to the power focusExp: of two pages
// whose best sections answer alike, the one that is about the question
// throughout is likelier the answer than a long one that mentions it in
// a section or two (the scope hypothesis of Robertson & Walker, 1994: a
// long document may cover more topics, not one topic at more length).
// BM25F's length normalisation works within a chunk and the whole-file
// field; neither sees how many of a page's sections are on the subject.
// Chunks are counted, not headings: a long section cut over several
// chunks counts as several, which holds its length against the page too
// (counting headings measured lower: docs-held .707 -> .687; docs/MEASURED.md,
// "Retrieval quality").
// Code is left alone: a package's file collects declarations, and the
// one function that answers a question is in a file about much else
// (every file kind scaled alike cost code-dev .867 -> .850 and left
// polaris-dev a question out of the top 10).
func focus(f *fileHits) {
	n := int(f.entry.N)
	m := min(len(f.hits), n)
	if n <= 1 || m >= n || chunk.Lang(f.entry.Path) != "markdown" {
		return
	}
	w := math.Round(1000*math.Pow(float64(m)/float64(n), focusExp)) / 1000 // shown with three decimals
	f.factor(PriorFactor{Name: "focus", Factor: w, Reason: fmt.Sprintf("matches the question in %d of its %d sections", m, n)})
}
