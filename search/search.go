package search

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// BM25F parameters. Field weights multiply term frequency before
// saturation; only the body is length-normalised (headings, paths and
// symbol lists are short and similar in length).
const (
	k1 = 1.2
	b  = 0.75
)

// A file's score adds supportWeight/i of its (i+1)-th best chunk, for
// i = 1..fileSupport.
var (
	supportWeight = 0.3
	fileSupport   = 3
)

var fieldWeight = [store.NumFields]float64{
	store.FieldBody:    1.0,
	store.FieldHeading: 2.0,
	store.FieldPath:    1.5,
	store.FieldSymbol:  2.0,
}

// Request is one query against one view.
type Request struct {
	Query   string
	K       int // results wanted (default 10)
	PerFile int // chunks shown per file (default 1; the rest are counted)
	Commit  store.SHA
	View    *store.View
	// Mode is ModeLexical, ModeDense or ModeHybrid; "" picks hybrid when
	// the Searcher has a Dense side, lexical otherwise.
	Mode string
	// Fusion is FusionRRF (default) or FusionDBSF.
	Fusion string
	// Scope, if set, keeps only files whose path it accepts (PathScope).
	// BM25 statistics stay those of the whole view.
	Scope func(path string) bool
	// Parsed, if set, is Query in the query language (ParseQuery): its
	// free text is ranked and its operators filter.
	Parsed *Query
	// Now and StaleAfter decide which docs are stale (front-matter
	// last_reviewed older than StaleAfter; 0: 365 days; Now zero: now).
	Now        time.Time
	StaleAfter time.Duration
	// Related appends, for a strong result set, the files the best
	// matches import or are imported by and the definitions of names they
	// use, marked Match "related" (see related.go).
	Related bool
	// Overlay, if set, is searched on top of View (--worktree).
	Overlay *Overlay
	ov      *overlayIndex // Overlay numbered into View (applyOverlay)
}

// Doc health values of Result.Health.
const (
	HealthDeprecated = "deprecated"
	HealthStale      = "stale"
)

// deprecatedWeight scales a deprecated document's score.
const deprecatedWeight = 0.5

// docHealth reads a document's front-matter.
func docHealth(meta map[string]string, now time.Time, staleAfter time.Duration) string {
	if meta == nil {
		return ""
	}
	if strings.EqualFold(strings.TrimSpace(meta["confidence"]), "deprecated") || strings.EqualFold(strings.TrimSpace(meta["status"]), "deprecated") {
		return HealthDeprecated
	}
	if v := strings.Trim(strings.TrimSpace(meta["last_reviewed"]), `"'`); v != "" {
		if now.IsZero() {
			now = time.Now()
		}
		if staleAfter <= 0 {
			staleAfter = 365 * 24 * time.Hour
		}
		for _, layout := range []string{"2006-01-02", time.RFC3339, "2006/01/02", "2006-01"} {
			if t, err := time.Parse(layout, v); err == nil {
				if now.Sub(t) > staleAfter {
					return HealthStale
				}
				break
			}
		}
	}
	return ""
}

// Retrieval modes.
const (
	ModeLexical = "lexical"
	ModeDense   = "dense"
	ModeHybrid  = "hybrid"
)

// Result is one hit, in the ARCHITECTURE.md output contract.
type Result struct {
	Rank       int      `json:"rank"`
	Path       string   `json:"path"`
	StartLine  int      `json:"start_line"`
	EndLine    int      `json:"end_line"`
	Score      float64  `json:"score"`
	Blob       string   `json:"blob"`
	ChunkID    string   `json:"chunk_id"`
	Title      string   `json:"title"`
	Heading    string   `json:"heading"`
	Snippet    string   `json:"snippet"`
	Citation   string   `json:"citation"`
	Lang       string   `json:"lang,omitempty"`
	Symbols    []string `json:"symbols,omitempty"`
	Highlights []string `json:"highlights,omitempty"` // query terms found in the snippet
	MoreInFile int      `json:"more_in_file,omitempty"`
	// Health is "deprecated" (front-matter confidence: deprecated; the
	// file is demoted) or "stale" (last_reviewed older than StaleAfter).
	Health string `json:"health,omitempty"`
	// After a rerank: the judge's score (0-10) and the rank before it.
	RerankScore *float64 `json:"rerank_score,omitempty"`
	PreRank     int      `json:"rank_before_rerank,omitempty"`
	// In hybrid mode, the chunk's rank in each list fused (0: not in it).
	LexicalRank int `json:"lexical_rank,omitempty"`
	DenseRank   int `json:"dense_rank,omitempty"`
	// Match is "related" for a result --related added (it need not
	// contain the query's words); Related says how it relates.
	Match   string    `json:"match,omitempty"`
	Related *Relation `json:"related,omitempty"`
}

