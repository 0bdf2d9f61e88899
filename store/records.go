package store

import (
	"encoding/binary"
	"sort"
	"time"
	"unsafe"
)

// NumFields is the number of BM25F fields a posting counts terms in.
const NumFields = 5

// Field numbers, in posting order.
const (
	FieldBody    = 0 // chunk text
	FieldHeading = 1 // document title and heading path
	FieldPath    = 2 // file path
	FieldSymbol  = 3 // declared symbol names
	// FieldAbout is what the page says it is about: a Markdown page's
	// front-matter summary and description, counted in every chunk of
	// the page as its title is (chunk.Doc.About).
	FieldAbout = 4
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
	// Links is how many other documents of the repository a Markdown
	// file links to (chunk.DocLinks): its out-degree, for the search
	// prior on overview pages.
	Links int `json:"links,omitempty"`
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
	// FieldLen and Unique are the blob's totals (BlobHeader.FieldLen and
	// UniqueTerm), kept in the view so that the next commit's view can
	// recompute the view's totals and Vocab without reading a header per
	// file (View.EntryStats says whether a record had them).
	FieldLen [NumFields]uint32
	Unique   uint32
}

// View is the indexed state of one tree: what BM25 statistics are over.
type View struct {
	Created  time.Time
	Chunks   uint32            // live chunks (N for BM25)
	FieldLen [NumFields]uint64 // total terms per field over live chunks
	Entries  []ViewEntry       // sorted by First, then path
	Stats    ViewStats
	// Filter fingerprints the rules that chose the view's files (the
	// indexer's business: size limit, .kbignore): a view can be the base
	// of the next commit's view only if they are unchanged.
	Filter string
	// EntryStats says the entries carry FieldLen and Unique (set by the
	// indexer; records before version 3 have none).
	EntryStats bool
	// Vocab is the fingerprint of the word list (segment.Vocab) the view's
	// files were cut with, "" for none: a search of the view cuts its
	// query with the same words. Stored after the entries, so records
	// without it read as "" and older readers skip it.
	Vocab string

	// How the record was stored, when it is a delta (DB.View fills it,
	// PublishOver extends it): nil for a full record.
	delta *viewDelta
	tree  SHA // the tree DB.View read it for
}

// viewDelta is a view stored as its differences from a full view (the
// root): the root's entries whose path is removed or upserted are left
// out, the upserted entries put in. Deltas are always over a full record,
// never over another delta, so reading a view takes at most two records.
type viewDelta struct {
	root    SHA
	removed map[string]bool
	upserts map[string]ViewEntry
}

func (d *viewDelta) size() int { return len(d.removed) + len(d.upserts) }

// ViewStats records how the view's files were treated.
type ViewStats struct {
	Files   int            `json:"files"`   // files in the tree
	Indexed int            `json:"indexed"` // files with chunks
	Skipped map[string]int `json:"skipped,omitempty"`
	Bytes   int64          `json:"bytes"` // bytes of indexed files
}

// View records. Version 3 adds the record kind (full or delta), the filter
// fingerprint and each entry's FieldLen and Unique; versions 1 and 2 are
// full records and still read.
const viewVersion = 3

const (
	viewKindFull  = 0
	viewKindDelta = 1
)

func (v *View) encodeHead(b []byte) []byte {
	b = binary.AppendVarint(b, v.Created.Unix())
	b = binary.AppendUvarint(b, uint64(v.Chunks))
	for _, l := range v.FieldLen {
		b = binary.AppendUvarint(b, l)
	}
	b = binary.AppendUvarint(b, uint64(v.Stats.Files))
	b = binary.AppendUvarint(b, uint64(v.Stats.Indexed))
	b = binary.AppendUvarint(b, uint64(v.Stats.Bytes))
	b = binary.AppendUvarint(b, uint64(len(v.Stats.Skipped)))
	keys := make([]string, 0, len(v.Stats.Skipped))
	for k := range v.Stats.Skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same view, the same bytes
	for _, k := range keys {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(v.Stats.Skipped[k]))
	}
	return b
}

func appendEntry(b []byte, e *ViewEntry) []byte {
	b = appendString(b, e.Path)
	b = append(b, e.Blob[:]...)
	b = binary.AppendUvarint(b, uint64(e.Seg))
	b = binary.AppendUvarint(b, uint64(e.First))
	b = binary.AppendUvarint(b, uint64(e.N))
	b = append(b, e.Vocab)
	for _, l := range e.FieldLen {
		b = binary.AppendUvarint(b, uint64(l))
	}
	return binary.AppendUvarint(b, uint64(e.Unique))
}

