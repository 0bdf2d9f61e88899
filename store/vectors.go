package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	badger "github.com/dgraph-io/badger/v4"
)

// ModelKey names an embedding space: an embedder's identity plus the
// version of the text fed to it. Vectors under different keys never mix.
type ModelKey [8]byte

// ModelKeyFor derives the key of an embedder ID and input version.
func ModelKeyFor(embedderID string, inputVersion int) ModelKey {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|input-v%d", embedderID, inputVersion))
	var k ModelKey
	copy(k[:], sum[:])
	return k
}

// VecKey names one cached embedding: a hash of exactly what was embedded.
type VecKey [12]byte

// ModelInfo is the M<model> record: what a ModelKey stands for.
type ModelInfo struct {
	ID      string    `json:"id"`
	Dim     int       `json:"dim"`
	Created time.Time `json:"created"`
}

// VectorTableInfo heads a segment's vector table: the table holds one row
// per chunk ordinal of the segment; Present says which rows are real.
type VectorTableInfo struct {
	Dim     int
	First   uint32 // the segment's first chunk ordinal (row 0)
	Rows    uint32
	Present *roaring.Bitmap // rows (not ordinals) that hold vectors
	parts   uint32
}

// CountPresent counts the rows in [lo, lo+n) that hold vectors.
func (t *VectorTableInfo) CountPresent(lo, n uint32) int {
	return int(t.Present.CardinalityInRange(uint64(lo), uint64(lo)+uint64(n)))
}

// partSize bounds one value of a large record: Badger rejects values near
// its value-log file size (16 MiB here).
const partSize = 4 << 20

func modelKeyRec(mk ModelKey) []byte { return key([]byte{'M'}, mk[:]) }
func vecKey(mk ModelKey, k VecKey) []byte {
	return key([]byte{'e'}, mk[:], k[:])
}
func tableKey(mk ModelKey, seg uint32) []byte { return key([]byte{'x'}, mk[:], be32(seg)) }
func tablePart(mk ModelKey, seg, part uint32) []byte {
	return key([]byte{'y'}, mk[:], be32(seg), be32(part))
}
func graphKey(mk ModelKey, seg uint32) []byte { return key([]byte{'g'}, mk[:], be32(seg)) }
func graphPart(mk ModelKey, seg, part uint32) []byte {
	return key([]byte{'h'}, mk[:], be32(seg), be32(part))
}

// Model reads a model record.
func (d *DB) Model(mk ModelKey) (*ModelInfo, error) {
	var m ModelInfo
	err := d.db.View(func(txn *badger.Txn) error { return getJSON(txn, modelKeyRec(mk), &m) })
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// PutModel records what a model key stands for.
func (d *DB) PutModel(mk ModelKey, m *ModelInfo) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return d.db.Update(func(txn *badger.Txn) error { return txn.Set(modelKeyRec(mk), b) })
}

