package search

import (
	"slices"
	"testing"

	"github.com/git-kb/git-kb/expand"
	"github.com/git-kb/git-kb/store"
)

func TestNameWords(t *testing.T) {
	for p, want := range map[string][]string{
		"admin/job/delete_empty_service.go": {"delete", "empty", "service"},
		"identify-expensive-queries.md":     {"identify", "expensive", "query"},
		"net/http/ReadHeader.go":            {"read", "header"},
		"docs/归档说明.md":                      {"归档", "说明"},
		"Makefile":                          {"makefile"},
		"syscall/zerrors_linux_amd64.go":    {"zerror", "linux"},
	} {
		got := nameWords(p)
		for _, w := range want {
			if !got[w] {
				t.Errorf("nameWords(%q) = %v, lacks %q", p, got, w)
			}
		}
		for _, dir := range []string{"admin", "job", "net", "http", "docs", "store", "go", "md"} {
			if got[dir] {
				t.Errorf("nameWords(%q) holds %q: a directory or extension is not the name", p, dir)
			}
		}
	}
}

// TestNameWordsGeneric: a base name that only says "this directory's own
// file" (index, __init__, mod, main, doc, README) takes its directory's
// name, and nothing else of the path.
func TestNameWordsGeneric(t *testing.T) {
	for p, want := range map[string]string{
		"web/src/views/user/index.vue":  "user",
		"app/retry/__init__.py":         "retry",
		"src/parser/mod.rs":             "parser",
		"cmd/compile/main.go":           "compile",
		"encoding/gob/doc.go":           "gob",
		"docs/rate_limit/README.md":     "limit",
		"web/src/views/user/index.d.ts": "user",
	} {
		got := nameWords(p)
		if !got[want] {
			t.Errorf("nameWords(%q) = %v, lacks its directory's %q", p, got, want)
		}
		for _, w := range []string{"index", "main", "doc", "readme", "src", "views", "cmd", "encoding", "web"} {
			if got[w] {
				t.Errorf("nameWords(%q) holds %q", p, w)
			}
		}
	}
	// At the top of the repository there is no directory to stand in.
	if got := nameWords("README.md"); !got["readme"] {
		t.Errorf("nameWords(README.md) = %v", got)
	}
	// Two pages of one admin front end: the user question's page first.
	q := &query{terms: []queryTerm{{term: "用户", weight: 1}, {term: "页面", weight: 1}, {term: "user", weight: 0.8, from: "用户"}, {term: "page", weight: 0.8, from: "页面"}}}
	c := &lexicalCandidates{}
	for _, w := range []string{"用户", "页面", "user", "page"} {
		c.lists = append(c.lists, termPostings{term: queryTerm{term: w}, ps: []store.Posting{{Chunk: 1}}})
	}
	entries := []store.ViewEntry{{Path: "web/src/views/role/index.vue"}, {Path: "web/src/views/user/index.vue"}}
	files := []*fileHits{{entry: &entries[0], score: 10}, {entry: &entries[1], score: 9.5}}
	weighNames(nameConcepts(q, c), files)
	if files[0].entry.Path != "web/src/views/user/index.vue" {
		t.Errorf("first %s; want the user page, named by its directory", files[0].entry.Path)
	}
}

func TestNameCoverage(t *testing.T) {
	// 没有任何实例的空服务会被定期清理吗, analyzed and expanded as search does.
	q := &query{terms: []queryTerm{
		{term: "没有", weight: 1}, {term: "实例", weight: 1}, {term: "空", weight: 1},
		{term: "服务", weight: 1}, {term: "定期", weight: 1}, {term: "清理", weight: 1},
		{term: "instance", weight: 0.8, from: "实例"}, {term: "empty", weight: 0.8, from: "空"},
		{term: "service", weight: 0.8, from: "服务"}, {term: "cleanup", weight: 0.8, from: "清理"},
		{term: "periodically", weight: 0.8, from: "定期"},
		{term: "job", weight: 0.3, from: feedbackFrom},
	}}
	c := &lexicalCandidates{}
	for _, w := range []string{"没有", "实例", "空", "服务", "清理", "instance", "empty", "service", "cleanup", "job"} {
		c.lists = append(c.lists, termPostings{term: queryTerm{term: w}, ps: []store.Posting{{Chunk: 1}}})
	}
	concepts := nameConcepts(q, c)
	// 定期 and periodically are in no file: the question is not held
	// against a name for them. Feedback's job is not a concept.
	if len(concepts) != 5 {
		t.Fatalf("concepts %v, want 没有 实例 空 服务 清理", concepts)
	}
	for _, tc := range []struct {
		path string
		want float64
	}{
		{"admin/job/delete_empty_service.go", 2.0 / 5}, // empty, service
		{"service/instance_cleanup.go", 2.0 / 5},       // instance, cleanup: not its directory
		{"admin/job/job.go", 0},                        // a feedback word is not the question
		{"cache/role.go", 0},
	} {
		if got := nameCoverage(concepts, nameWords(tc.path)); got != tc.want {
			t.Errorf("nameCoverage(%s) = %.3f, want %.3f", tc.path, got, tc.want)
		}
	}

	// The stage reorders by the scaled scores and leaves unnamed files be.
	entries := []store.ViewEntry{{Path: "cache/role.go"}, {Path: "admin/job/delete_empty_service.go"}, {Path: "service/service.go"}}
	files := []*fileHits{{entry: &entries[0], score: 10}, {entry: &entries[1], score: 9.5}, {entry: &entries[2], score: 8}}
	weighNames(concepts, files)
	if files[0].entry.Path != "admin/job/delete_empty_service.go" || files[0].score != 9.5*(1+nameWeight*2/5) {
		t.Errorf("first %s %.3f; want delete_empty_service.go scaled by its name", files[0].entry.Path, files[0].score)
	}
	if files[1].entry.Path != "cache/role.go" || files[1].score != 10 || files[1].nameCov != 0 {
		t.Errorf("second %s %.3f; want cache/role.go unchanged", files[1].entry.Path, files[1].score)
	}
}

