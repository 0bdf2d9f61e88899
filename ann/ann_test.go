package ann

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// clustered makes n unit vectors around 200 unit centres, with N(0, 0.06²)
// noise per dimension, then normalised. The centres depend only on dim, so
// calls with different seeds draw different points from one distribution:
// the queries of a benchmark are held-out points, as real queries land
// among the documents they look for. At 256 dimensions the noise is as
// large as the centre, which makes the top 10 within a cluster nearly
// random: a hard case, harder than real embeddings. (With centre
// coordinates N(0,1) the clusters are tight and mutually orthogonal, no
// graph can navigate between them, and int8 codes blur the ranking
// inside them; ANN benchmarks with such data measure the generator.)
func clustered(n, dim int, seed uint64) [][]float32 {
	crng := rand.New(rand.NewPCG(uint64(dim), 0xce))
	centres := make([][]float64, 200)
	for i := range centres {
		centres[i] = make([]float64, dim)
		for j := range centres[i] {
			centres[i][j] = crng.NormFloat64()
		}
		unit64(centres[i])
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float32, n)
	for i := range out {
		c := centres[rng.IntN(len(centres))]
		v := make([]float64, dim)
		for j := range v {
			v[j] = c[j] + 0.06*rng.NormFloat64()
		}
		unit64(v)
		out[i] = make([]float32, dim)
		for j := range v {
			out[i][j] = float32(v[j])
		}
	}
	return out
}

// isotropic makes n uniformly random unit vectors: queries unlike any
// document, the worst case for a graph search.
func isotropic(n, dim int, seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([][]float32, n)
	for i := range out {
		v := make([]float64, dim)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		unit64(v)
		out[i] = make([]float32, dim)
		for j := range v {
			out[i][j] = float32(v[j])
		}
	}
	return out
}

func unit64(v []float64) {
	var s float64
	for _, x := range v {
		s += x * x
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] /= s
	}
}

func tableOf(vs [][]float32) *Table {
	t := &Table{}
	for _, v := range vs {
		t.Add(v)
	}
	return t
}

// exactF32 is the float32 ground truth.
func exactF32(vs [][]float32, q []float32, k int, accept func(uint32) bool) []uint32 {
	top := newTopK(k)
	for i, v := range vs {
		if accept != nil && !accept(uint32(i)) {
			continue
		}
		var s float32
		for j := range v {
			s += v[j] * q[j]
		}
		top.push(Hit{uint32(i), s})
	}
	var out []uint32
	for _, h := range top.sorted() {
		out = append(out, h.ID)
	}
	return out
}