// flagEntryStats: the entries' FieldLen and Unique were filled in.
const flagEntryStats = 1

func (v *View) flags() byte {
	if v.EntryStats {
		return flagEntryStats
	}
	return 0
}

// encode is the full record of v.
func (v *View) encode() []byte {
	b := make([]byte, 0, 64+len(v.Entries)*64)
	b = append(b, viewVersion, viewKindFull, v.flags())
	b = v.encodeHead(b)
	b = appendString(b, v.Filter)
	b = binary.AppendUvarint(b, uint64(len(v.Entries)))
	for i := range v.Entries {
		b = appendEntry(b, &v.Entries[i])
	}
	return v.appendTail(b)
}

// appendTail appends what follows the entries: the vocabulary's
// fingerprint, when there is one.
func (v *View) appendTail(b []byte) []byte {
	if v.Vocab == "" {
		return b
	}
	return appendString(b, v.Vocab)
}

// encodeDelta is the record of v as the differences d from its root.
func (v *View) encodeDelta(d *viewDelta) []byte {
	b := make([]byte, 0, 64+d.size()*64)
	b = append(b, viewVersion, viewKindDelta, v.flags())
	b = append(b, d.root[:]...)
	b = v.encodeHead(b)
	b = appendString(b, v.Filter)
	removed := make([]string, 0, len(d.removed))
	for p := range d.removed {
		removed = append(removed, p)
	}
	sort.Strings(removed)
	b = binary.AppendUvarint(b, uint64(len(removed)))
	for _, p := range removed {
		b = appendString(b, p)
	}
	b = binary.AppendUvarint(b, uint64(len(d.upserts)))
	for _, e := range sortedEntries(d.upserts) {
		b = appendEntry(b, &e)
	}
	return v.appendTail(b)
}

func sortedEntries(m map[string]ViewEntry) []ViewEntry {
	es := make([]ViewEntry, 0, len(m))
	for _, e := range m {
		es = append(es, e)
	}
	sortEntries(es)
	return es
}

// sortEntries puts entries in view order: by first chunk, then path.
func sortEntries(es []ViewEntry) {
	sort.Slice(es, func(i, j int) bool { return entryLess(&es[i], &es[j]) })
}

func entryLess(a, b *ViewEntry) bool {
	return a.First < b.First || a.First == b.First && a.Path < b.Path
}

// decodeView decodes a view record: a full view, or (delta non-nil) the
// head of a view whose entries are delta applied to its root's. The
// entries get room for that many more after them.
func decodeView(b []byte, room int) (*View, *viewDelta, error) {
	// One buffer backs every path decoded from the record: a view of a
	// large repository has tens of thousands of paths, and a string each
	// was most of the time spent reading it. Only the paths are copied
	// into it (it is sized for the whole record, so it never moves): the
	// pages the rest would have taken are never touched, and each page a
	// process touches first is a page fault, costly in a VM (issue 20).
	paths := make([]byte, 0, len(b))
	r := reader{b: b}
	str := func() string {
		s := r.bytes(int(r.uvarint()))
		if r.err != nil || len(s) == 0 {
			return ""
		}
		at := len(paths)
		paths = append(paths, s...)
		return unsafe.String(&paths[at], len(s))
	}
	ver := r.byte()
	if ver < 1 || ver > viewVersion {
		return nil, nil, corrupt("view record version %d, want %d", ver, viewVersion)
	}
	kind, flags := byte(viewKindFull), byte(0)
	if ver >= 3 {
		kind, flags = r.byte(), r.byte()
	}
	var d *viewDelta
	if kind == viewKindDelta {
		d = &viewDelta{removed: map[string]bool{}, upserts: map[string]ViewEntry{}}
		copy(d.root[:], r.bytes(20))
	} else if kind != viewKindFull {
		return nil, nil, corrupt("view record of unknown kind %d", kind)
	}
	v := &View{EntryStats: flags&flagEntryStats != 0}
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
			k := str()
			v.Stats.Skipped[k] = int(r.uvarint())
		}
	}
	if ver >= 3 {
		v.Filter = str()
	}
	entry := func(e *ViewEntry) {
		e.Path = str()
		copy(e.Blob[:], r.bytes(20))
		e.Seg = uint32(r.uvarint())
		e.First = uint32(r.uvarint())
		e.N = uint32(r.uvarint())
		if ver >= 2 {
			e.Vocab = r.byte()
		}
		if ver >= 3 {
			for f := range e.FieldLen {
				e.FieldLen[f] = uint32(r.uvarint())
			}
			e.Unique = uint32(r.uvarint())
		}
	}
	if d != nil {
		n := int(r.uvarint())
		for i := 0; i < n && r.err == nil && i <= len(b); i++ {
			d.removed[str()] = true
		}
		n = int(r.uvarint())
		for i := 0; i < n && r.err == nil && i <= len(b); i++ {
			var e ViewEntry
			entry(&e)
			d.upserts[e.Path] = e
		}
		if len(r.b) > 0 && r.err == nil {
			v.Vocab = str()
		}
		return v, d, r.err
	}
	n := int(r.uvarint())
	if r.err == nil && n <= len(b) {
		v.Entries = make([]ViewEntry, n, n+room)
	}
	for i := range v.Entries {
		entry(&v.Entries[i])
	}
	if len(r.b) > 0 && r.err == nil {
		v.Vocab = str()
	}
	return v, nil, r.err
}

