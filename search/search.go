package search

import (
	"context"
	"encoding/hex"
	"fmt"
	"github.com/git-kb/git-kb/segment"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/expand"
	"github.com/git-kb/git-kb/secrets"
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

// coverageExp is the power of the query coverage that scales a file's
// score in lexical mode, when the coverage lever is on.
var coverageExp = 0.5

// Ranking levers that Request.Levers can switch on or off, to measure
// what each one brings (git kb search --ranking -hub,+coverage).
const (
	LeverCoverage  = "coverage"  // scale file scores by query coverage
	LeverHub       = "hub"       // spec, string-table and vocabulary-outlier priors
	LeverDedup     = "dedup"     // fold near-duplicate files into one result
	LeverFile      = "file"      // add the whole file's BM25F to its chunks' evidence
	LeverConcept   = "concept"   // a word and its translations count once, as their best
	LeverName      = "name"      // scale a file by how much of the question its name says
	LeverLinks     = "links"     // demote overview pages: more links out than in
	LeverQualified = "qualified" // pkg.Name in the question: the package's file that declares it
	LeverSummary   = "summary"   // a page's front-matter summary/description counts in each of its chunks
	LeverProximity = "proximity" // query words close together in a chunk score more (proximity.go)
	LeverFocus     = "focus"     // scale a Markdown page by the share of its sections the question matches
	LeverPlatform  = "platform"  // a Go file for a minority platform (x_windows.go) below the mainstream one
	LeverRole      = "role"      // a question asking for an entry point or a package's doc: the file in that role
	LeverMention   = "mention"   // a file written in Chinese that never says a name the Chinese question gives in Latin script
)

// Levers lists the levers and whether each is on by default. Coverage is
// off: on the dev sets it helped the Go-source and some polaris
// questions and cost the docs and the others more (see docs/MEASURED.md). Concept
// is on: MRR@10 on all dev sets (shared + testdata/eval) polaris .449 →
// .554, Go source .666 → .681, docs .711 → .709.
var Levers = map[string]bool{LeverCoverage: false, LeverHub: true, LeverDedup: true, LeverFile: true, LeverConcept: true, LeverName: true, LeverLinks: true, LeverQualified: true, LeverSummary: true, LeverProximity: false, LeverFocus: true, LeverPlatform: true, LeverRole: true, LeverMention: true}

// on says whether a lever is on for this request.
func (req Request) on(lever string) bool {
	if v, ok := req.Levers[lever]; ok {
		return v
	}
	return Levers[lever]
}

// fileWeight scales the whole file's BM25F (lexicalStats.file) added to
// its chunk-based score in lexical mode.
var fileWeight = 0.35

var fieldWeight = [store.NumFields]float64{
	store.FieldBody:    1.0,
	store.FieldHeading: 2.0,
	store.FieldPath:    1.5,
	store.FieldSymbol:  2.0,
	// A page's own summary (its front-matter summary or description),
	// normalised by its length (aboutNorms): what the page is about, in
	// each of its chunks. As the body rather than as the headings weigh
	// (2: docs MRR@10 .792 -> .784): it is prose, longer than a heading.
	store.FieldAbout: 1.0,
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
	// Feedback adds pseudo-relevance feedback (RM3, feedback.go).
	Feedback bool
	// NoExpand turns off cross-lingual query expansion (kb.expand false).
	NoExpand bool
	// Synonyms, if set, are the team's own (kb.synonyms), expanded with
	// the built-in tables' words (and off with them).
	Synonyms *expand.Synonyms
	// NoSynonyms asks the engine not to add kb.synonyms' (Synonyms nil).
	NoSynonyms bool
	// NoPriors turns off file-kind demotion (tests, data tables...), for
	// measuring it.
	NoPriors bool
	// Levers switches ranking levers on (true) or off (false) against
	// their defaults (Levers), for measurement.
	Levers map[string]bool
	// Explain fills in Result.Explain: the parts of each score.
	Explain bool
	// Overlay, if set, is searched on top of View (--worktree).
	Overlay *Overlay
	// Corpus, if set, holds the BM25 statistics scoring uses in place of
	// the view's: an org search's view holds only the candidate files
	// the org index returned, its statistics are the collection's.
	Corpus *Corpus
	ov     *overlayIndex // Overlay numbered into View (applyOverlay)
	qv     *queryFuture  // the query vector, embedded while lexical retrieval runs
}

// Corpus is the BM25 statistics of a corpus larger than the view
// searched (Request.Corpus). A term it does not list counts as found in
// the chunks and files of the view that hold it.
type Corpus struct {
	Chunks  int    // N
	BodyLen uint64 // body terms over all chunks
	Files   int    // files with chunks
	// DF and FileDF count the chunks and the files that hold each term.
	DF, FileDF map[string]int
}

// df is the document frequency of term: the corpus's, at least seen (in
// the view); seen without a corpus.
func (c *Corpus) df(term string, seen int) float64 {
	if c == nil {
		return float64(seen)
	}
	return float64(max(c.DF[term], seen))
}

func (c *Corpus) fileDF(term string, seen int) float64 {
	if c == nil {
		return float64(seen)
	}
	return float64(max(c.FileDF[term], seen))
}

// QueryTerms are the terms Search ranks req's text by: the analyzer's,
// then the cross-lingual words expansion adds (unless NoExpand). An org
// search asks its index for the chunks that hold them.
//
// The organisation's index is analyzed with the built-in dictionary only
// (index.AnalyzeBlob), so its queries are too.
func QueryTerms(req Request) ([]string, error) {
	q, err := analyze(req, segment.Tiny())
	if err != nil {
		return nil, err
	}
	if !req.NoExpand {
		expandQuery(req, q)
	}
	out := make([]string, len(q.terms))
	for i, t := range q.terms {
		out[i] = t.term
	}
	return out, nil
}

// CommonExpansions sorts the terms of req (QueryTerms) that the corpus
// holds (df: chunks holding each, of n) as Search's scoring does: common
// are the added words so frequent that they only add to chunks the other
// terms (others) found, and Search counts a common word's file document
// frequency among the files of those chunks only. An org search, which
// reads its document frequencies from its index, counts those so too, to
// rank as Search does.
func CommonExpansions(req Request, df map[string]int, n int) (common, others []string, err error) {
	q, err := analyze(req, segment.Tiny())
	if err != nil {
		return nil, nil, err
	}
	if !req.NoExpand {
		expandQuery(req, q)
	}
	seen := map[string]bool{}
	for _, t := range q.terms {
		d := df[t.term]
		if d == 0 || seen[t.term] {
			continue
		}
		seen[t.term] = true
		if isCommon(t, float64(d), float64(n)) {
			common = append(common, t.term)
		} else {
			others = append(others, t.term)
		}
	}
	if len(others) == 0 {
		// Nothing found by the others: Search scores the common words
		// everywhere (its touched set is empty).
		return nil, nil, nil
	}
	return common, others, nil
}

// Doc health values of Result.Health.
const (
	HealthDeprecated = "deprecated"
	HealthStale      = "stale"
)

// deprecatedWeight scales a deprecated document's score.
const deprecatedWeight = 0.5

// docHealth reads a document's front-matter: its health flags, in the
// order of Result.HealthFlags (nil: none).
func docHealth(meta map[string]string, now time.Time, staleAfter time.Duration) []string {
	if meta == nil {
		return nil
	}
	var flags []string
	if strings.EqualFold(strings.TrimSpace(meta["confidence"]), "deprecated") || strings.EqualFold(strings.TrimSpace(meta["status"]), "deprecated") {
		flags = append(flags, HealthDeprecated)
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
					flags = append(flags, HealthStale)
				}
				break
			}
		}
	}
	return flags
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
	Highlights []string `json:"highlights,omitempty"` // the snippet's words that match the query, as written (whole words as the analyzer cut them)
	MoreInFile int      `json:"more_in_file,omitempty"`
	// Health is "deprecated" (front-matter confidence: deprecated; the
	// file is demoted) or "stale" (last_reviewed older than StaleAfter):
	// the first of HealthFlags, kept as one word for readers of "health".
	Health string `json:"health,omitempty"`
	// HealthFlags is every health flag of the document, in the order
	// above: a document deprecated and stale has both.
	HealthFlags []string `json:"health_flags,omitempty"`
	// After a rerank: the judge's score (0-10) and the rank before it.
	RerankScore *float64 `json:"rerank_score,omitempty"`
	PreRank     int      `json:"rank_before_rerank,omitempty"`
	// In hybrid mode, the chunk's rank in each list fused (0: not in it).
	LexicalRank int `json:"lexical_rank,omitempty"`
	DenseRank   int `json:"dense_rank,omitempty"`
	// Prior says why the file was demoted for what it is (a test, a data
	// table...) whatever the query's words; nil when it was not.
	Prior *Prior `json:"prior,omitempty"`
	// Match is "related" for a result --related added (it need not
	// contain the query's words); Related says how it relates.
	Match   string    `json:"match,omitempty"`
	Related *Relation `json:"related,omitempty"`
	// AlsoAt lists the files folded into this one as (near) duplicates:
	// the same content at other paths or in another format.
	AlsoAt []string `json:"also_at,omitempty"`
	// Priors are the query-independent factors that scaled the file's
	// score, each with its reason (a generated spec, a deprecated doc...).
	Priors []PriorFactor `json:"priors,omitempty"`
	// Explain is the parts of the score (--explain).
	Explain *Explain `json:"explain,omitempty"`

	// Repo and Commit are set by an org-wide search (git kb search
	// --org), whose results come from many repositories and commits.
	Repo   string `json:"repo,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// PriorFactor is one query-independent factor of a file's score: every
// prior that scaled it (file kind, hub, deprecated), by name.
type PriorFactor struct {
	Name   string  `json:"name"`
	Factor float64 `json:"factor"`
	Reason string  `json:"reason"`
}

// Explain is why a file scored what it did (lexical mode; in hybrid mode
// the chunk score is the fused one and coverage is not applied):
//
//	score = (best_chunk + support + file) x coverage_factor x name_factor x priors
type Explain struct {
	BestChunk         float64       `json:"best_chunk"`                // BM25F of the best chunk (fused score in hybrid)
	Support           float64       `json:"support"`                   // what the file's next best chunks add
	File              float64       `json:"file"`                      // the whole file's BM25F, weighted (whole-file evidence)
	Chunks            int           `json:"chunks_matched"`            // chunks of the file that matched
	Proximity         float64       `json:"proximity,omitempty"`       // what term proximity added to best_chunk + support (lever proximity)
	ProximityPairs    []string      `json:"proximity_pairs,omitempty"` // the question's words the best chunk holds close together, closest first
	Coverage          float64       `json:"coverage,omitempty"`        // IDF-weighted share of the query's terms in the file
	BestChunkCoverage float64       `json:"best_chunk_coverage,omitempty"`
	CoverageFactor    float64       `json:"coverage_factor,omitempty"`
	NameCoverage      float64       `json:"name_coverage,omitempty"` // share of the question the file's base name says
	NameFactor        float64       `json:"name_factor,omitempty"`
	Declares          string        `json:"declares,omitempty"` // the question's pkg.Name this file declares (qualified.go)
	DeclaresFactor    float64       `json:"declares_factor,omitempty"`
	Matched           []string      `json:"matched,omitempty"` // query terms found in the file
	Missing           []string      `json:"missing,omitempty"` // query terms found elsewhere, not here
	Summary           []string      `json:"summary,omitempty"` // query terms the page's front-matter summary says (FieldAbout)
	Priors            []PriorFactor `json:"priors,omitempty"`
	Score             float64       `json:"score"`
}

// DenseInfo describes the vector side of a response.
type DenseInfo struct {
	Model   string `json:"model"`
	Vectors int    `json:"vectors"` // live chunks with a vector
	Chunks  int    `json:"chunks"`  // live chunks
}

// Response is the answer to a Request.
type Response struct {
	Query  string `json:"query"`
	Commit string `json:"commit"`
	Mode   string `json:"mode"`
	// Degraded says what the response could not do as asked: its notes'
	// texts joined by "; " (Degrade keeps it so; see Notes).
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
	RelatedNote string   `json:"related_note,omitempty"`
	Terms       []string `json:"terms,omitempty"` // the analyzed query
	// Expansions are the words added to the query's that matched
	// something in the view (see expand.go).
	Expansions []expand.Expansion `json:"expansions,omitempty"`
	// Feedback are the words --prf added from the first ranking's best chunks.
	Feedback []string           `json:"feedback,omitempty"`
	Timings  map[string]float64 `json:"timings_ms,omitempty"`

	// notes are what Degraded says, one per reason (Degrade); unread
	// the files this search could not read; texts the text of the
	// results' blobs as read (hex SHA -> decoded, not redacted): see
	// Notes, Unread, UnredactedBlobText.
	notes  []Note
	unread []Unread
	texts  map[string]string
}

// A Note is one reason a response is less than asked for. Degraded is
// their texts joined, for people and the JSON contract; a caller that
// says some reason itself (a context pack names the files it left out)
// leaves that kind out of what it repeats (DegradedBesides), rather than
// cutting it out of the text.
type Note struct {
	Kind NoteKind
	Text string
}

// NoteKind is what a Note is about.
type NoteKind uint8

const (
	// NoteDense: the vector side is off, failed, or covers part of the
	// view, or some repositories' vectors cannot be compared (org).
	NoteDense NoteKind = iota + 1
	// NotePhrase: no file holds a quoted phrase as written, or declares
	// an @@Symbol; the query's words are ranked instead.
	NotePhrase
	// NoteUnread: files git could not read (UnreadNote; Unread lists them).
	NoteUnread
	// NoteRerank: the judge failed; results are in fusion order.
	NoteRerank
	// NoteRanking: a statistic or prior the ranking uses was unavailable
	// (an org collection's document frequencies, its links).
	NoteRanking
)

// Degrade adds a note (kind, text) and renders Degraded anew.
func (r *Response) Degrade(kind NoteKind, text string) {
	r.SetNotes(append(slices.Clip(r.notes), Note{kind, text}))
}

// Notes are the response's notes, in the order Degraded says them.
func (r *Response) Notes() []Note { return slices.Clone(r.notes) }

// SetNotes replaces the response's notes (an org search puts its own
// before those of the ranking it ran) and renders Degraded from them.
func (r *Response) SetNotes(notes []Note) {
	r.notes = slices.Clone(notes)
	r.Degraded = renderNotes(r.notes, 0)
}

// DegradedBesides is Degraded without the notes of kind: for a caller
// that says that much itself, so that it is said once.
func (r *Response) DegradedBesides(kind NoteKind) string {
	return renderNotes(r.notes, kind)
}

// renderNotes joins the texts of the notes not of kind skip.
func renderNotes(notes []Note, skip NoteKind) string {
	var texts []string
	for _, n := range notes {
		if n.Kind != skip && n.Text != "" {
			texts = append(texts, n.Text)
		}
	}
	return strings.Join(texts, "; ")
}

// Stale says which commit was asked for and why another one answered.
type Stale struct {
	Requested string `json:"requested"`
	Reason    string `json:"reason"`
}

// Searcher searches one database.
type Searcher struct {
	// DB is the index searched; nil searches Request.Overlay alone (org
	// search ranks the candidates its index returned this way).
	DB       *store.DB
	Pipeline byte
	// ReadBlob returns a blob's bytes, for snippets: bytes of the call's
	// own, as the Searcher keeps text sharing their memory.
	ReadBlob func(store.SHA) ([]byte, error)
	// Prefetch, if set, is told the blobs ReadBlob is about to be asked
	// for, in order, so that they can be read while the Searcher works.
	Prefetch func([]store.SHA)
	// Secrets redacts what ReadBlob returns (kb.secrets.allow); nil
	// redacts everything the rules find.
	Secrets *secrets.Policy
	// Dense, if set, enables dense and hybrid retrieval.
	Dense *Dense
	// Analyzer cuts queries (and the text feedback and filters read) as
	// the view's files were cut: with the repository's word list the view
	// records (store.View.Vocab). Nil: the built-in dictionary only.
	Analyzer *segment.Analyzer

	// metas caches decoded blob metadata across the searches one Searcher
	// runs (blame-context runs dozens on one view; decoding a large file's
	// metadata again for each was most of its time).
	metaMu sync.Mutex
	metas  map[store.SHA]*store.BlobMeta
	heads  map[store.SHA]*store.BlobMeta // metas without chunks (blobHead)
	lines  map[store.SHA][]string
	texts  map[store.SHA]string         // decoded, not redacted (snippetLines)
	unread []Unread                     // this search's blobs git could not read either
	chunks map[chunkKey]store.ChunkMeta // chunks blobChunks read (proximity), for blobChunk
}

// Unread is a file whose blob a search could not read (a damaged pack, a
// lost object), and why.
type Unread struct {
	Path, Blob string // Blob in hex, as Result.Blob
	Err        error
}

// chunkKey is chunk idx of a blob.
type chunkKey struct {
	blob store.SHA
	idx  int
}

// blobLines returns a blob's decoded lines, read once per Searcher, with
// secrets redacted as the indexer redacted them (path is where the blob
// is; it matters to kb.secrets.allow globs).
func (s *Searcher) blobLines(path string, blob store.SHA) ([]string, error) {
	s.metaMu.Lock()
	ls, ok := s.lines[blob]
	s.metaMu.Unlock()
	if ok {
		return ls, nil
	}
	data, err := s.ReadBlob(blob)
	if err != nil {
		// A blob git cannot read either (a damaged pack, a lost object)
		// has no text: a phrase filter leaves its file out, feedback and
		// related files skip it, and Degraded says so (NoteUnread).
		s.noteUnread(path, blob, err)
		return nil, nil
	}
	text, _, binary := chunk.Decode(data)
	ls = strings.Split(s.Secrets.RedactText(path, text), "\n")
	s.metaMu.Lock()
	if s.lines == nil {
		s.lines = map[store.SHA][]string{}
	}
	s.lines[blob] = ls
	if !binary {
		// Kept for Response.UnredactedBlobText; the lines share its memory when
		// nothing was redacted.
		if s.texts == nil {
			s.texts = map[store.SHA]string{}
		}
		s.texts[blob] = text
	}
	s.metaMu.Unlock()
	return ls, nil
}

// snippetLines returns a chunk's lines start..end (1-based, clamped to
// the blob's lines) redacted, for its snippet: from blobLines' if it has
// the blob's, else only those lines cut out of the text and redacted
// (secrets.RedactLineRange), as redacting whole files for ten snippets was
// a tenth of a cold search's CPU on the docs corpus, and splitting the
// rest of a large file into lines never shown was more of it (issue 16).
func (s *Searcher) snippetLines(path string, blob store.SHA, start, end int) ([]string, error) {
	if start < 1 || end < start {
		return nil, nil
	}
	s.metaMu.Lock()
	ls, ok := s.lines[blob]
	text, read := s.texts[blob]
	s.metaMu.Unlock()
	if ok {
		if start > len(ls) {
			return nil, nil
		}
		return ls[start-1 : min(end, len(ls))], nil
	}
	if !read {
		data, err := s.ReadBlob(blob)
		if err != nil {
			return nil, err
		}
		// data is this call's own: the text may share its memory.
		var binary bool
		if text, _, binary = chunk.DecodeOwned(data); !binary {
			s.metaMu.Lock()
			if s.texts == nil {
				s.texts = map[store.SHA]string{}
			}
			s.texts[blob] = text
			s.metaMu.Unlock()
		}
	}
	return s.Secrets.RedactLineRange(path, text, start-1, end), nil
}

// blobHead returns a blob's metadata without its chunks (store.BlobHead),
// or the whole of it if already decoded; overlay files have theirs.
func (s *Searcher) blobHead(blob store.SHA) (*store.BlobMeta, error) {
	s.metaMu.Lock()
	m, ok := s.metas[blob]
	if !ok {
		m, ok = s.heads[blob]
	}
	s.metaMu.Unlock()
	if ok {
		return m, nil
	}
	m, err := s.DB.BlobHead(s.Pipeline, blob)
	if err != nil {
		return nil, err
	}
	s.metaMu.Lock()
	if s.heads == nil {
		s.heads = map[store.SHA]*store.BlobMeta{}
	}
	s.heads[blob] = m
	s.metaMu.Unlock()
	return m, nil
}

// blobChunk returns a blob's head (blobHead, most often read already by
// priors) and its chunk idx, and whether it has that chunk: a result's
// chunk without decoding the whole chunk list (store.BlobChunk), unless
// the whole metadata is at hand.
func (s *Searcher) blobChunk(blob store.SHA, idx int) (*store.BlobMeta, store.ChunkMeta, bool, error) {
	s.metaMu.Lock()
	m, ok := s.metas[blob]
	s.metaMu.Unlock()
	if ok {
		if idx < 0 || idx >= len(m.Chunks) {
			return m, store.ChunkMeta{}, false, nil
		}
		return m, m.Chunks[idx], true, nil
	}
	head, err := s.blobHead(blob)
	if err != nil {
		return nil, store.ChunkMeta{}, false, err
	}
	s.metaMu.Lock()
	c, ok := s.chunks[chunkKey{blob, idx}]
	s.metaMu.Unlock()
	if ok {
		return head, c, true, nil
	}
	c, ok, err = s.DB.BlobChunk(s.Pipeline, blob, idx)
	return head, c, ok, err
}

// blobChunks is blobChunk for several chunks of one blob, its record
// decompressed once (store.BlobChunks).
func (s *Searcher) blobChunks(blob store.SHA, idxs []int) ([]store.ChunkMeta, []bool, error) {
	s.metaMu.Lock()
	m, ok := s.metas[blob]
	s.metaMu.Unlock()
	if !ok && s.DB == nil {
		return nil, nil, fmt.Errorf("no metadata of blob %x", blob)
	}
	if !ok {
		cs, oks, err := s.DB.BlobChunks(s.Pipeline, blob, idxs)
		if err == nil {
			// Kept for render, which shows some of them.
			s.metaMu.Lock()
			if s.chunks == nil {
				s.chunks = map[chunkKey]store.ChunkMeta{}
			}
			for i, idx := range idxs {
				if oks[i] {
					s.chunks[chunkKey{blob, idx}] = cs[i]
				}
			}
			s.metaMu.Unlock()
		}
		return cs, oks, err
	}
	cs, oks := make([]store.ChunkMeta, len(idxs)), make([]bool, len(idxs))
	for i, idx := range idxs {
		if oks[i] = idx >= 0 && idx < len(m.Chunks); oks[i] {
			cs[i] = m.Chunks[idx]
		}
	}
	return cs, oks, nil
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

// addDense runs the vector side and fuses it with the lexical hits. When
// vectors are missing or the embedder fails, the answer stays lexical and
// resp.Degraded says why.
func (s *Searcher) addDense(ctx context.Context, req Request, resp *Response, lex []hit, timings map[string]float64) ([]hit, error) {
	var dr *denseResult
	if req.ov != nil && req.Overlay.Dense != nil {
		// Another engine's list (an org search): scored there, fused
		// here, and whoever made it said what it covers (resp.Degraded).
		od := req.Overlay.Dense
		dr = &denseResult{hits: req.ov.externalDense(od), live: od.Chunks, covered: od.Vectors}
		resp.Dense = &DenseInfo{Model: od.Model, Vectors: dr.covered, Chunks: dr.live}
		if od.Fused != "" && req.Mode == ModeHybrid {
			resp.Fusion = od.Fused
			for i := range dr.hits {
				dr.hits[i].dense, dr.hits[i].denseRank = 0, 0
			}
			return dr.hits, nil
		}
	} else {
		lexical := func(why string) ([]hit, error) {
			resp.Mode = ModeLexical
			resp.Degrade(NoteDense, why)
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
		var err error
		if dr, err = s.dense(ctx, req, lapFn); err != nil {
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
			resp.Degrade(NoteDense, fmt.Sprintf("vectors cover %d of %d chunks: embedding is incomplete or still running", dr.covered, dr.live))
		}
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

// result describes chunk idx of a file: where it is, its snippet and its
// citation.
func (s *Searcher) result(req Request, e *store.ViewEntry, idx int, terms []string) (Result, error) {
	m, cm, ok, err := s.blobChunk(e.Blob, idx)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return Result{}, fmt.Errorf("chunk %d of %s missing from its metadata", idx, e.Path)
	}
	var lines []string
	if s.ReadBlob != nil {
		if lines, err = s.snippetLines(e.Path, e.Blob, cm.Start, cm.End); err != nil {
			// A blob git cannot read either (a damaged pack, a lost
			// object) costs its snippet, not the search: the result
			// stands, cited, and Degraded says why.
			lines = nil
			s.noteUnread(e.Path, e.Blob, err)
		}
	}
	snip := snippet(lines, 1, len(lines), terms) // lines are the chunk's; highlight marks it
	blob := hex.EncodeToString(e.Blob[:])
	return Result{
		Path: e.Path, StartLine: cm.Start, EndLine: cm.End, Blob: blob,
		ChunkID: fmt.Sprintf("%s:%d", blob[:12], idx),
		Title:   m.Title, Heading: cm.Heading, Snippet: snip,
		Citation: fmt.Sprintf("%s:%s#L%d-L%d", citeRev(req, e), e.Path, cm.Start, cm.End),
		Lang:     m.Lang, Symbols: cm.Symbols,
	}, nil
}

// noteUnread records that path's blob could not be read.
func (s *Searcher) noteUnread(path string, blob store.SHA, err error) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if !slices.ContainsFunc(s.unread, func(u Unread) bool { return u.Path == path }) {
		s.unread = append(s.unread, Unread{path, hex.EncodeToString(blob[:]), err})
	}
}

// unreadable says whether this search could not read path's blob.
func (s *Searcher) unreadable(path string) bool {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	return slices.ContainsFunc(s.unread, func(u Unread) bool { return u.Path == path })
}

// takeUnread returns the files this search could not read, and forgets
// them.
func (s *Searcher) takeUnread() []Unread {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	u := s.unread
	s.unread = nil
	return u
}

// UnreadNote says which files could not be read, and the first error
// ("" for none): what Degraded says of them.
func UnreadNote(unread []Unread) string {
	if len(unread) == 0 {
		return ""
	}
	var paths []string
	for _, u := range unread {
		paths = append(paths, u.Path)
	}
	why := strings.Join(strings.Fields(strings.ReplaceAll(unread[0].Err.Error(), "\n", "; ")), " ") // git's stderr may be lines
	return fmt.Sprintf("cannot read %s: %s (no snippet; phrase filters leave such a file out; git fsck checks the repository's objects)", strings.Join(paths, ", "), why)
}

// Unread lists the files this search could not read (Degraded names
// them), in the order met.
func (r *Response) Unread() []Unread { return r.unread }

// keepTexts hands the response the text of its results' blobs the
// search read: the map is the response's own, as the Searcher's grows with
// the searches it runs.
func (s *Searcher) keepTexts(resp *Response) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	for _, r := range resp.Results {
		var b store.SHA
		if _, ok := resp.texts[r.Blob]; ok {
			continue
		}
		if n, err := hex.Decode(b[:], []byte(r.Blob)); err != nil || n != len(b) {
			continue
		}
		if text, ok := s.texts[b]; ok {
			if resp.texts == nil {
				resp.texts = map[string]string{}
			}
			resp.texts[r.Blob] = text
		}
	}
}

// UnredactedBlobText returns the text of a result's blob (hex,
// Result.Blob) as the search read it for the snippet: decoded, not
// redacted, so a caller redacts it (Policy.RedactLines) before it goes
// anywhere; the name says so at every call. ok is false when the search
// did not read it whole (an uncommitted file, a binary). A context pack
// and the rerank judge's view cut from this rather than read the blob
// again.
func (r *Response) UnredactedBlobText(blob string) (text string, ok bool) {
	text, ok = r.texts[blob]
	return text, ok
}

// citeRev is what a citation of e is pinned to: the commit searched, or
// "worktree" for an uncommitted file.
func citeRev(req Request, e *store.ViewEntry) string {
	if e.Seg == overlaySeg {
		return "worktree"
	}
	return hex.EncodeToString(req.Commit[:])
}

// analyzer is the analyzer queries are cut with (see Analyzer).
func (s *Searcher) analyzer() *segment.Analyzer {
	if s.Analyzer != nil {
		return s.Analyzer
	}
	return segment.Tiny()
}