// TestNameConceptsSpans: a word the analyzer cut into several terms (构建器
// -> 构建, 器) is one concept of the question, its translation a form of
// it: strings/builder.go's name says one of the question's three words,
// not none of four.
func TestNameConceptsSpans(t *testing.T) {
	q := &query{
		terms: []queryTerm{
			{term: "字符串", weight: 1}, {term: "构建", weight: 1}, {term: "器", weight: 1}, {term: "拼接", weight: 1},
			{term: "string", weight: 0.8, from: "字符串"}, {term: "builder", weight: 0.8, from: "构建器"},
			{term: "concat", weight: 0.8, from: "拼接"},
		},
		expansions: []expand.Expansion{{From: "字符串", To: []string{"string"}}, {From: "构建器", To: []string{"builder"}}, {From: "拼接", To: []string{"concat"}}},
		spans:      map[string][]string{"构建器": {"构建", "器"}},
	}
	c := &lexicalCandidates{spans: q.spans}
	for _, w := range []string{"字符串", "构建", "器", "拼接", "string", "builder", "concat"} {
		c.lists = append(c.lists, termPostings{term: queryTerm{term: w}, ps: []store.Posting{{Chunk: 1}}})
	}
	concepts := nameConcepts(q, c)
	if len(concepts) != 3 {
		t.Fatalf("concepts %v, want 字符串, 构建器 (构建 器 builder), 拼接", concepts)
	}
	if got := nameCoverage(concepts, nameWords("strings/builder.go")); got != 1.0/3 {
		t.Errorf("nameCoverage(strings/builder.go) = %.3f, want 1/3", got)
	}
	if got := nameCoverage(concepts, nameWords("strings/string_builder.go")); got != 2.0/3 {
		t.Errorf("nameCoverage(string_builder.go) = %.3f, want 2/3", got)
	}
}

// TestNameConceptsSpansOverlap: two words of the question that span one
// term (最小堆 and 最大堆 both cut with 堆) make the same concepts on every
// search: the term goes with the first of them in the question (map
// order chose before, and a name saying 堆 and 最大 covered one concept
// or both by chance). And a spanned term's own translations stay forms
// of its concept (构建 -> build beside 构建器 -> builder): a file named
// build.go still says the question's 构建.
func TestNameConceptsSpansOverlap(t *testing.T) {
	q := &query{
		terms: []queryTerm{
			{term: "最小", weight: 1}, {term: "堆", weight: 1}, {term: "最大", weight: 1},
			{term: "heap", weight: 0.8, from: "最小堆"}, {term: "max", weight: 0.8, from: "最大堆"},
		},
		expansions: []expand.Expansion{{From: "最小堆", To: []string{"heap"}}, {From: "最大堆", To: []string{"max"}}},
		spans:      map[string][]string{"最小堆": {"最小", "堆"}, "最大堆": {"最大", "堆"}},
	}
	c := &lexicalCandidates{spans: q.spans}
	for _, tp := range q.terms {
		c.lists = append(c.lists, termPostings{term: tp, ps: []store.Posting{{Chunk: 1}}})
	}
	for range 20 {
		concepts := nameConcepts(q, c)
		if len(concepts) != 2 || !slices.Equal(concepts[0].forms, []string{"最小", "堆", "heap"}) || !slices.Equal(concepts[1].forms, []string{"最大", "max"}) {
			t.Fatalf("concepts %v, want [最小 堆 heap] [最大 max] (堆 with the first word that spans it)", concepts)
		}
	}

	q = &query{
		terms: []queryTerm{
			{term: "构建", weight: 2}, {term: "器", weight: 1},
			{term: "build", weight: 0.8, from: "构建"}, {term: "builder", weight: 0.8, from: "构建器"},
		},
		expansions: []expand.Expansion{{From: "构建", To: []string{"build"}}, {From: "构建器", To: []string{"builder"}}},
		spans:      map[string][]string{"构建器": {"构建", "器"}},
	}
	c = &lexicalCandidates{spans: q.spans}
	for _, tp := range q.terms {
		c.lists = append(c.lists, termPostings{term: tp, ps: []store.Posting{{Chunk: 1}}})
	}
	concepts := nameConcepts(q, c)
	if got := nameCoverage(concepts, nameWords("cmd/build.go")); got != 1 {
		t.Errorf("concepts %v: nameCoverage(cmd/build.go) = %.3f, want 1 (build is 构建's translation)", concepts, got)
	}
}
