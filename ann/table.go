package ann

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"unsafe"
)

// Table holds N vectors of Dim int8 codes, each with a scale: vector i is
// Codes[i*Dim:(i+1)*Dim] × Scales[i].
type Table struct {
	Dim    int
	Codes  []int8
	Scales []float32
}

// Len is the number of vectors.
func (t *Table) Len() int { return len(t.Scales) }

// Add appends v, stored as int8 codes scaled by max|v|/127.
func (t *Table) Add(v []float32) {
	if t.Dim == 0 {
		t.Dim = len(v)
	}
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	scale := m / 127
	inv := float32(0)
	if scale > 0 {
		inv = 1 / scale
	}
	for _, x := range v {
		t.Codes = append(t.Codes, int8(math.Round(float64(x*inv))))
	}
	t.Scales = append(t.Scales, scale)
}

// Vector returns vector i, dequantised.
func (t *Table) Vector(i int) []float32 {
	out := make([]float32, t.Dim)
	s := t.Scales[i]
	for j, c := range t.Codes[i*t.Dim : (i+1)*t.Dim] {
		out[j] = float32(c) * s
	}
	return out
}

// Dot is the inner product of query q with vector i.
func (t *Table) Dot(q []float32, i int) float32 {
	return dotF8(q, t.Codes[i*t.Dim:(i+1)*t.Dim]) * t.Scales[i]
}

func dotF8(q []float32, c []int8) float32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * float32(c[i])
		s1 += q[i+1] * float32(c[i+1])
		s2 += q[i+2] * float32(c[i+2])
		s3 += q[i+3] * float32(c[i+3])
	}
	for ; i < len(q); i++ {
		s0 += q[i] * float32(c[i])
	}
	return s0 + s1 + s2 + s3
}

// Hit is one found vector: its id (index in the table) and its inner
// product with the query (cosine similarity for unit vectors).
type Hit struct {
	ID    uint32
	Score float32
}

// Range is a half-open range [Lo, Hi) of ids.
type Range struct{ Lo, Hi uint32 }

// Search is the exact scan: the k vectors with the largest inner product
// with q among the ids in ranges (nil: all), best first, ties by id. The
// ranges are split across the available cores.
func (t *Table) Search(q []float32, k int, ranges []Range) []Hit {
	if ranges == nil {
		ranges = []Range{{0, uint32(t.Len())}}
	}
	total := 0
	for _, r := range ranges {
		total += int(r.Hi - r.Lo)
	}
	if k <= 0 || total == 0 {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, total/4096))
	parts := splitRanges(ranges, total, workers)
	tops := make([]topK, len(parts))
	var wg sync.WaitGroup
	for w, part := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			top := newTopK(k)
			for _, r := range part {
				for i := r.Lo; i < r.Hi; i++ {
					top.push(Hit{i, t.Dot(q, int(i))})
				}
			}
			tops[w] = top
		}()
	}
	wg.Wait()
	all := tops[0]
	for _, o := range tops[1:] {
		for _, h := range o.h.items {
			all.push(h)
		}
	}
	return all.sorted()
}

// splitRanges cuts ranges into n parts of about equal size.
func splitRanges(ranges []Range, total, n int) [][]Range {
	per := (total + n - 1) / n
	var parts [][]Range
	var cur []Range
	fill := 0
	for _, r := range ranges {
		for r.Lo < r.Hi {
			take := min(uint32(per-fill), r.Hi-r.Lo)
			cur = append(cur, Range{r.Lo, r.Lo + take})
			r.Lo += take
			fill += int(take)
			if fill == per {
				parts = append(parts, cur)
				cur, fill = nil, 0
			}
		}
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// topK keeps the k best hits in a heap with the worst on top.
type topK struct {
	k int
	h binHeap[Hit]
}

func newTopK(k int) topK {
	return topK{k: k, h: binHeap[Hit]{first: func(a, b Hit) bool { return better(b, a) }}}
}

func (t *topK) push(h Hit) {
	if t.h.len() < t.k {
		t.h.push(h)
	} else if better(h, t.h.top()) {
		t.h.replaceTop(h)
	}
}

func (t *topK) sorted() []Hit {
	out := append([]Hit(nil), t.h.items...)
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}

// better orders hits: higher score first, then lower id (determinism).
func better(a, b Hit) bool { return a.Score > b.Score || a.Score == b.Score && a.ID < b.ID }

const tableVersion = 1

// Marshal encodes the table: version, dim, n, scales (little-endian
// float32), then the codes.
func (t *Table) Marshal() []byte {
	n := t.Len()
	b := make([]byte, 0, 9+4*n+len(t.Codes))
	b = append(b, tableVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(t.Dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	for _, s := range t.Scales {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s))
	}
	for _, c := range t.Codes {
		b = append(b, byte(c))
	}
	return b
}

// UnmarshalTable decodes what Marshal wrote. The codes alias b.
func UnmarshalTable(b []byte) (*Table, error) {
	if len(b) < 9 || b[0] != tableVersion {
		return nil, errors.New("vector table: bad header")
	}
	dim := int(binary.LittleEndian.Uint32(b[1:]))
	n := int(binary.LittleEndian.Uint32(b[5:]))
	if dim <= 0 || len(b) != 9+4*n+n*dim {
		return nil, fmt.Errorf("vector table: %d bytes for %d vectors of %d", len(b), n, dim)
	}
	t := &Table{Dim: dim, Scales: make([]float32, n)}
	for i := range t.Scales {
		t.Scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[9+4*i:]))
	}
	if codes := b[9+4*n:]; len(codes) > 0 {
		t.Codes = unsafe.Slice((*int8)(unsafe.Pointer(&codes[0])), len(codes))
	}
	return t, nil
}

// EncodeVector quantises v to the stored form: a little-endian float32
// scale, then one int8 code per dimension.
func EncodeVector(v []float32) []byte {
	var t Table
	t.Add(v)
	b := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(v)), math.Float32bits(t.Scales[0]))
	for _, c := range t.Codes {
		b = append(b, byte(c))
	}
	return b
}

// NewTable makes a table of n zero rows.
func NewTable(dim, n int) *Table {
	return &Table{Dim: dim, Codes: make([]int8, dim*n), Scales: make([]float32, n)}
}

// SetRow puts an EncodeVector result into row i.
func (t *Table) SetRow(i int, enc []byte) error {
	if len(enc) != 4+t.Dim {
		return fmt.Errorf("vector of %d dimensions in a table of %d", len(enc)-4, t.Dim)
	}
	t.Scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(enc))
	for j, c := range enc[4:] {
		t.Codes[i*t.Dim+j] = int8(c)
	}
	return nil
}