// DenseInfo describes the vector side of a response.
type DenseInfo struct {
	Model   string `json:"model"`
	Vectors int    `json:"vectors"` // live chunks with a vector
	Chunks  int    `json:"chunks"`  // live chunks
}

// Response is the answer to a Request.
type Response struct {
	Query    string   `json:"query"`
	Commit   string   `json:"commit"`
	Mode     string   `json:"mode"`
	Degraded string   `json:"degraded"`
	TookMs   int64    `json:"took_ms"`
	Results  []Result `json:"results"`
	Fusion   string   `json:"fusion,omitempty"`
	Rerank   string   `json:"rerank,omitempty"` // the judge used: llm or endpoint
	// StaleAfter is the age past which a doc's last_reviewed marks it stale.
	StaleAfter string     `json:"stale_after,omitempty"`
	Dense      *DenseInfo `json:"dense,omitempty"`
	// Stale is set when the commit asked for was being indexed at the
	// time: the answer comes from the most recently indexed commit, which
	// Commit names and every citation pins.
	Stale *Stale `json:"stale,omitempty"`
	// Worktree lists the uncommitted files searched (--worktree).
	Worktree *WorktreeInfo `json:"worktree,omitempty"`
	// RelatedNote says why --related added nothing.
	RelatedNote string             `json:"related_note,omitempty"`
	Terms       []string           `json:"terms,omitempty"` // the analyzed query
	Timings     map[string]float64 `json:"timings_ms,omitempty"`
}

// Stale says which commit was asked for and why another one answered.
type Stale struct {
	Requested string `json:"requested"`
	Reason    string `json:"reason"`
}

// Searcher searches one database.
type Searcher struct {
	DB       *store.DB
	Pipeline byte
	// ReadBlob returns a blob's bytes, for snippets.
	ReadBlob func(store.SHA) ([]byte, error)
	// Dense, if set, enables dense and hybrid retrieval.
	Dense *Dense

	// metas caches decoded blob metadata across the searches one Searcher
	// runs (blame-context runs dozens on one view; decoding a large file's
	// metadata again for each was most of its time).
	metaMu sync.Mutex
	metas  map[store.SHA]*store.BlobMeta
	lines  map[store.SHA][]string
}

// blobLines returns a blob's decoded lines, read once per Searcher.
func (s *Searcher) blobLines(blob store.SHA) ([]string, error) {
	s.metaMu.Lock()
	ls, ok := s.lines[blob]
	s.metaMu.Unlock()
	if ok {
		return ls, nil
	}
	data, err := s.ReadBlob(blob)
	if err != nil {
		return nil, err
	}
	text, _, _ := chunk.Decode(data)
	ls = strings.Split(text, "\n")
	s.metaMu.Lock()
	if s.lines == nil {
		s.lines = map[store.SHA][]string{}
	}
	s.lines[blob] = ls
	s.metaMu.Unlock()
	return ls, nil
}

// blobMeta returns a blob's metadata, decoded once per Searcher.
func (s *Searcher) blobMeta(blob store.SHA) (*store.BlobMeta, error) {
	s.metaMu.Lock()
	m, ok := s.metas[blob]
	s.metaMu.Unlock()
	if ok {
		return m, nil
	}
	m, err := s.DB.BlobMeta(s.Pipeline, blob)
	if err != nil {
		return nil, err
	}
	s.metaMu.Lock()
	if s.metas == nil {
		s.metas = map[store.SHA]*store.BlobMeta{}
	}
	s.metas[blob] = m
	s.metaMu.Unlock()
	return m, nil
}

