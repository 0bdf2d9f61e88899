package share

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/store"
)

// PullOptions control Pull.
type PullOptions struct {
	Remote string
	Rev    string // the commit to make searchable (default HEAD)
	// Embedder is the configured embedder (nil: dense is off, vectors are
	// not imported). A shared view with vectors of another model is
	// refused unless NoVectors.
	Embedder  llm.Embedder
	NoVectors bool
	// Verify re-analyses every imported blob and refuses the pull if any
	// record differs from what this machine makes.
	Verify bool
	// NoFetch imports from what was fetched before (git fetch with the
	// refspec of `git kb share setup`).
	NoFetch  bool
	Wait     time.Duration
	Progress func(what string)
}

// PullResult is what Pull did.
type PullResult struct {
	Remote   string  `json:"remote"`
	Ref      string  `json:"ref"`       // the remote's ref imported from
	KBCommit string  `json:"kb_commit"` // its commit
	Commit   string  `json:"source_commit"`
	Exact    bool    `json:"exact"` // the shared view is of Rev's commit itself
	Records  int     `json:"records"`
	Imported int     `json:"blobs_imported"`
	Present  int     `json:"blobs_present"` // already in the local index
	Vectors  int     `json:"vectors_imported"`
	Model    string  `json:"model,omitempty"`
	Fetched  int64   `json:"bytes_fetched"`
	Verified int     `json:"blobs_verified"`
	Seconds  float64 `json:"seconds"`
	// Origin is what to record for the view once it is indexed.
	Origin *store.Origin `json:"-"`
}

// ErrNothingShared means the remote has no shared view usable for Rev.
var ErrNothingShared = errors.New("no shared index")

// ErrRefused means the shared data failed a check; nothing was imported.
var ErrRefused = errors.New("refused")

func (o *PullOptions) progress(format string, a ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, a...))
	}
}

// Pull fetches the remote's shared views and imports the one that best
// covers Rev: its own commit's, else the nearest ancestor's. Records the
// local index already has are not read. The caller then indexes Rev (which
// finds the imported blobs done and indexes only what is left) and embeds
// (which finds the imported vectors cached), then calls RecordOrigin.
func Pull(ctx context.Context, repo *gitx.Repo, o PullOptions) (*PullResult, error) {
	began := time.Now()
	res := &PullResult{Remote: secrets.RedactURL(o.Remote)}
	commit, _, err := repo.Resolve(ctx, o.Rev)
	if err != nil {
		return nil, err
	}
	track := TrackingPrefix(o.Remote)
	if !o.NoFetch {
		o.progress("fetching %s%s* from %s", RefPrefix, "", res.Remote)
		t, err := repo.Fetch(ctx, o.Remote, "+"+RefPrefix+"*:"+track+"*")
		if err != nil {
			return nil, err
		}
		res.Fetched = t.Bytes
	}
	pol, err := index.SecretsPolicy(ctx, repo)
	if err != nil {
		return nil, err
	}
	ref, kc, man, err := choose(ctx, repo, track, commit)
	if err != nil {
		return nil, err
	}
	res.Ref, res.KBCommit, res.Commit = RefPrefix+strings.TrimPrefix(ref, track), kc.String(), man.Commit
	res.Exact = man.Commit == commit.String()
	// Every check of the shared data fails the same way: the pull is
	// refused before anything is written.
	refuse := func(err error) error {
		return fmt.Errorf("%w: %s of %s: %v; nothing was imported", ErrRefused, res.Ref, res.Remote, err)
	}
	if err := checkCompatible(ctx, repo, man, pol.Fingerprint()); err != nil {
		return nil, refuse(err)
	}
	mk, model, err := vectorsToTake(man, o)
	if err != nil {
		return nil, refuse(err)
	}
	if model != nil {
		res.Model = model.ID
	}
	sv, err := listShared(ctx, repo, kc, man, model)
	if err != nil {
		return nil, refuse(err)
	}
	res.Records = len(sv.records)

	blobs := sv.blobs()
	local, err := readLocal(ctx, repo, o.Wait, blobs, sv.vectors, mk, model)
	if err != nil {
		return nil, err
	}
	todo := local.lacking(blobs)
	res.Present = len(blobs) - len(todo)
	sortInTreeOrder(ctx, repo, gitx.ParseHash(man.Tree), todo)
	o.progress("checking %d records (%d already in the local index)", len(todo), res.Present)

	// Read and check every record to import, then the vectors.
	recs, err := readRecords(ctx, repo, todo, sv.records)
	if err != nil {
		return nil, refuse(err)
	}
	if err := checkAgainstRepo(ctx, repo, todo, recs); err != nil {
		return nil, refuse(err)
	}
	vecs, err := readVectors(ctx, repo, local.vectorsLacking(blobs, sv.vectors), sv.vectors, model, recs, local.meta)
	if err != nil {
		return nil, refuse(err)
	}
	if o.Verify {
		o.progress("re-analysing %d blobs", len(todo))
		n, err := verifyRecords(ctx, repo, gitx.ParseHash(man.Commit), todo, recs)
		if err != nil {
			return nil, refuse(err)
		}
		res.Verified = n
	}

	// Write: one new segment of the imported records, committed at once.
	if len(todo) > 0 || len(vecs) > 0 {
		o.progress("importing %d records, %d vector records", len(todo), len(vecs))
		n, err := importData(ctx, repo, o, todo, recs, vecs, mk, model, local.meta, pol.Fingerprint())
		if err != nil {
			return nil, err
		}
		res.Vectors = n
	}
	res.Imported = len(todo)
	res.Origin = &store.Origin{Remote: res.Remote, Ref: res.Ref, KBCommit: res.KBCommit, Commit: res.Commit,
		Imported: res.Imported + res.Present, Vectors: res.Vectors, Pulled: time.Now().UTC(), Verified: o.Verify}
	res.Seconds = time.Since(began).Seconds()
	return res, nil
}

