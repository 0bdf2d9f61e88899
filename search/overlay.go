package search

import (
	"context"
	"fmt"
	"math"

	"github.com/git-kb/git-kb/store"
)

// Overlay is uncommitted content searched on top of a view (git kb search
// --worktree): its files stand in for the view's at the same paths, and
// the view's files at Gone paths are left out.
type Overlay struct {
	Files []store.AnalyzedFile
	Gone  []string
	// Vocab is, per path, what ViewEntry.Vocab says of a file measured
	// in another index (an org search's candidates): the vocabulary prior.
	Vocab map[string]uint8
	// InLinks is, per path, how many other files of its repository name
	// it, counted in another index (an org search's): the overview
	// prior's in-degree where there are no postings to count it in. A
	// path it lacks gets no overview prior.
	InLinks map[string]int
	// Partial says Files hold some of each file's chunks, not all (an
	// org search's: the chunks its index returned): what counts a file's
	// sections (the focus lever) is left out.
	Partial bool
	// Dense, if set, is a vector side computed elsewhere (an org search's,
	// by Weaviate, with the query embedded here): hybrid and dense modes
	// use it in place of the view's vectors, with no embedder.
	Dense *OverlayDense
}

// OverlayDense is a ranked list of the overlay's chunks made by another
// engine, best first.
type OverlayDense struct {
	Hits []OverlayHit
	// Fused names the fusion another engine already made of Hits with its
	// own lexical list (e.g. "weaviate"): they then replace the fused
	// list. Empty: Hits are vector similarities, fused here as the view's
	// are (Request.Fusion).
	Fused string
	// Model names the vector space; Vectors of Chunks chunks searched
	// had a vector (DenseInfo).
	Model           string
	Vectors, Chunks int
}

// OverlayHit is chunk Chunk of Overlay.Files[File], with its score.
type OverlayHit struct {
	File, Chunk int
	Score       float64
}

// WorktreeInfo reports an overlay in a response.
type WorktreeInfo struct {
	Files []string `json:"files"` // uncommitted files searched in place of HEAD's
	Gone  []string `json:"gone,omitempty"`
}

// overlaySeg marks the view entries of overlay files; their citations say
// "worktree" where others name the commit.
const overlaySeg = math.MaxUint32

// overlayIndex is an overlay numbered after the view's chunks: chunk ids
// from base up, so the view's code paths (entryOf, blobMeta, render) serve
// it unchanged.
type overlayIndex struct {
	base   uint32
	files  []store.AnalyzedFile
	firsts []uint32
}

// applyOverlay puts req.Overlay into req: a copy of the view with the
// overlay's entries, and the index scoring reads their terms from.
func (s *Searcher) applyOverlay(req *Request, resp *Response) error {
	o := req.Overlay
	if o == nil {
		return nil
	}
	info := &WorktreeInfo{Files: []string{}, Gone: o.Gone}
	resp.Worktree = info
	replaced := map[string]bool{}
	for _, p := range o.Gone {
		replaced[p] = true
	}
	for _, f := range o.Files {
		replaced[f.Path] = true
		info.Files = append(info.Files, f.Path)
	}
	v := *req.View
	v.Entries = make([]store.ViewEntry, 0, len(req.View.Entries)+len(o.Files))
	kept := map[store.SHA]bool{}
	for _, e := range req.View.Entries {
		if !replaced[e.Path] {
			v.Entries = append(v.Entries, e)
			kept[e.Blob] = true
		}
	}
	dropped := map[store.SHA]bool{}
	for _, e := range req.View.Entries {
		if replaced[e.Path] && !kept[e.Blob] && !dropped[e.Blob] {
			dropped[e.Blob] = true
			v.Chunks -= min(v.Chunks, e.N)
		}
	}
	// Overlay chunk ids start past every chunk of the view's segments, so
	// no posting of the database can be taken for one of them.
	var base uint64
	if viewSegs := req.View.Segments(); s.DB != nil && len(viewSegs) > 0 {
		segs, err := s.DB.Segments()
		if err != nil {
			return err
		}
		for id := range viewSegs {
			base = max(base, uint64(segs[id].First)+uint64(segs[id].N))
		}
	}
	ox := &overlayIndex{base: uint32(base), files: o.Files}
	next := base
	s.metaMu.Lock()
	if s.metas == nil {
		s.metas = map[store.SHA]*store.BlobMeta{}
	}
	if s.lines == nil {
		s.lines = map[store.SHA][]string{}
	}
	for _, f := range o.Files {
		if next+uint64(len(f.Chunks)) >= overlaySeg {
			s.metaMu.Unlock()
			return fmt.Errorf("the index has too many chunks to add the working tree's")
		}
		ox.firsts = append(ox.firsts, uint32(next))
		v.Entries = append(v.Entries, store.ViewEntry{Path: f.Path, Blob: f.Blob, Seg: overlaySeg, First: uint32(next), N: uint32(len(f.Chunks)), Vocab: o.Vocab[f.Path]})
		next += uint64(len(f.Chunks))
		v.Chunks += uint32(len(f.Chunks))
		for i := range v.FieldLen {
			v.FieldLen[i] += f.FieldLen[i]
		}
		s.metas[f.Blob], s.lines[f.Blob] = f.Meta, f.Lines
	}
	s.metaMu.Unlock()
	req.View, req.ov = &v, ox
	return nil
}

