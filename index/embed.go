package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/git-kb/git-kb/ann"
	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/store"
)

// EmbedInputVersion versions the text given to the embedder for a chunk
// (see EmbedText). Changing it starts a new embedding space.
const EmbedInputVersion = 1

// Graphs are opt-in (kb.ann.graphMin): only the MCP server loads them (a
// cold CLI search is no faster with one, since reading it from the index
// costs what it saves), and a build costs a minute or more per 100k
// vectors (docs/MEASURED.md, ann benchmark).

// ModelKey is the store key of an embedder's vectors.
func ModelKey(e llm.Embedder) store.ModelKey {
	return store.ModelKeyFor(e.ID(), EmbedInputVersion)
}

// EmbedText is what the embedder sees of a chunk: the document title and
// heading path give a section its context ("## 回滚" means little alone).
func EmbedText(title, heading, text string) string {
	var b strings.Builder
	if title != "" {
		b.WriteString(title)
		b.WriteByte('\n')
	}
	if heading != "" && heading != title {
		b.WriteString(heading)
		b.WriteByte('\n')
	}
	b.WriteString(text)
	s := b.String()
	if len(s) > maxEmbedBytes {
		s = strings.ToValidUTF8(s[:maxEmbedBytes], "")
	}
	return s
}

// maxEmbedBytes keeps inputs inside common embedding models' contexts
// (8k tokens); chunks are far smaller, titles and headings can be odd.
const maxEmbedBytes = 12 << 10

// vecKeyOf is the cache key of a chunk's embedding: a hash of everything
// EmbedText reads, so identical input is embedded once, in any commit,
// branch or path.
func vecKeyOf(title, heading, textHash string) store.VecKey {
	sum := sha256.Sum256([]byte(title + "\x00" + heading + "\x00" + textHash))
	var k store.VecKey
	copy(k[:], sum[:])
	return k
}

// EmbedOptions control an embedding run.
type EmbedOptions struct {
	Rev      string
	Embedder llm.Embedder
	Wait     time.Duration
	OnWait   func(what string)
	// Progress receives Phase "embed" events counting chunks.
	Progress func(Event)
	// GraphMin: build an HNSW graph for segments of at least this many
	// vectors (0: never).
	GraphMin int
	// FlushEvery bounds the work lost to an interruption (default 5s).
	FlushEvery time.Duration
}

// EmbedStats describe an embedding run.
type EmbedStats struct {
	Commit   string  `json:"commit"`
	Model    string  `json:"model"`
	Dim      int     `json:"dim"`
	Chunks   int     `json:"chunks"`   // chunks of the view
	Ready    int     `json:"ready"`    // already in a vector table
	Cached   int     `json:"cached"`   // found in the embedding cache
	Embedded int     `json:"embedded"` // sent to the embedder now
	Tables   int     `json:"tables"`   // segment vector tables written
	Graphs   int     `json:"graphs"`   // HNSW graphs written
	Seconds  float64 `json:"seconds"`
}

// want is one chunk of the view that has no vector in its segment's table.
type want struct {
	seg   uint32
	row   uint32 // ordinal - segment first
	key   store.VecKey
	blob  store.SHA
	path  string
	idx   int // chunk index in the blob
	hash  string
	input string
	vec   []byte // encoded, once known
}

// Embed gives every chunk of an indexed commit a vector: cached vectors are
// reused, the rest are embedded in batches and cached as they arrive (an
// interrupted run keeps what it flushed), then each segment's vector table
// is written. The commit must be indexed already.
func Embed(ctx context.Context, repo *gitx.Repo, o EmbedOptions) (*EmbedStats, error) {
	began := time.Now()
	st := &EmbedStats{Model: o.Embedder.ID()}
	defer func() { st.Seconds = time.Since(began).Seconds() }()
	if o.FlushEvery <= 0 {
		o.FlushEvery = 5 * time.Second
	}
	commit, tree, err := repo.Resolve(ctx, o.Rev)
	if err != nil {
		return st, err
	}
	st.Commit = commit.String()
	onWait := func(what string) func() {
		return func() {
			if o.OnWait != nil {
				o.OnWait(what)
			}
		}
	}
	release, err := lockFile(ctx, repo.KBDir(), "embed.lock", ErrEmbedBusy, o.Wait, waitNote(o.OnWait, "another embedding run to finish"))
	if err != nil {
		return st, err
	}
	defer release()

	mk := ModelKey(o.Embedder)
	dbDir := DBDir(repo)
	rw := store.Options{Wait: o.Wait, OnWait: onWait("searches to release the index"), Pipeline: PipelineVersion}
	ro := rw
	ro.ReadOnly = true

	wants, tables, dim, err := planEmbed(ctx, repo, o, mk, dbDir, ro, tree, st)
	if err != nil {
		return st, err
	}
	if len(wants) == 0 {
		st.Dim = dim
		return st, nil
	}

	if dim, err = embedMissing(ctx, repo, o, mk, dbDir, rw, wants, dim, st); err != nil {
		return st, err
	}
	st.Dim = dim

	segIDs, err := writeTables(ctx, o, mk, dbDir, rw, wants, tables, dim, st)
	if err != nil {
		return st, err
	}

	return st, writeGraphs(ctx, o, mk, dbDir, rw, tables, segIDs, st)
}