// checkCompatible says why the shared view cannot serve this repository
// (layout, pipeline, secrets policy or word list), nil when it can.
func checkCompatible(ctx context.Context, repo *gitx.Repo, man *Manifest, secretsFP string) error {
	vocab, err := index.VocabInForce(ctx, repo)
	if err != nil {
		return err
	}
	if why := compatible(man, secretsFP, vocab.Fingerprint()); why != "" {
		return errors.New(why)
	}
	return nil
}

// vectorsToTake picks which model's vectors to import: the configured
// embedder's, if the view has them. A view with vectors of other models
// only is refused, unless NoVectors. No embedder (or NoVectors): none.
func vectorsToTake(man *Manifest, o PullOptions) (store.ModelKey, *Model, error) {
	var mk store.ModelKey
	if o.Embedder == nil || o.NoVectors {
		return mk, nil, nil
	}
	mk = index.ModelKey(o.Embedder)
	model := man.model(modelHex(mk))
	if model == nil && len(man.Models) > 0 {
		var have []string
		for _, m := range man.Models {
			have = append(have, fmt.Sprintf("%s (%d dims)", m.ID, m.Dim))
		}
		return mk, nil, fmt.Errorf("its vectors were made by %s, your embedder is %s: set kb.embed.* to that model to use them, or pull with --no-vectors (lexical data only, your embedder embeds everything)", strings.Join(have, ", "), o.Embedder.ID())
	}
	if model != nil {
		if d := o.Embedder.Dim(); d > 0 && d != model.Dim {
			return mk, nil, fmt.Errorf("its vectors of %s have %d dimensions, your embedder gives %d", model.ID, model.Dim, d)
		}
	}
	return mk, model, nil
}

// sharedView is what a shared view's tree holds: the git object of each
// blob's record, and of its vectors by the model taken.
type sharedView struct {
	records map[store.SHA]gitx.Hash
	vectors map[store.SHA]gitx.Hash
}

