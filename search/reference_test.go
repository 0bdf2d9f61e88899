package search

import (
	"context"
	"testing"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/store"
)

// overlayFile is a one-chunk Markdown file of an overlay (as an org
// search builds its candidates), headed by heading, holding text.
func overlayFile(path, kind, heading, text string, blob byte) store.AnalyzedFile {
	f := overlayPage(path, []string{text}, blob)
	f.Meta.Lang, f.Meta.Kind = "markdown", kind
	f.Meta.Chunks[0].Heading = heading
	return f
}

// The reference prior is lifted when the question writes the name the
// page's best section is headed by, in an org search (no index here: the
// candidates' metadata come with the overlay) as in a local one.
func TestReferencePriorOverlay(t *testing.T) {
	search := func(query string) []PriorFactor {
		t.Helper()
		parsed, err := ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		req := Request{Query: query, Parsed: parsed, K: 5, Mode: ModeLexical, View: &store.View{},
			Overlay: &Overlay{Files: []store.AnalyzedFile{
				overlayFile("docs/system-variables.md", chunk.KindReference, "System variables > `tidb_gc_life_time`",
					"tidb_gc_life_time default 10m0s: how long gc keeps data", 1),
				overlayFile("docs/gc.md", "", "GC", "gc overview: data kept by gc, the default", 2),
			}}}
		s := &Searcher{ReadBlob: func(store.SHA) ([]byte, error) { return nil, context.Canceled }}
		resp, err := s.Search(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range resp.Results {
			if r.Path == "docs/system-variables.md" {
				return r.Priors
			}
		}
		t.Fatalf("%s: no docs/system-variables.md among %+v", query, resp.Results)
		return nil
	}
	has := func(ps []PriorFactor) bool {
		for _, p := range ps {
			if p.Name == chunk.KindReference {
				return true
			}
		}
		return false
	}
	if ps := search("gc default data"); !has(ps) {
		t.Errorf("a question naming no entry: priors %+v, want the reference prior", ps)
	}
	if ps := search("tidb_gc_life_time default"); has(ps) {
		t.Errorf("a question naming the entry: priors %+v, want no reference prior", ps)
	}
}
