package ann

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas/blas32"
)

// GraphConfig are the HNSW construction parameters.
type GraphConfig struct {
	M              int    // neighbours per node on upper layers (default 16)
	EfConstruction int    // candidate list size while building (default 128)
	Seed           uint64 // level draws; same seed + same table = same graph
}

// Graph is a hierarchical navigable small-world graph over a Table.
// Node i is vector i of the table. Layer 0 holds every node with up to 2M
// neighbours; layer l holds the nodes whose drawn level is at least l,
// with up to M neighbours each.
type Graph struct {
	t        *Table
	m, m0    int
	s0       int // layer-0 slots per node: m0, or more while building
	efc      int
	entry    uint32
	maxLevel int
	levels   []uint8
	// Layer 0: node i's neighbours are nb0[i*m0 : i*m0+n0[i]].
	n0  []uint8
	nb0 []uint32
	// Upper layers: node i's layer-l list (l >= 1) starts at
	// up[upOff[i]+(l-1)*(m+1)]: a count, then m slots.
	upOff []uint32
	up    []uint32

	// Build-time only: dequantised vectors (float arithmetic is faster
	// than int8 in pure Go) and each link's distance, so that a full
	// neighbour list can take a nearer node without recomputing.
	f32   []float32
	dist0 []float32
	distU []float32

	visited sync.Pool
}

// Build inserts every vector of t, in id order.
func Build(t *Table, cfg GraphConfig) *Graph {
	if cfg.M <= 0 {
		cfg.M = 16
	}
	if cfg.EfConstruction <= 0 {
		cfg.EfConstruction = 128
	}
	g := newGraph(t, cfg.M, cfg.EfConstruction)
	n := t.Len()
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6b62)) // deterministic
	mL := 1 / math.Log(float64(cfg.M))
	g.levels = make([]uint8, n)
	g.upOff = make([]uint32, n)
	for i := range g.levels {
		l := int(-math.Log(1-rng.Float64()) * mL)
		g.levels[i] = uint8(min(l, 15))
		g.upOff[i] = uint32(len(g.up))
		g.up = append(g.up, make([]uint32, int(g.levels[i])*(g.m+1))...)
	}
	g.s0 = g.m0 * 3 / 2 // slack: see link
	g.n0 = make([]uint8, n)
	g.nb0 = make([]uint32, n*g.s0)
	g.dist0 = make([]float32, n*g.s0)
	g.distU = make([]float32, len(g.up))
	g.f32 = make([]float32, len(t.Codes))
	for i := range n {
		copy(g.f32[i*t.Dim:], t.Vector(i))
	}
	for i := 0; i < n; i++ {
		g.insert(uint32(i))
	}
	g.finish()
	g.f32, g.dist0, g.distU = nil, nil, nil
	return g
}

// bdist is the build-time distance between two nodes. Building spends
// three quarters of its time here, so it uses gonum's assembly dot product
// (SSE on amd64, pure Go elsewhere): 3× the unrolled Go loop at 256
// dimensions.
func (g *Graph) bdist(i, j uint32) float32 {
	d := g.t.Dim
	return 1 - blas32.Dot(
		blas32.Vector{N: d, Inc: 1, Data: g.f32[int(i)*d : int(i+1)*d]},
		blas32.Vector{N: d, Inc: 1, Data: g.f32[int(j)*d : int(j+1)*d]})
}

func newGraph(t *Table, m, efc int) *Graph {
	g := &Graph{t: t, m: m, m0: 2 * m, s0: 2 * m, efc: efc}
	g.visited.New = func() any { return &visitSet{marks: make([]uint32, t.Len())} }
	return g
}

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.levels) }

func (g *Graph) neighbours(i uint32, l int) []uint32 {
	if l == 0 {
		o := int(i) * g.s0
		return g.nb0[o : o+int(g.n0[i])]
	}
	o := int(g.upOff[i]) + (l-1)*(g.m+1)
	return g.up[o+1 : o+1+int(g.up[o])]
}

