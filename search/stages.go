package search

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/expand"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// Search runs a query through the stages below, each a function with its
// own input and output:
//
//	analyze    Request            -> query (terms and their weights, scope)
//	expand     query              -> query (+ cross-lingual terms, lighter; expand.go)
//	candidates query              -> lexicalCandidates (postings of live chunks)
//	score      lexicalCandidates  -> []hit (BM25F per chunk)
//	feedback   []hit              -> query, []hit (--prf: RM3, then candidates and score again)
//	fuse       []hit + dense side -> []hit (RRF or DBSF; lexical mode skips it)
//	filter     []hit              -> []hit (query operators: -x, "phrase", tag:, @@Sym)
//	group      []hit              -> []*fileHits (a file's best chunks)
//	names      []*fileHits        -> []*fileHits (file-name evidence; filename.go)
//	qualified  []*fileHits        -> []*fileHits (pkg.Name: its declaring file; qualified.go)
//	roles      []*fileHits        -> []*fileHits (an entry point, a doc.go asked for; role.go)
//	priors     []*fileHits        -> []*fileHits (doc health, file kind; reordered)
//	render     []*fileHits        -> Response.Results (snippets, citations)
//	related    Response           -> Response (--related)
//
// Rerank runs after Search, in the caller (it needs a model client).
// Each stage's time is in Response.Timings (git kb search -v).
func (s *Searcher) Search(ctx context.Context, req Request) (*Response, error) {
	began := time.Now()
	timings := map[string]float64{}
	lap := func(stage string, t time.Time) { timings[stage] += float64(time.Since(t).Microseconds()) / 1000 }
	finish := func(resp *Response) (*Response, error) {
		resp.unread = s.takeUnread()
		if why := UnreadNote(resp.unread); why != "" {
			resp.Degrade(NoteUnread, why)
		}
		s.keepTexts(resp)
		resp.TookMs = time.Since(began).Milliseconds()
		resp.Timings = timings
		return resp, nil
	}
	s.takeUnread() // a note is its search's
	req = withDefaults(req, s.Dense != nil)
	if req.Mode != ModeLexical && s.Dense != nil && !s.Dense.Embedder.Local() {
		// Embed the query while the lexical side runs: a slow or dead
		// endpoint then costs max(lexical, budget), not their sum.
		// A secret pasted into the query stays on this machine too.
		req.qv = s.prefetchQueryVector(ctx, s.Secrets.RedactText("", req.Query))
	}
	resp := newResponse(req)
	if err := s.applyOverlay(&req, resp); err != nil {
		return nil, err
	}

	if req.View != nil {
		req.Parsed = bareAtWords(req.Parsed, viewPaths(req.View))
	}
	t0 := time.Now()
	q, err := analyze(req, s.analyzer())
	if err != nil {
		return nil, err
	}
	if err := checkFiles(req, q.inPaths); err != nil {
		return nil, err
	}
	req.Scope = q.scope
	resp.Terms = q.words()
	lap("analyze", t0)
	if !req.NoExpand {
		t0 = time.Now()
		expandQuery(req, q)
		lap("expand", t0)
	}
	if (len(q.terms) == 0 && req.Mode == ModeLexical) || req.View.Chunks == 0 {
		return finish(resp)
	}

	cands, err := s.lexicalCandidates(ctx, req, q, lap)
	if err != nil {
		return nil, err
	}
	resp.Expansions = cands.expansionsUsed(q)

	t0 = time.Now()
	hits, stats, err := s.score(req, cands)
	if err != nil {
		return nil, err
	}
	lap("score", t0)
	if req.Feedback && len(hits) > 0 {
		if hits, stats, err = s.rescoreWithFeedback(ctx, req, resp, q, hits, stats, lap); err != nil {
			return nil, err
		}
	}

	// Scoring leaves hits unordered: grouping by file orders what it
	// needs, and sorting every hit of a broad query was a sixth of its
	// time. The stages that read hits in order get them sorted.
	sorted := false
	ordered := func() {
		if !sorted {
			sortHits(hits)
			sorted = true
		}
	}
	if req.Mode != ModeLexical {
		ordered()
		if hits, err = s.addDense(ctx, req, resp, hits, timings); err != nil {
			return nil, err
		}
	}
	if req.Parsed != nil && req.Parsed.HasFilters() {
		t0 = time.Now()
		ordered()
		all := hits
		var undeclared bool
		if hits, undeclared, err = s.refine(req, hits); err != nil {
			return nil, err
		}
		if len(hits) == 0 && len(all) > 0 && len(req.Parsed.Phrases) > 0 {
			// No chunk holds a phrase as written (a quoted route, an
			// error message with other spacing): rank its words, and say
			// so, rather than answer nothing, as web search engines do.
			loose := *req.Parsed
			loose.Phrases = nil
			wide := req
			wide.Parsed = &loose
			if hits, undeclared, err = s.refine(wide, all); err != nil {
				return nil, err
			}
			if len(hits) > 0 { // else the other filters left nothing: not the phrase's doing
				// After the vector side's note (no embedder, vectors missing).
				resp.Degrade(NotePhrase, fmt.Sprintf("no file holds %s as written: these results hold its words", quoteAll(req.Parsed.Phrases)))
			}
		}
		if undeclared && len(hits) > 0 {
			// @@Symbol found no declaration: its words ranked alone,
			// which an answer that said nothing would pass off as the
			// declaration's (an @path that names nothing is refused).
			resp.Degrade(NotePhrase, fmt.Sprintf("no indexed file declares %s: these results hold its words", symbolsOf(req.Parsed.Symbols)))
		}
		lap("filter", t0)
	}

	t0 = time.Now()
	var cov *lexicalStats
	if req.Mode == ModeLexical && req.on(LeverCoverage) {
		cov = stats // hybrid scores are fused ranks: coverage does not scale them
	}
	var fileScores map[string]float64
	if req.Mode == ModeLexical && stats != nil {
		fileScores = stats.file
	}
	files := group(req.View, hits, cov, fileScores)
	var concepts []nameConcept // the question's words, for names and roles
	if req.Mode == ModeLexical && (req.on(LeverName) || req.on(LeverRole)) {
		concepts = nameConcepts(q, cands)
	}
	if req.Mode == ModeLexical && req.on(LeverName) {
		// Hybrid scores are fused ranks, a few thousandths apart: a factor
		// on them reorders by the name alone (as coverage, lexical only).
		weighNames(concepts, files)
	}
	if req.Mode == ModeLexical && req.on(LeverQualified) {
		s.weighQualified(qualifiedNames(q.text), files)
	}
	if req.Mode == ModeLexical && req.on(LeverRole) {
		s.weighRoles(q, concepts, files)
	}
	if req.Mode == ModeLexical && req.on(LeverMention) {
		own := map[string]bool{}
		for _, w := range q.words() {
			own[w] = true
		}
		// The query as typed: the parser takes the quotes off a phrase
		// (q.text), and a quoted value is no name.
		weighMentions(questionNames(req.Query, own), stats, cands, files)
	}
	if err := s.priors(req, q, files); err != nil {
		return nil, err
	}
	if req.Mode == ModeLexical && req.on(LeverProximity) {
		lap("group+priors", t0)
		t0 = time.Now()
		if err := s.proximity(ctx, q, cands, files, cov); err != nil {
			return nil, err
		}
		lap("proximity", t0)
		t0 = time.Now()
	}
	files = s.collapse(req, files)
	lap("group+priors", t0)

	t0 = time.Now()
	if err := s.render(ctx, req, resp, files, resp.Terms, stats); err != nil {
		return nil, err
	}
	lap("render", t0)
	if req.Related {
		t0 = time.Now()
		ordered()
		if err := s.related(ctx, req, resp, hits, resp.Terms); err != nil {
			return nil, fmt.Errorf("related files: %w", err)
		}
		lap("related", t0)
	}
	return finish(resp)
}

