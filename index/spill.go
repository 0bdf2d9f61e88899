package index

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"unsafe"

	"github.com/git-kb/git-kb/store"
)

// Bounded-memory inversion (issue 20). Postings of the blobs analyzed so
// far are collected in memory until their estimated size reaches a limit;
// then they are written, sorted by term, to a run file under
// <kb>/spill and the buffer starts again. The write phase merges the runs
// and what is left in memory term by term into the one segment of the run,
// so the database holds exactly what an all-in-memory inversion writes
// (same keys, same bytes) and term statistics stay exact. Chunk ordinals
// grow with every blob, so the runs, taken in order, hold each term's
// postings already sorted: merging is concatenation.
//
// The blobs' metadata is encoded as soon as a blob is analyzed and
// appended to a file beside the runs, so nothing per chunk stays in memory
// but the chunk's body length.

// SpillDir is where an indexing run keeps its sorted runs; what a killed
// run left there is removed by the next run (under the index lock).
func SpillDir(kbDir string) string { return filepath.Join(kbDir, "spill") }

// postingSize is the memory of one store.Posting in a slice.
const postingSize = int64(unsafe.Sizeof(store.Posting{}))

// termOverhead is about what a map entry costs beside the term's bytes:
// the string and slice headers and the map's own share.
const termOverhead = 64

type postingBuffer struct {
	m     map[string]uint32 // term -> its postings in lists
	lists [][]store.Posting
	metas []metaRec // encoded metadata of blobs, in blob order
	est   int64     // estimated bytes held by m and metas
	limit int64
	dir   string
	runs  []string
	spilt int64 // bytes written to runs and the meta file
	// runTerms counts the terms written to runs (with repeats).
	runTerms int
	// metaFile holds the metas spilled so far, before those in metas.
	metaFile string
}

type metaRec struct {
	blob store.SHA
	meta []byte
}

// addMeta records the encoded metadata of a blob.
func (p *postingBuffer) addMeta(blob store.SHA, meta []byte) error {
	p.metas = append(p.metas, metaRec{blob, meta})
	p.est += int64(len(meta)) + 48
	if p.est >= p.limit {
		return p.spill()
	}
	return nil
}

// eachMeta calls fn with every blob's metadata, in the order added.
func (p *postingBuffer) eachMeta(fn func(blob store.SHA, meta []byte) error) error {
	if p.metaFile != "" {
		f, err := os.Open(p.metaFile)
		if err != nil {
			return fmt.Errorf("read spilled metadata: %w", err)
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 256<<10)
		for {
			var blob store.SHA
			if _, err := io.ReadFull(r, blob[:]); err == io.EOF {
				break
			} else if err != nil {
				return fmt.Errorf("read spilled metadata: %w", err)
			}
			n, err := binary.ReadUvarint(r)
			if err != nil {
				return fmt.Errorf("read spilled metadata: %w", err)
			}
			meta := make([]byte, n)
			if _, err := io.ReadFull(r, meta); err != nil {
				return fmt.Errorf("read spilled metadata: %w", err)
			}
			if err := fn(blob, meta); err != nil {
				return err
			}
		}
	}
	for _, m := range p.metas {
		if err := fn(m.blob, m.meta); err != nil {
			return err
		}
	}
	return nil
}

func (p *postingBuffer) spillMetas() error {
	if len(p.metas) == 0 {
		return nil
	}
	p.metaFile = filepath.Join(p.dir, "meta")
	f, err := os.OpenFile(p.metaFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("spill metadata: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	for _, m := range p.metas {
		buf = append(buf[:0], m.blob[:]...)
		buf = binary.AppendUvarint(buf, uint64(len(m.meta)))
		w.Write(buf)
		w.Write(m.meta)
		p.spilt += int64(len(buf) + len(m.meta))
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spill metadata: %w", err)
	}
	p.metas = nil
	return nil
}

func newPostingBuffer(dir string, limit int64) *postingBuffer {
	return &postingBuffer{m: map[string]uint32{}, dir: dir, limit: limit}
}

// add records the terms of one chunk.
func (p *postingBuffer) add(chunk uint32, terms []termTF) error {
	for _, t := range terms {
		i, ok := p.m[t.term]
		if !ok {
			// The term is a substring of the blob's text: a copy of
			// its own lets the text go.
			i = uint32(len(p.lists))
			p.m[strings.Clone(t.term)] = i
			p.lists = append(p.lists, nil)
			p.est += termOverhead + int64(len(t.term))
		}
		l := p.lists[i]
		c := cap(l)
		l = append(l, store.Posting{Chunk: chunk, TF: t.tf})
		p.est += int64(cap(l)-c) * postingSize
		p.lists[i] = l
	}
	if p.est >= p.limit {
		return p.spill()
	}
	return nil
}

func (p *postingBuffer) sortedTerms() []string {
	terms := make([]string, 0, len(p.m))
	for t := range p.m {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	return terms
}

// spill writes the buffer as a sorted run (and the metas to their file)
// and empties it.
func (p *postingBuffer) spill() error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return fmt.Errorf("spill postings: %w", err)
	}
	if err := p.spillMetas(); err != nil {
		return err
	}
	if len(p.m) == 0 {
		p.est = 0
		return nil
	}
	name := filepath.Join(p.dir, fmt.Sprintf("run-%04d", len(p.runs)))
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("spill postings: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	for _, t := range p.sortedTerms() {
		buf = binary.AppendUvarint(buf[:0], uint64(len(t)))
		buf = append(buf, t...)
		enc := store.EncodePostings(p.lists[p.m[t]])
		buf = binary.AppendUvarint(buf, uint64(len(enc)))
		w.Write(buf)
		w.Write(enc)
		p.spilt += int64(len(buf) + len(enc))
		p.runTerms++
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("spill postings: %w", err)
	}
	p.runs = append(p.runs, name)
	p.m, p.lists = map[string]uint32{}, nil
	p.est = 0
	return nil
}