// listShared lists the shared view's tree (commit kc) and checks it
// against its manifest: no unknown file, as many records and vectors as
// kb.json lists, no vectors without their blob's record.
func listShared(ctx context.Context, repo *gitx.Repo, kc gitx.Hash, man *Manifest, model *Model) (*sharedView, error) {
	entries, err := repo.ListTree(ctx, kc)
	if err != nil {
		return nil, fmt.Errorf("cannot list it: %v", err)
	}
	sv := &sharedView{records: map[store.SHA]gitx.Hash{}, vectors: map[store.SHA]gitx.Hash{}}
	for _, e := range entries {
		if e.Path == "kb.json" {
			continue
		}
		kind, mod, blob, ok := parsePath(e.Path)
		switch {
		case !ok:
			return nil, fmt.Errorf("unexpected file %s", e.Path)
		case kind == "blobs":
			sv.records[blob] = e.Blob
		case model != nil && mod == model.Key:
			sv.vectors[blob] = e.Blob
		}
	}
	if len(sv.records) != man.Blobs {
		return nil, fmt.Errorf("kb.json lists %d blobs, the tree holds %d records (truncated?)", man.Blobs, len(sv.records))
	}
	if model != nil && len(sv.vectors) != model.Blobs {
		return nil, fmt.Errorf("kb.json lists vectors for %d blobs, the tree holds %d (truncated?)", model.Blobs, len(sv.vectors))
	}
	for b := range sv.vectors {
		if _, ok := sv.records[b]; !ok {
			return nil, fmt.Errorf("vectors of blob %s without its record", shortSHA(b))
		}
	}
	return sv, nil
}

// blobs are the blobs the view has records of, in SHA order.
func (sv *sharedView) blobs() []store.SHA {
	blobs := make([]store.SHA, 0, len(sv.records))
	for b := range sv.records {
		blobs = append(blobs, b)
	}
	sort.Slice(blobs, func(i, j int) bool { return bytes.Compare(blobs[i][:], blobs[j][:]) < 0 })
	return blobs
}

// localHoldings is what the local index already has of a shared view's
// blobs, so that a pull reads none of it again.
type localHoldings struct {
	have map[store.SHA]store.BlobHeader
	// meta and cached, for the blobs held whose vectors the view has:
	// their metadata, and whether every chunk's vector is cached already.
	meta   map[store.SHA]*store.BlobMeta
	cached map[store.SHA]bool
}