// withDefaults fills in what a Request leaves out.
func withDefaults(req Request, haveDense bool) Request {
	if req.K <= 0 {
		req.K = 10
	}
	if req.PerFile <= 0 {
		req.PerFile = 1
	}
	if req.Mode == "" {
		req.Mode = ModeLexical
		if haveDense {
			req.Mode = ModeHybrid
		}
	}
	if req.Fusion == "" {
		req.Fusion = FusionRRF
	}
	return req
}

func newResponse(req Request) *Response {
	resp := &Response{Query: req.Query, Commit: hex.EncodeToString(req.Commit[:]), Mode: req.Mode, Results: []Result{}}
	if req.StaleAfter > 0 {
		resp.StaleAfter = fmt.Sprintf("%dd", int(req.StaleAfter.Hours()/24))
	}
	return resp
}

// query is the analyze stage's output: the ranked text's distinct terms
// in order of first appearance, each with its weight, and the path scope
// of the query's operators.
type query struct {
	text       string // the ranked text, as the user wrote it
	terms      []queryTerm
	scope      func(string) bool
	inPaths    func(string) bool  // the path: globs alone (checkFiles)
	expansions []expand.Expansion // what expandQuery added, before looking
	an         *segment.Analyzer  // what cut the query (Searcher.Analyzer)
	// spans maps an expanded word the analyzer cut into several of the
	// user's terms (构建器: 构建 + 器) to those terms: its translations
	// stand for them (see expandQuery).
	spans map[string][]string
	// allTo maps an expanded word to every translation the glossary
	// gives it, before the cut to maxExpandedWords: what it asks for
	// (role.go). CC-CEDICT's are left out (see expandQuery).
	allTo map[string][]string
}

// queryTerm is one term a query ranks by.
type queryTerm struct {
	term string
	// weight multiplies the term's BM25 contribution: how often the user
	// wrote it, or less than one for a word expansion added.
	weight float64
	// from is the user's word an expanded term stands for ("" for the
	// user's own words).
	from string
}

// words are the user's own terms, in order.
func (q *query) words() []string {
	var out []string
	for _, t := range q.terms {
		if t.from == "" {
			out = append(out, t.term)
		}
	}
	return out
}

// analyze cuts the query's free text into terms with the indexer's
// analyzer and works out the scope its operators ask for.
func analyze(req Request, an *segment.Analyzer) (*query, error) {
	text := req.Query
	if req.Parsed != nil {
		text = req.Parsed.Text
	}
	in, err := inPaths(req.Parsed)
	if err != nil {
		return nil, err
	}
	scope, err := queryScope(req, in)
	if err != nil {
		return nil, err
	}
	q := &query{scope: scope, inPaths: in, an: an, text: text}
	at := map[string]int{}
	for _, t := range an.Terms(text) {
		i, ok := at[t]
		if !ok {
			i = len(q.terms)
			at[t] = i
			q.terms = append(q.terms, queryTerm{term: t})
		}
		q.terms[i].weight++
	}
	return q, nil
}

// termPostings are one query term's postings in the view's live chunks.
type termPostings struct {
	term queryTerm
	idx  int // the term's place in query.terms
	ps   []store.Posting
	// about is the chunks only their page's summary names the term in
	// (FieldAbout alone): they add to a candidate, they make none, and
	// count in the document frequency only of a term no text says (its
	// rarity where it is, rather than the most a word can weigh).
	about []store.Posting
}

// lexicalCandidates is the candidates stage's lexical output: for each
// query term found, its postings restricted to the live, in-scope chunks
// of the view (and the overlay's), plus what scoring needs of the view.
type lexicalCandidates struct {
	lists []termPostings
	segs  []store.Segment // the view's segments, by first chunk
	spans map[string][]string
	// missing are the user's words found in no live chunk.
	missing map[string]bool
}

// stands reports whether an added word stands in for a word of the
// user's that no live chunk has (or for a word cut into several, none of
// which any has): then the added word is all the evidence there is for
// it.
func (c *lexicalCandidates) stands(from string) bool {
	if c.missing[from] {
		return true
	}
	terms := c.spans[from]
	for _, t := range terms {
		if !c.missing[t] {
			return false
		}
	}
	return len(terms) > 0
}

