package search

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// Term proximity (lever "proximity", off by default): a chunk whose
// query words stand close together is more likely about what the
// question asks than one that says the same words far apart; Chinese
// needs it most, where the segmenter's cut of a question and of a text
// can differ and two words side by side are the phrase a cut missed.
//
// The score is Tao & Zhai's MinDist (SIGIR 2007), added to the BM25F of
// each of the best chunks of the best files: with δ the distance in
// words between the closest two occurrences of different concepts of the
// question in the chunk, the chunk gains
//
//	proxWeight × (log(proxAlpha + e^−δ) − log(proxAlpha))
//
// (their π(Q,D), shifted so that a chunk with no such pair gains
// nothing): at most ~0.8 × proxWeight, for adjacent words, and little
// beyond three words apart. BM25TP's sum over all pairs of 1/d²
// (Rasolofo & Savoy 2003) was measured too: a question of ten words
// holds dozens of pairs, and its score outweighed the words' own (see
// docs/MEASURED.md, "Retrieval quality").
//
// A concept is one of the user's words with the forms that stand for it,
// so that a word never pairs with itself: its translations (删除, delete),
// the shorter words the analyzer also cuts from it (数据库 -> 数据) and
// the parts of an identifier written whole (retryCount -> retry, count).
// A word the analyzer cut into several terms, that expansion knows whole
// (慢查询日志: 慢, 查询, 日志), leaves its terms apart: side by side they
// are the word the cut missed. Words are found where the highlights mark
// them (segment.Analyzer.MatchSpans); distance counts a Latin word as one
// and a Chinese character as half a word (technical Chinese runs about
// two characters a word), so it needs no cut of the Chinese between
// them; adjacent words are at distance 1.
//
// It reads the chunks' text, so it re-scores the first page only (the
// proxFiles best files, whose blobs render reads anyway), in lexical
// mode: a hybrid score is a fused rank.
var (
	proxAlpha  = 0.3             // Tao & Zhai's α
	proxWeight = 2.0             // the gain's weight against BM25F
	proxWindow = 10.0            // words: pairs further apart gain under 1e-4, and are not looked for
	proxFiles  = 10              // the best files re-scored
	proxChunks = 1 + fileSupport // of each, its best chunks: those its score counts
)

// proxConcepts maps the query's terms (the user's and the translations
// added) to concepts; names are each concept's word, for --explain.
type proxConcepts struct {
	of    map[string]int
	names []string
	apart map[[2]int]bool // pairs of concepts that never pair
}

// newProxConcepts groups q's terms into concepts (see above).
func newProxConcepts(q *query) *proxConcepts {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok {
			parent[x] = x
			return x
		}
		if p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	union := func(x, y string) {
		if rx, ry := find(x), find(y); rx != ry {
			parent[ry] = rx
		}
	}
	own := map[string]bool{}
	for _, t := range q.terms {
		if t.from == "" {
			own[t.term] = true
			find(t.term)
		}
	}
	// A term the query cut inside another (数据 in 数据库, retry in
	// retryCount) is that word's concept.
	if q.an != nil {
		sp := q.an.Spans(q.text)
		for i, x := range sp {
			for j, y := range sp {
				if i != j && x.Term != y.Term && y.Start >= x.Start && y.End <= x.End && own[x.Term] && own[y.Term] {
					union(x.Term, y.Term)
				}
			}
		}
	}
	// A translation is its word's concept; the word is a node of its own
	// ("\x00" + word), as it need not be a term (慢查询日志).
	for _, t := range q.terms {
		if t.from != "" && t.from != feedbackFrom {
			union("\x00"+t.from, t.term)
			if own[t.from] {
				union(t.from, t.term)
			}
		}
	}
	pc := &proxConcepts{of: map[string]int{}, apart: map[[2]int]bool{}}
	id := map[string]int{}
	for _, t := range q.terms {
		if t.from == feedbackFrom {
			continue
		}
		r := find(t.term)
		k, ok := id[r]
		if !ok {
			k = len(pc.names)
			id[r] = k
			name := t.term
			if t.from != "" {
				name = t.from // the user's word a translation stands for
			}
			pc.names = append(pc.names, name)
		}
		pc.of[t.term] = k
	}
	// The translations of a word cut into several terms (slow query log)
	// pair with none of those terms.
	for from, terms := range q.spans {
		x, ok := id[find("\x00"+from)]
		if !ok {
			continue
		}
		for _, t := range terms {
			if y, ok := id[find(t)]; ok && x != y {
				pc.apart[[2]int{min(x, y), max(x, y)}] = true
			}
		}
	}
	return pc
}

// proxOcc is one concept's occurrence in a chunk: text[start:end].
type proxOcc struct {
	start, end, concept int
}

// halfWords returns, for each byte offset of text, how many half words
// precede it: a Chinese character is one, a Latin word (letters, digits,
// _) two, counted at its first character.
func halfWords(text string) []int32 {
	pos := make([]int32, len(text)+1)
	cur, inWord := int32(0), false
	for i, r := range text {
		pos[i] = cur
		switch {
		case r >= 0x2E80 && unicode.Is(unicode.Han, r):
			cur++
			inWord = false
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				cur += 2
			}
			inWord = true
		default:
			inWord = false
		}
	}
	pos[len(text)] = cur
	return pos
}