// planEmbed finds, read-only, the chunks of tree's view that lack vectors,
// their segments' tables, the vectors the cache has for them, and the
// dimension (0 while no vector is known), which the embedder must agree
// with.
func planEmbed(ctx context.Context, repo *gitx.Repo, o EmbedOptions, mk store.ModelKey, dbDir string, ro store.Options, tree gitx.Hash, st *EmbedStats) ([]*want, map[uint32]*segTable, int, error) {
	// Plan, read-only: which chunks of the view lack vectors, and which of
	// those are in the cache.
	db, err := store.Open(ctx, dbDir, ro)
	if err != nil {
		return nil, nil, 0, err
	}
	wants, tables, dim, err := plan(db, mk, tree, st)
	if err == nil && dim == 0 {
		if m, merr := db.Model(mk); merr == nil {
			dim = m.Dim
		}
	}
	db.Close()
	if err != nil {
		return nil, nil, 0, err
	}
	if err := lookupCache(ctx, repo, mk, wants, ro); err != nil {
		return nil, nil, 0, err
	}
	for _, w := range wants {
		if dim == 0 && w.vec != nil {
			dim = len(w.vec) - 4 // a rebuilt index: the cache knows the dimension
		}
	}
	if s, ok := o.Embedder.(interface{ SetDim(int) }); ok && dim > 0 {
		s.SetDim(dim)
	}
	if d := o.Embedder.Dim(); dim > 0 && d > 0 && d != dim {
		return nil, nil, 0, &llm.DimensionError{Model: o.Embedder.ID(), Got: d, Want: dim, Source: "the dimension of the vectors already stored for it"}
	}
	return wants, tables, dim, nil
}

// embedMissing reads the texts of the wants the cache lacks and embeds
// them in groups, writing what arrives to the index and the embedding
// cache every o.FlushEvery (an interrupted run keeps that). It returns the
// dimension, learnt from the first vector when dim is 0.
func embedMissing(ctx context.Context, repo *gitx.Repo, o EmbedOptions, mk store.ModelKey, dbDir string, rw store.Options, wants []*want, dim int, st *EmbedStats) (int, error) {
	// Texts of the chunks the cache does not have.
	var missing []*want
	for _, w := range wants {
		if w.vec == nil {
			missing = append(missing, w)
		}
	}
	st.Cached = len(wants) - len(missing)
	pol, err := SecretsPolicy(ctx, repo)
	if err != nil {
		return dim, err
	}
	if err := readInputs(ctx, repo, pol, missing); err != nil {
		return dim, err
	}

	// Embed in groups, flushing to the cache every FlushEvery.
	var pending []*want
	lastFlush := time.Now()
	// Cached vectors go to the index (where search, push and pull read
	// them) and to the embedding cache store, which survives a rebuild.
	writeCache := func(dir string, ws []*want) error { return cacheVectors(ctx, dir, rw, mk, ws) }
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		err := writeCache(dbDir, pending)
		if err == nil {
			err = writeCache(CacheDir(repo), pending)
		}
		pending = pending[:0]
		lastFlush = time.Now()
		return err
	}
	total := len(missing)
	report := func(done int) {
		if o.Progress != nil {
			o.Progress(Event{Phase: "embed", Done: done, Total: total})
		}
	}
	report(0)
	// Remote embedders parallelise inside one call; a group is what they
	// keep in flight, so a failure loses at most one group.
	group, workers := 64, 1
	if h, ok := o.Embedder.(interface{ BatchHint() int }); ok {
		group = h.BatchHint()
	}
	if o.Embedder.Local() {
		workers = runtime.GOMAXPROCS(0)
		group = 256
	}
	err = embedGroups(ctx, o.Embedder, missing, group, workers, func(ws []*want, done int) error {
		for _, w := range ws {
			if dim == 0 {
				dim = len(w.vec) - 4
			} else if len(w.vec)-4 != dim {
				return &llm.DimensionError{Model: o.Embedder.ID(), Got: len(w.vec) - 4, Want: dim, Source: "the dimension of its earlier vectors"}
			}
		}
		pending = append(pending, ws...)
		st.Embedded += len(ws)
		report(done)
		if time.Since(lastFlush) >= o.FlushEvery {
			return flush()
		}
		return nil
	})
	if ferr := flush(); err == nil {
		err = ferr
	}
	return dim, err
}