// lexicalCandidates reads the postings of q's terms.
func (s *Searcher) lexicalCandidates(ctx context.Context, req Request, q *query, lap func(string, time.Time)) (*lexicalCandidates, error) {
	v := req.View
	t0 := time.Now()
	var live chunkRanges
	viewSegs := v.Segments()
	for _, e := range v.Entries {
		if e.N > 0 && (req.Scope == nil || req.Scope(e.Path)) {
			live.add(e.First, e.N)
		}
	}
	liveSet := live.bitmap()
	var segInfo map[uint32]store.Segment
	if s.DB != nil { // nil: a Searcher of an overlay only (org search)
		var err error
		if segInfo, err = s.DB.Segments(); err != nil {
			return nil, err
		}
	}
	// The view's segments sorted by first chunk: a chunk's segment is a
	// binary search away, however many incremental runs made the view.
	out := &lexicalCandidates{spans: q.spans}
	for id := range viewSegs {
		if id == overlaySeg {
			continue
		}
		out.segs = append(out.segs, segInfo[id])
	}
	sort.Slice(out.segs, func(i, j int) bool { return out.segs[i].First < out.segs[j].First })
	lap("candidates: view", t0)

	t0 = time.Now()
	var buf []store.Posting
	about := req.on(LeverSummary)
	for qi, qt := range q.terms {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		buf = buf[:0]
		if s.DB != nil {
			err := s.DB.Postings(s.Pipeline, qt.term, viewSegs, func(_ uint32, data []byte) error {
				var err error
				buf, err = store.DecodePostings(buf, data)
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("read postings of %q: %w", qt.term, err)
			}
		}
		if req.ov != nil {
			buf = append(buf, req.ov.postings(qt.term)...)
		}
		var ps, aboutOnly []store.Posting
		for _, p := range buf {
			if !liveSet.Contains(p.Chunk) {
				continue
			}
			if p.TF[store.FieldAbout] > 0 {
				x := p
				x.TF[store.FieldAbout] = 0
				if x.TF == ([store.NumFields]uint16{}) {
					// A chunk only its page's summary names the term
					// in: it makes no candidate and counts in no
					// document frequency (a summary is copied into
					// every chunk of its page); it adds to a candidate
					// something else found (score).
					if about {
						aboutOnly = append(aboutOnly, p)
					}
					continue
				}
				if !about {
					p = x // the summary lever off: as if no summaries
				}
			}
			ps = append(ps, p)
		}
		if len(ps) > 0 || len(aboutOnly) > 0 {
			out.lists = append(out.lists, termPostings{qt, qi, ps, aboutOnly})
		} else if qt.from == "" {
			if out.missing == nil {
				out.missing = map[string]bool{}
			}
			out.missing[qt.term] = true
		}
	}
	lap("candidates: postings", t0)
	return out, nil
}

// chunkRanges builds a bitmap of chunk ranges, joining those that touch
// first: a view's entries mostly follow each other, and one AddRange per
// file was a sixth of a cold search of Go's source.
type chunkRanges struct {
	b        *roaring.Bitmap
	from, to uint64 // the range not added yet, if open
	open     bool
}

func (r *chunkRanges) add(first, n uint32) {
	lo, hi := uint64(first), uint64(first)+uint64(n)
	if r.open && lo >= r.from && lo <= r.to {
		r.to = max(r.to, hi)
		return
	}
	r.bitmap()
	r.from, r.to, r.open = lo, hi, true
}

// bitmap is the ranges added so far.
func (r *chunkRanges) bitmap() *roaring.Bitmap {
	if r.b == nil {
		r.b = roaring.New()
	}
	if r.open {
		r.b.AddRange(r.from, r.to)
		r.open = false
	}
	return r.b
}

// bodyLengths reads chunks' body lengths, a segment's table at a time.
type bodyLengths struct {
	s      *Searcher
	ov     *overlayIndex
	segs   []store.Segment
	tables map[uint32][]uint32
}

// file is the body length of a whole file: its chunks' lengths summed.
func (bl *bodyLengths) file(e *store.ViewEntry) (float64, error) {
	if l, ok := bl.ov.fileLen(e); ok {
		return l, nil
	}
	t := 0.0
	for c := e.First; c < e.First+e.N; c++ {
		l, err := bl.of(c)
		if err != nil {
			return 0, err
		}
		t += l
	}
	return t, nil
}

func (bl *bodyLengths) of(c uint32) (float64, error) {
	if l, ok := bl.ov.bodyLen(c); ok {
		return l, nil
	}
	segs := bl.segs
	i := sort.Search(len(segs), func(i int) bool { return segs[i].First+segs[i].N > c })
	if i == len(segs) || segs[i].First > c {
		return 0, fmt.Errorf("chunk %d is in no segment of the view", c)
	}
	sg := segs[i]
	ls, ok := bl.tables[sg.ID]
	if !ok {
		var err error
		if ls, err = bl.s.DB.Lengths(bl.s.Pipeline, sg.ID); err != nil {
			return 0, err
		}
		bl.tables[sg.ID] = ls
	}
	if j := c - sg.First; int(j) < len(ls) {
		return float64(ls[j]), nil
	}
	return 0, fmt.Errorf("chunk %d beyond the lengths of segment %d", c, sg.ID)
}

// score is BM25F over the candidates, one hit per chunk, unordered. Statistics (N,
// average body length, document frequency) are the view's. It also
// measures, for the group stage, each matching file's own BM25F (the
// file as one document) and which of the user's terms each chunk matched
// (lexicalStats).
func (s *Searcher) score(req Request, c *lexicalCandidates) ([]hit, *lexicalStats, error) {
	sc := newChunkScorer(s, req, c)
	lists, rare := scoringOrder(c.lists, req.Corpus, sc.n)
	sc.ff = newFileFreqs(req.View, req.Corpus, req.Mode == ModeLexical && req.on(LeverFile) && fileWeight > 0)
	if req.on(LeverConcept) {
		sc.cs = newConceptScores(lists, sc.top, c.spans)
		sc.ff.concepts = sc.cs
	}
	sc.ff.about = sc.norm
	lw := make([]listWeight, len(lists))
	for li, tp := range lists {
		lw[li] = sc.weigh(tp)
		// A common added word's list only adds to chunks found already.
		onlyTouched := li >= rare && len(sc.touched) > 0
		// A file whose name says the added word is a candidate even so,
		// when the user's word it stands for is in no file (the Chinese
		// of a question about English code): flag/flag.go for 命令行参数
		// -> flag, though flag is in thousands of chunks. File names are
		// few and chosen (see weighNames); the rest of the list stays
		// behind the rarer words.
		byName := onlyTouched && req.on(LeverName) && c.stands(tp.term.from)
		sc.ff.startTerm()
		if err := sc.addList(li, tp, lw[li], onlyTouched, byName); err != nil {
			return nil, nil, err
		}
		if err := sc.ff.endTerm(li, tp.term, sc.lengths, sc.avg); err != nil {
			return nil, nil, err
		}
	}
	sc.addSummaries(lists, lw)
	sc.addTranslations()
	sc.ff.finish()
	sc.st.file = sc.ff.scores
	return sc.hits(), sc.st, nil
}

// chunkScorer is the score stage's state: each candidate chunk's BM25F
// sums, kept in dense arrays over chunk ids rather than maps (an
// expanded query touches a good share of a large view's chunks, and map
// access was most of scoring's time), and what the stage learns of the
// query's terms on the way.
type chunkScorer struct {
	v       *store.View
	corpus  *Corpus // statistics in place of the view's, if set
	explain bool
	n, avg  float64 // chunks, and their average body length
	top     uint32  // the largest chunk id among the postings
	lengths *bodyLengths
	norm    *aboutNorms
	cs      *conceptScores // nil unless the concept lever is on and a word has translations
	ff      *fileFreqs
	st      *lexicalStats
	// Per chunk id: score is the user's words' (and feedback's), exp the
	// plain expansions', cov the user's words' weight matched, dl the body
	// length once seen.
	scores, exp, cov, dl []float64
	seen                 []bool
	touched              []uint32 // the seen chunks, in the order met
	// total is the user's words' idf mass, those the view lacks
	// included: what a chunk with all of them would cover (for
	// expansions' need, see addTranslations).
	total    float64
	expanded bool // some list is an expansion
}

func newChunkScorer(s *Searcher, req Request, c *lexicalCandidates) *chunkScorer {
	v := req.View
	sc := &chunkScorer{v: v, corpus: req.Corpus, explain: req.Explain,
		lengths: &bodyLengths{s: s, ov: req.ov, segs: c.segs, tables: map[uint32][]uint32{}},
		norm:    &aboutNorms{v: v},
		st:      &lexicalStats{matched: map[uint32]uint64{}}}
	sc.n, sc.avg = chunkStats(v, req.Corpus)
	for _, tp := range c.lists {
		for _, p := range tp.ps {
			sc.top = max(sc.top, p.Chunk)
		}
	}
	if len(c.lists) > 0 {
		n := sc.top + 1
		sc.scores, sc.exp, sc.cov, sc.dl, sc.seen = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]bool, n)
	}
	sc.total = float64(len(c.missing)) * math.Log(1+(sc.n+0.5)/0.5)
	return sc
}

// chunkStats is BM25's N and average body length: the view's, or the
// corpus's when it has chunks.
func chunkStats(v *store.View, cp *Corpus) (n, avg float64) {
	n = float64(v.Chunks)
	avg = float64(v.FieldLen[store.FieldBody]) / n
	if cp != nil && cp.Chunks > 0 {
		n, avg = float64(cp.Chunks), float64(cp.BodyLen)/float64(cp.Chunks)
	}
	if avg <= 0 {
		avg = 1
	}
	return n, avg
}

// scoringOrder puts the lists of common added words last and says where
// they start (rare is the number of lists before them). An added word
// found in many chunks (file, read, get in Go's source) only adds to
// chunks something rarer found: on its own it is weak evidence, and
// making every chunk it names a candidate was most of an expanded
// search's time.
func scoringOrder(all []termPostings, cp *Corpus, n float64) (lists []termPostings, rare int) {
	lists = make([]termPostings, 0, len(all))
	var common []termPostings
	for _, tp := range all {
		if isCommon(tp.term, cp.df(tp.term.term, max(len(tp.ps), len(tp.about))), n) {
			common = append(common, tp)
		} else {
			lists = append(lists, tp)
		}
	}
	lists = append(lists, common...)
	return lists, len(lists) - len(common)
}

// listWeight is what a match of one postings list counts for.
type listWeight struct {
	w     float64 // idf times the term's own weight
	user  bool    // the term is one of the user's words
	isExp bool    // the term is a plain expansion (not feedback's)
	bit   uint64  // the user's word's coverage bit, 0 for none
}