type hit struct {
	chunk uint32
	score float64
	// Per-list scores and ranks (1-based; 0: absent), kept for --json.
	lexical, dense     float64
	lexRank, denseRank int
}

// Search runs a query.
func (s *Searcher) Search(ctx context.Context, req Request) (*Response, error) {
	began := time.Now()
	timings := map[string]float64{}
	lap := func(stage string, t time.Time) { timings[stage] += float64(time.Since(t).Microseconds()) / 1000 }
	if req.K <= 0 {
		req.K = 10
	}
	if req.PerFile <= 0 {
		req.PerFile = 1
	}
	if req.Mode == "" {
		req.Mode = ModeLexical
		if s.Dense != nil {
			req.Mode = ModeHybrid
		}
	}
	if req.Fusion == "" {
		req.Fusion = FusionRRF
	}
	resp := &Response{Query: req.Query, Commit: hex.EncodeToString(req.Commit[:]), Mode: req.Mode, Results: []Result{}}
	if req.StaleAfter > 0 {
		resp.StaleAfter = fmt.Sprintf("%dd", int(req.StaleAfter.Hours()/24))
	}
	if err := s.applyOverlay(&req, resp); err != nil {
		return nil, err
	}
	v := req.View

	t0 := time.Now()
	qtf := map[string]int{}
	var order []string
	text := req.Query
	if req.Parsed != nil {
		text = req.Parsed.Text
	}
	scope, err := queryScope(req)
	if err != nil {
		return nil, err
	}
	req.Scope = scope
	for _, t := range segment.Tiny().Terms(text) {
		if qtf[t] == 0 {
			order = append(order, t)
		}
		qtf[t]++
	}
	resp.Terms = order
	lap("analyze query", t0)
	if (len(order) == 0 && req.Mode == ModeLexical) || v.Chunks == 0 {
		resp.TookMs = time.Since(began).Milliseconds()
		resp.Timings = timings
		return resp, nil
	}

	t0 = time.Now()
	live := roaring.New()
	viewSegs := v.Segments()
	for _, e := range v.Entries {
		if e.N > 0 && (req.Scope == nil || req.Scope(e.Path)) {
			live.AddRange(uint64(e.First), uint64(e.First)+uint64(e.N))
		}
	}
	segInfo, err := s.DB.Segments()
	if err != nil {
		return nil, err
	}
	lap("load view", t0)

	t0 = time.Now()
	type termPostings struct {
		term string
		ps   []store.Posting
	}
	var all []termPostings
	var buf []store.Posting
	for _, term := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		buf = buf[:0]
		err := s.DB.Postings(s.Pipeline, term, viewSegs, func(_ uint32, data []byte) error {
			var err error
			buf, err = store.DecodePostings(buf, data)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("read postings of %q: %w", term, err)
		}
		if req.ov != nil {
			buf = append(buf, req.ov.postings(term)...)
		}
		var ps []store.Posting
		for _, p := range buf {
			if live.Contains(p.Chunk) {
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			all = append(all, termPostings{term, ps})
		}
	}
	lap("postings", t0)

	t0 = time.Now()
	// The view's segments sorted by first chunk: a chunk's segment is a
	// binary search away, however many incremental runs made the view.
	var segs []store.Segment
	for id := range viewSegs {
		if id == overlaySeg {
			continue
		}
		segs = append(segs, segInfo[id])
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].First < segs[j].First })
	lengths := map[uint32][]uint32{}
	lengthOf := func(c uint32) (float64, error) {
		if l, ok := req.ov.bodyLen(c); ok {
			return l, nil
		}
		i := sort.Search(len(segs), func(i int) bool { return segs[i].First+segs[i].N > c })
		if i == len(segs) || segs[i].First > c {
			return 0, fmt.Errorf("chunk %d is in no segment of the view", c)
		}
		sg := segs[i]
		ls, ok := lengths[sg.ID]
		if !ok {
			var err error
			if ls, err = s.DB.Lengths(s.Pipeline, sg.ID); err != nil {
				return 0, err
			}
			lengths[sg.ID] = ls
		}
		if j := c - sg.First; int(j) < len(ls) {
			return float64(ls[j]), nil
		}
		return 0, fmt.Errorf("chunk %d beyond the lengths of segment %d", c, sg.ID)
	}
	n := float64(v.Chunks)
	avg := float64(v.FieldLen[store.FieldBody]) / n
	if avg <= 0 {
		avg = 1
	}
	scores := map[uint32]float64{}
	dl := map[uint32]float64{}
	for _, tp := range all {
		df := float64(len(tp.ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		w := idf * float64(qtf[tp.term])
		for _, p := range tp.ps {
			l, ok := dl[p.Chunk]
			if !ok {
				if l, err = lengthOf(p.Chunk); err != nil {
					return nil, err
				}
				dl[p.Chunk] = l
			}
			tf := fieldWeight[store.FieldBody] * float64(p.TF[store.FieldBody]) / (1 - b + b*l/avg)
			for f := 1; f < store.NumFields; f++ {
				tf += fieldWeight[f] * float64(p.TF[f])
			}
			scores[p.Chunk] += w * tf * (k1 + 1) / (tf + k1)
		}
	}
	hits := make([]hit, 0, len(scores))
	for c, sc := range scores {
		hits = append(hits, hit{chunk: c, score: sc})
	}
	sort.Slice(hits, func(i, j int) bool {
		return hits[i].score > hits[j].score || hits[i].score == hits[j].score && hits[i].chunk < hits[j].chunk
	})
	lap("score", t0)

	if req.Mode != ModeLexical {
		hits, err = s.addDense(ctx, req, resp, hits, timings)
		if err != nil {
			return nil, err
		}
	}
	if req.Parsed != nil {
		t0 = time.Now()
		if hits, err = s.refine(req, hits); err != nil {
			return nil, err
		}
		lap("query operators", t0)
	}

	t0 = time.Now()
	if err := s.render(ctx, req, resp, hits, order); err != nil {
		return nil, err
	}
	lap("snippets", t0)
	if req.Related {
		t0 = time.Now()
		if err := s.related(ctx, req, resp, hits, order); err != nil {
			return nil, fmt.Errorf("related files: %w", err)
		}
		lap("related", t0)
	}
	resp.TookMs = time.Since(began).Milliseconds()
	resp.Timings = timings
	return resp, nil
}

// addDense runs the vector side and fuses it with the lexical hits. When
// vectors are missing or the embedder fails, the answer stays lexical and
// resp.Degraded says why.
func (s *Searcher) addDense(ctx context.Context, req Request, resp *Response, lex []hit, timings map[string]float64) ([]hit, error) {
	lexical := func(why string) ([]hit, error) {
		resp.Mode, resp.Degraded = ModeLexical, why
		return lex, nil
	}
	if s.Dense == nil {
		return lexical("dense retrieval is off: no embedder configured (see git kb search --help)")
	}
	lapFn := func(stage string, fn func() error) error {
		t0 := time.Now()
		err := fn()
		timings[stage] += float64(time.Since(t0).Microseconds()) / 1000
		return err
	}
	dr, err := s.dense(ctx, req, lapFn)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return lexical("dense retrieval failed: " + err.Error())
	}
	resp.Dense = &DenseInfo{Model: s.Dense.Embedder.ID(), Vectors: dr.covered, Chunks: dr.live}
	if dr.covered == 0 {
		return lexical("no vectors for this commit yet: run git kb index (embedding may still be running)")
	}
	if dr.covered < dr.live {
		resp.Degraded = fmt.Sprintf("vectors cover %d of %d chunks: embedding is incomplete or still running", dr.covered, dr.live)
	}
	if req.Mode == ModeDense {
		return dr.hits, nil
	}
	resp.Fusion = req.Fusion
	top := lex[:min(len(lex), denseCandidates)]
	return fuse(top, dr.hits, req.Fusion), nil
}