// cacheVectors writes the vectors of ws to the embedding cache of the
// database in dir.
func cacheVectors(ctx context.Context, dir string, rw store.Options, mk store.ModelKey, ws []*want) error {
	rw.Reserve = int64(len(ws)) * int64(len(ws[0].vec)+32)
	db, err := store.Open(ctx, dir, rw)
	if err != nil {
		return err
	}
	b := db.NewBatch(PipelineVersion)
	for _, w := range ws {
		if err := b.CacheVector(mk, w.key, w.vec); err != nil {
			b.Cancel()
			db.Close()
			return err
		}
	}
	err = b.Flush()
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeTables writes each segment's vector table: old rows kept, the
// wants' rows filled in. It returns the segments written, in order.
func writeTables(ctx context.Context, o EmbedOptions, mk store.ModelKey, dbDir string, rw store.Options, wants []*want, tables map[uint32]*segTable, dim int, st *EmbedStats) ([]uint32, error) {
	// Tables: one per segment, old rows kept, new rows filled in; each
	// row is dim int8 codes and a scale, written once.
	var rows int64
	for _, tb := range tables {
		rows += int64(tb.info.Rows)
	}
	rw.Reserve = rows * int64(dim+4)
	db, err := store.Open(ctx, dbDir, rw)
	if err != nil {
		return nil, err
	}
	closed := false
	defer func() {
		if !closed {
			db.Close()
		}
	}()
	if _, err := db.Model(mk); errors.Is(err, store.ErrNotFound) {
		if err := db.PutModel(mk, &store.ModelInfo{ID: o.Embedder.ID(), Dim: dim, Created: time.Now().UTC()}); err != nil {
			return nil, err
		}
	}
	bySeg := map[uint32][]*want{}
	for _, w := range wants {
		bySeg[w.seg] = append(bySeg[w.seg], w)
	}
	segIDs := make([]uint32, 0, len(bySeg))
	for id := range bySeg {
		segIDs = append(segIDs, id)
	}
	sort.Slice(segIDs, func(i, j int) bool { return segIDs[i] < segIDs[j] })
	for _, id := range segIDs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tb := tables[id]
		table, err := rowsToExtend(db, mk, o.Embedder.ID(), id, tb.info, dim)
		if err != nil {
			return nil, err
		}
		for _, w := range bySeg[id] {
			if err := table.SetRow(int(w.row), w.vec); err != nil {
				return nil, err
			}
			tb.info.Present.Add(w.row)
		}
		tb.info.Dim = dim
		if err := db.PutVectorTable(mk, id, tb.info, table.Marshal()); err != nil {
			return nil, err
		}
		tb.table = table
		st.Tables++
	}
	closed = true
	return segIDs, db.Close()
}

// writeGraphs builds and writes an HNSW graph for each complete segment
// of at least o.GraphMin rows, with the database closed meanwhile
// (searches go on).
func writeGraphs(ctx context.Context, o EmbedOptions, mk store.ModelKey, dbDir string, rw store.Options, tables map[uint32]*segTable, segIDs []uint32, st *EmbedStats) error {
	for _, id := range segIDs {
		tb := tables[id]
		if o.GraphMin <= 0 || int(tb.info.Rows) < o.GraphMin || tb.info.Present.GetCardinality() != uint64(tb.info.Rows) {
			continue
		}
		g := ann.Build(tb.table, ann.GraphConfig{Seed: uint64(id)}).Marshal()
		rw.Reserve = int64(len(g))
		db, err := store.Open(ctx, dbDir, rw)
		if err != nil {
			return err
		}
		err = db.PutGraph(mk, id, g)
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		st.Graphs++
	}
	return nil
}

