package search

import (
	"context"
	"slices"
	"testing"

	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// aboutFile is overlayFile with a front-matter summary, counted in the
// chunk's FieldAbout as the indexer counts it in every chunk of a page.
func aboutFile(path, heading, text, about string, blob byte) store.AnalyzedFile {
	f := overlayFile(path, "", heading, text, blob)
	tf := f.Chunks[0]
	n := 0
	for _, t := range segment.Tiny().Terms(about) {
		x := tf[t]
		x[store.FieldAbout]++
		tf[t] = x
		n++
	}
	f.FieldLen[store.FieldAbout] = uint64(n)
	return f
}

// A page's front-matter summary says what the whole page is about: the
// section of the page it sums up rises above one that says the question's
// words in passing, and --ranking -summary puts it back (TiDB's docs,
// pipelined-dml.md and configure-memory-usage.md, in English).
func TestSummaryField(t *testing.T) {
	files := []store.AnalyzedFile{
		aboutFile("configure-memory-usage.md", "TiDB Memory Control > Configure the memory usage threshold",
			"tidb_server_memory_limit sets the memory limit of a tidb-server instance.",
			"Learn how to configure the memory quota of a query and avoid OOM (out of memory).", 1),
		aboutFile("pipelined-dml.md", "Pipelined DML > Usage",
			"To use Pipelined DML for a large transaction, set tidb_dml_type to bulk.",
			"Introduces the use cases, methods, limitations, and FAQs of Pipelined DML. Pipelined DML enhances TiDB's batch processing capabilities, allowing transaction sizes to bypass TiDB's memory limits.", 2),
		// Pages on other topics, for document frequencies like a corpus's.
		aboutFile("garbage-collection-overview.md", "GC Overview", "TiDB uses MVCC to control transaction concurrency; GC cleans up old versions of data.",
			"Learn about garbage collection in TiDB.", 3),
		aboutFile("br/backup-and-restore-overview.md", "BR Overview", "Back up the cluster data to external storage and restore it.",
			"Learn about the definition and features of TiDB backup and restore.", 4),
		aboutFile("placement-rules-in-sql.md", "Placement Rules in SQL", "Specify the placement of data in a table with SQL statements.",
			"Learn how to schedule placement of tables and partitions using SQL statements.", 5),
	}
	search := func(query string, levers map[string]bool) []Result {
		t.Helper()
		parsed, err := ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		req := Request{Query: query, Parsed: parsed, K: 5, Mode: ModeLexical, View: &store.View{}, Levers: levers,
			Explain: true, NoExpand: true, Overlay: &Overlay{Files: files}}
		s := &Searcher{ReadBlob: func(store.SHA) ([]byte, error) { return nil, context.Canceled }}
		resp, err := s.Search(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Results
	}
	paths := func(rs []Result) []string {
		var ps []string
		for _, r := range rs {
			ps = append(ps, r.Path)
		}
		return ps
	}
	const q = "transaction size limit"
	on := search(q, nil)
	if got := paths(on); len(got) < 2 || !slices.Equal(got[:2], []string{"pipelined-dml.md", "configure-memory-usage.md"}) {
		t.Errorf("%q: %v, want the page whose summary says it first", q, got)
	}
	if x := on[0].Explain; x == nil || !slices.Contains(x.Summary, "size") {
		t.Errorf("--explain of %s: %+v, want the summary's words (size) shown", on[0].Path, x)
	}
	off := search(q, map[string]bool{LeverSummary: false})
	if got := paths(off); len(got) < 2 || !slices.Equal(got[:2], []string{"configure-memory-usage.md", "pipelined-dml.md"}) {
		t.Errorf("%q with -summary: %v, want the page whose text says limit twice first", q, got)
	}
	for _, r := range off {
		if r.Explain != nil && len(r.Explain.Summary) > 0 {
			t.Errorf("with -summary, %s explains summary words %v", r.Path, r.Explain.Summary)
		}
	}
	// A word only summaries say finds no page: a summary is no evidence
	// of a section by itself, it adds to what the text found.
	if got := paths(search("bypass", nil)); len(got) != 0 {
		t.Errorf("bypass (in a summary only): %v, want nothing", got)
	}
}

// The summary field is normalised by its length as BM25F does a field: a
// one-line summary counts more per word than a paragraph abstracting the
// whole page, a page of average summary as it is.
func TestAboutNorms(t *testing.T) {
	v := &store.View{Entries: []store.ViewEntry{
		{Path: "a.md", N: 2, FieldLen: [store.NumFields]uint32{store.FieldAbout: 2 * 10}}, // 10 words
		{Path: "b.md", N: 1, FieldLen: [store.NumFields]uint32{store.FieldAbout: 50}},     // 50 words
		{Path: "c.md", N: 4, FieldLen: [store.NumFields]uint32{store.FieldAbout: 4 * 30}}, // 30 words
		{Path: "main.go", N: 3, FieldLen: [store.NumFields]uint32{store.FieldBody: 900}},  // none: not in the average
	}}
	n := &aboutNorms{v: v}
	for i, want := range []float64{10.0 / 30, 50.0 / 30, 1, 1} {
		if got := n.of(&v.Entries[i]); got < want-1e-9 || got > want+1e-9 {
			t.Errorf("%s: norm %v, want %v", v.Entries[i].Path, got, want)
		}
	}
	if got := n.of(nil); got != 1 {
		t.Errorf("an overlay file (no entry): %v, want 1", got)
	}
}
