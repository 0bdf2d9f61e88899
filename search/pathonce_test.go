package search

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// TestPathGlobsCompiledOnce: a query's path: globs are compiled once for
// the search's scope and the check that they match a file of the view:
// the two cost one compilation's allocations more than the same query
// without them (they were compiled twice), and answer as before.
func TestPathGlobsCompiledOnce(t *testing.T) {
	var globs []string
	for i := range 24 {
		globs = append(globs, fmt.Sprintf("path:docs/**/part%d-*.md", i))
	}
	view := &store.View{Entries: []store.ViewEntry{{Path: "docs/a/part7-x.md", N: 1}, {Path: "src/main.go", N: 1}}}
	an := segment.Tiny()
	request := func(q string) Request {
		t.Helper()
		parsed, err := ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		return Request{Query: q, Parsed: parsed, View: view}
	}
	run := func(req Request) (*query, error) {
		q, err := analyze(req, an)
		if err != nil {
			return nil, err
		}
		return q, checkFiles(req, q.inPaths)
	}
	with, without := request("回滚 "+strings.Join(globs, " ")), request("回滚")
	allocs := func(req Request) float64 {
		return testing.AllocsPerRun(20, func() {
			if _, err := run(req); err != nil {
				t.Fatal(err)
			}
		})
	}
	once := testing.AllocsPerRun(20, func() {
		if _, err := inPaths(with.Parsed); err != nil {
			t.Fatal(err)
		}
	})
	if extra := allocs(with) - allocs(without); extra > once*1.25 {
		t.Errorf("path: globs cost %.0f allocations beyond the plain query; one compilation is %.0f", extra, once)
	}

	// The same answers: the scope keeps what the globs match, and globs
	// that match no file of the view are refused.
	q, err := run(with)
	if err != nil {
		t.Fatal(err)
	}
	if !q.scope("docs/a/part7-x.md") || q.scope("docs/a/other.md") || q.scope("src/main.go") {
		t.Error("the scope of the path: globs")
	}
	var fe *FilterError
	if _, err := run(request("回滚 path:docs/**/nothing-*.md")); !errors.As(err, &fe) || fe.Op != "path" {
		t.Errorf("globs matching no file: %v", err)
	}
	if _, err := run(request("回滚 path:src/ -path:docs/")); err != nil {
		t.Errorf("path:src/ -path:docs/: %v", err)
	}
}