type segTable struct {
	info  *store.VectorTableInfo
	table *ann.Table // once written
}

// rowsToExtend returns the segment's stored rows, copied for writing, or
// empty rows if it has none yet.
func rowsToExtend(db *store.DB, mk store.ModelKey, model string, seg uint32, info *store.VectorTableInfo, dim int) (*ann.Table, error) {
	if info.Present.IsEmpty() {
		return ann.NewTable(dim, int(info.Rows)), nil
	}
	_, data, err := db.VectorTable(mk, seg)
	if err != nil {
		return nil, err
	}
	t, err := ann.UnmarshalTable(data)
	if err != nil {
		return nil, fmt.Errorf("vector table of segment %d: %w", seg, err)
	}
	if t.Dim != dim {
		return nil, &llm.DimensionError{Model: model, Got: dim, Want: t.Dim, Source: "the dimension of the segment's stored table"}
	}
	t.Codes = append([]int8(nil), t.Codes...) // data aliases it
	return t, nil
}

// CacheDir is the embedding cache of a repository: a database of its own,
// beside the index, so that rebuilding a damaged index (Rebuild) keeps
// every vector already paid for. Indexes made before it keep their
// cached vectors inside the index database, where plan still finds them.
func CacheDir(repo *gitx.Repo) string { return repo.KBDir() + "/embeddings" }