// weigh is list tp's weight. A user's word also joins the coverage terms
// (the first 64 of them) and the idf mass a chunk with all of them covers.
func (sc *chunkScorer) weigh(tp termPostings) listWeight {
	df := sc.corpus.df(tp.term.term, max(len(tp.ps), len(tp.about)))
	idf := math.Log(1 + (sc.n-df+0.5)/(df+0.5))
	lw := listWeight{w: idf * tp.term.weight, user: tp.term.from == "",
		isExp: tp.term.from != "" && tp.term.from != feedbackFrom}
	sc.expanded = sc.expanded || lw.isExp
	if lw.user {
		sc.total += lw.w
	}
	if tp.idx < 64 && lw.user { // coverage counts the user's own words
		lw.bit = 1 << tp.idx
		sc.st.terms = append(sc.st.terms, coverageTerm{tp.term.term, lw.bit, idf})
		sc.st.total += idf
	}
	return lw
}

// addList credits list li's postings to their chunks and the file
// frequencies. With onlyTouched, a chunk no earlier list found is left
// out, unless byName and its file's name says the term.
func (sc *chunkScorer) addList(li int, tp termPostings, lw listWeight, onlyTouched, byName bool) error {
	var named map[*store.ViewEntry]bool
	for _, p := range tp.ps {
		if !sc.seen[p.Chunk] {
			if onlyTouched && !(byName && p.TF[store.FieldPath] > 0 && nameSays(sc.v, p.Chunk, tp.term.term, &named)) {
				continue
			}
			if err := sc.touch(p.Chunk); err != nil {
				return err
			}
		}
		sc.credit(li, p, lw)
		sc.ff.add(p)
	}
	return nil
}

// touch makes chunk c a candidate, reading its body length.
func (sc *chunkScorer) touch(c uint32) error {
	l, err := sc.lengths.of(c)
	if err != nil {
		return err
	}
	sc.seen[c], sc.dl[c] = true, l
	sc.touched = append(sc.touched, c)
	return nil
}

// credit adds posting p of list li (weight lw) to its chunk's score.
func (sc *chunkScorer) credit(li int, p store.Posting, lw listWeight) {
	tf := fieldWeight[store.FieldBody] * float64(p.TF[store.FieldBody]) / (1 - b + b*sc.dl[p.Chunk]/sc.avg)
	for f := 1; f < store.NumFields; f++ {
		tf += fieldWeight[f] * float64(p.TF[f])
	}
	if p.TF[store.FieldAbout] > 0 {
		tf += fieldWeight[store.FieldAbout] * float64(p.TF[store.FieldAbout]) * (1/sc.norm.of(entryOf(sc.v, p.Chunk)) - 1)
	}
	s := lw.w * tf * (k1 + 1) / (tf + k1)
	// A word or translation of a concept is also recorded there;
	// a translation then adds only through the concept's gain.
	inConcept := sc.cs.add(li, p.Chunk, s)
	switch {
	case lw.isExp:
		if !inConcept {
			sc.exp[p.Chunk] += s
		}
	case lw.user:
		sc.scores[p.Chunk] += s
		sc.cov[p.Chunk] += lw.w
	default:
		sc.scores[p.Chunk] += s
	}
	if mask := lw.bit | sc.cs.matchedBit(li); mask != 0 {
		sc.st.matched[p.Chunk] |= mask
		if p.TF[store.FieldAbout] > 0 && sc.explain {
			if sc.st.about == nil {
				sc.st.about = map[uint32]uint64{}
			}
			sc.st.about[p.Chunk] |= mask
		}
	}
}

// addSummaries credits the about postings (a page's summary) of each
// list to the chunks something else found: what the page is about tells
// its sections apart from another page's, it is no evidence of a section
// by itself.
func (sc *chunkScorer) addSummaries(lists []termPostings, lw []listWeight) {
	for li, tp := range lists {
		for _, p := range tp.about {
			if int(p.Chunk) < len(sc.seen) && sc.seen[p.Chunk] {
				sc.credit(li, p, lw[li])
			}
		}
	}
}

// addTranslations adds what expansions bring. They count as much as the
// user's own words fail to: when some chunk has all of them, translations
// would only reorder what the user's words already found, so they fall to
// expandNeedFloor; when none has any, they count in full. This keeps a
// result with the user's words from being pushed out by one with only
// translations. With the concept lever, translations add what they bring
// beyond their word's own evidence instead (conceptScores).
func (sc *chunkScorer) addTranslations() {
	switch {
	case sc.cs != nil:
		for _, c := range sc.touched {
			sc.scores[c] += sc.cs.gain(c)
		}
	case sc.expanded && sc.total > 0:
		best := 0.0
		for _, c := range sc.touched {
			best = max(best, sc.cov[c])
		}
		need := max(expandNeedFloor, math.Pow(max(0, 1-best/sc.total), expandNeedPower))
		for _, c := range sc.touched {
			sc.scores[c] += need * sc.exp[c]
		}
	}
}

// hits is one hit per candidate chunk, in the order they were met.
func (sc *chunkScorer) hits() []hit {
	hits := make([]hit, 0, len(sc.touched))
	for _, c := range sc.touched {
		hits = append(hits, hit{chunk: c, score: sc.scores[c]})
	}
	return hits
}

// fileFreqs computes each matching file's own BM25F, one query term at a
// time: term frequencies summed over the file's chunks (a path or title
// term, repeated in every chunk, counted once), the length its chunks'
// lengths summed, document frequency counted in files. Whole-file
// evidence: a file that says more of what was asked, across functions or
// sections, gains over one lucky chunk.
type fileFreqs struct {
	on     bool
	v      *store.View
	corpus *Corpus // statistics in place of the view's, if set
	nFiles float64
	at     int // the entry of the last posting: postings come in chunk order
	// The current term's files: slot[i] is 1 + the place of entry i in
	// files and freqs (0: not met yet); files in the order first met.
	// Slices over the view's entries, not maps: a Go-source search
	// added a map entry per file per term, a tenth of its scoring.
	slot  []int32
	files []int
	freqs [][store.NumFields]float64
	lens  []float64 // entry i's file length, once read[i]
	read  []bool
	// scores is each file's own BM25F, by path.
	scores map[string]float64
	// concepts, with the concept lever on, holds each file's evidence
	// per concept, so its translations count once (see conceptScores).
	concepts *conceptScores
	about    *aboutNorms // the summary field's length normalisation
}

func newFileFreqs(v *store.View, corpus *Corpus, on bool) *fileFreqs {
	ff := &fileFreqs{on: on, v: v, corpus: corpus, at: -1}
	if on {
		n := len(v.Entries)
		ff.slot, ff.lens, ff.read, ff.scores = make([]int32, n), make([]float64, n), make([]bool, n), map[string]float64{}
		if corpus != nil && corpus.Files > 0 {
			ff.nFiles = float64(corpus.Files)
		} else {
			ff.nFiles = float64(distinctBlobs(v.Entries))
		}
	}
	return ff
}

// distinctBlobs counts the distinct blobs of the entries that have chunks.
// It keys a map by the first 8 bytes of each blob (a map of whole SHAs
// grown from empty was a sixth of a Go-source search's scoring), and
// counts apart, by their whole SHAs, the blobs that share those 8 bytes
// with another.
func distinctBlobs(es []store.ViewEntry) int {
	first := make(map[uint64]int, len(es)) // 8 bytes -> the entry that had them first
	var others map[store.SHA]bool
	n := 0
	for i := range es {
		e := &es[i]
		if e.N == 0 {
			continue
		}
		k := binary.LittleEndian.Uint64(e.Blob[:8])
		j, ok := first[k]
		if !ok {
			first[k] = i
			n++
			continue
		}
		if es[j].Blob == e.Blob {
			continue
		}
		if others == nil {
			others = map[store.SHA]bool{}
		}
		if !others[e.Blob] {
			others[e.Blob] = true
			n++
		}
	}
	return n
}