// readLocal reads what the local index holds of blobs (and, with a
// model, of the vectors of vecObj's blobs). No local index holds nothing.
func readLocal(ctx context.Context, repo *gitx.Repo, wait time.Duration, blobs []store.SHA, vecObj map[store.SHA]gitx.Hash, mk store.ModelKey, model *Model) (*localHoldings, error) {
	l := &localHoldings{have: map[store.SHA]store.BlobHeader{}, meta: map[store.SHA]*store.BlobMeta{}, cached: map[store.SHA]bool{}}
	db, err := store.Open(ctx, index.DBDir(repo), store.Options{ReadOnly: true, Wait: wait})
	if errors.Is(err, store.ErrNoIndex) {
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	segs, err := db.Segments()
	if err == nil {
		l.have, err = db.BlobHeaders(index.PipelineVersion, blobs, segs)
	}
	if err == nil && model != nil {
		for b := range vecObj {
			if _, ok := l.have[b]; ok {
				if l.meta[b], err = db.BlobMeta(index.PipelineVersion, b); err != nil {
					break
				}
			}
		}
		if err == nil {
			l.cached, err = cachedBlobs(db, mk, l.meta)
		}
	}
	db.Close()
	if err != nil {
		return nil, err
	}
	return l, nil
}

// lacking are the blobs whose records the local index lacks, in blobs' order.
func (l *localHoldings) lacking(blobs []store.SHA) []store.SHA {
	var todo []store.SHA
	for _, b := range blobs {
		if _, ok := l.have[b]; !ok {
			todo = append(todo, b)
		}
	}
	return todo
}

// vectorsLacking are the blobs with vectors in vecObj that the local
// embedding cache lacks some of, in blobs' order.
func (l *localHoldings) vectorsLacking(blobs []store.SHA, vecObj map[store.SHA]gitx.Hash) []store.SHA {
	var vtodo []store.SHA
	for _, b := range blobs {
		if _, ok := vecObj[b]; ok && !l.cached[b] {
			vtodo = append(vtodo, b)
		}
	}
	return vtodo
}

// sortInTreeOrder sorts blobs in the order a fresh local index would give
// their chunk ordinals (the path order of tree, blobs not in it last), so
// ties in ranking break the same way as there. If the tree cannot be
// listed, blobs stay as they are.
func sortInTreeOrder(ctx context.Context, repo *gitx.Repo, tree gitx.Hash, blobs []store.SHA) {
	es, err := repo.ListTree(ctx, tree)
	if err != nil {
		return
	}
	pos := make(map[store.SHA]int, len(es))
	for i, e := range es {
		if _, ok := pos[store.SHA(e.Blob)]; !ok {
			pos[store.SHA(e.Blob)] = i
		}
	}
	at := func(b store.SHA) int {
		if p, ok := pos[b]; ok {
			return p
		}
		return len(es)
	}
	sort.SliceStable(blobs, func(i, j int) bool { return at(blobs[i]) < at(blobs[j]) })
}

// choose picks the shared view for commit among the fetched refs: one of
// commit itself, else the nearest ancestor's.
func choose(ctx context.Context, repo *gitx.Repo, track string, commit gitx.Hash) (string, gitx.Hash, *Manifest, error) {
	refs, err := repo.RefsUnder(ctx, track)
	if err != nil {
		return "", gitx.Hash{}, nil, err
	}
	if len(refs) == 0 {
		return "", gitx.Hash{}, nil, fmt.Errorf("%w on the remote (nothing under %s): push one with git kb push", ErrNothingShared, RefPrefix)
	}
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	best, bestDist := "", -1
	var bestMan *Manifest
	for _, n := range names {
		m, err := readManifest(ctx, repo, refs[n])
		if err != nil {
			continue
		}
		if m.Commit == commit.String() {
			return n, refs[n], m, nil
		}
		if !repo.IsAncestor(ctx, m.Commit, commit.String()) {
			continue
		}
		d, err := repo.CountCommits(ctx, m.Commit, commit.String())
		if err == nil && (bestDist < 0 || d < bestDist) {
			best, bestDist, bestMan = n, d, m
		}
	}
	if best == "" {
		return "", gitx.Hash{}, nil, fmt.Errorf("%w for %s or its ancestors on the remote (%d shared views, none of them in its history); run git kb index", ErrNothingShared, commit.String()[:12], len(refs))
	}
	return best, refs[best], bestMan, nil
}

func readRecords(ctx context.Context, repo *gitx.Repo, blobs []store.SHA, obj map[store.SHA]gitx.Hash) (map[store.SHA]*Record, error) {
	out := make(map[store.SHA]*Record, len(blobs))
	hs := make([]gitx.Hash, len(blobs))
	back := make(map[gitx.Hash]store.SHA, len(blobs))
	for i, b := range blobs {
		hs[i] = obj[b]
		back[obj[b]] = b
	}
	err := repo.ReadBlobs(ctx, hs, func(h gitx.Hash, data []byte) error {
		b := back[h]
		r, err := DecodeRecord(data)
		if err != nil {
			return fmt.Errorf("record of blob %s: %w", shortSHA(b), err)
		}
		out[b] = r
		return nil
	})
	return out, err
}

// checkAgainstRepo checks the records against the blobs they describe:
// each exists, is a blob of the recorded size, and its chunks' line
// ranges fit its lines.
func checkAgainstRepo(ctx context.Context, repo *gitx.Repo, blobs []store.SHA, recs map[store.SHA]*Record) error {
	hs := make([]gitx.Hash, len(blobs))
	for i, b := range blobs {
		hs[i] = hashOf(b)
	}
	info, err := repo.Objects(ctx, hs)
	if err != nil {
		return err
	}
	for _, b := range blobs {
		oi := info[hashOf(b)]
		if oi.Type != "blob" {
			return fmt.Errorf("record of blob %s, which this repository does not have (fetch its history first)", shortSHA(b))
		}
		if oi.Size != recs[b].Size {
			return fmt.Errorf("record of blob %s says %d bytes, git says %d", shortSHA(b), recs[b].Size, oi.Size)
		}
	}
	return repo.ReadBlobs(ctx, hs, func(h gitx.Hash, data []byte) error {
		r := recs[store.SHA(h)]
		if r.Meta == nil {
			return nil
		}
		lines := bytes.Count(data, []byte{'\n'}) + 1
		for i, c := range r.Meta.Chunks {
			if c.Start < 1 || c.End < c.Start || c.End > lines {
				return fmt.Errorf("record of blob %s: chunk %d at lines %d-%d, the blob has %d lines", h.String()[:12], i, c.Start, c.End, lines)
			}
		}
		return nil
	})
}

// cachedBlobs says which blobs (with known metadata) have every chunk's
// vector cached already.
func cachedBlobs(db *store.DB, mk store.ModelKey, metas map[store.SHA]*store.BlobMeta) (map[store.SHA]bool, error) {
	var keys []store.VecKey
	var owner []store.SHA
	for b, m := range metas {
		for i := range m.Chunks {
			keys = append(keys, index.ChunkVecKey(m, i))
			owner = append(owner, b)
		}
	}
	found := map[store.SHA]int{}
	err := db.CachedVectors(mk, keys, func(i int, _ []byte) error { found[owner[i]]++; return nil })
	out := map[store.SHA]bool{}
	for b, m := range metas {
		out[b] = found[b] == len(m.Chunks)
	}
	return out, err
}

func readVectors(ctx context.Context, repo *gitx.Repo, blobs []store.SHA, obj map[store.SHA]gitx.Hash, model *Model, recs map[store.SHA]*Record, local map[store.SHA]*store.BlobMeta) (map[store.SHA]*Vectors, error) {
	out := map[store.SHA]*Vectors{}
	if len(blobs) == 0 {
		return out, nil
	}
	hs := make([]gitx.Hash, len(blobs))
	back := map[gitx.Hash]store.SHA{}
	for i, b := range blobs {
		hs[i] = obj[b]
		back[obj[b]] = b
	}
	err := repo.ReadBlobs(ctx, hs, func(h gitx.Hash, data []byte) error {
		b := back[h]
		v, err := DecodeVectors(data)
		if err != nil {
			return fmt.Errorf("vectors of blob %s: %w", shortSHA(b), err)
		}
		n := 0
		if r := recs[b]; r != nil {
			n = int(r.Header.N)
		} else if m := local[b]; m != nil {
			n = len(m.Chunks)
		}
		if v.Dim != model.Dim || len(v.Rows) != n {
			return fmt.Errorf("vectors of blob %s: %d x %d, want %d chunks x %d dims", shortSHA(b), len(v.Rows), v.Dim, n, model.Dim)
		}
		out[b] = v
		return nil
	})
	return out, err
}

// verifyRecords re-analyses each blob as this machine's indexer would and
// compares the encoded records byte for byte.
func verifyRecords(ctx context.Context, repo *gitx.Repo, commit gitx.Hash, blobs []store.SHA, recs map[store.SHA]*Record) (int, error) {
	an, err := index.NewAnalyzer(ctx, repo, len(blobs) > 200)
	if err != nil {
		return 0, err
	}
	// The path matters to analysis (language, path terms): find one.
	paths, err := pathsOf(ctx, repo, commit, blobs)
	if err != nil {
		return 0, err
	}
	hs := make([]gitx.Hash, len(blobs))
	for i, b := range blobs {
		hs[i] = hashOf(b)
	}
	n := 0
	err = repo.ReadBlobs(ctx, hs, func(h gitx.Hash, data []byte) error {
		b := store.SHA(h)
		if bad := Differs(an, paths[b], b, data, recs[b]); bad != "" {
			return fmt.Errorf("blob %s (%s): %s", shortSHA(b), paths[b], bad)
		}
		n++
		return nil
	})
	return n, err
}

// Differs re-analyses a blob and says how the record differs from what
// this machine makes ("" when equal).
func Differs(an *index.Analyzer, path string, blob store.SHA, data []byte, r *Record) string {
	a := an.Analyze(path, blob, data)
	mine := &Record{Size: int64(len(data)), Header: a.Header, Meta: a.Meta, Lens: a.Lens, Chunks: a.Chunks}
	mine.Header.Seg, mine.Header.First = 0, 0
	x, err1 := mine.Encode()
	y, err2 := r.Encode()
	if err1 != nil || err2 != nil {
		return "cannot encode"
	}
	if bytes.Equal(x, y) {
		return ""
	}
	switch {
	case mine.Header.N != r.Header.N:
		return fmt.Sprintf("re-analysis gives %d chunks, the record %d", mine.Header.N, r.Header.N)
	case mine.Header.UniqueTerm != r.Header.UniqueTerm:
		return fmt.Sprintf("re-analysis gives %d distinct terms, the record %d", mine.Header.UniqueTerm, r.Header.UniqueTerm)
	}
	return "postings or metadata differ from a re-analysis"
}

// pathsOf finds the path of each blob in the tree of commit (the shared
// view's, which the pull made sure this repository has).
func pathsOf(ctx context.Context, repo *gitx.Repo, commit gitx.Hash, blobs []store.SHA) (map[store.SHA]string, error) {
	out := map[store.SHA]string{}
	_, tree, err := repo.Resolve(ctx, commit.String())
	if err != nil {
		return nil, err
	}
	es, err := repo.ListTree(ctx, tree)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		if _, ok := out[store.SHA(e.Blob)]; !ok {
			out[store.SHA(e.Blob)] = e.Path
		}
	}
	for _, b := range blobs {
		if _, ok := out[b]; !ok {
			return nil, fmt.Errorf("blob %s is not in the tree of the shared commit", shortSHA(b))
		}
	}
	return out, nil
}