// lookupCache fills in the vectors the embedding cache has for wants that
// have none yet. A damaged cache is moved aside (it is only a cache) and
// the run goes on without it.
func lookupCache(ctx context.Context, repo *gitx.Repo, mk store.ModelKey, wants []*want, ro store.Options) error {
	var idx []int
	var keys []store.VecKey
	for i, w := range wants {
		if w.vec == nil {
			idx = append(idx, i)
			keys = append(keys, w.key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	db, err := store.Open(ctx, CacheDir(repo), ro)
	switch {
	case errors.Is(err, store.ErrNoIndex):
		return nil
	case errors.Is(err, store.ErrDamaged):
		_, merr := moveAside(CacheDir(repo), damagedDir(repo))
		return merr
	case err != nil:
		return err
	}
	defer db.Close()
	err = db.CachedVectors(mk, keys, func(i int, b []byte) error {
		wants[idx[i]].vec = append([]byte(nil), b...)
		return nil
	})
	if errors.Is(store.Classify(err), store.ErrDamaged) {
		return nil // what was read stands; the rest is embedded again
	}
	return err
}

// plan lists the view's chunks without vectors and looks them up in the
// cache.
func plan(db *store.DB, mk store.ModelKey, tree gitx.Hash, st *EmbedStats) ([]*want, map[uint32]*segTable, int, error) {
	v, err := db.View(PipelineVersion, tree)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, 0, fmt.Errorf("commit %s is not indexed yet: run git kb index first", st.Commit[:12])
	}
	if err != nil {
		return nil, nil, 0, err
	}
	st.Chunks = int(v.Chunks)
	segInfo, err := db.Segments()
	if err != nil {
		return nil, nil, 0, err
	}
	// Headers only: the rows are read later, and only for segments that
	// gain vectors (an up-to-date view reads no table at all).
	dim := 0
	tables := map[uint32]*segTable{}
	for id := range v.Segments() {
		info, err := db.VectorTableHeader(mk, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			sg := segInfo[id]
			info = &store.VectorTableInfo{First: sg.First, Rows: sg.N, Present: roaring.New()}
		case err != nil:
			return nil, nil, 0, err
		default:
			dim = info.Dim
		}
		tables[id] = &segTable{info: info}
	}
	var wants []*want
	metas := map[store.SHA]*store.BlobMeta{}
	for _, e := range v.ChunkEntries(nil) {
		tb := tables[e.Seg]
		for i := uint32(0); i < e.N; i++ {
			row := e.First + i - tb.info.First
			if tb.info.Present.Contains(row) {
				st.Ready++
				continue
			}
			m, ok := metas[e.Blob]
			if !ok {
				if m, err = db.BlobMeta(PipelineVersion, e.Blob); err != nil {
					return nil, nil, 0, fmt.Errorf("metadata of %s: %w", e.Path, err)
				}
				metas[e.Blob] = m
			}
			if int(i) >= len(m.Chunks) {
				return nil, nil, 0, fmt.Errorf("%s: chunk %d missing from its metadata", e.Path, i)
			}
			cm := m.Chunks[i]
			wants = append(wants, &want{seg: e.Seg, row: row, key: vecKeyOf(m.Title, cm.Heading, cm.Hash),
				blob: e.Blob, path: e.Path, idx: int(i), hash: cm.Hash})
		}
	}
	keys := make([]store.VecKey, len(wants))
	for i, w := range wants {
		keys[i] = w.key
	}
	err = db.CachedVectors(mk, keys, func(i int, b []byte) error {
		wants[i].vec = append([]byte(nil), b...)
		return nil
	})
	return wants, tables, dim, err
}

// readInputs fills in the embedder input of each chunk from its blob.
// The text is redacted as the indexer redacted it, so the chunk hashes
// match and no secret reaches the embedding endpoint.
func readInputs(ctx context.Context, repo *gitx.Repo, pol *secrets.Policy, ws []*want) error {
	byBlob := map[store.SHA][]*want{}
	var blobs []gitx.Hash
	for _, w := range ws {
		if byBlob[w.blob] == nil {
			blobs = append(blobs, gitx.Hash(w.blob))
		}
		byBlob[w.blob] = append(byBlob[w.blob], w)
	}
	return repo.ReadBlobs(ctx, blobs, func(h gitx.Hash, data []byte) error {
		list := byBlob[store.SHA(h)]
		text, _, _ := chunk.Decode(data)
		text = pol.RedactText(list[0].path, text)
		doc := chunk.Split(list[0].path, text)
		for _, w := range list {
			if w.idx >= len(doc.Chunks) {
				return fmt.Errorf("%s: chunk %d not found on re-reading the blob (index from another git-kb version? run git kb reset)", w.path, w.idx)
			}
			c := doc.Chunks[w.idx]
			sum := sha256.Sum256([]byte(c.Text))
			if hex.EncodeToString(sum[:12]) != w.hash {
				return fmt.Errorf("%s: chunk %d differs from the indexed one (index from another git-kb version? run git kb reset)", w.path, w.idx)
			}
			w.input = EmbedText(doc.Title, c.Heading, c.Text)
			if strings.TrimSpace(w.input) == "" {
				w.input = w.path
			}
		}
		return nil
	})
}

// embedGroups embeds ws in groups of size n, with workers groups in flight,
// and hands finished groups to done in order.
func embedGroups(ctx context.Context, e llm.Embedder, ws []*want, n, workers int, done func([]*want, int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		ws  []*want
		err error
	}
	var groups []chan result
	for lo := 0; lo < len(ws); lo += n {
		groups = append(groups, make(chan result, 1))
	}
	sem := make(chan struct{}, workers)
	go func() {
		for g, lo := 0, 0; lo < len(ws); g, lo = g+1, lo+n {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				for ; g < len(groups); g++ {
					groups[g] <- result{err: ctx.Err()}
				}
				return
			}
			part := ws[lo:min(lo+n, len(ws))]
			go func(ch chan result) {
				defer func() { <-sem }()
				in := make([]string, len(part))
				for i, w := range part {
					in[i] = w.input
				}
				vecs, err := e.Embed(ctx, in)
				if err == nil && len(vecs) != len(part) {
					err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(part))
				}
				if err == nil {
					for i, w := range part {
						w.vec = ann.EncodeVector(vecs[i])
					}
				}
				ch <- result{part, err}
			}(groups[g])
		}
	}()
	finished := 0
	for _, ch := range groups {
		r := <-ch
		if r.err != nil {
			return r.err
		}
		finished += len(r.ws)
		if err := done(r.ws, finished); err != nil {
			return err
		}
	}
	return nil
}

// Coverage counts the live chunks of a view that have a vector under mk.
func Coverage(db *store.DB, mk store.ModelKey, v *store.View) (int, error) {
	segInfo, err := db.Segments()
	if err != nil {
		return 0, err
	}
	infos := map[uint32]*store.VectorTableInfo{}
	n := 0
	for _, e := range v.ChunkEntries(nil) {
		info, ok := infos[e.Seg]
		if !ok {
			info, err = db.VectorTableHeader(mk, e.Seg)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return 0, err
			}
			infos[e.Seg] = info
		}
		if info != nil {
			n += info.CountPresent(e.First-segInfo[e.Seg].First, e.N)
		}
	}
	return n, nil
}