// applyDelta fills v's entries: root's, less those d removes or
// replaces, merged in view order with d's upserts. It takes root's
// entries over (in place: the root is read for this alone).
func applyDelta(v, root *View, d *viewDelta) {
	ups := sortedEntries(d.upserts)
	es := root.Entries
	k := 0
	for i := range es {
		p := es[i].Path
		if d.removed[p] {
			continue
		}
		if _, ok := d.upserts[p]; ok {
			continue
		}
		es[k] = es[i]
		k++
	}
	// Merge from the back, into the room after the entries kept. No
	// two compare equal: an upserted path is no longer among them.
	n := k + len(ups)
	if cap(es) < n {
		es = append(es[:k], make([]ViewEntry, len(ups))...)
	}
	es = es[:n]
	for i, j, w := k-1, len(ups)-1, n-1; j >= 0; w-- {
		if i >= 0 && entryLess(&ups[j], &es[i]) {
			es[w] = es[i]
			i--
		} else {
			es[w] = ups[j]
			j--
		}
	}
	root.Entries = nil
	v.Entries = es
	v.EntryStats = root.EntryStats
	v.delta = d
}

// deltaOver returns how v differs from the full view behind parent (the
// parent itself, or its root when it was stored as a delta), or nil when
// parent cannot be a base (no entry statistics).
func deltaOver(v, parent *View) *viewDelta {
	if parent == nil || !parent.EntryStats || !v.EntryStats || parent.tree == (SHA{}) {
		return nil
	}
	d := &viewDelta{root: parent.tree, removed: map[string]bool{}, upserts: map[string]ViewEntry{}}
	if pd := parent.delta; pd != nil {
		d.root = pd.root
		for p := range pd.removed {
			d.removed[p] = true
		}
		for p, e := range pd.upserts {
			d.upserts[p] = e
		}
	}
	// What changed from parent to v, applied on top of parent's delta.
	// Both are in view order, so one walk finds the differences (no map
	// of every path: this runs on every commit). A path whose entry moved
	// shows as removed at its old place and upserted at its new one: the
	// upsert wins. A path removed that the root never had, or upserted
	// with the root's own entry, is harmless: applyDelta gives the same
	// entries.
	var gone []string
	now := map[string]bool{} // upserted by this walk
	upsert := func(e *ViewEntry) {
		d.upserts[e.Path] = *e
		delete(d.removed, e.Path)
		now[e.Path] = true
	}
	pe, ve := parent.Entries, v.Entries
	i, j := 0, 0
	for i < len(pe) || j < len(ve) {
		switch {
		case j == len(ve) || i < len(pe) && entryLess(&pe[i], &ve[j]):
			gone = append(gone, pe[i].Path)
			i++
		case i == len(pe) || entryLess(&ve[j], &pe[i]):
			upsert(&ve[j])
			j++
		default: // same place, same path
			if pe[i] != ve[j] {
				upsert(&ve[j])
			}
			i++
			j++
		}
	}
	for _, p := range gone {
		if !now[p] {
			d.removed[p] = true
			delete(d.upserts, p)
		}
	}
	return d
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

// bytes returns the next n bytes, or nil (and errShort) when the record
// has fewer: a length read from a damaged record may be huge or, past
// int's range, negative, and must not become an allocation or a panic.
func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		r.err = errShort
		return nil
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