func (ff *fileFreqs) startTerm() {
	if ff.on {
		for _, i := range ff.files {
			ff.slot[i] = 0
		}
		ff.files, ff.freqs = ff.files[:0], ff.freqs[:0]
	}
}

func (ff *fileFreqs) add(p store.Posting) {
	if !ff.on {
		return
	}
	es := ff.v.Entries
	if ff.at < 0 || p.Chunk < es[ff.at].First || p.Chunk >= es[ff.at].First+es[ff.at].N {
		ff.at = sort.Search(len(es), func(i int) bool { return es[i].First+es[i].N > p.Chunk })
		if ff.at == len(es) || es[ff.at].First > p.Chunk {
			ff.at = -1
			return
		}
	}
	k := ff.slot[ff.at]
	if k == 0 {
		ff.files = append(ff.files, ff.at)
		ff.freqs = append(ff.freqs, [store.NumFields]float64{})
		k = int32(len(ff.files))
		ff.slot[ff.at] = k
	}
	x := &ff.freqs[k-1]
	x[store.FieldBody] += float64(p.TF[store.FieldBody])
	for f := 1; f < store.NumFields; f++ {
		x[f] = max(x[f], float64(p.TF[f]))
	}
}

func (ff *fileFreqs) endTerm(li int, qt queryTerm, lengths *bodyLengths, avgChunk float64) error {
	if !ff.on || len(ff.files) == 0 {
		return nil
	}
	weight := qt.weight
	df := ff.corpus.fileDF(qt.term, len(ff.files))
	idf := math.Log(1 + (ff.nFiles-df+0.5)/(df+0.5))
	avgFile := avgChunk * float64(ff.v.Chunks) / max(ff.nFiles, 1)
	if cp := ff.corpus; cp != nil && cp.Files > 0 {
		avgFile = float64(cp.BodyLen) / float64(cp.Files)
	}
	// Each file's score is its own: the order files are visited in
	// changes nothing.
	for k, i := range ff.files {
		x := &ff.freqs[k]
		e := &ff.v.Entries[i]
		if !ff.read[i] {
			fl, err := lengths.file(e)
			if err != nil {
				return err
			}
			ff.lens[i], ff.read[i] = fl, true
		}
		fl := ff.lens[i]
		tf := fieldWeight[store.FieldBody] * x[store.FieldBody] / (1 - b + b*fl/avgFile)
		for f := 1; f < store.NumFields; f++ {
			tf += fieldWeight[f] * x[f]
		}
		if x[store.FieldAbout] > 0 {
			tf += fieldWeight[store.FieldAbout] * x[store.FieldAbout] * (1/ff.about.of(e) - 1)
		}
		sc := idf * weight * tf * (k1 + 1) / (tf + k1)
		if ff.concepts != nil && ff.concepts.addFile(li, i, sc) {
			if ff.concepts.exp[li] {
				continue
			}
		}
		ff.scores[e.Path] += sc
	}
	return nil
}

// finish adds what translations bring to each file beyond its own words
// (concept lever).
func (ff *fileFreqs) finish() {
	if !ff.on || ff.concepts == nil {
		return
	}
	for i, row := range ff.concepts.files {
		if g := ff.concepts.rowGain(row); g > 0 {
			ff.scores[ff.v.Entries[i].Path] += g
		}
	}
}

// lexicalStats is what the score stage knows of the query's terms beyond
// the chunk scores: each found term's IDF and which terms each chunk
// matched (a bit per term, in query order; terms past the 64th are not
// counted).
type lexicalStats struct {
	// file is each matching file's own BM25F score: the file as one
	// document (body term counts summed over its chunks, the length its
	// chunks' lengths summed, document frequency counted in files).
	file    map[string]float64
	terms   []coverageTerm
	total   float64 // sum of the found terms' IDF
	matched map[uint32]uint64
	// about is, per chunk, the user's words its page's front-matter
	// summary says (FieldAbout), for --explain.
	about map[uint32]uint64
}

type coverageTerm struct {
	term string
	bit  uint64
	idf  float64
}

// coverage is the IDF-weighted share of the query's found terms that
// mask holds: 1 when all of them are there, less when the rare ones are
// missing than when the common ones are.
func (st *lexicalStats) coverage(mask uint64) float64 {
	if st == nil || st.total <= 0 {
		return 1
	}
	got := 0.0
	for _, t := range st.terms {
		if mask&t.bit != 0 {
			got += t.idf
		}
	}
	return got / st.total
}

// split names the terms mask holds and those it lacks.
func (st *lexicalStats) split(mask uint64) (in, out []string) {
	for _, t := range st.terms {
		if mask&t.bit != 0 {
			in = append(in, t.term)
		} else {
			out = append(out, t.term)
		}
	}
	return in, out
}

// sortHits orders hits best first, ties by chunk id (stable output).
func sortHits(hits []hit) {
	slices.SortFunc(hits, func(x, y hit) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return cmp.Compare(x.chunk, y.chunk)
	})
}

// fileHits is one file's chunk hits, best first, and the file's score.
type fileHits struct {
	entry  *store.ViewEntry
	hits   []hit
	score  float64
	health []string // docHealth
	prior  *Prior   // file-kind demotion
	// The parts of score, for --explain.
	best, support float64  // best chunk's score; what the next ones add
	fileBM25      float64  // the whole file's BM25F (lexicalStats.file)
	hasFile       bool     // fileBM25 was measured (lexical mode, lever file)
	prox          float64  // what proximity added to best + support
	proxPairs     []string // the query's concepts its best chunk holds close together
	cov, bestCov  float64  // query coverage of the file and of its best chunk (-1: not measured)
	nameCov       float64  // share of the question its base name says (filename.go)
	declares      string   // the question's pkg.Name it declares (qualified.go)
	mask          uint64   // query terms the file matched
	priors        []PriorFactor
	alsoAt        []string // near-duplicates folded into this file (collapse)
}

// group gathers chunk hits by file. A file's score is its best chunk's
// plus a damped share of its next best ones: a document that answers in
// several sections is more likely the answer than one lucky paragraph
// (the MaxP/SumP middle ground of passage-level retrieval), plus, in
// lexical mode, a share of the whole file's own BM25F (fileScores).
// With cov set, the score is then scaled by the query's coverage: the
// IDF-weighted share of its terms found anywhere in the file, so a file
// that has more of what was asked beats one that repeats its common
// words (Lucene's coordination factor, a soft minimum-should-match).
func group(v *store.View, hits []hit, cov *lexicalStats, fileScores map[string]float64) []*fileHits {
	// By entry index, not path: a view's entries are its files, one each.
	byEntry := make([]*fileHits, len(v.Entries))
	var files []*fileHits
	for _, h := range hits {
		i := sort.Search(len(v.Entries), func(i int) bool { return v.Entries[i].First+v.Entries[i].N > h.chunk })
		if i == len(v.Entries) || v.Entries[i].First > h.chunk {
			continue
		}
		f := byEntry[i]
		if f == nil {
			f = &fileHits{entry: &v.Entries[i], cov: -1, bestCov: -1}
			byEntry[i] = f
			files = append(files, f)
		}
		f.hits = append(f.hits, h)
		if cov != nil {
			f.mask |= cov.matched[h.chunk]
		}
	}
	for _, f := range files {
		if fs, ok := fileScores[f.entry.Path]; ok {
			f.fileBM25, f.hasFile = fs, true
		}
		f.rescore(cov)
	}
	sortFiles(files)
	return files
}

