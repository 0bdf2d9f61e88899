package search

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/git-kb/git-kb/ann"
)

// TestCachedTableSearch: a graph answers when most of the segment is live,
// the exact scan when the view keeps little of it; both respect the ranges.
func TestCachedTableSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tb := &ann.Table{}
	vec := func() []float32 {
		v := make([]float32, 32)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return unit(v)
	}
	for range 2000 {
		tb.Add(vec())
	}
	ct := &cachedTable{rows: 2000, table: tb, graph: ann.Build(tb, ann.GraphConfig{Seed: 1})}
	in := func(rs []ann.Range, id uint32) bool {
		for _, r := range rs {
			if id >= r.Lo && id < r.Hi {
				return true
			}
		}
		return false
	}
	for _, rs := range [][]ann.Range{{{Lo: 0, Hi: 2000}}, {{Lo: 0, Hi: 900}, {Lo: 1000, Hi: 2000}}, {{Lo: 10, Hi: 60}}} {
		for range 20 {
			q := vec()
			got := ct.search(q, 10, rs)
			want := tb.Search(q, 10, rs)
			if len(got) != len(want) {
				t.Fatalf("%v: %d hits, want %d", rs, len(got), len(want))
			}
			same := 0
			for i := range got {
				if !in(rs, got[i].ID) {
					t.Fatalf("hit %d outside %v", got[i].ID, rs)
				}
				for j := range want {
					if got[i].ID == want[j].ID {
						same++
					}
				}
			}
			if same < 8 {
				t.Errorf("%v: graph and exact share %d of 10", rs, same)
			}
		}
	}
}

func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	s := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= s
	}
	return v
}
