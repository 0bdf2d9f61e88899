package search

import (
	"math"
	"testing"
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
	cs := newConceptScores(lists, 10)
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
		cs := newConceptScores(lists, 10)
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