// rescore sorts f's hits and computes its score from them (see group):
// group's, and again once proximity has added to some of its chunks.
func (f *fileHits) rescore(cov *lexicalStats) {
	sortHits(f.hits)
	f.best, f.support = f.hits[0].score, 0
	for i := 1; i < len(f.hits) && i <= fileSupport; i++ {
		f.support += supportWeight * f.hits[i].score / float64(i)
	}
	if cov != nil {
		f.cov = cov.coverage(f.mask)
		f.bestCov = cov.coverage(cov.matched[f.hits[0].chunk])
	}
	f.score = f.base(cov)
}

// base is f's score from its chunks, its whole file and its coverage,
// before the factors of names, declarations and priors.
func (f *fileHits) base(cov *lexicalStats) float64 {
	sc := f.best + f.support
	if f.hasFile {
		sc += fileWeight * f.fileBM25
	}
	if cov != nil {
		sc *= math.Pow(f.cov, coverageExp)
	}
	return sc
}

// sortFiles orders files best first. Ties keep the order of the files'
// best hits (as if hits had come sorted): the output does not depend on
// how they came.
func sortFiles(files []*fileHits) {
	slices.SortFunc(files, func(x, y *fileHits) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		if c := cmp.Compare(y.hits[0].score, x.hits[0].score); c != 0 {
			return c
		}
		return cmp.Compare(x.hits[0].chunk, y.hits[0].chunk)
	})
}

// priors adjusts file scores by what is known of a file besides the
// query's words, and reorders; it demotes, never hides.
//
// Doc health: a document whose front-matter says it is deprecated is
// halved. File kind (kindWeight): tests, examples, generated files and
// data tables rank below the code and docs they exercise or serve, which
// otherwise win on a stray literal or a repeated constant name; tests and
// examples are left alone when the query asks for them.
//
// Hub priors (lever "hub"):
//
//	spec        a generated API spec (OpenAPI/Swagger in JSON, YAML or a
//	            generated Go docs file): it repeats every handler's
//	            summary, so it matches every question about the API
//	strings     a source file whose Chinese is all in string literals (API
//	            docs built in code, a message table): a file kind
//	            (chunk.KindStrings) weighed only with this lever on
//	reference   a Markdown page of sections headed by code names (a
//	            configuration file's keys, system variables, flags):
//	            chunk.KindReference, left alone when the question writes
//	            the name its best section is headed by
//	vocabulary  the file holds far more distinct words than files of its
//	            length do in this repository (a message table, a glossary,
//	            a dump): an outlier of the index's own Heaps' law fit
//	overview    (lever "links") a Markdown page that links to more pages
//	            of the repository than link to it: see linkWeight
//
// Each prior is a named factor with its reason in Result.Priors.
//
// Path kinds are free and judged for every file; front-matter and
// content kinds need the blob's metadata, decoded only for the files that
// could reach the page.
func (s *Searcher) priors(req Request, q *query, files []*fileHits) error {
	wantTests, wantChangelog, wantAgents, names := q.asksForTests(), q.asksForChangelog(), q.asksForAgents(), q.writtenNames()
	var viewSegs map[uint32]bool // the view's segments, when a page's links are counted
	weigh := func(f *fileHits, kind string) {
		if kind == "" || wantTests && (kind == chunk.KindTest || kind == chunk.KindExample) ||
			wantChangelog && (kind == chunk.KindChangelog || kind == chunk.KindMigration) ||
			wantAgents && kind == chunk.KindAgent || kind == chunk.KindStrings && !req.on(LeverHub) ||
			kind == chunk.KindReference && (!req.on(LeverHub) || s.namesEntry(f, names)) {
			return
		}
		if w, ok := kindWeight[kind]; ok && w != 1 && !req.NoPriors {
			f.score *= w
			f.prior = &Prior{Kind: kind, Weight: w}
			f.priors = append(f.priors, PriorFactor{Name: kind, Factor: w, Reason: kindReason[kind]})
		}
	}
	for _, f := range files {
		weigh(f, chunk.PathKind(f.entry.Path))
	}
	if req.on(LeverPlatform) && !req.NoPriors {
		partial := req.Overlay != nil && req.Overlay.Partial
		variants := platformVariants(req.View, files, partial)
		for _, f := range files {
			if p, ok := variants[f]; ok && !namesPlatform(q.text, p) {
				why := "built for " + p + " only, by its name, beside another platform's file of its name; the question names no platform"
				if partial {
					why = "built for " + p + " only, by its name; the question names no platform"
				}
				f.factor(PriorFactor{Name: "platform", Factor: platformWeight, Reason: why})
			}
		}
	}
	if req.Mode == ModeLexical && req.on(LeverFocus) && (req.Overlay == nil || !req.Overlay.Partial) {
		for _, f := range files {
			focus(f)
		}
	}
	for i, f := range files {
		if i >= 3*req.K+10 {
			break
		}
		m, err := s.blobHead(f.entry.Blob)
		if err != nil {
			return err
		}
		if h := docHealth(m.Meta, req.Now, req.StaleAfter); h != nil {
			f.health = h
			if h[0] == HealthDeprecated {
				f.factor(PriorFactor{Name: "deprecated", Factor: deprecatedWeight, Reason: "front-matter marks it deprecated"})
			}
		}
		if req.on(LeverHub) {
			if m.Kind == store.KindAPISpec {
				f.factor(PriorFactor{Name: "spec", Factor: specWeight, Reason: "generated API spec (OpenAPI/Swagger): it lists every endpoint's summary"})
			}
			if z := float64(f.entry.Vocab) / 10; z >= vocabOutlier {
				f.factor(PriorFactor{Name: "vocabulary", Factor: vocabWeight,
					Reason: fmt.Sprintf("holds far more distinct words than files of its size here (%.1f deviations above the repository's fit)", z)})
			}
		}
		if req.on(LeverLinks) && m.Links > 0 && (s.DB != nil || req.Overlay != nil && req.Overlay.InLinks != nil) {
			var in int
			var counted bool
			if s.DB != nil {
				if viewSegs == nil {
					viewSegs = req.View.Segments() // a walk over every entry: once, not per page
				}
				var err error
				if in, counted, err = s.inLinks(req.View, viewSegs, f.entry); err != nil {
					return err
				}
			} else {
				// An org search's: counted in its index (Overlay.InLinks).
				in, counted = req.Overlay.InLinks[f.entry.Path]
			}
			if r := math.Log(float64(1+m.Links) / float64(1+in)); counted && r > 0 {
				f.factor(PriorFactor{Name: "overview", Factor: math.Round(1000/(1+linkWeight*r)) / 1000, // shown in --explain and --json: three decimals
					Reason: fmt.Sprintf("links to %d other pages and is linked from %d: an overview of pages that explain each part", m.Links, in)})
			}
		}
		if f.prior == nil {
			weigh(f, m.Kind)
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].score > files[j].score })
	return nil
}

// Prior is a file-kind demotion, as --json shows it.
type Prior struct {
	Kind   string  `json:"kind"`   // chunk.KindTest, KindExample, KindGenerated, KindData
	Weight float64 `json:"weight"` // the file's score was multiplied by it
}

// kindWeight multiplies the score of each kind of file. Measured on the
// dev sets (git kb eval --compare 'lexical;lexical --no-priors'): tests
// 0.3-0.7 and data 0.3-0.5 all gave the same figures; demoting generated
// files (0.7) helped one Go query only, and generated specialisations
// (runtime/malloc_generated.go) are real code, so they are not demoted.
var kindWeight = map[string]float64{
	chunk.KindTest:      0.5,
	chunk.KindExample:   0.6,
	chunk.KindData:      0.3,
	chunk.KindGenerated: 1,
	chunk.KindChangelog: 0.5,
	chunk.KindMigration: 0.5,
	chunk.KindAgent:     0.5,
	// A hub prior (lever "hub"): measured on polaris, 0.4 to 0.8 gave
	// the same figures (see README, "Generated specs, hubs and duplicates").
	chunk.KindStrings: 0.6,
	// A hub prior too: on the docs sets 0.6 to 0.8 measured alike.
	chunk.KindReference: 0.7,
}

