package store

import (
	"encoding/binary"
	"time"
)

// NumFields is the number of BM25F fields a posting counts terms in.
const NumFields = 4

// Field numbers, in posting order.
const (
	FieldBody    = 0 // chunk text
	FieldHeading = 1 // document title and heading path
	FieldPath    = 2 // file path
	FieldSymbol  = 3 // declared symbol names
)

// BlobHeader says what one blob became under one pipeline version.
type BlobHeader struct {
	Seg        uint32            // segment holding its postings
	First, N   uint32            // chunk ordinals [First, First+N)
	FieldLen   [NumFields]uint32 // total terms per field over its chunks
	Skip       uint8             // non-zero: not indexed, see SkipReason
	UniqueTerm uint32
}

// Skip reasons recorded for blobs read but not indexed.
const (
	SkipNone   = 0
	SkipBinary = 1
	SkipFailed = 2
)

func (h BlobHeader) encode() []byte {
	b := make([]byte, 0, 40)
	b = binary.AppendUvarint(b, uint64(h.Seg))
	b = binary.AppendUvarint(b, uint64(h.First))
	b = binary.AppendUvarint(b, uint64(h.N))
	for _, l := range h.FieldLen {
		b = binary.AppendUvarint(b, uint64(l))
	}
	b = append(b, h.Skip)
	b = binary.AppendUvarint(b, uint64(h.UniqueTerm))
	return b
}

func decodeBlobHeader(b []byte) (BlobHeader, error) {
	var h BlobHeader
	r := reader{b: b}
	h.Seg = uint32(r.uvarint())
	h.First = uint32(r.uvarint())
	h.N = uint32(r.uvarint())
	for i := range h.FieldLen {
		h.FieldLen[i] = uint32(r.uvarint())
	}
	h.Skip = r.byte()
	h.UniqueTerm = uint32(r.uvarint())
	return h, r.err
}

// ChunkMeta describes one chunk for display and citation.
type ChunkMeta struct {
	Start   int      `json:"s"`
	End     int      `json:"e"`
	Heading string   `json:"h,omitempty"`
	Symbols []string `json:"sym,omitempty"`
	Hash    string   `json:"x"` // hash of the chunk text: the key for embeddings to come
}

// BlobMeta is the display side of a blob's chunks.
type BlobMeta struct {
	Lang     string            `json:"lang"`
	Title    string            `json:"title,omitempty"`
	Meta     map[string]string `json:"meta,omitempty"`
	Encoding string            `json:"enc,omitempty"` // source encoding when not UTF-8 (gb18030)
	// Kind is what the text says the file is: "generated" or "data" (a
	// table of literals, chunk.ContentKind), KindAPISpec, "" otherwise.
	Kind   string      `json:"kind,omitempty"`
	Chunks []ChunkMeta `json:"chunks"`
	// Secrets lists where secrets were redacted (never their values).
	Secrets []Redaction `json:"sec,omitempty"`
	// MinHash signature of the distinct analyzed body terms (MinHashSize
	// little-endian uint32): near-duplicate files share most values, and
	// search folds them into one result (SimilarMinHash). nil: too small.
	MinHash []byte `json:"mh,omitempty"`
}

// MinHashSize is the number of hash values in BlobMeta.MinHash.
const MinHashSize = 24

// MinHashSimilarity estimates the Jaccard similarity of the vocabularies
// behind two MinHash signatures (0 when either is missing).
func MinHashSimilarity(a, b []byte) float64 {
	if len(a) != 4*MinHashSize || len(b) != 4*MinHashSize {
		return 0
	}
	same := 0
	for i := 0; i < len(a); i += 4 {
		if a[i] == b[i] && a[i+1] == b[i+1] && a[i+2] == b[i+2] && a[i+3] == b[i+3] {
			same++
		}
	}
	return float64(same) / MinHashSize
}

// Kinds of BlobMeta.Kind.
const (
	KindAPISpec = "api-spec" // OpenAPI/Swagger, in JSON, YAML or a generated Go docs file
)

// Redaction is one secret replaced by a marker before analysis.
type Redaction struct {
	Line int    `json:"l"`
	Rule string `json:"r"`
}

// ViewEntry is one indexed file of a tree.
type ViewEntry struct {
	Path     string
	Blob     SHA
	Seg      uint32
	First, N uint32
	// Vocab is how far the file's distinct-word count lies above what
	// files of its length have in this tree (robust z-score of the Heaps'
	// law residual, x10, 0 when not above): measured when the view is
	// built, for the search prior on vocabulary hubs.
	Vocab uint8
}

// View is the indexed state of one tree: what BM25 statistics are over.
type View struct {
	Created  time.Time
	Chunks   uint32            // live chunks (N for BM25)
	FieldLen [NumFields]uint64 // total terms per field over live chunks
	Entries  []ViewEntry       // sorted by First, then path
	Stats    ViewStats
}

// ViewStats records how the view's files were treated.
type ViewStats struct {
	Files   int            `json:"files"`   // files in the tree
	Indexed int            `json:"indexed"` // files with chunks
	Skipped map[string]int `json:"skipped,omitempty"`
	Bytes   int64          `json:"bytes"` // bytes of indexed files
}

const viewVersion = 2