func recall(got []Hit, want []uint32) float64 {
	in := map[uint32]bool{}
	for _, w := range want {
		in[w] = true
	}
	n := 0
	for _, h := range got {
		if in[h.ID] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func TestTableRoundTripAndExact(t *testing.T) {
	vs := clustered(3000, 64, 1)
	tb := tableOf(vs)
	b := tb.Marshal()
	tb2, err := UnmarshalTable(b)
	if err != nil {
		t.Fatal(err)
	}
	if tb2.Len() != 3000 || tb2.Dim != 64 {
		t.Fatalf("%d×%d", tb2.Len(), tb2.Dim)
	}
	qs := clustered(50, 64, 2)
	var r float64
	for _, q := range qs {
		r += recall(tb2.Search(q, 10, nil), exactF32(vs, q, 10, nil))
	}
	// int8 quantisation barely moves the top 10.
	if r /= float64(len(qs)); r < 0.97 {
		t.Errorf("int8 exact scan recall@10 vs float32 = %.3f", r)
	}
	if _, err := UnmarshalTable(b[:len(b)-1]); err == nil {
		t.Error("truncated table accepted")
	}
}

func TestExactScanRanges(t *testing.T) {
	vs := clustered(20000, 32, 3)
	tb := tableOf(vs)
	ranges := []Range{{100, 5000}, {7000, 7001}, {12000, 19999}}
	in := func(i uint32) bool {
		for _, r := range ranges {
			if i >= r.Lo && i < r.Hi {
				return true
			}
		}
		return false
	}
	for _, q := range clustered(20, 32, 4) {
		got := tb.Search(q, 10, ranges)
		// Compare against a single-threaded filtered scan over the same codes.
		top := newTopK(10)
		for i := 0; i < tb.Len(); i++ {
			if in(uint32(i)) {
				top.push(Hit{uint32(i), tb.Dot(q, i)})
			}
		}
		want := top.sorted()
		if len(got) != len(want) {
			t.Fatalf("%d hits, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("hit %d: %+v, want %+v", i, got[i], want[i])
			}
			if !in(got[i].ID) {
				t.Fatalf("hit %d outside the ranges", got[i].ID)
			}
		}
	}
	if len(tb.Search(vs[0], 10, []Range{})) != 0 {
		t.Error("empty ranges should give nothing")
	}
}

func TestGraphRecallAndFilter(t *testing.T) {
	const n, dim = 8000, 64
	vs := clustered(n, dim, 5)
	tb := tableOf(vs)
	g := Build(tb, GraphConfig{Seed: 1})
	qs := clustered(100, dim, 6)
	var r float64
	for _, q := range qs {
		r += recall(g.Search(q, 10, 128, nil), exactF32(vs, q, 10, nil))
	}
	if r /= float64(len(qs)); r < 0.95 {
		t.Errorf("HNSW recall@10 = %.3f, want >= 0.95", r)
	}

	// Filtered: half the ids (a view keeps most of its chunks), checked
	// against the exact scan over the same live set.
	accept := func(i uint32) bool { return i%3 != 0 }
	var rf float64
	for _, q := range qs {
		got := g.Search(q, 10, 128, accept)
		for _, h := range got {
			if !accept(h.ID) {
				t.Fatalf("filtered search returned rejected id %d", h.ID)
			}
		}
		rf += recall(got, exactF32(vs, q, 10, accept))
	}
	if rf /= float64(len(qs)); rf < 0.93 {
		t.Errorf("filtered HNSW recall@10 = %.3f", rf)
	}
	t.Logf("recall@10 %.3f, filtered %.3f", r, rf)
}

func TestGraphDeterministicAndRoundTrip(t *testing.T) {
	vs := clustered(2000, 32, 7)
	tb := tableOf(vs)
	a := Build(tb, GraphConfig{Seed: 9}).Marshal()
	b := Build(tb, GraphConfig{Seed: 9}).Marshal()
	if !bytes.Equal(a, b) {
		t.Fatal("two builds of the same input differ")
	}
	g, err := UnmarshalGraph(a, tb)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g.Marshal(), a) {
		t.Fatal("round trip changed the graph")
	}
	q := clustered(1, 32, 8)[0]
	h1 := Build(tb, GraphConfig{Seed: 9}).Search(q, 5, 32, nil)
	h2 := g.Search(q, 5, 32, nil)
	for i := range h1 {
		if h1[i] != h2[i] {
			t.Fatalf("loaded graph answers differently: %v vs %v", h1, h2)
		}
	}
	for _, cut := range []int{0, 5, 100, len(a) - 1} {
		if _, err := UnmarshalGraph(a[:cut], tb); err == nil {
			t.Errorf("graph truncated to %d bytes accepted", cut)
		}
	}
	if _, err := UnmarshalGraph(a, tableOf(vs[:10])); err == nil {
		t.Error("graph accepted over the wrong table")
	}
}

func TestTinyGraphs(t *testing.T) {
	for _, n := range []int{0, 1, 2, 17} {
		vs := clustered(n, 8, 10)
		g := Build(tableOf(vs), GraphConfig{})
		q := clustered(1, 8, 11)[0]
		got := g.Search(q, 5, 10, nil)
		if len(got) != min(n, 5) {
			t.Errorf("n=%d: %d hits", n, len(got))
		}
	}
}