// kindReason is the reason Result.Priors gives for a file-kind demotion.
var kindReason = map[string]string{
	chunk.KindTest:      "a test or test data: ranks below the code it exercises",
	chunk.KindExample:   "an example or fixture: ranks below the code it shows",
	chunk.KindData:      "mostly literal constants: a table, not logic",
	chunk.KindGenerated: "generated code",
	chunk.KindChangelog: "release notes or a changelog: a line on each change; the change's own page explains it",
	chunk.KindMigration: "a versioned schema migration: one release's changes to the tables, not the code that uses them",
	chunk.KindAgent:     "instructions for AI coding agents: a summary of the whole project; the code and docs it points to explain each part",
	chunk.KindStrings:   "its Chinese is all in string literals: a table of API docs or messages built in code; the code each entry names explains it",
	chunk.KindReference: "a reference of named entries (settings, variables, flags): a line on each; the feature's own page explains it",
}

// testWords are query terms that ask for tests or examples.
var testWords = map[string]bool{
	"test": true, "tests": true, "testing": true, "测试": true, "用例": true, "单测": true, "单元测试": true,
	"example": true, "examples": true, "示例": true, "例子": true, "样例": true, "fixture": true, "fixtures": true,
	"testdata": true, "benchmark": true, "基准": true, "mock": true, "mocks": true,
}

// changelogWords are query terms that ask for release notes.
var changelogWords = map[string]bool{
	"release": true, "releases": true, "changelog": true, "changes": true, "version": true, "versions": true,
	"版本": true, "发布说明": true, "更新日志": true, "变更": true, "变更日志": true, "新特性": true, "新功能": true,
	"发版": true, "升级": true, "引入": true, "废弃": true,
	"migration": true, "migrations": true, "migrate": true, "upgrade": true, "迁移": true, "表结构": true, "变更脚本": true,
}

// agentWords are query terms that ask for the instructions written for AI
// coding agents, or for the conventions they hold.
var agentWords = map[string]bool{
	"agent": true, "agents": true, "ai": true, "llm": true, "claude": true, "cursor": true, "copilot": true,
	"gemini": true, "codex": true, "windsurf": true, "cline": true, "prompt": true, "prompts": true,
	"instructions": true, "convention": true, "conventions": true, "guidelines": true,
	"智能体": true, "提示词": true, "大模型": true, "规范": true, "约定": true, "编码规范": true, "开发规范": true,
}

// asksForAgents reports whether the user's words ask for agent instructions.
func (q *query) asksForAgents() bool {
	return q.asksFor(func(w string) bool { return agentWords[w] })
}

// asksForChangelog reports whether the user's words ask for release
// notes: a release word, or a version number (7.5, v1.2.0).
func (q *query) asksForChangelog() bool {
	return q.asksFor(func(w string) bool { return changelogWords[w] || versionTerm.MatchString(w) })
}

// versionTerm matches a version number among the query's terms.
var versionTerm = regexp.MustCompile(`^v?[0-9]+\.[0-9]+`)

// writtenNames are the user's words written as code spells a name, with
// an underscore (tidb_gc_life_time, only_full_group_by).
func (q *query) writtenNames() []string {
	var out []string
	for _, t := range q.terms {
		if t.from == "" && strings.Contains(strings.Trim(t.term, "_"), "_") {
			out = append(out, t.term)
		}
	}
	return out
}

// namesEntry reports whether f's best chunk is the entry of one of the
// names the user wrote: its own heading is that name as code
// (### `tidb_gc_life_time`). A question that names a reference's entry
// asks for that entry; one that names something else (only_full_group_by
// beside the entry tidb_enable_new_only_full_group_by_check) does not.
func (s *Searcher) namesEntry(f *fileHits, names []string) bool {
	if len(names) == 0 || len(f.hits) == 0 {
		return false
	}
	if s.DB == nil {
		// An org search: its candidates' metadata came with the overlay
		// (headings included); there is no index to read others from.
		s.metaMu.Lock()
		_, ok := s.metas[f.entry.Blob]
		s.metaMu.Unlock()
		if !ok {
			return false
		}
	}
	_, cm, ok, err := s.blobChunk(f.entry.Blob, int(f.hits[0].chunk-f.entry.First))
	if err != nil || !ok {
		return false
	}
	h := strings.ToLower(cm.Heading)
	if i := strings.LastIndex(h, " > "); i >= 0 {
		h = h[i+3:]
	}
	for _, n := range names {
		if strings.Contains(h, "`"+n+"`") {
			return true
		}
	}
	return false
}

// asksForTests reports whether the user's words ask for tests or examples.
func (q *query) asksForTests() bool {
	return q.asksFor(func(w string) bool { return testWords[w] })
}

// asksFor reports whether one of the user's own words (not an added one)
// satisfies is.
func (q *query) asksFor(is func(string) bool) bool {
	for _, t := range q.terms {
		if t.from == "" && is(t.term) {
			return true
		}
	}
	return false
}

// linkWeight is the overview prior's strength: a Markdown page that
// links to more pages of the repository than link to it is scaled by
// 1/(1 + linkWeight*ln((1+out)/(1+in))). In the web's terms (Kleinberg's
// HITS) such a page is a hub, and a question's answer is an authority:
// overviews, tables of contents, FAQs and walkthroughs mention a little
// of every topic they point to, and the page they point to explains it.
// Measured on the docs dev sets (git kb eval --compare 'lexical;lexical
// --ranking -links'): see README ("Generated specs, hubs and duplicates").
var linkWeight = 0.2