func (v *View) encode() []byte {
	b := []byte{viewVersion}
	b = binary.AppendVarint(b, v.Created.Unix())
	b = binary.AppendUvarint(b, uint64(v.Chunks))
	for _, l := range v.FieldLen {
		b = binary.AppendUvarint(b, l)
	}
	b = binary.AppendUvarint(b, uint64(v.Stats.Files))
	b = binary.AppendUvarint(b, uint64(v.Stats.Indexed))
	b = binary.AppendUvarint(b, uint64(v.Stats.Bytes))
	b = binary.AppendUvarint(b, uint64(len(v.Stats.Skipped)))
	for k, n := range v.Stats.Skipped {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(n))
	}
	b = binary.AppendUvarint(b, uint64(len(v.Entries)))
	for _, e := range v.Entries {
		b = appendString(b, e.Path)
		b = append(b, e.Blob[:]...)
		b = binary.AppendUvarint(b, uint64(e.Seg))
		b = binary.AppendUvarint(b, uint64(e.First))
		b = binary.AppendUvarint(b, uint64(e.N))
		b = append(b, e.Vocab)
	}
	return b
}

func decodeView(b []byte) (*View, error) {
	r := reader{b: b}
	ver := r.byte()
	if ver != 1 && ver != viewVersion {
		return nil, corrupt("view record version %d, want %d", ver, viewVersion)
	}
	v := &View{}
	v.Created = time.Unix(r.varint(), 0)
	v.Chunks = uint32(r.uvarint())
	for i := range v.FieldLen {
		v.FieldLen[i] = r.uvarint()
	}
	v.Stats.Files = int(r.uvarint())
	v.Stats.Indexed = int(r.uvarint())
	v.Stats.Bytes = int64(r.uvarint())
	if n := int(r.uvarint()); n > 0 && r.err == nil {
		v.Stats.Skipped = make(map[string]int, n)
		for i := 0; i < n && r.err == nil; i++ {
			k := r.string()
			v.Stats.Skipped[k] = int(r.uvarint())
		}
	}
	n := int(r.uvarint())
	if r.err == nil && n <= len(b) {
		v.Entries = make([]ViewEntry, n)
	}
	for i := range v.Entries {
		e := &v.Entries[i]
		e.Path = r.string()
		copy(e.Blob[:], r.bytes(20))
		e.Seg = uint32(r.uvarint())
		e.First = uint32(r.uvarint())
		e.N = uint32(r.uvarint())
		if ver >= 2 {
			e.Vocab = r.byte()
		}
	}
	return v, r.err
}

// Segments lists the segments a view's chunks live in.
func (v *View) Segments() map[uint32]bool {
	m := map[uint32]bool{}
	for _, e := range v.Entries {
		if e.N > 0 {
			m[e.Seg] = true
		}
	}
	return m
}

// ChunkEntries are the entries that own chunks: those with chunks, one per
// blob (a blob at several paths has one set of chunks, listed under its
// first path that keep accepts; keep nil accepts all).
func (v *View) ChunkEntries(keep func(path string) bool) []ViewEntry {
	seen := map[SHA]bool{}
	var out []ViewEntry
	for _, e := range v.Entries {
		if e.N > 0 && !seen[e.Blob] && (keep == nil || keep(e.Path)) {
			seen[e.Blob] = true
			out = append(out, e)
		}
	}
	return out
}

// Ref records that a commit was indexed, as the view of its tree.
type Ref struct {
	Commit, Tree SHA
	Indexed      time.Time
}

// Segment is a committed segment's chunk range.
type Segment struct {
	ID       uint32
	First, N uint32
}

// reader decodes varint records, remembering the first error.
type reader struct {
	b   []byte
	err error
}

var errShort = corrupt("a record is truncated")

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errShort
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || len(r.b) < n {
		r.err = errShort
		return make([]byte, n)
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) string() string {
	n := int(r.uvarint())
	return string(r.bytes(n))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// --- keys ---

func blobKey(pv byte, blob SHA) []byte      { return key([]byte{'b', pv}, blob[:]) }
func metaKey(pv byte, blob SHA) []byte      { return key([]byte{'c', pv}, blob[:]) }
func lengthsKey(pv byte, seg uint32) []byte { return key([]byte{'l', pv}, be32(seg)) }
func postingPrefix(pv byte, term string) []byte {
	return key([]byte{'p', pv}, []byte(term), []byte{0})
}
func postingKey(pv byte, term string, seg uint32) []byte {
	return key(postingPrefix(pv, term), be32(seg))
}
func segKey(seg uint32) []byte         { return key([]byte("s/"), be32(seg)) }
func viewKey(pv byte, tree SHA) []byte { return key([]byte{'v', pv}, tree[:]) }
func refKey(commit SHA) []byte         { return key([]byte("r/"), commit[:]) }

// AnalyzedFile is a file chunked and analyzed as the indexer would, but
// kept in memory rather than written: an uncommitted file searched on top
// of a view (git kb search --worktree).
type AnalyzedFile struct {
	Path     string
	Blob     SHA // git's object name for the content (as git hash-object)
	Meta     *BlobMeta
	Lines    []string
	Chunks   []map[string][NumFields]uint16 // per chunk: term frequencies by field
	BodyLen  []uint32                       // per chunk: body terms
	FieldLen [NumFields]uint64
	// EmbedInputs are the chunks' texts as the embedder sees them.
	EmbedInputs []string
}
