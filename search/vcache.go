package search

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/git-kb/git-kb/ann"
	"github.com/git-kb/git-kb/store"
)

// VectorCache keeps decoded vector tables, and their HNSW graphs, across
// searches in a long-running process (the MCP server), where decoding them
// for every query would cost more than the scan. A CLI search leaves
// Dense.Cache nil and loads what it needs once.
//
// An entry is reused only while the table's header (rows and vectors
// present) is unchanged: the background embedder may extend a table at any
// time, and the next search then reloads it. Segments themselves never
// change once written.
type VectorCache struct {
	// Graphs makes searches use a segment's stored HNSW graph when most of
	// the segment is live in the view searched.
	Graphs bool

	mu sync.Mutex
	m  map[vcKey]*cachedTable
}

type vcKey struct {
	model store.ModelKey
	seg   uint32
}

type cachedTable struct {
	first, rows uint32
	present     uint64
	info        *store.VectorTableInfo
	table       *ann.Table
	graph       *ann.Graph // nil: none stored, or not loaded
}

// table returns segment seg's vectors from the cache, or loads them.
// It returns store.ErrNotFound when the segment has no vectors.
func (c *VectorCache) table(db *store.DB, mk store.ModelKey, seg uint32) (*cachedTable, error) {
	hdr, err := db.VectorTableHeader(mk, seg)
	if err != nil {
		return nil, err
	}
	k := vcKey{mk, seg}
	c.mu.Lock()
	ct := c.m[k]
	c.mu.Unlock()
	if ct != nil && ct.first == hdr.First && ct.rows == hdr.Rows && ct.present == hdr.Present.GetCardinality() {
		return ct, nil
	}
	ct, err = loadTable(db, mk, seg, c.Graphs)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[vcKey]*cachedTable{}
	}
	c.m[k] = ct
	c.mu.Unlock()
	return ct, nil
}

// loadTable reads and decodes one segment's table and, if asked, its graph.
func loadTable(db *store.DB, mk store.ModelKey, seg uint32, graphs bool) (*cachedTable, error) {
	info, data, err := db.VectorTable(mk, seg)
	if err != nil {
		return nil, err
	}
	t, err := ann.UnmarshalTable(data)
	if err != nil {
		return nil, fmt.Errorf("vector table of segment %d: %w", seg, err)
	}
	ct := &cachedTable{first: info.First, rows: info.Rows, present: info.Present.GetCardinality(), info: info, table: t}
	if graphs && ct.present == uint64(ct.rows) {
		gb, err := db.Graph(mk, seg)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			// A graph that does not fit its table is ignored, not fatal:
			// the exact scan answers instead.
			if g, err := ann.UnmarshalGraph(gb, t); err == nil {
				ct.graph = g
			}
		}
	}
	return ct, nil
}

// graphMinLive is the share of a segment's rows that must be live in the
// view for a graph search to pay: below it, most of what the graph walks is
// filtered out and the exact scan over the live ranges is faster and exact.
const graphMinLive = 0.5

// graphEf is the HNSW candidate list size for dense retrieval. ef 128
// already reaches the int8 scan's own recall@10 (.986) at 100k×256 in
// BenchmarkCompare; the margin covers filtered searches.
const graphEf = 160

// search finds the k nearest live rows of the segment: by graph when one is
// loaded and the view keeps most of the segment, else by the exact scan.
func (ct *cachedTable) search(q []float32, k int, ranges []ann.Range) []ann.Hit {
	if ct.graph != nil {
		live := 0
		for _, r := range ranges {
			live += int(r.Hi - r.Lo)
		}
		if float64(live) >= graphMinLive*float64(ct.rows) {
			accept := func(id uint32) bool {
				i := sort.Search(len(ranges), func(i int) bool { return ranges[i].Hi > id })
				return i < len(ranges) && ranges[i].Lo <= id
			}
			return ct.graph.Search(q, k, max(graphEf, k), accept)
		}
	}
	return ct.table.Search(q, k, ranges)
}