// source yields terms in ascending order with their postings.
type source interface {
	next() (term string, ps []store.Posting, err error) // io.EOF at the end
	close()
}

type memSource struct {
	p     *postingBuffer
	terms []string
	i     int
}

func (s *memSource) next() (string, []store.Posting, error) {
	if s.i >= len(s.terms) {
		return "", nil, io.EOF
	}
	t := s.terms[s.i]
	s.i++
	i := s.p.m[t]
	ps := s.p.lists[i]
	s.p.lists[i] = nil // written once: let it go
	return t, ps, nil
}

func (s *memSource) close() {}

type runSource struct {
	f   *os.File
	r   *bufio.Reader
	buf []byte
	ps  []store.Posting
}

func (s *runSource) next() (string, []store.Posting, error) {
	n, err := binary.ReadUvarint(s.r)
	if err != nil {
		return "", nil, err // io.EOF at a record boundary
	}
	tb := make([]byte, n)
	if _, err := io.ReadFull(s.r, tb); err != nil {
		return "", nil, fmt.Errorf("read spilled run: %w", err)
	}
	n, err = binary.ReadUvarint(s.r)
	if err != nil {
		return "", nil, fmt.Errorf("read spilled run: %w", err)
	}
	if uint64(cap(s.buf)) < n {
		s.buf = make([]byte, n)
	}
	s.buf = s.buf[:n]
	if _, err := io.ReadFull(s.r, s.buf); err != nil {
		return "", nil, fmt.Errorf("read spilled run: %w", err)
	}
	s.ps, err = store.DecodePostings(s.ps[:0], s.buf)
	if err != nil {
		return "", nil, fmt.Errorf("read spilled run: %w", err)
	}
	return string(tb), s.ps, nil
}

func (s *runSource) close() { s.f.Close() }

// head is a source's current term in the merge heap.
type head struct {
	src   source
	order int // run order: postings of a lower order come first
	term  string
	ps    []store.Posting
}

type heads []*head

func (h heads) Len() int { return len(h) }
func (h heads) Less(i, j int) bool {
	return h[i].term < h[j].term || h[i].term == h[j].term && h[i].order < h[j].order
}
func (h heads) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *heads) Push(x any)   { *h = append(*h, x.(*head)) }
func (h *heads) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// merge calls fn once per term, in term order, with the term's postings
// from every run and the buffer concatenated (so sorted by chunk). ps is
// only valid during the call. It returns the number of distinct terms.
func (p *postingBuffer) merge(fn func(term string, ps []store.Posting) error) (int, error) {
	var srcs []source
	defer func() {
		for _, s := range srcs {
			s.close()
		}
	}()
	for _, name := range p.runs {
		f, err := os.Open(name)
		if err != nil {
			return 0, fmt.Errorf("read spilled run: %w", err)
		}
		srcs = append(srcs, &runSource{f: f, r: bufio.NewReaderSize(f, 256<<10)})
	}
	srcs = append(srcs, &memSource{p: p, terms: p.sortedTerms()})
	h := &heads{}
	advance := func(x *head) error {
		t, ps, err := x.src.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		x.term, x.ps = t, ps
		heap.Push(h, x)
		return nil
	}
	for i, s := range srcs {
		if err := advance(&head{src: s, order: i}); err != nil {
			return 0, err
		}
	}
	n := 0
	var all []store.Posting
	for h.Len() > 0 {
		x := heap.Pop(h).(*head)
		term := x.term
		all = append(all[:0], x.ps...)
		if err := advance(x); err != nil {
			return n, err
		}
		for h.Len() > 0 && (*h)[0].term == term {
			y := heap.Pop(h).(*head)
			all = append(all, y.ps...)
			if err := advance(y); err != nil {
				return n, err
			}
		}
		n++
		if err := fn(term, all); err != nil {
			return n, err
		}
	}
	return n, nil
}

// fixedMemory is what an indexing process holds whatever the budget: the
// segmenter's dictionary, Badger's tables and caches, the blobs being
// analyzed (measured: about 200 MiB with the full dictionary).
const fixedMemory = 256 << 20

// bufferLimit is the estimated size at which the buffer spills. The
// estimate counts postings and terms, not the map's buckets nor the
// garbage a collection has yet to reclaim: half the budget keeps the
// heap inside it.
func bufferLimit(budget int64) int64 { return max(budget/2, 1<<20) }

// limitMemory sets Go's soft memory limit to the budget plus the fixed
// part for the duration of a run, so the collector reclaims garbage
// before the heap outgrows it (rather than at twice the live heap); it
// returns the function that restores the previous limit.
func limitMemory(budget int64) func() {
	prev := debug.SetMemoryLimit(-1)
	if lim := budget + fixedMemory; lim < prev {
		debug.SetMemoryLimit(lim)
	}
	return func() { debug.SetMemoryLimit(prev) }
}