// importData writes the checked records as one new segment and the
// vectors into the embedding cache, then commits the segment.
//
// Into an index that holds no records yet, every record is then one made
// under secretsFP (checkCompatible): that policy is recorded
// (index.AdoptPolicy), so the run indexing the pulled commit keeps them
// instead of re-deriving an index of unknown policy. An index that held
// records already keeps the policy it recorded: when that is not the
// current one, the next run re-derives its records, pulled ones too.
func importData(ctx context.Context, repo *gitx.Repo, o PullOptions, blobs []store.SHA, recs map[store.SHA]*Record, vecs map[store.SHA]*Vectors, mk store.ModelKey, model *Model, local map[store.SHA]*store.BlobMeta, secretsFP string) (int, error) {
	var total uint32
	for _, b := range blobs {
		total += recs[b].Header.N
	}
	db, err := store.Open(ctx, index.DBDir(repo), store.Options{Wait: o.Wait, Pipeline: index.PipelineVersion, CreatedBy: "git-kb pull"})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	held, err := db.Segments()
	if err != nil {
		return 0, err
	}
	var seg store.Segment
	if len(blobs) > 0 {
		id, first, err := db.AllocSegment(total)
		if err != nil {
			return 0, err
		}
		seg = store.Segment{ID: id, First: first, N: total}
	}
	b := db.NewBatch(index.PipelineVersion)
	defer b.Cancel()
	postings := map[string][]store.Posting{}
	lens := make([]uint32, 0, total)
	next := seg.First
	for _, blob := range blobs {
		r := recs[blob]
		h := r.Header
		h.Seg, h.First = seg.ID, next
		for c, terms := range r.Chunks {
			for _, t := range terms {
				postings[t.Term] = append(postings[t.Term], store.Posting{Chunk: next + uint32(c), TF: t.TF})
			}
		}
		lens = append(lens, r.Lens...)
		next += h.N
		if err := b.Blob(blob, h, r.Meta); err != nil {
			return 0, err
		}
	}
	if len(blobs) > 0 {
		for term, ps := range postings {
			if err := b.Postings(term, seg.ID, store.EncodePostings(ps)); err != nil {
				return 0, err
			}
		}
		if err := b.Lengths(seg.ID, lens); err != nil {
			return 0, err
		}
	}
	nvec := 0
	for blob, v := range vecs {
		m := local[blob]
		if r := recs[blob]; r != nil {
			m = r.Meta
		}
		for i, row := range v.Rows {
			if err := b.CacheVector(mk, index.ChunkVecKey(m, i), row); err != nil {
				return 0, err
			}
			nvec++
		}
	}
	if err := b.Flush(); err != nil {
		return 0, err
	}
	if model != nil && nvec > 0 {
		if _, err := db.Model(mk); errors.Is(err, store.ErrNotFound) {
			if err := db.PutModel(mk, &store.ModelInfo{ID: model.ID, Dim: model.Dim, Created: time.Now().UTC()}); err != nil {
				return 0, err
			}
		}
	}
	if len(blobs) > 0 {
		if err := db.CommitSegment(seg); err != nil {
			return 0, err
		}
		if len(held) == 0 {
			if err := index.AdoptPolicy(repo.KBDir(), secretsFP); err != nil {
				return 0, err
			}
		}
	}
	return nvec, nil
}

// RecordOrigin notes where the view of rev's tree came from, once the
// caller has indexed it.
func RecordOrigin(ctx context.Context, repo *gitx.Repo, rev string, o *store.Origin, local int, wait time.Duration) error {
	_, tree, err := repo.Resolve(ctx, rev)
	if err != nil {
		return err
	}
	o.Local = local
	db, err := store.Open(ctx, index.DBDir(repo), store.Options{Wait: wait, Pipeline: index.PipelineVersion})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PutOrigin(index.PipelineVersion, store.SHA(tree), o)
}