// inLinks counts the view's other files whose text names e's file name
// with its extension (auto-random.md): the documents linking to it, as a
// Markdown link writes the target's name. A name several directories
// share (overview.md) counts the links to each of them, which only
// weakens the demotion. counted is false when the name cannot be looked
// up (the analyzer does not keep it whole: 回滚指南.md, release notes.md):
// then nothing is known of the links to it, and the page is no overview
// for want of them.
func (s *Searcher) inLinks(v *store.View, segs map[uint32]bool, e *store.ViewEntry) (in int, counted bool, err error) {
	term, ok := linkTerm(s.analyzer(), e.Path)
	if !ok {
		return 0, false, nil
	}
	var ps []store.Posting
	err = s.DB.Postings(s.Pipeline, term, segs, func(_ uint32, data []byte) error {
		var err error
		ps, err = store.DecodePostings(ps, data)
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("read postings of %q: %w", term, err)
	}
	from := map[*store.ViewEntry]bool{}
	for _, p := range ps {
		if p.TF[store.FieldBody] == 0 {
			continue // the file's own path, or another file of that name
		}
		if src := entryOf(v, p.Chunk); src != nil && src.Path != e.Path {
			from[src] = true // a live file of the view other than e
		}
	}
	return len(from), true, nil
}

// linkTerm is the term another file's body names the file at p by (its
// file name, kept whole); false when the analyzer does not keep it whole.
func linkTerm(a *segment.Analyzer, p string) (string, bool) {
	terms := a.Terms(path.Base(p))
	if len(terms) == 0 || !strings.Contains(terms[0], ".") {
		return "", false
	}
	return terms[0], true
}

// LinkTerm is linkTerm with the built-in dictionary, as an org search's
// index is analyzed: it counts a page's in-links by it (Overlay.InLinks).
func LinkTerm(p string) (string, bool) { return linkTerm(segment.Tiny(), p) }

// Prior weights: demotions, never exclusions.
var (
	specWeight   = 0.4
	vocabWeight  = 0.5
	vocabOutlier = 6.0 // robust z-score (median/MAD) of the Heaps' law residual
)

// factor applies one prior to the file's score and records it.
func (f *fileHits) factor(p PriorFactor) {
	f.score *= p.Factor
	f.priors = append(f.priors, p)
}

// collapse folds near-duplicate files into the best ranked of them: a
// spec rendered as JSON, YAML and Go, a rules file copied for several
// tools, the same blob at two paths. The kept file lists the others
// (Result.AlsoAt). Near: the MinHash signatures of their analyzed words,
// computed at index time, estimate a Jaccard similarity of at least
// nearDuplicate for files in different formats (renderings of one
// source), nearCopy for files in the same language: same-language
// variants (run_linux.go beside run_darwin.go, one config per
// environment) are each an answer of their own unless nearly copies.
func (s *Searcher) collapse(req Request, files []*fileHits) []*fileHits {
	if !req.on(LeverDedup) {
		return files
	}
	window := min(len(files), 3*req.K+10)
	// The same blob at several paths has one set of chunks: its other
	// paths are its exact duplicates.
	paths := map[store.SHA][]string{}
	for _, f := range files[:window] {
		paths[f.entry.Blob] = nil
	}
	for _, e := range req.View.Entries {
		if ps, ok := paths[e.Blob]; ok {
			paths[e.Blob] = append(ps, e.Path)
		}
	}
	type kept struct {
		f    *fileHits
		sig  []byte
		lang string
	}
	var ks []kept
	out := files[:0:0]
	for i, f := range files {
		for _, p := range paths[f.entry.Blob] {
			if p != f.entry.Path {
				f.alsoAt = append(f.alsoAt, p)
			}
		}
		if i >= window {
			out = append(out, f)
			continue
		}
		var sig []byte
		var lang string
		if m, err := s.blobHead(f.entry.Blob); err == nil {
			sig, lang = m.MinHash, m.Lang
		}
		folded := false
		for _, k := range ks {
			need := nearDuplicate
			if lang == k.lang {
				need = nearCopy
			}
			if store.MinHashSimilarity(sig, k.sig) >= need {
				k.f.alsoAt = append(k.f.alsoAt, f.entry.Path)
				k.f.alsoAt = append(k.f.alsoAt, f.alsoAt...)
				folded = true
				break
			}
		}
		if !folded {
			ks = append(ks, kept{f, sig, lang})
			out = append(out, f)
		}
	}
	return out
}

// nearDuplicate and nearCopy are the estimated Jaccard similarities of
// two files' vocabularies from which they are one result: in different
// formats, in the same language.
const (
	nearDuplicate = 0.75
	nearCopy      = 0.95
)

// render takes the first K results from the ranked files (PerFile chunks
// each, the rest counted) and fills in metadata and snippets.
func (s *Searcher) render(ctx context.Context, req Request, resp *Response, files []*fileHits, terms []string, stats *lexicalStats) error {
	type pick struct {
		h hit
		f *fileHits
	}
	var picked []pick
	for _, f := range files {
		shown := min(req.PerFile, len(f.hits))
		for i := 0; i < shown && len(picked) < req.K; i++ {
			h := f.hits[i]
			if i == 0 {
				h.score = f.score
			}
			picked = append(picked, pick{h, f})
		}
		if len(picked) >= req.K {
			break
		}
	}
	if s.Prefetch != nil && s.ReadBlob != nil {
		// The blobs the snippets will read, in the order they will.
		var blobs []store.SHA
		s.metaMu.Lock()
		for _, p := range picked {
			b := p.f.entry.Blob
			if _, ok := s.lines[b]; ok {
				continue
			}
			if _, ok := s.texts[b]; !ok {
				blobs = append(blobs, b)
			}
		}
		s.metaMu.Unlock()
		s.Prefetch(blobs)
	}
	n0 := len(resp.Results)
	for i, p := range picked {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := p.f.entry
		r, err := s.result(req, e, int(p.h.chunk-e.First), terms)
		if err != nil {
			return err
		}
		r.Rank, r.Score = i+1, math.Round(p.h.score*10000)/10000
		r.MoreInFile = len(p.f.hits) - min(req.PerFile, len(p.f.hits))
		if h := p.f.health; h != nil {
			r.Health, r.HealthFlags = h[0], h
		}
		r.LexicalRank, r.DenseRank = p.h.lexRank, p.h.denseRank
		r.Prior = p.f.prior
		if i == 0 || picked[i-1].f != p.f {
			r.AlsoAt, r.Priors = p.f.alsoAt, p.f.priors
			if req.Explain {
				r.Explain = p.f.explain(stats)
			}
		}
		resp.Results = append(resp.Results, r)
	}
	highlight(resp.Results[n0:], terms)
	return nil
}

// explain is the parts of f's score (--explain).
func (f *fileHits) explain(st *lexicalStats) *Explain {
	r4 := func(x float64) float64 { return math.Round(x*10000) / 10000 }
	x := &Explain{BestChunk: r4(f.best), Support: r4(f.support), File: r4(fileWeight * f.fileBM25), Chunks: len(f.hits), Score: r4(f.score), Priors: f.priors,
		Proximity: r4(f.prox), ProximityPairs: f.proxPairs}
	if f.cov >= 0 {
		x.Coverage, x.BestChunkCoverage = r4(f.cov), r4(f.bestCov)
		x.CoverageFactor = r4(math.Pow(f.cov, coverageExp))
	}
	if f.nameCov > 0 {
		x.NameCoverage, x.NameFactor = r4(f.nameCov), r4(1+nameWeight*f.nameCov)
	}
	if f.declares != "" {
		x.Declares, x.DeclaresFactor = f.declares, r4(1+qualifiedWeight)
	}
	if st != nil {
		var mask, about uint64
		for _, h := range f.hits {
			mask |= st.matched[h.chunk]
			about |= st.about[h.chunk]
		}
		x.Matched, x.Missing = st.split(mask)
		x.Summary, _ = st.split(about)
	}
	return x
}

// quoteAll is phrases as a user typed them: "a b" and "c".
func quoteAll(phrases []string) string {
	q := make([]string, len(phrases))
	for i, p := range phrases {
		q[i] = strconv.Quote(p)
	}
	return strings.Join(q, " and ")
}

// symbolsOf writes @@Symbol operators back as the query had them:
// @@RetryCount, or @@A or @@B.
func symbolsOf(syms []string) string {
	q := make([]string, len(syms))
	for i, sym := range syms {
		q[i] = "@@" + sym
	}
	return strings.Join(q, " or ")
}

// aboutNorms is BM25F's length normalisation of the summary field
// (FieldAbout), with b = 1: a summary's length against the average
// summary's, over the pages that have one. Summaries run from a line
// ("了解 Changefeed 相关的各种管理手段") to a paragraph abstracting the
// whole page, whose many words then matched question after question in
// every chunk of the page (without it, docs MRR@10 .787 -> .753).
type aboutNorms struct {
	v   *store.View
	avg float64 // 0: not computed yet
}

func (an *aboutNorms) of(e *store.ViewEntry) float64 {
	if an.avg == 0 {
		sum, n := 0.0, 0.0
		for _, e := range an.v.Entries {
			if e.N > 0 && e.FieldLen[store.FieldAbout] > 0 {
				sum += float64(e.FieldLen[store.FieldAbout]) / float64(e.N)
				n++
			}
		}
		an.avg = -1
		if n > 0 {
			an.avg = sum / n
		}
	}
	if e == nil || e.N == 0 || e.FieldLen[store.FieldAbout] == 0 || an.avg < 0 {
		return 1 // an uncommitted file's (the overlay's): as an average one
	}
	return float64(e.FieldLen[store.FieldAbout]) / float64(e.N) / an.avg
}
