package share

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
)

// Record is what one blob became under one pipeline version: the unit
// shared through git, one git blob each, so that git's object dedup sends
// a record once whatever commit, branch or machine it is pushed from.
// Its encoding is deterministic (terms sorted, JSON keys sorted), so two
// machines indexing the same blob write the same git object.
type Record struct {
	Size   int64 // of the source blob, checked on import
	Header store.BlobHeader
	Meta   *store.BlobMeta
	Lens   []uint32         // per chunk: body length
	Chunks [][]index.TermTF // per chunk: terms, sorted
}

var (
	recordMagic = []byte("KBR1")
	vectorMagic = []byte("KBV1")
)

// errCorrupt marks data that does not decode: a truncated or damaged ref.
var errCorrupt = errors.New("corrupt record")

// Encode writes the record.
func (r *Record) Encode() ([]byte, error) {
	b := append([]byte(nil), recordMagic...)
	b = binary.AppendUvarint(b, uint64(r.Size))
	b = append(b, r.Header.Skip)
	b = binary.AppendUvarint(b, uint64(r.Header.N))
	for _, l := range r.Header.FieldLen {
		b = binary.AppendUvarint(b, uint64(l))
	}
	b = binary.AppendUvarint(b, uint64(r.Header.UniqueTerm))
	var meta []byte
	if r.Meta != nil {
		var err error
		if meta, err = json.Marshal(r.Meta); err != nil {
			return nil, err
		}
	}
	b = binary.AppendUvarint(b, uint64(len(meta)))
	b = append(b, meta...)
	for _, l := range r.Lens {
		b = binary.AppendUvarint(b, uint64(l))
	}
	// One term table per record; chunks refer to it by index.
	idx := map[string]int{}
	var terms []string
	for _, c := range r.Chunks {
		for _, t := range c {
			if _, ok := idx[t.Term]; !ok {
				idx[t.Term] = 0
				terms = append(terms, t.Term)
			}
		}
	}
	sort.Strings(terms)
	for i, t := range terms {
		idx[t] = i
	}
	b = binary.AppendUvarint(b, uint64(len(terms)))
	for _, t := range terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	for _, c := range r.Chunks {
		b = binary.AppendUvarint(b, uint64(len(c)))
		prev := 0
		for _, t := range c { // sorted by term, so indexes ascend
			i := idx[t.Term]
			b = binary.AppendUvarint(b, uint64(i-prev))
			prev = i
			b = store.AppendFieldFreqs(b, t.TF) // the same layout as the store's postings
		}
	}
	return b, nil
}

// dec reads varint data, remembering the first error; counts are bounded
// by what is left, so damaged data cannot make it allocate much.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errCorrupt, what)
	}
}

func (d *dec) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(what + " truncated")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) count(what string, max uint64) int {
	v := d.uvarint(what)
	if v > max || v > uint64(len(d.b))+1 {
		d.fail(fmt.Sprintf("%s %d out of range", what, v))
		return 0
	}
	return int(v)
}

func (d *dec) u32(what string) uint32 {
	v := d.uvarint(what)
	if v > 1<<32-1 {
		d.fail(what + " out of range")
	}
	return uint32(v)
}

func (d *dec) bytes(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail(what + " truncated")
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *dec) byte1(what string) byte {
	s := d.bytes(1, what)
	if s == nil {
		return 0
	}
	return s[0]
}

