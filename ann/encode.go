package ann

import (
	"encoding/binary"
	"errors"
	"fmt"
)

const graphVersion = 1

// Marshal encodes the graph's links (not its vectors: those live once, in
// the Table). Layout, little-endian:
//
//	version u8, n u32, m u16, efc u16, maxLevel u8, entry u32
//	levels  [n]u8
//	layer 0 for each node: count u8, count × u32
//	upper   for each node, for l in 1..level: count u8, count × u32
//
// The same graph always encodes to the same bytes.
func (g *Graph) Marshal() []byte {
	n := g.Len()
	size := 13 + n + n
	for i := range n {
		size += 4 * int(g.n0[i])
	}
	b := make([]byte, 0, size+len(g.up)*4)
	b = append(b, graphVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint16(b, uint16(g.m))
	b = binary.LittleEndian.AppendUint16(b, uint16(g.efc))
	b = append(b, uint8(g.maxLevel))
	b = binary.LittleEndian.AppendUint32(b, g.entry)
	b = append(b, g.levels...)
	for i := range uint32(n) {
		ns := g.neighbours(i, 0)
		b = append(b, uint8(len(ns)))
		for _, x := range ns {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
	}
	for i := range uint32(n) {
		for l := 1; l <= int(g.levels[i]); l++ {
			ns := g.neighbours(i, l)
			b = append(b, uint8(len(ns)))
			for _, x := range ns {
				b = binary.LittleEndian.AppendUint32(b, x)
			}
		}
	}
	return b
}

var errGraph = errors.New("hnsw graph: corrupt encoding")

// UnmarshalGraph decodes a graph over table t.
func UnmarshalGraph(b []byte, t *Table) (*Graph, error) {
	if len(b) < 14 || b[0] != graphVersion {
		return nil, errGraph
	}
	n := int(binary.LittleEndian.Uint32(b[1:]))
	if n != t.Len() {
		return nil, fmt.Errorf("hnsw graph has %d nodes, its vector table %d", n, t.Len())
	}
	m := int(binary.LittleEndian.Uint16(b[5:]))
	g := newGraph(t, m, int(binary.LittleEndian.Uint16(b[7:])))
	g.maxLevel = int(b[9])
	g.entry = binary.LittleEndian.Uint32(b[10:])
	p := 14
	if len(b) < p+n || m == 0 {
		return nil, errGraph
	}
	g.levels = append([]uint8(nil), b[p:p+n]...)
	p += n
	g.upOff = make([]uint32, n)
	total := 0
	for i, l := range g.levels {
		g.upOff[i] = uint32(total)
		total += int(l) * (m + 1)
	}
	g.up = make([]uint32, total)
	g.n0 = make([]uint8, n)
	g.nb0 = make([]uint32, n*g.m0)
	list := func(max int, dst []uint32) (int, error) {
		if p >= len(b) {
			return 0, errGraph
		}
		c := int(b[p])
		p++
		if c > max || p+4*c > len(b) {
			return 0, errGraph
		}
		for j := range c {
			x := binary.LittleEndian.Uint32(b[p+4*j:])
			if int(x) >= n {
				return 0, errGraph
			}
			dst[j] = x
		}
		p += 4 * c
		return c, nil
	}
	for i := range n {
		c, err := list(g.m0, g.nb0[i*g.m0:])
		if err != nil {
			return nil, err
		}
		g.n0[i] = uint8(c)
	}
	for i := range n {
		for l := 1; l <= int(g.levels[i]); l++ {
			o := int(g.upOff[i]) + (l-1)*(m+1)
			c, err := list(m, g.up[o+1:])
			if err != nil {
				return nil, err
			}
			g.up[o] = uint32(c)
		}
	}
	if p != len(b) || (n > 0 && int(g.entry) >= n) {
		return nil, errGraph
	}
	return g, nil
}