// entryOf finds the view entry holding a chunk (entries are sorted by First).
func entryOf(v *store.View, c uint32) *store.ViewEntry {
	i := sort.Search(len(v.Entries), func(i int) bool { return v.Entries[i].First+v.Entries[i].N > c })
	if i < len(v.Entries) && v.Entries[i].First <= c {
		return &v.Entries[i]
	}
	return nil
}

// render groups hits by file (PerFile chunks each, the rest counted) and
// fills in metadata and snippets for the first K.
func (s *Searcher) render(ctx context.Context, req Request, resp *Response, hits []hit, terms []string) error {
	v := req.View
	// Group chunk hits by file. A file's score is its best chunk's plus a
	// damped share of its next best ones: a document that answers in several
	// sections is more likely the answer than one lucky paragraph (the
	// MaxP/SumP middle ground of passage-level retrieval).
	type fileHits struct {
		entry *store.ViewEntry
		hits  []hit
		score float64
	}
	byPath := map[string]*fileHits{}
	var files []*fileHits
	for _, h := range hits {
		e := entryOf(v, h.chunk)
		if e == nil {
			continue
		}
		f := byPath[e.Path]
		if f == nil {
			f = &fileHits{entry: e}
			byPath[e.Path] = f
			files = append(files, f)
		}
		f.hits = append(f.hits, h) // in descending score order
	}
	for _, f := range files {
		f.score = f.hits[0].score
		for i := 1; i < len(f.hits) && i <= fileSupport; i++ {
			f.score += supportWeight * f.hits[i].score / float64(i)
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].score > files[j].score })
	// Doc health: a document whose front-matter says it is deprecated is
	// demoted (halved), not hidden. Only the files that could reach the
	// page are looked at, so their metadata is all that is decoded.
	health := map[string]string{}
	for i, f := range files {
		if i >= 3*req.K+10 {
			break
		}
		m, err := s.blobMeta(f.entry.Blob)
		if err != nil {
			return err
		}
		if h := docHealth(m.Meta, req.Now, req.StaleAfter); h != "" {
			health[f.entry.Path] = h
			if h == HealthDeprecated {
				f.score *= deprecatedWeight
			}
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].score > files[j].score })
	var picked []hit
	var pickedEntries []*store.ViewEntry
	extra := map[string]int{}
	for _, f := range files {
		shown := min(req.PerFile, len(f.hits))
		extra[f.entry.Path] = len(f.hits) - shown
		for i := 0; i < shown && len(picked) < req.K; i++ {
			h := f.hits[i]
			if i == 0 {
				h.score = f.score
			}
			picked = append(picked, h)
			pickedEntries = append(pickedEntries, f.entry)
		}
		if len(picked) >= req.K {
			break
		}
	}
	for i, h := range picked {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := pickedEntries[i]
		r, err := s.result(req, e, int(h.chunk-e.First), terms)
		if err != nil {
			return err
		}
		r.Rank, r.Score = i+1, math.Round(h.score*10000)/10000
		r.MoreInFile, r.Health = extra[e.Path], health[e.Path]
		r.LexicalRank, r.DenseRank = h.lexRank, h.denseRank
		resp.Results = append(resp.Results, r)
	}
	return nil
}

