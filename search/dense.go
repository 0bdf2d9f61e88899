package search

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/git-kb/git-kb/ann"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/store"
)

// Dense configures vector retrieval.
type Dense struct {
	Embedder llm.Embedder
	Model    store.ModelKey
	// QueryCacheDir, if set, caches query vectors of remote embedders as
	// files, so repeating a query makes no call.
	QueryCacheDir string
	// Cache, if set, keeps decoded tables (and graphs) between searches.
	Cache *VectorCache
	// QueryTimeout bounds embedding one query, retries included (0: none).
	// Past it the answer is lexical: a slow endpoint must not make a slow
	// search.
	QueryTimeout time.Duration
	// Breaker, if set, skips a remote embedder that failed recently, so a
	// dead endpoint costs one timeout per cooldown, not one per query.
	Breaker *llm.Breaker
}

// denseResult is what the vector side found.
type denseResult struct {
	hits    []hit // best first
	live    int   // live chunks of the view
	covered int   // live chunks with a vector
}

// denseCandidates is how deep each list goes into fusion.
const denseCandidates = 100

// dense embeds the query and scans the vector tables of the view's
// segments, restricted to its live chunks.
func (s *Searcher) dense(ctx context.Context, req Request, lap func(string, func() error) error) (*denseResult, error) {
	d := s.Dense
	v := req.View
	segInfo, err := s.DB.Segments()
	if err != nil {
		return nil, err
	}
	// Live ordinals of each segment, as row ranges.
	ranges := map[uint32][]ann.Range{}
	for _, e := range v.ChunkEntries(req.Scope) {
		if e.Seg == overlaySeg {
			continue // embedded at query time (overlayDense)
		}
		sg := segInfo[e.Seg]
		lo := e.First - sg.First
		rs := ranges[e.Seg]
		if n := len(rs); n > 0 && rs[n-1].Hi == lo {
			rs[n-1].Hi = lo + e.N
		} else {
			rs = append(rs, ann.Range{Lo: lo, Hi: lo + e.N})
		}
		ranges[e.Seg] = rs
	}
	res := &denseResult{live: int(v.Chunks)}
	type loaded struct {
		seg store.Segment
		ct  *cachedTable
	}
	var segs []loaded
	err = lap("load vectors", func() error {
		ids := make([]uint32, 0, len(ranges))
		for id := range ranges {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			var ct *cachedTable
			var err error
			if d.Cache != nil {
				ct, err = d.Cache.table(s.DB, d.Model, id)
			} else {
				ct, err = loadTable(s.DB, d.Model, id, false)
			}
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			for _, r := range ranges[id] {
				res.covered += ct.info.CountPresent(r.Lo, r.Hi-r.Lo)
			}
			segs = append(segs, loaded{segInfo[id], ct})
		}
		return nil
	})
	if err != nil || res.covered == 0 {
		return res, err
	}
	var q []float32
	if err := lap("embed query", func() error {
		var o callOutcome
		if req.qv != nil {
			select {
			case <-req.qv.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			q, o, err = req.qv.vec, req.qv.outcome, req.qv.err
		} else {
			// A secret pasted into the query stays on this machine too.
			q, o, err = s.queryVector(ctx, s.Secrets.RedactText("", req.Query))
		}
		// Only now, with the vector wanted, does the call's outcome
		// teach the breaker: a prefetch for a commit without vectors
		// must not open it (nor close it).
		d.record(o, err)
		return err
	}); err != nil {
		return res, err
	}
	if len(q) != segs[0].ct.table.Dim {
		return res, &llm.DimensionError{Model: d.Embedder.ID(), Got: len(q), Want: segs[0].ct.table.Dim, Source: "the dimension of the indexed vectors"}
	}
	err = lap("vector scan", func() error {
		var all []ann.Hit
		for _, sg := range segs {
			for _, h := range sg.ct.search(q, denseCandidates, ranges[sg.seg.ID]) {
				if sg.ct.info.Present.Contains(h.ID) && h.Score > 0 {
					all = append(all, ann.Hit{ID: sg.seg.First + h.ID, Score: h.Score})
				}
			}
		}
		for _, h := range all {
			res.hits = append(res.hits, hit{chunk: h.ID, score: float64(h.Score), dense: float64(h.Score)})
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if req.ov != nil {
		err = lap("embed worktree", func() error {
			hs, n, err := s.overlayDense(ctx, req, q)
			res.hits = append(res.hits, hs...)
			res.covered += n
			return err
		})
		if err != nil {
			return res, err
		}
	}
	sort.Slice(res.hits, func(i, j int) bool {
		a, b := res.hits[i], res.hits[j]
		return a.score > b.score || a.score == b.score && a.chunk < b.chunk
	})
	res.hits = res.hits[:min(len(res.hits), denseCandidates)]
	for i := range res.hits {
		res.hits[i].denseRank = i + 1
	}
	return res, nil
}

// QueryVector embeds query as a hybrid search does (a secret in it
// redacted first, remote models through the query cache, the breaker and
// kb.embed.queryTimeoutMs) for a vector side searched elsewhere: an org
// search sends it to Weaviate.
func (d *Dense) QueryVector(ctx context.Context, sp *secrets.Policy, query string) ([]float32, error) {
	q, o, err := (&Searcher{Dense: d}).queryVector(ctx, sp.RedactText("", query))
	d.record(o, err)
	return q, err
}

// queryFuture is a query vector being computed.
type queryFuture struct {
	done    chan struct{}
	vec     []float32
	outcome callOutcome
	err     error
}

func (s *Searcher) prefetchQueryVector(ctx context.Context, query string) *queryFuture {
	f := &queryFuture{done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.vec, f.outcome, f.err = s.queryVector(ctx, query)
	}()
	return f
}

// callOutcome says what a query embedding learned of the endpoint, for
// the breaker: nothing (a cache hit, a local model, the breaker already
// open, the user gave up), a success, or a failure of the endpoint.
type callOutcome int

const (
	callNone callOutcome = iota
	callOK
	callFailed
)

// record tells the breaker what a call whose vector was used learned.
func (d *Dense) record(o callOutcome, err error) {
	switch o {
	case callOK:
		d.Breaker.Ok()
	case callFailed:
		d.Breaker.Fail(err)
	}
}

// queryVector embeds the query, through the file cache for remote models.
func (s *Searcher) queryVector(ctx context.Context, query string) ([]float32, callOutcome, error) {
	d := s.Dense
	var path string
	if d.QueryCacheDir != "" && !d.Embedder.Local() {
		sum := sha256.Sum256([]byte(query))
		path = filepath.Join(d.QueryCacheDir, hex.EncodeToString(d.Model[:]), hex.EncodeToString(sum[:16]))
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && len(b)%4 == 0 {
			v := make([]float32, len(b)/4)
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
			return v, callNone, nil
		}
	}
	vs, o, err := d.embedQuery(ctx, query)
	if err != nil {
		return nil, o, err
	}
	if len(vs) != 1 {
		return nil, callFailed, fmt.Errorf("embedder returned %d vectors for one query", len(vs))
	}
	if path != "" {
		b := make([]byte, 0, 4*len(vs[0]))
		for _, x := range vs[0] {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		// Best effort: a cache that cannot be written costs a call, not an answer.
		if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
			tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
			if os.WriteFile(tmp, b, 0o644) == nil {
				os.Rename(tmp, path)
			}
		}
	}
	return vs[0], o, nil
}

// embedQuery calls the embedder within the query budget, unless the
// breaker says the endpoint failed moments ago. It says what the call
// learned of the endpoint; the caller tells the breaker if the vector is
// used (record).
func (d *Dense) embedQuery(ctx context.Context, query string) ([][]float32, callOutcome, error) {
	remote := !d.Embedder.Local()
	if remote {
		if err := d.Breaker.Check(); err != nil {
			return nil, callNone, fmt.Errorf("the embedding endpoint is %w", err)
		}
	}
	qctx := ctx
	if d.QueryTimeout > 0 {
		var cancel context.CancelFunc
		qctx, cancel = context.WithTimeout(ctx, d.QueryTimeout)
		defer cancel()
	}
	vs, err := d.Embedder.Embed(qctx, []string{query})
	if err != nil {
		if ctx.Err() != nil {
			return nil, callNone, ctx.Err() // the user gave up; not the endpoint's fault
		}
		if qctx.Err() != nil {
			why := ""
			if err.Error() != context.DeadlineExceeded.Error() {
				why = ": " + err.Error()
			}
			err = fmt.Errorf("no query vector within %s (kb.embed.queryTimeoutMs)%s", d.QueryTimeout, why)
		}
		if !remote {
			return nil, callNone, err
		}
		return nil, callFailed, err
	}
	if !remote {
		return vs, callNone, nil
	}
	return vs, callOK, nil
}

// Fusion methods.
const (
	FusionRRF  = "rrf"
	FusionDBSF = "dbsf"
)

// rrfK is the rank constant of reciprocal rank fusion (Cormack et al. 2009).
const rrfK = 60

// fuse merges the lexical and dense lists (each best first) into one.
// RRF adds 1/(k+rank) over the lists; DBSF (distribution-based score
// fusion) rescales each list's scores by its mean ± 3 standard deviations
// to [0,1] and adds them.
func fuse(lex, dense []hit, method string) []hit {
	by := map[uint32]*hit{}
	var order []uint32
	get := func(c uint32) *hit {
		h := by[c]
		if h == nil {
			h = &hit{chunk: c}
			by[c] = h
			order = append(order, c)
		}
		return h
	}
	for i, h := range lex {
		f := get(h.chunk)
		f.lexical, f.lexRank = h.score, i+1
	}
	for i, h := range dense {
		f := get(h.chunk)
		f.dense, f.denseRank = h.score, i+1
	}
	var nl, nd func(float64) float64
	if method == FusionDBSF {
		nl, nd = dbsf(lex), dbsf(dense)
	}
	out := make([]hit, 0, len(order))
	for _, c := range order {
		h := by[c]
		if method == FusionDBSF {
			if h.lexRank > 0 {
				h.score += nl(h.lexical)
			}
			if h.denseRank > 0 {
				h.score += nd(h.dense)
			}
		} else {
			if h.lexRank > 0 {
				h.score += 1 / float64(rrfK+h.lexRank)
			}
			if h.denseRank > 0 {
				h.score += 1 / float64(rrfK+h.denseRank)
			}
		}
		out = append(out, *h)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].score > out[j].score || out[i].score == out[j].score && out[i].chunk < out[j].chunk
	})
	return out
}

// dbsf returns the min-max scaling of a list between mean-3σ and mean+3σ.
func dbsf(list []hit) func(float64) float64 {
	if len(list) == 0 {
		return func(float64) float64 { return 0 }
	}
	var sum, sq float64
	for _, h := range list {
		sum += h.score
	}
	mean := sum / float64(len(list))
	for _, h := range list {
		sq += (h.score - mean) * (h.score - mean)
	}
	sd := math.Sqrt(sq / float64(len(list)))
	lo, hi := mean-3*sd, mean+3*sd
	return func(x float64) float64 {
		if hi <= lo {
			return 1
		}
		return min(1, max(0, (x-lo)/(hi-lo)))
	}
}
