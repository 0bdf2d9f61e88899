package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/s2"
)

// View returns the view of a tree built by pipeline pv, or ErrNotFound. A
// view of another pipeline is not returned: its chunks live under other keys.
// A view stored as a delta is read with its root: two records at most.
func (d *DB) View(pv byte, tree SHA) (*View, error) {
	var v *View
	err := d.db.View(func(txn *badger.Txn) error {
		var err error
		v, err = readView(txn, pv, tree)
		return err
	})
	return v, err
}

func readView(txn *badger.Txn, pv byte, tree SHA) (*View, error) {
	v, delta, err := readRecord(txn, viewKey(pv, tree), 0)
	if err != nil || delta == nil {
		if v != nil {
			v.tree = tree
		}
		return v, err
	}
	// Room for the delta's upserts after the root's entries: applyDelta
	// merges them in place (no second copy of the entries).
	root, rd, err := readRecord(txn, viewKey(pv, delta.root), len(delta.upserts))
	if errors.Is(err, ErrNotFound) {
		return nil, corrupt("the view of tree %x is stored over the view of tree %x, which is missing", tree, delta.root)
	}
	if err != nil {
		return nil, err
	}
	if rd != nil {
		return nil, corrupt("the view of tree %x is stored over the view of tree %x, itself a delta", tree, delta.root)
	}
	applyDelta(v, root, delta)
	v.tree = tree
	return v, nil
}

// readRecord decodes a view record in place, without copying it out of
// Badger first: views are the largest records read whole (megabytes on a
// large repository), and decodeView copies what it keeps.
func readRecord(txn *badger.Txn, key []byte, room int) (v *View, d *viewDelta, err error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	err = item.Value(func(b []byte) error {
		v, d, err = decodeView(b, room)
		return err
	})
	return v, d, err
}

// Ref returns what is known of an indexed commit, or ErrNotFound.
func (d *DB) Ref(commit SHA) (Ref, error) {
	var r Ref
	err := d.db.View(func(txn *badger.Txn) error {
		b, err := get(txn, refKey(commit))
		if err != nil {
			return err
		}
		return decodeRef(commit, b, &r)
	})
	return r, err
}

func decodeRef(commit SHA, b []byte, r *Ref) error {
	if len(b) < 20 {
		return errShort
	}
	r.Commit = commit
	copy(r.Tree[:], b[:20])
	t, _ := binary.Varint(b[20:])
	r.Indexed = time.Unix(t, 0)
	return nil
}

// Refs lists every indexed commit, newest first.
func (d *DB) Refs() ([]Ref, error) {
	var refs []Ref
	err := d.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte("r/"), PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var c SHA
			copy(c[:], it.Item().Key()[2:])
			var r Ref
			if err := it.Item().Value(func(b []byte) error { return decodeRef(c, b, &r) }); err != nil {
				return err
			}
			refs = append(refs, r)
		}
		return nil
	})
	sort.Slice(refs, func(i, j int) bool { return refs[i].Indexed.After(refs[j].Indexed) })
	return refs, err
}