// DecodeRecord reads a record, checking that it is whole and consistent
// in itself (counts agree, term indexes in range, lengths add up); checks
// against the repository are Verify's.
func DecodeRecord(b []byte) (*Record, error) {
	if !bytes.HasPrefix(b, recordMagic) {
		return nil, fmt.Errorf("%w: not a git-kb record (or another version)", errCorrupt)
	}
	d := &dec{b: b[len(recordMagic):]}
	r := &Record{}
	r.Size = int64(d.uvarint("size"))
	r.Header.Skip = d.byte1("skip")
	n := d.count("chunk count", 1<<24)
	r.Header.N = uint32(n)
	for f := range r.Header.FieldLen {
		r.Header.FieldLen[f] = d.u32("field length")
	}
	r.Header.UniqueTerm = d.u32("unique terms")
	if ml := d.count("metadata length", 1<<30); ml > 0 {
		r.Meta = &store.BlobMeta{}
		if err := json.Unmarshal(d.bytes(ml, "metadata"), r.Meta); err != nil && d.err == nil {
			d.fail("metadata: " + err.Error())
		}
	}
	r.Lens = make([]uint32, n)
	var body uint64
	for i := range r.Lens {
		r.Lens[i] = d.u32("chunk length")
		body += uint64(r.Lens[i])
	}
	nt := d.count("term count", 1<<30)
	terms := make([]string, nt)
	for i := range terms {
		l := d.count("term length", 1<<16)
		terms[i] = string(d.bytes(l, "term"))
		if d.err == nil && (terms[i] == "" || i > 0 && terms[i] <= terms[i-1]) {
			d.fail("term table not sorted")
		}
	}
	r.Chunks = make([][]index.TermTF, n)
	var fieldSum [store.NumFields]uint64
	used := make([]bool, nt)
	for c := range r.Chunks {
		k := d.count("chunk terms", uint64(nt))
		ts := make([]index.TermTF, 0, k)
		i := 0
		for j := 0; j < k && d.err == nil; j++ {
			delta := d.uvarint("term index")
			if (j > 0 && delta == 0) || uint64(i)+delta >= uint64(nt) {
				d.fail("term index out of range")
				break
			}
			i += int(delta)
			used[i] = true
			mask := d.byte1("field mask")
			if mask == 0 || mask >= 1<<store.NumFields {
				d.fail("bad field mask")
				break
			}
			t := index.TermTF{Term: terms[i]}
			for f := 0; f < store.NumFields; f++ {
				if mask&(1<<f) != 0 {
					v := d.uvarint("frequency")
					if v == 0 || v > 65535 {
						d.fail("bad frequency")
					}
					t.TF[f] = uint16(v)
					fieldSum[f] += v
				}
			}
			ts = append(ts, t)
		}
		r.Chunks[c] = ts
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the end", errCorrupt, len(d.b))
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("%w: term %q belongs to no chunk", errCorrupt, terms[i])
		}
	}
	switch {
	case r.Header.Skip != store.SkipNone && (n != 0 || r.Meta != nil):
		return nil, fmt.Errorf("%w: a skipped blob with chunks", errCorrupt)
	case r.Header.Skip == store.SkipNone && r.Meta == nil:
		return nil, fmt.Errorf("%w: no metadata", errCorrupt)
	case r.Meta != nil && len(r.Meta.Chunks) != n:
		return nil, fmt.Errorf("%w: metadata describes %d chunks, the record holds %d", errCorrupt, len(r.Meta.Chunks), n)
	case body != uint64(r.Header.FieldLen[store.FieldBody]):
		return nil, fmt.Errorf("%w: chunk lengths add up to %d, the header says %d", errCorrupt, body, r.Header.FieldLen[store.FieldBody])
	case uint32(nt) != r.Header.UniqueTerm:
		return nil, fmt.Errorf("%w: %d terms, the header says %d", errCorrupt, nt, r.Header.UniqueTerm)
	}
	for f, s := range fieldSum { // frequencies cap at 65535, so <=
		if s > uint64(r.Header.FieldLen[f]) {
			return nil, fmt.Errorf("%w: field %d frequencies add up to %d, over its length %d", errCorrupt, f, s, r.Header.FieldLen[f])
		}
	}
	return r, nil
}

// Vectors is one blob's embeddings under one model: one encoded vector
// (ann.EncodeVector: float32 scale + int8 codes) per chunk, in order.
type Vectors struct {
	Dim  int
	Rows [][]byte
}

// Encode writes the vectors.
func (v *Vectors) Encode() []byte {
	b := append([]byte(nil), vectorMagic...)
	b = binary.AppendUvarint(b, uint64(v.Dim))
	b = binary.AppendUvarint(b, uint64(len(v.Rows)))
	for _, r := range v.Rows {
		b = append(b, r...)
	}
	return b
}

// DecodeVectors reads vectors, checking the declared shape against the
// data: exactly rows x (dim+4) bytes.
func DecodeVectors(b []byte) (*Vectors, error) {
	if !bytes.HasPrefix(b, vectorMagic) {
		return nil, fmt.Errorf("%w: not a git-kb vector record", errCorrupt)
	}
	d := &dec{b: b[len(vectorMagic):]}
	dim := d.uvarint("dimension")
	rows := d.uvarint("rows")
	if d.err != nil {
		return nil, d.err
	}
	if dim == 0 || dim > 1<<16 || rows > 1<<24 || uint64(len(d.b)) != rows*(dim+4) {
		return nil, fmt.Errorf("%w: vector table of %d rows x %d dims holds %d bytes", errCorrupt, rows, dim, len(d.b))
	}
	v := &Vectors{Dim: int(dim), Rows: make([][]byte, rows)}
	w := int(dim) + 4
	for i := range v.Rows {
		v.Rows[i] = d.b[i*w : (i+1)*w]
	}
	return v, nil
}