// setNeighbours replaces node i's list on layer l (build time).
func (g *Graph) setNeighbours(i uint32, l int, ns []cand) {
	var slots []uint32
	var dists []float32
	if l == 0 {
		o := int(i) * g.s0
		slots, dists = g.nb0[o:o+g.s0], g.dist0[o:o+g.s0]
		g.n0[i] = uint8(len(ns))
	} else {
		o := int(g.upOff[i]) + (l-1)*(g.m+1)
		g.up[o] = uint32(len(ns))
		slots, dists = g.up[o+1:o+1+g.m], g.distU[o+1:o+1+g.m]
	}
	for j, c := range ns {
		slots[j], dists[j] = c.id, c.d
	}
}

// linkDists are the distances of node i's layer-l links (build time).
func (g *Graph) linkDists(i uint32, l int) []float32 {
	if l == 0 {
		o := int(i) * g.s0
		return g.dist0[o : o+int(g.n0[i])]
	}
	o := int(g.upOff[i]) + (l-1)*(g.m+1)
	return g.distU[o+1 : o+1+int(g.up[o])]
}

// slots is how long a list may grow while building.
func (g *Graph) slots(l int) int {
	if l == 0 {
		return g.s0
	}
	return g.m
}

func (g *Graph) maxDegree(l int) int {
	if l == 0 {
		return g.m0
	}
	return g.m
}

func (g *Graph) insert(q uint32) {
	level := int(g.levels[q])
	if q == 0 {
		g.entry, g.maxLevel = 0, level
		return
	}
	dist := func(i uint32) float32 { return g.bdist(q, i) }
	ep := []cand{{g.entry, dist(g.entry)}}
	for l := g.maxLevel; l > level; l-- {
		ep = g.searchLayer(dist, ep, 1, l, nil)
	}
	for l := min(level, g.maxLevel); l >= 0; l-- {
		w := g.searchLayer(dist, ep, g.efc, l, nil)
		ns := g.selectHeuristic(w, g.maxDegree(l))
		g.setNeighbours(q, l, ns)
		for _, e := range ns {
			g.link(e.id, q, e.d, l)
		}
		ep = w
	}
	if level > g.maxLevel {
		g.entry, g.maxLevel = q, level
	}
}

// link adds q to e's neighbours on layer l. Lists may grow to slack×their
// degree; only then is the paper's heuristic run to shrink them back, which
// keeps the long links between clusters (a plain keep-the-nearest rule
// evicts them and splits clustered data into islands) at a fraction of
// the quadratic cost per link. finish trims what is left over.
func (g *Graph) link(e, q uint32, d float32, l int) {
	cur, ds := g.neighbours(e, l), g.linkDists(e, l)
	cs := make([]cand, 0, len(cur)+1)
	for j, n := range cur {
		cs = append(cs, cand{n, ds[j]})
	}
	cs = append(cs, cand{q, d})
	if len(cs) > g.slots(l) {
		sort.Slice(cs, func(i, j int) bool { return cs[i].less(cs[j]) })
		cs = g.selectHeuristic(cs, g.maxDegree(l))
	}
	g.setNeighbours(e, l, cs)
}

// finish shrinks every over-full list to its degree.
func (g *Graph) finish() {
	for i := range uint32(g.Len()) {
		for l := 0; l <= int(g.levels[i]); l++ {
			cur := g.neighbours(i, l)
			if len(cur) <= g.maxDegree(l) {
				continue
			}
			ds := g.linkDists(i, l)
			cs := make([]cand, len(cur))
			for j, n := range cur {
				cs[j] = cand{n, ds[j]}
			}
			sort.Slice(cs, func(a, b int) bool { return cs[a].less(cs[b]) })
			g.setNeighbours(i, l, g.selectHeuristic(cs, g.maxDegree(l)))
		}
	}
	// Compact layer 0 to its final degree.
	if g.s0 != g.m0 {
		nb := make([]uint32, g.Len()*g.m0)
		for i := range g.Len() {
			copy(nb[i*g.m0:], g.neighbours(uint32(i), 0))
		}
		g.nb0, g.s0 = nb, g.m0
	}
}