// CachedVectors calls fn for each key that has a cached embedding, with
// its encoded vector (valid during the call only).
func (d *DB) CachedVectors(mk ModelKey, keys []VecKey, fn func(i int, v []byte) error) error {
	return d.db.View(func(txn *badger.Txn) error {
		for i, k := range keys {
			item, err := txn.Get(vecKey(mk, k))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := item.Value(func(b []byte) error { return fn(i, b) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// CacheVector stores one encoded embedding. Cached vectors are plain
// content-addressed values: visible at once, valid for every view.
func (b *Batch) CacheVector(mk ModelKey, k VecKey, v []byte) error {
	return b.wb.Set(vecKey(mk, k), v)
}

// VectorTable reads a segment's vector table: its header and the encoded
// rows. ErrNotFound if there is none yet.
func (d *DB) VectorTable(mk ModelKey, seg uint32) (*VectorTableInfo, []byte, error) {
	var info *VectorTableInfo
	var data []byte
	err := d.db.View(func(txn *badger.Txn) error {
		hb, err := get(txn, tableKey(mk, seg))
		if err != nil {
			return err
		}
		if info, err = decodeTableInfo(hb); err != nil {
			return err
		}
		data, err = getParts(txn, info.parts, func(p uint32) []byte { return tablePart(mk, seg, p) })
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return info, data, nil
}

// PutVectorTable writes a segment's vector table: the rows first, then the
// header, whose presence makes the table visible.
func (d *DB) PutVectorTable(mk ModelKey, seg uint32, info *VectorTableInfo, data []byte) error {
	parts, err := d.putParts(data, func(p uint32) []byte { return tablePart(mk, seg, p) })
	if err != nil {
		return err
	}
	info.parts = parts
	hb, err := info.encode()
	if err != nil {
		return err
	}
	return d.db.Update(func(txn *badger.Txn) error { return txn.Set(tableKey(mk, seg), hb) })
}

// Graph reads a segment's serialised ANN graph; ErrNotFound if none.
func (d *DB) Graph(mk ModelKey, seg uint32) ([]byte, error) {
	var data []byte
	err := d.db.View(func(txn *badger.Txn) error {
		hb, err := get(txn, graphKey(mk, seg))
		if err != nil {
			return err
		}
		if len(hb) != 4 {
			return corrupt("graph header: bad length")
		}
		data, err = getParts(txn, binary.BigEndian.Uint32(hb), func(p uint32) []byte { return graphPart(mk, seg, p) })
		return err
	})
	return data, err
}

// PutGraph stores a segment's serialised ANN graph.
func (d *DB) PutGraph(mk ModelKey, seg uint32, data []byte) error {
	parts, err := d.putParts(data, func(p uint32) []byte { return graphPart(mk, seg, p) })
	if err != nil {
		return err
	}
	return d.db.Update(func(txn *badger.Txn) error { return txn.Set(graphKey(mk, seg), be32(parts)) })
}

func (d *DB) putParts(data []byte, keyOf func(uint32) []byte) (uint32, error) {
	wb := d.db.NewWriteBatch()
	defer wb.Cancel()
	var n uint32
	for off := 0; off < len(data) || n == 0; off += partSize {
		end := min(off+partSize, len(data))
		if err := wb.Set(keyOf(n), append([]byte(nil), data[off:end]...)); err != nil {
			return 0, err
		}
		n++
	}
	return n, wb.Flush()
}

func getParts(txn *badger.Txn, n uint32, keyOf func(uint32) []byte) ([]byte, error) {
	var out []byte
	for p := range n {
		item, err := txn.Get(keyOf(p))
		if err != nil {
			return nil, fmt.Errorf("part %d of %d: %w", p, n, err)
		}
		if out == nil {
			out = make([]byte, 0, int(n)*int(item.ValueSize()))
		}
		if err := item.Value(func(b []byte) error { out = append(out, b...); return nil }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *VectorTableInfo) encode() ([]byte, error) {
	b := []byte{1}
	b = binary.AppendUvarint(b, uint64(t.Dim))
	b = binary.AppendUvarint(b, uint64(t.First))
	b = binary.AppendUvarint(b, uint64(t.Rows))
	b = binary.AppendUvarint(b, uint64(t.parts))
	pb, err := t.Present.ToBytes()
	if err != nil {
		return nil, err
	}
	return append(b, pb...), nil
}

func decodeTableInfo(b []byte) (*VectorTableInfo, error) {
	r := reader{b: b}
	if r.byte() != 1 {
		return nil, corrupt("vector table header: unknown version")
	}
	t := &VectorTableInfo{Dim: int(r.uvarint()), First: uint32(r.uvarint()), Rows: uint32(r.uvarint()), parts: uint32(r.uvarint())}
	if r.err != nil {
		return nil, r.err
	}
	t.Present = roaring.New()
	if _, err := t.Present.FromBuffer(append([]byte(nil), r.b...)); err != nil {
		return nil, corrupt("vector table header: %v", err)
	}
	return t, nil
}

// VectorTableHeader reads only a segment table's header.
func (d *DB) VectorTableHeader(mk ModelKey, seg uint32) (*VectorTableInfo, error) {
	var info *VectorTableInfo
	err := d.db.View(func(txn *badger.Txn) error {
		hb, err := get(txn, tableKey(mk, seg))
		if err == nil {
			info, err = decodeTableInfo(hb)
		}
		return err
	})
	return info, err
}
