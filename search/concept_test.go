package search

import (
	"math"
	"slices"
	"testing"

	"github.com/git-kb/git-kb/segment"
)

// TestConceptScores: a concept scores as the better of its word's own
// evidence and its translations' (best plus conceptTie of the rest), so
// a chunk with both counts the concept once, and words without
// translations are left to the plain sum.
func TestConceptScores(t *testing.T) {
	lists := []termPostings{
		{term: queryTerm{term: "删除", weight: 1}, idx: 0},
		{term: queryTerm{term: "实例", weight: 1}, idx: 1}, // no translation found
		{term: queryTerm{term: "delete", weight: 0.8, from: "删除"}, idx: 2},
		{term: queryTerm{term: "remove", weight: 0.8, from: "删除"}, idx: 3},
		{term: queryTerm{term: "job", weight: 0.3, from: feedbackFrom}, idx: 4},
	}
	cs := newConceptScores(lists, 10, nil)
	if cs == nil || cs.k != 1 {
		t.Fatalf("concepts: %+v, want one (删除)", cs)
	}
	for li, want := range []bool{true, false, true, true, false} {
		if got := cs.add(li, 7, 0); got != want {
			t.Errorf("list %d (%s) counted in a concept: %v, want %v", li, lists[li].term.term, got, want)
		}
	}
	if bit := cs.matchedBit(2); bit != 1<<0 {
		t.Errorf("a translation found sets bit %b, want its word's (1)", bit)
	}
	tie := conceptTie
	for _, tc := range []struct {
		name                string
		own, delete, remove float64
		want                float64
	}{
		{"translations only", 0, 3, 1, 3 + tie*1},
		{"both: the better counts", 2, 3, 1, 3 + tie*1 - 2},
		{"own word better: nothing added", 5, 3, 1, 0},
		{"nothing", 0, 0, 0, 0},
	} {
		cs := newConceptScores(lists, 10, nil)
		cs.add(0, 3, tc.own)
		cs.add(2, 3, tc.delete)
		cs.add(3, 3, tc.remove)
		if got := cs.gain(3); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: gain %v, want %v", tc.name, got, tc.want)
		}
		if got := cs.gain(4); got != 0 {
			t.Errorf("%s: an untouched chunk gains %v", tc.name, got)
		}
	}
}

// TestConceptSpansSetCoverage: a glossary word the analyzer cut into two
// of the user's terms (构建器: 构建 + 器) has no term of its own; its
// translation found counts as both pieces found.
func TestConceptSpansSetCoverage(t *testing.T) {
	lists := []termPostings{
		{term: queryTerm{term: "构建", weight: 1}, idx: 0},
		{term: queryTerm{term: "器", weight: 1}, idx: 1},
		{term: queryTerm{term: "字符串", weight: 1}, idx: 2},
		{term: queryTerm{term: "builder", weight: 0.8, from: "构建器"}, idx: 3},
		{term: queryTerm{term: "string", weight: 0.8, from: "字符串"}, idx: 4},
	}
	cs := newConceptScores(lists, 10, map[string][]string{"构建器": {"构建", "器"}})
	if bit := cs.matchedBit(3); bit != 1<<0|1<<1 {
		t.Errorf("builder found sets bits %b, want 构建's and 器's (11)", bit)
	}
	if bit := cs.matchedBit(4); bit != 1<<2 {
		t.Errorf("string found sets bits %b, want 字符串's (100)", bit)
	}
	if cs := newConceptScores(lists, 10, nil); cs.matchedBit(3) != 0 {
		t.Errorf("without the span, builder stands for no term of the user's: bits %b", cs.matchedBit(3))
	}
}

// TestExpandQuerySpans: with the real analyzer and glossary, a question's
// 构建器 is cut 构建 + 器 and expanded whole to builder; expandQuery
// records which of the user's terms the word spans.
func TestExpandQuerySpans(t *testing.T) {
	req := Request{Query: "高效拼接大量字符串的构建器"}
	q, err := analyze(req, segment.Full())
	if err != nil {
		t.Fatal(err)
	}
	expandQuery(req, q)
	if got := q.spans["构建器"]; !slices.Equal(got, []string{"构建", "器"}) {
		t.Fatalf("spans[构建器] = %v, want [构建 器] (terms %v)", got, q.words())
	}
	if _, ok := q.spans["字符串"]; ok {
		t.Errorf("字符串 is a term of its own, no span: %v", q.spans)
	}
}