// Segments returns the committed segments.
func (d *DB) Segments() (map[uint32]Segment, error) {
	segs := map[uint32]Segment{}
	err := d.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte("s/"), PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			id := binary.BigEndian.Uint32(it.Item().Key()[2:])
			err := it.Item().Value(func(b []byte) error {
				r := reader{b: b}
				segs[id] = Segment{ID: id, First: uint32(r.uvarint()), N: uint32(r.uvarint())}
				return r.err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return segs, err
}

// BlobHeaders returns the headers of those blobs already indexed under
// pipeline pv in a committed segment.
func (d *DB) BlobHeaders(pv byte, blobs []SHA, committed map[uint32]Segment) (map[SHA]BlobHeader, error) {
	out := make(map[SHA]BlobHeader)
	err := d.db.View(func(txn *badger.Txn) error {
		for _, b := range blobs {
			v, err := get(txn, blobKey(pv, b))
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			h, err := decodeBlobHeader(v)
			if err != nil {
				return fmt.Errorf("blob header %x: %w", b, err)
			}
			if _, ok := committed[h.Seg]; ok {
				out[b] = h
			}
		}
		return nil
	})
	return out, err
}

// BlobMeta returns the chunk descriptions of a blob.
func (d *DB) BlobMeta(pv byte, blob SHA) (*BlobMeta, error) {
	var m BlobMeta
	key := metaKey(pv, blob)
	err := d.db.View(func(txn *badger.Txn) error {
		return readValue(txn, key, func(b []byte) error {
			if err := decodeBlobMeta(b, &m); err != nil {
				return corrupt("record %s does not decode: %v", keyName(key), err)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("chunk metadata of blob %x: %w", blob, err)
	}
	return &m, nil
}

// BlobHead is BlobMeta without its chunks and redactions: what ranking
// asks of a file (kind, front-matter), for dozens of candidates a search,
// without allocating their chunk lists.
func (d *DB) BlobHead(pv byte, blob SHA) (*BlobMeta, error) {
	var h struct {
		Lang     string            `json:"lang"`
		Title    string            `json:"title,omitempty"`
		Meta     map[string]string `json:"meta,omitempty"`
		Encoding string            `json:"enc,omitempty"`
		Kind     string            `json:"kind,omitempty"`
		MinHash  []byte            `json:"mh,omitempty"`
		Links    int               `json:"links,omitempty"`
	}
	key := metaKey(pv, blob)
	err := d.db.View(func(txn *badger.Txn) error {
		return readValue(txn, key, func(b []byte) error {
			head, _, err := splitMeta(b, true)
			if err == nil && (len(b) == 0 || b[0] != metaPacked) {
				head = withoutChunks(b) // format 2: the chunks are inside
			}
			if err == nil {
				err = json.Unmarshal(head, &h)
			}
			if err != nil {
				return corrupt("record %s does not decode: %v", keyName(key), err)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("metadata of blob %x: %w", blob, err)
	}
	return &BlobMeta{Lang: h.Lang, Title: h.Title, Meta: h.Meta, Encoding: h.Encoding, Kind: h.Kind, MinHash: h.MinHash, Links: h.Links}, nil
}

// BlobChunk returns chunk idx of a blob's chunk list, and whether the list
// has it: what a result shows of its chunk (lines, heading, symbols),
// without decoding the others into structs (BlobMeta does; a large file
// has hundreds, and decoding them for ten results was a fortieth of a
// cold search's CPU, issue 16). It decodes exactly what
// BlobMeta(pv, blob).Chunks[idx] holds.
func (d *DB) BlobChunk(pv byte, blob SHA, idx int) (c ChunkMeta, ok bool, err error) {
	cs, oks, err := d.BlobChunks(pv, blob, []int{idx})
	if err != nil {
		return ChunkMeta{}, false, err
	}
	return cs[0], oks[0], nil
}

// BlobChunks is BlobChunk for several chunks of one blob, its record read
// and decompressed once (proximity reads a file's best chunks: once per
// chunk was a third of a Go-source search's CPU).
func (d *DB) BlobChunks(pv byte, blob SHA, idxs []int) (cs []ChunkMeta, oks []bool, err error) {
	key := metaKey(pv, blob)
	cs, oks = make([]ChunkMeta, len(idxs)), make([]bool, len(idxs))
	err = d.db.View(func(txn *badger.Txn) error {
		return readValue(txn, key, func(b []byte) error {
			// Format 3: the chunks are in the compressed tail; format 2:
			// in the record itself (splitMeta returns no tail).
			_, tail, err := splitMeta(b, false)
			if err != nil {
				return corrupt("record %s does not decode: %v", keyName(key), err)
			}
			if tail == nil {
				tail = b
			}
			// One walk of the list for all of idxs (nthChunks), else the
			// record decoded whole.
			elems, walked := nthChunks(tail, idxs)
			if !walked {
				var m BlobMeta
				if err := decodeBlobMeta(b, &m); err != nil {
					return corrupt("record %s does not decode: %v", keyName(key), err)
				}
				for i, idx := range idxs {
					if oks[i] = idx >= 0 && idx < len(m.Chunks); oks[i] {
						cs[i] = m.Chunks[idx]
					}
				}
				return nil
			}
			for i, elem := range elems {
				if oks[i] = elem != nil; oks[i] {
					if err := json.Unmarshal(elem, &cs[i]); err != nil {
						return corrupt("record %s does not decode: %v", keyName(key), err)
					}
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("chunk metadata of blob %x: %w", blob, err)
	}
	return cs, oks, nil
}

// Lengths returns the body length of each chunk of a segment.
func (d *DB) Lengths(pv byte, seg uint32) ([]uint32, error) {
	var ls []uint32
	err := d.db.View(func(txn *badger.Txn) error {
		b, err := get(txn, lengthsKey(pv, seg))
		if err != nil {
			return err
		}
		r := reader{b: b}
		n := int(r.uvarint())
		if n > len(b) {
			return errShort
		}
		ls = make([]uint32, n)
		for i := range ls {
			ls[i] = uint32(r.uvarint())
		}
		return r.err
	})
	if errors.Is(err, ErrNotFound) {
		// Asked for by a view, so written with it: a damaged table (a
		// block that fails its checksum reads as absent).
		return nil, corrupt("the chunk lengths of segment %d are missing", seg)
	}
	if err != nil {
		return nil, fmt.Errorf("chunk lengths of segment %d: %w", seg, err)
	}
	return ls, nil
}

// Postings calls fn with the encoded postings of term in each of segs.
func (d *DB) Postings(pv byte, term string, segs map[uint32]bool, fn func(seg uint32, data []byte) error) error {
	prefix := postingPrefix(pv, term)
	return d.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) != len(prefix)+4 {
				continue
			}
			seg := binary.BigEndian.Uint32(k[len(prefix):])
			if !segs[seg] {
				continue
			}
			if err := it.Item().Value(func(b []byte) error { return fn(seg, b) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// AllocSegment reserves a fresh segment id and a range of n chunk ordinals,
// durably, before anything is written under them: a crash afterwards can
// only leave unreachable data, never reuse an id.
func (d *DB) AllocSegment(n uint32) (seg, first uint32, err error) {
	err = d.db.Update(func(txn *badger.Txn) error {
		b, err := get(txn, []byte("m/seq"))
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		seg, first = 1, 0
		if len(b) == 8 {
			seg, first = binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
		}
		if uint64(first)+uint64(n) > 1<<32-1 {
			return fmt.Errorf("chunk ordinals exhausted; run `git kb reset`")
		}
		nb := make([]byte, 8)
		binary.BigEndian.PutUint32(nb, seg+1)
		binary.BigEndian.PutUint32(nb[4:], first+n)
		return txn.Set([]byte("m/seq"), nb)
	})
	return seg, first, err
}

// Batch writes a segment's bulk data. Nothing written through it is visible
// until Publish commits the segment.
type Batch struct {
	wb      *badger.WriteBatch
	pv      byte
	d       *DB
	written int64
}

// NewBatch starts a bulk write for pipeline pv.
func (d *DB) NewBatch(pv byte) *Batch { return &Batch{wb: d.db.NewWriteBatch(), pv: pv, d: d} }

func (b *Batch) set(k, v []byte) error {
	b.written += int64(len(k) + len(v))
	return b.wb.Set(k, v)
}

// Written is how many bytes of keys and values the batch was given since
// it started or last reopened the database.
func (b *Batch) Written() int64 { return b.written }

// Reopen writes what the batch holds, reopens the database (DB.Reopen:
// what Badger had mapped is let go) and goes on in a new batch. Nothing is
// visible before Publish either way.
func (b *Batch) Reopen(ctx context.Context) error {
	if err := b.wb.Flush(); err != nil {
		return err
	}
	// What is written is on disk: the free-space check of the reopen
	// asks only for the rest of the session's estimate.
	b.d.opened.Reserve = max(b.d.opened.Reserve-b.written, minReserve)
	if err := b.d.Reopen(ctx); err != nil {
		return err
	}
	b.wb, b.written = b.d.db.NewWriteBatch(), 0
	return nil
}

// Postings stores the encoded postings of term in seg.
func (b *Batch) Postings(term string, seg uint32, data []byte) error {
	return b.set(postingKey(b.pv, term, seg), data)
}

// Lengths stores the body length of each chunk of seg.
func (b *Batch) Lengths(seg uint32, ls []uint32) error {
	buf := binary.AppendUvarint(nil, uint64(len(ls)))
	for _, l := range ls {
		buf = binary.AppendUvarint(buf, uint64(l))
	}
	return b.set(lengthsKey(b.pv, seg), buf)
}

// Blob stores what a blob became.
func (b *Batch) Blob(blob SHA, h BlobHeader, m *BlobMeta) error {
	var mb []byte
	if m != nil {
		var err error
		if mb, err = EncodeBlobMeta(m); err != nil {
			return err
		}
	}
	return b.BlobEncoded(blob, h, mb)
}

// EncodeBlobMeta is a BlobMeta as BlobEncoded stores it: an indexer can
// encode it as soon as the blob is analyzed and keep bytes, not the tree
// of strings, until the write.
//
// The record (format 3) is the marker metaPacked, the length of the head
// and the head (the BlobMeta without its chunks and redactions, in JSON:
// what BlobHead reads for each search candidate, without touching the
// rest), then the chunks and redactions in JSON compressed with S2. The
// chunk lists were half of an index (Go's source: 33.7 of 67 MiB, their
// keys and headings repeating from chunk to chunk); compressed they take
// about a quarter. Records of format 2 and before are the whole BlobMeta
// in JSON, and still read (they start with '{').
func EncodeBlobMeta(m *BlobMeta) ([]byte, error) {
	head := *m
	head.Chunks, head.Secrets = nil, nil
	hb, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	tb, err := json.Marshal(metaTail{Chunks: m.Chunks, Secrets: m.Secrets})
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 1+binary.MaxVarintLen32+len(hb)+s2.MaxEncodedLen(len(tb)))
	b = append(b, metaPacked)
	b = binary.AppendUvarint(b, uint64(len(hb)))
	b = append(b, hb...)
	return append(b, s2.Encode(b[len(b):cap(b)], tb)...), nil
}

// metaPacked starts a BlobMeta record of format 3 (EncodeBlobMeta); a
// record of format 2 or before starts with '{'.
const metaPacked = 0x01

// metaTail is what a packed BlobMeta record compresses.
type metaTail struct {
	Chunks  []ChunkMeta `json:"chunks"`
	Secrets []Redaction `json:"sec,omitempty"`
}

// splitMeta returns the head and the decompressed tail of a packed
// record, or (b, nil) for a record of format 2 or before (the whole
// BlobMeta in JSON). head only: the tail is not decompressed.
func splitMeta(b []byte, headOnly bool) (head, tail []byte, err error) {
	if len(b) == 0 || b[0] != metaPacked {
		return b, nil, nil
	}
	r := reader{b: b[1:]}
	head = r.bytes(int(r.uvarint()))
	if r.err != nil {
		return nil, nil, r.err
	}
	if headOnly {
		return head, nil, nil
	}
	tail, err = s2.Decode(nil, r.b)
	return head, tail, err
}

// decodeBlobMeta decodes a BlobMeta record of any format.
func decodeBlobMeta(b []byte, m *BlobMeta) error {
	head, tail, err := splitMeta(b, false)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(head, m); err != nil {
		return err
	}
	if tail == nil {
		return nil // format 2: the head was all of it
	}
	var t metaTail
	if err := json.Unmarshal(tail, &t); err != nil {
		return err
	}
	m.Chunks, m.Secrets = t.Chunks, t.Secrets
	return nil
}

// BlobEncoded is Blob with the meta already encoded (nil: none).
func (b *Batch) BlobEncoded(blob SHA, h BlobHeader, meta []byte) error {
	if meta != nil {
		if err := b.set(metaKey(b.pv, blob), meta); err != nil {
			return err
		}
	}
	return b.set(blobKey(b.pv, blob), h.encode())
}

// Flush writes everything and ends the batch.
func (b *Batch) Flush() error { return b.wb.Flush() }

// Cancel abandons the batch.
func (b *Batch) Cancel() { b.wb.Cancel() }

// Publish makes a view visible in one transaction: the segment's commit
// marker (if a segment was written), the view of the tree and the ref of
// the commit. Readers see all of it or none of it.
func (d *DB) Publish(pv byte, seg *Segment, tree SHA, v *View, ref Ref) error {
	return d.PublishOver(pv, seg, tree, v, nil, ref)
}

// MaxDeltaShare bounds a view stored as a delta: when more than this share
// of its entries (and more than MinDelta) differ from its root, the view
// is stored whole instead, and becomes the root of the views after it.
const (
	MaxDeltaShare = 8 // 1/8
	MinDelta      = 64
)

// PublishOver is Publish for a view built from parent's (as DB.View
// returned it): v is stored as its differences from
// the full view behind parent, a record the size of the change, unless
// those differences have grown past MaxDeltaShare of the view.
func (d *DB) PublishOver(pv byte, seg *Segment, tree SHA, v *View, parent *View, ref Ref) error {
	var rec []byte
	if v != nil {
		if dl := deltaOver(v, parent); dl != nil && dl.root != tree &&
			dl.size() <= max(MinDelta, len(v.Entries)/MaxDeltaShare) {
			rec = v.encodeDelta(dl)
			v.delta = dl
		} else {
			rec = v.encode()
			v.delta = nil
		}
	}
	return d.db.Update(func(txn *badger.Txn) error {
		if seg != nil {
			b := binary.AppendUvarint(nil, uint64(seg.First))
			b = binary.AppendUvarint(b, uint64(seg.N))
			if err := txn.Set(segKey(seg.ID), b); err != nil {
				return err
			}
		}
		if rec != nil {
			if err := txn.Set(viewKey(pv, tree), rec); err != nil {
				return err
			}
		}
		rb := append(append([]byte(nil), ref.Tree[:]...), binary.AppendVarint(nil, ref.Indexed.Unix())...)
		return txn.Set(refKey(ref.Commit), rb)
	})
}

// Posting is one chunk's term frequencies for one term, per field.
type Posting struct {
	Chunk uint32
	TF    [NumFields]uint16
}

// AppendFieldFreqs appends a term's per-field frequencies as postings hold
// them: a bitmask of the fields it occurs in, then the non-zero counts.
func AppendFieldFreqs(b []byte, tf [NumFields]uint16) []byte {
	var mask byte
	for f, n := range tf {
		if n > 0 {
			mask |= 1 << f
		}
	}
	b = append(b, mask)
	for _, n := range tf {
		if n > 0 {
			b = binary.AppendUvarint(b, uint64(n))
		}
	}
	return b
}

// EncodePostings encodes postings sorted by chunk: count, then per posting
// the chunk delta, a field bitmask and the non-zero frequencies.
func EncodePostings(ps []Posting) []byte {
	b := make([]byte, 0, 4+len(ps)*3)
	b = binary.AppendUvarint(b, uint64(len(ps)))
	prev := uint32(0)
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(p.Chunk-prev))
		prev = p.Chunk
		b = AppendFieldFreqs(b, p.TF)
	}
	return b
}

// DecodePostings appends the postings in data to dst.
func DecodePostings(dst []Posting, data []byte) ([]Posting, error) {
	r := reader{b: data}
	n := int(r.uvarint())
	if n > len(data) {
		return dst, errShort
	}
	prev := uint32(0)
	for i := 0; i < n && r.err == nil; i++ {
		var p Posting
		p.Chunk = prev + uint32(r.uvarint())
		prev = p.Chunk
		mask := r.byte()
		for f := 0; f < NumFields; f++ {
			if mask&(1<<f) != 0 {
				p.TF[f] = uint16(r.uvarint())
			}
		}
		dst = append(dst, p)
	}
	return dst, r.err
}

// Scan calls fn with every record whose key starts with prefix, in key
// order (nil: all of them): for checks that two indexes hold the same
// records, and for counting.
func (d *DB) Scan(prefix []byte, fn func(key, value []byte) error) error {
	return d.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if err := fn(k, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// withoutChunks returns a BlobMeta record with its top-level "chunks" array
// replaced by [], for BlobHead. encoding/json validates and walks every
// byte of its input, and the chunk list is most of a record (a large Go
// file's runs to 100 KB): in a cold search of Go's source, decoding the
// heads of the candidates took a third of the CPU (issue 16). Skipping the
// array here is a plain byte scan. Anything unexpected returns b as it is,
// for json.Unmarshal to decode (or reject) in full.
func withoutChunks(b []byte) []byte {
	start, end := chunksArray(b)
	if start < 0 {
		return b
	}
	out := make([]byte, 0, start+2+len(b)-end)
	out = append(append(append(out, b[:start]...), "[]"...), b[end:]...)
	return out
}

// chunksArray returns where the record's top-level chunk list is: b[start]
// is its '[' and b[end-1] its ']'; -1, -1 when b has none or cannot be
// walked.
func chunksArray(b []byte) (start, end int) {
	const key = `"chunks":`
	depth, i := 0, 0
	for i < len(b) {
		switch b[i] {
		case '"':
			if depth == 1 && bytes.HasPrefix(b[i:], []byte(key)) && i+len(key) < len(b) && b[i+len(key)] == '[' {
				start := i + len(key)
				if end := skipArray(b, start); end >= 0 {
					return start, end
				}
				return -1, -1
			}
			if i = skipString(b, i); i < 0 {
				return -1, -1
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		i++
	}
	return -1, -1
}

// nthChunks returns the idxs-th elements of a record's chunk list (as
// bytes, for json.Unmarshal; any order, repeats allowed), found with the
// byte scan of withoutChunks in one pass: the list is found once and
// walked once, up to the largest index asked for. elems[i] is nil when
// the list has no element idxs[i]; walked is false when b cannot be
// walked so up to there.
func nthChunks(b []byte, idxs []int) (elems [][]byte, walked bool) {
	elems = make([][]byte, len(idxs))
	last := -1 // the largest index asked for
	for _, idx := range idxs {
		last = max(last, idx)
	}
	start, end := chunksArray(b)
	if start < 0 || last < 0 {
		return elems, start >= 0
	}
	i, n := start+1, 0
	for i < end-1 && n <= last {
		switch b[i] {
		case ' ', '\t', '\n', '\r', ',':
			i++
			continue
		case '{':
			e := skipArray(b, i)
			if e < 0 || e > end-1 {
				return elems, false
			}
			for k, idx := range idxs {
				if idx == n {
					elems[k] = b[i:e]
				}
			}
			n++
			i = e
			continue
		}
		return elems, false // not an object: let json.Unmarshal judge
	}
	return elems, true
}

// skipString returns the index just past the JSON string starting at
// b[i] (a quote), or -1 if it does not end.
func skipString(b []byte, i int) int {
	for i++; ; {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		i += q
		// The quote ends the string unless an odd number of backslashes
		// escape it.
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// skipArray returns the index just past the array or object starting at
// b[i], or -1 if it does not end. Strings are most of a chunk list, so it
// jumps from quote to quote (bytes.IndexByte) and looks at the few bytes
// between strings one by one.
func skipArray(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		end := len(b)
		q := bytes.IndexByte(b[i:], '"')
		if q >= 0 {
			end = i + q
		}
		for ; i < end; i++ {
			switch b[i] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		if q < 0 {
			return -1
		}
		if i = skipString(b, i); i < 0 {
			return -1
		}
	}
	return -1
}