// result describes chunk idx of a file: where it is, its snippet and its
// citation.
func (s *Searcher) result(req Request, e *store.ViewEntry, idx int, terms []string) (Result, error) {
	m, err := s.blobMeta(e.Blob)
	if err != nil {
		return Result{}, err
	}
	if idx < 0 || idx >= len(m.Chunks) {
		return Result{}, fmt.Errorf("chunk %d of %s missing from its metadata", idx, e.Path)
	}
	cm := m.Chunks[idx]
	var lines []string
	if s.ReadBlob != nil {
		if lines, err = s.blobLines(e.Blob); err != nil {
			return Result{}, err
		}
	}
	snip, hl := snippet(lines, cm.Start, cm.End, terms)
	blob := hex.EncodeToString(e.Blob[:])
	return Result{
		Path: e.Path, StartLine: cm.Start, EndLine: cm.End, Blob: blob,
		ChunkID: fmt.Sprintf("%s:%d", blob[:12], idx),
		Title:   m.Title, Heading: cm.Heading, Snippet: snip, Highlights: hl,
		Citation: fmt.Sprintf("%s:%s#L%d-L%d", citeRev(req, e), e.Path, cm.Start, cm.End),
		Lang:     m.Lang, Symbols: cm.Symbols,
	}, nil
}

// citeRev is what a citation of e is pinned to: the commit searched, or
// "worktree" for an uncommitted file.
func citeRev(req Request, e *store.ViewEntry) string {
	if e.Seg == overlaySeg {
		return "worktree"
	}
	return hex.EncodeToString(req.Commit[:])
}