// postings are the overlay's postings of a term.
func (ox *overlayIndex) postings(term string) []store.Posting {
	var out []store.Posting
	for i, f := range ox.files {
		for j, tf := range f.Chunks {
			if p, ok := tf[term]; ok {
				out = append(out, store.Posting{Chunk: ox.firsts[i] + uint32(j), TF: p})
			}
		}
	}
	return out
}

// bodyLen is an overlay chunk's body length; ok is false for other chunks.
func (ox *overlayIndex) bodyLen(c uint32) (float64, bool) {
	if ox == nil || c < ox.base {
		return 0, false
	}
	for i := len(ox.firsts) - 1; i >= 0; i-- {
		if c >= ox.firsts[i] {
			if j := int(c - ox.firsts[i]); j < len(ox.files[i].BodyLen) {
				return float64(ox.files[i].BodyLen[j]), true
			}
			return 0, false
		}
	}
	return 0, false
}

// fileLen is an overlay file's body length (its FieldLen); ok is false
// for the view's files.
func (ox *overlayIndex) fileLen(e *store.ViewEntry) (float64, bool) {
	if ox == nil || e.Seg != overlaySeg {
		return 0, false
	}
	for i := len(ox.firsts) - 1; i >= 0; i-- {
		if e.First >= ox.firsts[i] {
			return float64(ox.files[i].FieldLen[store.FieldBody]), true
		}
	}
	return 0, false
}

// externalDense is the overlay's ranked list (Overlay.Dense) as hits.
func (ox *overlayIndex) externalDense(d *OverlayDense) []hit {
	var hits []hit
	for _, h := range d.Hits {
		if h.File < 0 || h.File >= len(ox.files) || h.Chunk < 0 || h.Chunk >= len(ox.files[h.File].Chunks) {
			continue
		}
		if d.Fused == "" && h.Score <= 0 {
			continue // as the view's vector hits: no similarity, no hit
		}
		hits = append(hits, hit{chunk: ox.firsts[h.File] + uint32(h.Chunk), score: h.Score, dense: h.Score, denseRank: len(hits) + 1})
	}
	return hits
}

// denseHits embeds the overlay's chunks (those in scope) with the query's
// embedder and scores them by cosine similarity, as the view's vectors are.
func (s *Searcher) overlayDense(ctx context.Context, req Request, q []float32) ([]hit, int, error) {
	ox := req.ov
	if ox == nil {
		return nil, 0, nil
	}
	var inputs []string
	var ids []uint32
	for i, f := range ox.files {
		if req.Scope != nil && !req.Scope(f.Path) {
			continue
		}
		for j, in := range f.EmbedInputs {
			if j < len(f.Chunks) {
				inputs = append(inputs, in)
				ids = append(ids, ox.firsts[i]+uint32(j))
			}
		}
	}
	if len(inputs) == 0 {
		return nil, 0, nil
	}
	vecs, err := s.Dense.Embedder.Embed(ctx, inputs)
	if err != nil {
		return nil, 0, fmt.Errorf("embed the working tree's changes: %w", err)
	}
	var hits []hit
	for i, vec := range vecs {
		if sc := cosine(q, vec); sc > 0 && i < len(ids) {
			hits = append(hits, hit{chunk: ids[i], score: sc, dense: sc})
		}
	}
	return hits, len(ids), nil
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