// selectHeuristic is the paper's Algorithm 4 (without extending the
// candidates): take candidates nearest first, keeping one only if it is
// closer to the base than to every neighbour kept so far. This spreads the
// links across directions instead of bunching them in one cluster. Then,
// as the paper's keepPrunedConnections, fill the remaining slots with the
// nearest discarded candidates: on tightly clustered data the heuristic
// alone leaves nodes with a handful of links and recall drops. cs must be
// sorted nearest first.
func (g *Graph) selectHeuristic(cs []cand, m int) []cand {
	if len(cs) <= m {
		return cs
	}
	out := make([]cand, 0, m)
	var pruned []cand
	for _, c := range cs {
		ok := true
		for _, r := range out {
			if g.bdist(c.id, r.id) < c.d {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, c)
			if len(out) == m {
				return out
			}
		} else if len(pruned) < m {
			pruned = append(pruned, c)
		}
	}
	for _, c := range pruned {
		if len(out) == m {
			break
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].less(out[j]) })
	return out
}

// cand is a node and its distance to the current query.
type cand struct {
	id uint32
	d  float32
}

func (a cand) less(b cand) bool { return a.d < b.d || a.d == b.d && a.id < b.id }

type visitSet struct {
	marks []uint32
	gen   uint32
}

func (v *visitSet) reset() {
	v.gen++
	if v.gen == 0 {
		clear(v.marks)
		v.gen = 1
	}
}

// searchLayer is the paper's Algorithm 2: a best-first walk from the entry
// points that keeps the ef nearest nodes seen, stopping when the nearest
// unexpanded candidate is farther than the farthest kept. With a filter,
// every node is walked through but only accepted ones are kept, so the
// walk crosses regions of rejected nodes. Returns the kept nodes, nearest
// first.
func (g *Graph) searchLayer(dist func(uint32) float32, ep []cand, ef, l int, accept func(uint32) bool) []cand {
	vs := g.visited.Get().(*visitSet)
	defer g.visited.Put(vs)
	vs.reset()
	cands := binHeap[cand]{first: cand.less}                               // nearest on top
	res := binHeap[cand]{first: func(a, b cand) bool { return b.less(a) }} // farthest on top
	for _, e := range ep {
		vs.marks[e.id] = vs.gen
		cands.push(e)
		if accept == nil || accept(e.id) {
			res.push(e)
		}
	}
	for cands.len() > 0 {
		c := cands.pop()
		if res.len() >= ef && c.d > res.top().d {
			break
		}
		for _, n := range g.neighbours(c.id, l) {
			if vs.marks[n] == vs.gen {
				continue
			}
			vs.marks[n] = vs.gen
			d := dist(n)
			if res.len() < ef || d < res.top().d {
				cands.push(cand{n, d})
				if accept == nil || accept(n) {
					if res.len() < ef {
						res.push(cand{n, d})
					} else {
						res.replaceTop(cand{n, d})
					}
				}
			}
		}
	}
	out := make([]cand, res.len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = res.pop()
	}
	return out
}

// Search returns the k nearest accepted nodes to q (accept nil: all),
// best first. ef is the size of the candidate list; it is raised to k.
func (g *Graph) Search(q []float32, k, ef int, accept func(uint32) bool) []Hit {
	if g.Len() == 0 || k <= 0 {
		return nil
	}
	ef = max(ef, k)
	dist := func(i uint32) float32 { return 1 - g.t.Dot(q, int(i)) }
	ep := []cand{{g.entry, dist(g.entry)}}
	for l := g.maxLevel; l > 0; l-- {
		ep = g.searchLayer(dist, ep, 1, l, nil)
	}
	w := g.searchLayer(dist, ep, ef, 0, accept)
	out := make([]Hit, 0, k)
	for _, c := range w[:min(k, len(w))] {
		out = append(out, Hit{c.id, 1 - c.d})
	}
	return out
}