// chunkScore is text's proximity gain (see above) and the pairs of
// concepts it holds within proxWindow words, closest first.
func (pc *proxConcepts) chunkScore(an *segment.Analyzer, text string, terms []string) (float64, []string) {
	spans := an.MatchSpans(text, terms)
	if len(spans) < 2 {
		return 0, nil
	}
	// One occurrence per concept where its forms overlap (数据库 and the
	// 数据 inside it).
	var occs []proxOcc
	last := map[int]int{} // concept -> its last occurrence in occs
	for _, sp := range spans {
		c, ok := pc.of[sp.Term]
		if !ok {
			continue
		}
		if i, ok := last[c]; ok && sp.Start < occs[i].end {
			occs[i].end = max(occs[i].end, sp.End)
			continue
		}
		last[c] = len(occs)
		occs = append(occs, proxOcc{sp.Start, sp.End, c})
	}
	if len(occs) < 2 {
		return 0, nil
	}
	pos := halfWords(text)
	closest := map[[2]int]float64{} // pair of concepts -> their least distance
	maxGap := int32(2 * (proxWindow - 1))
	for i, x := range occs {
		for _, y := range occs[i+1:] {
			if y.start < x.end {
				continue // overlapping: a word inside another, not two words
			}
			gap := pos[y.start] - pos[x.end]
			if gap > maxGap {
				break // occurrences are in order of start: the rest are further
			}
			p := [2]int{min(x.concept, y.concept), max(x.concept, y.concept)}
			if p[0] == p[1] || pc.apart[p] {
				continue
			}
			d := 1 + float64(gap)/2
			if old, ok := closest[p]; !ok || d < old {
				closest[p] = d
			}
		}
	}
	if len(closest) == 0 {
		return 0, nil
	}
	type pair struct {
		name string
		d    float64
	}
	pairs := make([]pair, 0, len(closest))
	for p, d := range closest {
		pairs = append(pairs, pair{pc.names[p[0]] + "~" + pc.names[p[1]], d})
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		if c := cmp.Compare(x.d, y.d); c != 0 {
			return c
		}
		return strings.Compare(x.name, y.name)
	})
	names := make([]string, len(pairs))
	for i, p := range pairs {
		names[i] = p.name
	}
	δ := pairs[0].d
	return math.Log(proxAlpha+math.Exp(-δ)) - math.Log(proxAlpha), names
}

// proximity adds the proximity gain to the best chunks of the best files
// (ranked by group, names, qualified and priors) and orders the files
// again (cov: as group scaled them). c is what the candidates stage
// found: the terms looked for are those the view has.
func (s *Searcher) proximity(ctx context.Context, q *query, c *lexicalCandidates, files []*fileHits, cov *lexicalStats) error {
	if len(files) == 0 || s.ReadBlob == nil {
		return nil
	}
	pc := newProxConcepts(q)
	var terms []string
	concepts := map[int]bool{}
	for _, tp := range c.lists {
		if k, ok := pc.of[tp.term.term]; ok && len(tp.ps) > 0 {
			terms = append(terms, tp.term.term)
			concepts[k] = true
		}
	}
	if len(concepts) < 2 {
		return nil // one concept: no pair to find
	}
	top := files[:min(len(files), proxFiles)]
	if s.Prefetch != nil {
		// The blobs read below, in order (render reads them again from
		// the Searcher's cache).
		var blobs []store.SHA
		s.metaMu.Lock()
		for _, f := range top {
			b := f.entry.Blob
			_, lined := s.lines[b]
			_, read := s.texts[b]
			if !lined && !read && !slices.Contains(blobs, b) {
				blobs = append(blobs, b)
			}
		}
		s.metaMu.Unlock()
		s.Prefetch(blobs)
	}
	type ref struct {
		f    *fileHits
		i    int
		text string
	}
	var refs []ref
	var texts []string
	for _, f := range top {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := f.entry
		idxs := make([]int, min(len(f.hits), proxChunks))
		for i := range idxs {
			idxs[i] = int(f.hits[i].chunk - e.First)
		}
		cms, oks, err := s.blobChunks(e.Blob, idxs)
		if err != nil {
			continue // it keeps its score: render says what is wrong, if it is shown
		}
		for i, cm := range cms {
			if !oks[i] {
				continue
			}
			lines, err := s.snippetLines(e.Path, e.Blob, cm.Start, cm.End)
			if err != nil || len(lines) == 0 {
				continue
			}
			text := strings.Join(lines, "\n")
			refs = append(refs, ref{f, i, text})
			texts = append(texts, text)
		}
	}
	if len(refs) == 0 {
		return nil
	}
	// One dictionary for every chunk's Chinese runs that hold a term.
	an := s.analyzer().ForMatch(texts, terms)
	pairs := map[uint32][]string{}
	var changed []*fileHits
	var factors []float64
	for _, r := range refs {
		sc, names := pc.chunkScore(an, r.text, terms)
		if sc <= 0 {
			continue
		}
		if len(changed) == 0 || changed[len(changed)-1] != r.f {
			// The factors of names, declarations and priors scale the
			// new score as they scaled the old.
			changed = append(changed, r.f)
			factors = append(factors, r.f.score/r.f.base(cov))
		}
		h := &r.f.hits[r.i]
		h.score += proxWeight * sc
		pairs[h.chunk] = names
	}
	for i, f := range changed {
		before := f.best + f.support
		f.rescore(cov)
		f.score *= factors[i]
		f.prox = f.best + f.support - before
		f.proxPairs = pairs[f.hits[0].chunk]
	}
	sortFiles(files)
	return nil
}
