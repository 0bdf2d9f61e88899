package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-kb/git-kb/ann"
	"github.com/git-kb/git-kb/expand"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/org"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// OrgClient connects to the organisation's collection (kb.org.*).
func (k *Engine) OrgClient() (*org.Client, error) {
	o := k.Settings.Org
	return org.Dial(org.Config{URL: o.URL, APIKey: o.APIKey, Collection: o.Collection, Pipeline: index.PipelineVersion, Timeout: o.Timeout})
}

// OrgRepoName is this repository's name in the org index: kb.org.repo,
// else the origin remote's path (github.com/team/svc.git -> team/svc),
// else the work tree's directory name. remote is origin's URL without
// credentials.
func (k *Engine) OrgRepoName(ctx context.Context) (name, remote string) {
	raw, _ := k.Repo.Config(ctx, "remote.origin.url")
	remote = cleanRemote(strings.TrimSpace(raw))
	if name = k.Settings.Org.Repo; name != "" {
		return name, remote
	}
	if name = repoFromRemote(remote); name != "" {
		return name, remote
	}
	dir := k.Repo.WorkTree
	if dir == "" {
		dir = strings.TrimSuffix(k.Repo.GitDir, string(filepath.Separator)+".git")
	}
	return strings.TrimSuffix(filepath.Base(dir), ".git"), remote
}

var scpLike = regexp.MustCompile(`^(?:[^@/]+@)?([^:/]+):(.+)$`)

// cleanRemote drops credentials from a remote URL: nothing derived from
// a secret is published.
func cleanRemote(s string) string {
	s = secrets.RedactURL(s) // also where Go's parser refuses the password (a bare %, a space, a #)
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		u.User = nil
		return u.String()
	}
	if m := scpLike.FindStringSubmatch(s); m != nil && !strings.Contains(s, "://") && len(m[1]) > 1 {
		return m[1] + ":" + m[2] // user@host:path -> host:path
	}
	return s
}

// repoFromRemote is a remote's path as a repository name: team/svc.
func repoFromRemote(remote string) string {
	var p string
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" && u.Scheme != "file" {
		p = u.Path
	} else if m := scpLike.FindStringSubmatch(remote); m != nil && !strings.Contains(remote, "://") && len(m[1]) > 1 {
		p = m[2]
	} else if remote != "" {
		// A local path: its last element.
		p = path.Base(filepath.ToSlash(strings.TrimPrefix(remote, "file://")))
	}
	p = strings.Trim(strings.TrimSuffix(strings.Trim(p, "/"), ".git"), "/")
	return p
}

// PublishRequest is a publish of one commit's view.
type PublishRequest struct {
	// Rev is the commit to publish ("" = HEAD).
	Rev string
	// Replicas and Shards apply when the collection is created.
	Replicas, Shards int
	// DryRun counts what would be written and deleted, and writes nothing.
	DryRun bool
}

// PublishStats says what a publish did.
type PublishStats struct {
	Repo       string `json:"repo"`
	Collection string `json:"collection"`
	URL        string `json:"url"`
	Commit     string `json:"commit"`
	// Files and Chunks are the view's.
	Files  int `json:"files"`
	Chunks int `json:"chunks"`
	// Written and Deleted count chunks (objects), WrittenFiles and
	// DeletedFiles the files they belong to.
	Written      int  `json:"written"`
	WrittenFiles int  `json:"written_files"`
	Deleted      int  `json:"deleted"`
	DeletedFiles int  `json:"deleted_files"`
	Objects      int  `json:"objects"` // the repository's objects after the publish (a dry run: before it)
	DryRun       bool `json:"dry_run,omitempty"`
	// CreatesCollection: the endpoint has no collection yet, and this
	// (dry-run) publish would create it.
	CreatesCollection bool  `json:"creates_collection,omitempty"`
	TookMs            int64 `json:"took_ms"`
}

// Publish writes rev's view of this repository into the org collection:
// the chunks of files not published yet (or published under another
// path), and deletes the files no longer in the view. Publishing the same
// view again writes nothing. The text is redacted as for any output that
// leaves the machine (kb.secrets.allow).
func (k *Engine) Publish(ctx context.Context, r PublishRequest) (*PublishStats, error) {
	start := time.Now()
	c, err := k.OrgClient()
	if err != nil {
		return nil, err
	}
	rev := r.Rev
	if rev == "" {
		rev = "HEAD"
	}
	// The view's files (indexing rev first if needed). The index is
	// closed again before the network is touched.
	v, err := k.OpenView(ctx, rev, false)
	if err != nil {
		return nil, err
	}
	if v.Stale != nil {
		v.Close()
		return nil, fmt.Errorf("%s cannot be published now: %s", rev, v.Stale.Reason)
	}
	commit := hex.EncodeToString(v.Commit[:])
	entries := v.View.ChunkEntries(nil)
	// The view's BM25 statistics, as local search counts them.
	stats := org.RepoStats{Commit: commit, Chunks: int(v.View.Chunks), BodyLen: v.View.FieldLen[store.FieldBody]}
	blobs := map[store.SHA]bool{}
	for _, e := range v.View.Entries {
		if e.N > 0 {
			blobs[e.Blob] = true
		}
	}
	stats.Files = len(blobs)
	// The chunks' vectors, when this repository is embedded: published
	// with their objects so that an org search can be hybrid.
	vecs, err := k.chunkVectors(v, entries, &stats)
	v.Close()
	if err != nil {
		return nil, err
	}

	repo, remote := k.OrgRepoName(ctx)
	st := &PublishStats{Repo: repo, Collection: c.Collection(), URL: secrets.RedactURL(k.Settings.Org.URL), Commit: commit, Files: len(entries), DryRun: r.DryRun}
	// A dry run against an endpoint without the collection yet counts
	// what the first publish would write: all of it (and the collection).
	missing := false
	if err := c.Ensure(ctx, !r.DryRun, org.Options{Replicas: r.Replicas, Shards: r.Shards}, k.opt.Note); err != nil {
		if !r.DryRun || !errors.Is(err, org.ErrNoCollection) {
			return nil, err
		}
		missing, st.CreatesCollection = true, true
	}
	have := map[string]int{}
	// What this repository published last (its vectors' model, dimension
	// and count).
	var old org.RepoStats
	if !missing {
		if have, err = c.Existing(ctx, repo); err != nil {
			return nil, err
		}
		if old, _, err = c.Stats(ctx, repo); err != nil {
			return nil, err
		}
	}
	want := map[string]bool{}
	var todo []store.ViewEntry
	for _, e := range entries {
		st.Chunks += int(e.N)
		key := org.Entry(hex.EncodeToString(e.Blob[:]), e.Path)
		want[key] = true
		if have[key] != int(e.N) {
			todo = append(todo, e)
		}
	}
	if stats.Vectors > 0 && !missing {
		// A collection holds vectors of one dimension (Weaviate refuses
		// others): those of another are left out, the chunks published
		// for lexical search.
		all, err := c.Corpus(ctx, org.Filter{}, nil)
		if err != nil {
			return nil, err
		}
		for name, o := range all.Repos {
			if name != repo && o.Vectors > 0 && o.Dim != stats.Dim {
				k.opt.note("%s holds vectors of %d dimensions (%s, from %s), this repository's are of %d (%s): publishing without vectors; git kb search --org finds it lexically", c.Collection(), o.Dim, o.Model, name, stats.Dim, stats.Model)
				vecs, stats.Model, stats.Dim, stats.Vectors = nil, "", 0, 0
				break
			}
		}
	}
	switch {
	case old.Vectors > 0 && (old.Model != stats.Model || old.Dim != stats.Dim):
		// Vectors of another space than this publish's (another model
		// or dimension, or none now) would stay on every file not
		// written again, and Weaviate's hybrid and nearVector queries
		// would score them though the statistics no longer count them:
		// every file is written again, with this publish's vectors or
		// none (an object written without a vector loses its old one).
		todo = append(todo[:0], entries...)
	case stats.Vectors > 0 && old.Vectors != stats.Vectors:
		// Vectors that appeared after the last publish (embedding
		// finished later): the files with vectors are written again,
		// with them. Counts alone say so: a publish whose vectors are
		// all there writes nothing.
		queued := map[store.SHA]bool{}
		for _, e := range todo {
			queued[e.Blob] = true
		}
		for _, e := range entries {
			if !queued[e.Blob] && vecs[e.Blob] != nil {
				todo = append(todo, e)
			}
		}
	}
	var gone []string
	for key, n := range have {
		if !want[key] {
			gone = append(gone, key)
			st.DeletedFiles++
			st.Deleted += n
		}
	}
	sort.Strings(gone)
	st.WrittenFiles = len(todo)
	if r.DryRun {
		for _, e := range todo {
			st.Written += int(e.N)
		}
		for _, n := range have {
			st.Objects += n
		}
		st.TookMs = time.Since(start).Milliseconds()
		return st, nil
	}
	if len(todo) > 0 {
		k.opt.note("publishing %d files (%s) of %s to %s at %s...", len(todo), repo, commit[:12], c.Collection(), secrets.RedactURL(k.Settings.Org.URL))
		n, err := k.publishFiles(ctx, c, repo, remote, commit, todo, vecs)
		if err != nil && vecs != nil && org.WrongDimensions(err) {
			// The statistics above do not tell every dimension the
			// collection's vector index holds: this repository's own
			// vectors of an earlier model, or those of a repository
			// since deleted (Weaviate keeps an index's dimension when
			// its vectors are gone). Publishing again would fail the
			// same way: the chunks are published without vectors, all
			// of them, so that none keeps a vector of before.
			k.opt.note("%s refuses vectors of %d dimensions (%s): its vector index holds another dimension (%v); publishing without vectors; git kb search --org finds it lexically", c.Collection(), stats.Dim, stats.Model, err)
			vecs, stats.Model, stats.Dim, stats.Vectors = nil, "", 0, 0
			todo = append(todo[:0], entries...)
			st.WrittenFiles = len(todo)
			n, err = k.publishFiles(ctx, c, repo, remote, commit, todo, nil)
		}
		st.Written = n
		if err != nil {
			return nil, fmt.Errorf("%w (%d chunks written; publish again to go on)", err, n)
		}
	}
	if len(gone) > 0 {
		n, err := c.DeleteEntries(ctx, repo, gone)
		st.Deleted = n
		if err != nil {
			return nil, err
		}
	}
	if err := c.WriteStats(ctx, repo, stats); err != nil {
		return nil, err
	}
	if st.Objects, err = c.Count(ctx, repo); err != nil {
		return nil, err
	}
	st.TookMs = time.Since(start).Milliseconds()
	return st, nil
}

// publishFiles analyzes the files' blobs as the indexer does and writes
// their chunks, a batch at a time.
func (k *Engine) publishFiles(ctx context.Context, c *org.Client, repo, remote, commit string, files []store.ViewEntry, vecs map[store.SHA][][]float32) (int, error) {
	byBlob := map[gitx.Hash][]store.ViewEntry{}
	var blobs []gitx.Hash
	for _, e := range files {
		h := gitx.Hash(e.Blob)
		if _, ok := byBlob[h]; !ok {
			blobs = append(blobs, h)
		}
		byBlob[h] = append(byBlob[h], e)
	}
	var batch []org.Chunk
	written := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := c.Write(ctx, batch); err != nil {
			return err
		}
		written += len(batch)
		batch = batch[:0]
		return nil
	}
	err := k.Repo.ReadBlobs(ctx, blobs, func(h gitx.Hash, data []byte) error {
		for _, e := range byBlob[h] {
			af, _ := index.AnalyzeBlob(k.Secrets, e.Path, e.Blob, data)
			if af == nil {
				continue
			}
			chunks := OrgChunks(af, e.Vocab, repo, remote, commit)
			if vs := vecs[e.Blob]; len(vs) == len(chunks) {
				for i := range chunks {
					chunks[i].Vector = vs[i]
				}
			}
			batch = append(batch, chunks...)
			if len(batch) >= 4*org.MaxBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return written, err
	}
	return written, flush()
}

// orgPublished says whether a chunk's term counts are published: the org
// schema has the four fields it was made with, and a page's front-matter
// summary (store.FieldAbout) is not among them. Counted as a heading,
// unnormalised, it cost the docs (see search.aboutNorms), so a term only
// the summary says is left out and org search ranks as local search does
// with --ranking -summary.
func orgPublished(tf [store.NumFields]uint16) bool {
	tf[store.FieldAbout] = 0
	return tf != [store.NumFields]uint16{}
}

// OrgChunks are an analyzed file's chunks as the org index holds them;
// vocab is the file's ViewEntry.Vocab.
func OrgChunks(af *store.AnalyzedFile, vocab uint8, repo, remote, commit string) []org.Chunk {
	m := af.Meta
	var tags []string
	for _, t := range strings.FieldsFunc(m.Meta["tags"], func(r rune) bool { return r == ',' || r == '[' || r == ']' || r == ' ' || r == '"' || r == '\'' }) {
		tags = append(tags, strings.ToLower(t))
	}
	owner := strings.ToLower(strings.TrimSpace(m.Meta["owner"]))
	out := make([]org.Chunk, 0, len(m.Chunks))
	file := org.FileMeta{Kind: m.Kind, MinHash: m.MinHash, Meta: m.Meta, Vocab: vocab, Links: m.Links}
	fileTerms := map[string]bool{}
	for _, tf := range af.Chunks {
		for t, x := range tf {
			if orgPublished(x) {
				fileTerms[t] = true
			}
		}
	}
	for i, cm := range m.Chunks {
		lo, hi := max(1, cm.Start), min(len(af.Lines), cm.End)
		text := ""
		if lo <= hi {
			text = strings.Join(af.Lines[lo-1:hi], "\n")
		}
		if len(text) > maxOrgText {
			text = orgChunkText(af, m, i, text)
		}
		ch := org.Chunk{Repo: repo, Remote: remote, Commit: commit, Blob: hex.EncodeToString(af.Blob[:]), Path: af.Path,
			Ordinal: i, Start: cm.Start, End: cm.End, Title: m.Title, Heading: cm.Heading, Lang: m.Lang,
			Owner: owner, Tags: tags, Symbols: cm.Symbols, Text: text, File: file, FileLen: int(af.FieldLen[store.FieldBody])}
		if i < len(af.BodyLen) {
			ch.BodyLen = int(af.BodyLen[i])
		}
		if i == 0 {
			ch.FileTerms = joinSorted(fileTerms)
		}
		if i < len(af.Chunks) {
			// Terms in a fixed order: the same chunk publishes the same
			// bytes.
			terms := make([]string, 0, len(af.Chunks[i]))
			for t, x := range af.Chunks[i] {
				if !orgPublished(x) {
					continue
				}
				terms = append(terms, t)
			}
			sort.Strings(terms)
			var b [len(ch.Terms)]strings.Builder
			for _, t := range terms {
				tf := af.Chunks[i][t]
				for f := range len(ch.Terms) {
					org.Terms(&b[f], t, int(tf[f]))
				}
			}
			for f := range len(ch.Terms) {
				ch.Terms[f] = b[f].String()
			}
			ch.ChunkTerms = strings.Join(terms, " ")
		}
		out = append(out, ch)
	}
	return out
}

// maxOrgText bounds a chunk's published text. The chunker cuts a file of
// a few huge lines (a generated table: Go's p256_table.go is one line of
// 523 KB in 267 chunks) inside those lines, and their lines are then far
// more than the chunk: each of the 267 objects carried the whole line,
// and Weaviate's gse tokenizer took 58 s for one of them (6.5 s for
// 130 KB), which stalled publishing Go's source after 35,368 chunks.
const maxOrgText = 32 << 10

// orgChunkText is the text of chunk i when its lines are far more than
// it: the chunk's own text as the embedder sees it (its title and heading
// prefix taken off), else the lines cut to maxOrgText.
func orgChunkText(af *store.AnalyzedFile, m *store.BlobMeta, i int, lines string) string {
	if i < len(af.EmbedInputs) {
		t := af.EmbedInputs[i]
		if m.Title != "" {
			t = strings.TrimPrefix(t, m.Title+"\n")
		}
		if h := m.Chunks[i].Heading; h != "" && h != m.Title {
			t = strings.TrimPrefix(t, h+"\n")
		}
		if len(t) <= maxOrgText {
			return t
		}
	}
	return strings.ToValidUTF8(lines[:maxOrgText], "")
}

func joinSorted(set map[string]bool) string {
	ts := make([]string, 0, len(set))
	for t := range set {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return strings.Join(ts, " ")
}

// OrgSearchRequest is a search of every repository published.
type OrgSearchRequest struct {
	Query   string
	K       int
	PerFile int
	// Path, if set, keeps files matching these comma-separated patterns
	// (search.PathScope), as a path: operator would.
	Path string
	// Mode is search.ModeLexical, ModeDense or ModeHybrid; "" is hybrid
	// when this repository has an embedder, else lexical.
	Mode string
	// Fusion merges the two lists of a hybrid search: OrgFusionWeaviate
	// (default) takes Weaviate's own hybrid ranking, search.FusionRRF or
	// FusionDBSF fuse here as local search does (OrgDefaultFusion).
	Fusion string
	// Alpha, if set, weighs the vector side of Weaviate's fusion (0..1)
	// instead of kb.org.alpha.
	Alpha *float64
	// Explain fills in each result's Explain (the parts of its score).
	Explain bool
	// NoExpand turns expansion off (as kb.expand false); Synonyms, if
	// set, stand in for kb.synonyms', NoSynonyms leaves those out.
	NoExpand, NoSynonyms bool
	Synonyms             *expand.Synonyms
}

// OrgFusionWeaviate is OrgSearchRequest.Fusion for Weaviate's hybrid
// fusion (relative scores, weighted by kb.org.alpha).
const OrgFusionWeaviate = "weaviate"

// OrgDefaultFusion is how a hybrid org search fuses unless told: measured
// on docs-dev and polaris-dev with the hash embedder (bench/org.py
// --hybrid), Recall@10/MRR@10 were .850/.689 and .825/.654 with
// Weaviate's fusion at alpha 0.25, against .817/.714 and .675/.494 with
// ours (RRF over local search's lexical ranking and Weaviate's nearest
// chunks, which reproduces local hybrid search: top-10 overlap .987 and
// .960) and .833/.696 and .725/.515 with ours by DBSF. It is also the
// faster: one Weaviate query for both sides, no candidates' chunks.
const OrgDefaultFusion = OrgFusionWeaviate

// The vector side's weight in Weaviate's hybrid fusion
// (OrgFusionWeaviate) is kb.org.alpha (OrgSearchRequest.Alpha for one
// search): 0 BM25 only, 1 vectors only. Its default, 0.25, measured as
// above: 0.25 .850/.689 and .825/.654, 0.5 .850/.657 and .800/.615, 0.75
// (Weaviate's default) .717/.583 and .675/.463. The hash embedder is
// lexical itself; a semantic model may deserve more.

// repoOp matches repo:NAME and -repo:NAME in a query.
var repoOp = regexp.MustCompile(`(?i)(^|\s)(-?)repo:("[^"]*"|\S+)`)

// OrgSearch searches the org collection and answers in the local
// contract, each result naming its repository and commit (Response.Commit
// is empty). Weaviate's BM25F over the terms our analyzer published, with
// the query cut and expanded by the same analyzer, names candidate files;
// local search's stages rank them (orgRank) with the statistics of the
// repositories searched. The query language's filters (path:, lang:,
// tag:, owner:, and repo: here) run in Weaviate, phrases and exclusions on
// the chunks it returns.
//
// Hybrid (an embedder here, vectors of its model published, as the
// repositories' statistics objects say): the query is embedded here, and
// by default Weaviate's hybrid query ranks the chunks (its fusion of
// BM25F over our terms and the vector, kb.org.alpha), local search's stages
// then grouping them by file, applying priors and filters. With
// Fusion rrf or dbsf, Weaviate's nearVector finds the nearest chunks of
// the repositories whose vectors are comparable and local search's
// fusion merges them with the lexical ranking above, as it merges its own
// vector hits. Vectors of another model are never compared with the
// query: the response says so (Degraded), and those repositories are
// searched lexically.
func (k *Engine) OrgSearch(ctx context.Context, r OrgSearchRequest) (*search.Response, error) {
	start := time.Now()
	s, err := k.newOrgSearch(r)
	if err != nil {
		return nil, err
	}
	resp := &search.Response{Query: r.Query, Mode: search.ModeLexical, Results: []search.Result{}, Terms: s.own}
	if s.c, err = k.OrgClient(); err != nil {
		return nil, err
	}
	if len(resp.Terms) == 0 {
		resp.TookMs = time.Since(start).Milliseconds()
		return resp, nil
	}
	if s.r.Mode != search.ModeLexical && k.Dense == nil {
		s.degrade(search.NoteDense, "dense retrieval is off: no embedder configured here (see git kb search --help), so the org index is searched lexically")
		s.r.Mode = search.ModeLexical
	}
	s.wfused = s.r.Mode == search.ModeHybrid && s.r.Fusion == OrgFusionWeaviate
	corpus, dense, chunks, err := s.gather(ctx, k)
	if err != nil {
		return nil, err
	}
	var texts func([]org.ChunkRef) (map[org.ChunkRef]string, error)
	if !s.needText {
		texts = func(refs []org.ChunkRef) (map[org.ChunkRef]string, error) {
			t0 := time.Now()
			defer s.lap("org: text", t0)
			return s.c.Texts(ctx, refs)
		}
	}
	inLinks, err := s.inLinks(ctx, chunks, dense)
	if err != nil {
		return nil, err
	}
	if corpus != nil && corpus.Unavailable != "" {
		// The searcher counts each term's document frequency among the
		// chunks it was given instead: the collection's are unknown.
		s.degrade(search.NoteRanking, "the org collection's document frequencies could not be counted, so results are ranked by the candidates' own ("+corpus.Unavailable+"): a replicated collection with a node down")
	}
	t0 := time.Now()
	resp, err = orgRank(ctx, s.req, resp, corpus, chunks, dense, inLinks, texts, start)
	if resp != nil {
		s.lap("org: rank", t0)
		resp.Timings = s.timings
		if len(s.degraded) > 0 {
			// The org search's own notes, then the ranking's.
			resp.SetNotes(append(s.degraded, resp.Notes()...))
		}
	}
	return resp, err
}

// orgSearch is one org search on its way: the request read, what is
// asked of Weaviate, and what the steps report (timings, degradations).
type orgSearch struct {
	r     OrgSearchRequest
	raw   string     // the query less its repo: operators, secrets redacted
	f     org.Filter // what runs in Weaviate
	scope func(string) bool
	req   search.Request // for local search's stages (orgRank)
	alpha float64        // Weaviate's fusion's vector weight
	// terms are the query's analyzed terms, expansions included; own the
	// user's words; qterms what Weaviate's BM25 is asked (see gather).
	terms, own, qterms []string
	// needText: the chunks' text is two fifths of what they weigh, and
	// only the results shown need it (their snippets), unless phrases or
	// exclusions are checked against it.
	needText bool
	// wfused: Weaviate's hybrid query ranks the chunks (OrgFusionWeaviate).
	wfused bool
	c      *org.Client

	mu       sync.Mutex // timings and degraded: steps run concurrently
	timings  map[string]float64
	degraded []search.Note
}

// newOrgSearch checks r and reads its query: the repo: operators become
// Weaviate filters with the query language's others, and a secret pasted
// into the query is redacted before any of it goes out.
func (k *Engine) newOrgSearch(r OrgSearchRequest) (*orgSearch, error) {
	if r.K <= 0 {
		r.K = 10
	}
	if r.PerFile <= 0 {
		r.PerFile = 1
	}
	switch r.Mode {
	case "":
		r.Mode = search.ModeLexical
		if k.Dense != nil {
			r.Mode = search.ModeHybrid
		}
	case search.ModeLexical, search.ModeDense, search.ModeHybrid:
	default:
		return nil, Usagef("mode %s: want lexical, dense or hybrid", r.Mode)
	}
	switch r.Fusion {
	case "":
		r.Fusion = OrgDefaultFusion
	case search.FusionRRF, search.FusionDBSF, OrgFusionWeaviate:
	default:
		return nil, Usagef("fusion %s: want rrf, dbsf or %s", r.Fusion, OrgFusionWeaviate)
	}
	s := &orgSearch{r: r, alpha: k.Settings.Org.Alpha, timings: map[string]float64{}}
	if r.Alpha != nil {
		if s.alpha = *r.Alpha; !(s.alpha >= 0 && s.alpha <= 1) {
			return nil, Usagef("alpha %g: want a number from 0 (BM25 only) to 1 (vectors only)", s.alpha)
		}
	}
	raw := repoOp.ReplaceAllStringFunc(r.Query, func(m string) string {
		sm := repoOp.FindStringSubmatch(m)
		name := strings.Trim(sm[3], `"`)
		if sm[2] == "-" {
			s.f.NotRepos = append(s.f.NotRepos, name)
		} else {
			s.f.Repos = append(s.f.Repos, name)
		}
		return sm[1]
	})
	// The query's terms go to Weaviate: a secret pasted into the query
	// (a key from a log line) is redacted first, as the published text
	// was (and as the query is before it is embedded).
	s.raw = k.Secrets.RedactText("", raw)
	q, err := search.ParseQuery(s.raw)
	if err != nil {
		return nil, &UsageError{err.Error()}
	}
	if r.Path != "" {
		if _, err := search.PathScope(r.Path); err != nil {
			return nil, &UsageError{err.Error()}
		}
		q.Paths = append(q.Paths, r.Path)
	}
	if len(q.Files) > 0 {
		return nil, Usagef("@file names a file of one repository: use path:%s (and repo:NAME) with --org", q.Files[0])
	}
	if s.scope, err = orgScope(q); err != nil {
		return nil, &UsageError{err.Error()}
	}
	s.f.PathLike, s.f.NotPathLike = likePatterns(q.Paths), likePatterns(q.NotPaths)
	s.f.Langs, s.f.NotLangs, s.f.Tags, s.f.Owners = q.Langs, q.NotLangs, q.Tags, q.Owners
	s.req = search.Request{Query: s.raw, Parsed: q, K: r.K, PerFile: r.PerFile, Mode: search.ModeLexical, Fusion: r.Fusion, Explain: r.Explain,
		StaleAfter: k.Settings.StaleAfter, NoPriors: !k.Settings.Priors, NoExpand: r.NoExpand || !k.Settings.Expand,
		Synonyms: r.Synonyms, NoSynonyms: r.NoSynonyms}
	// This repository's team words count in what it asks of the org.
	if err := fillSynonyms(&s.req, k.Synonyms); err != nil {
		return nil, err
	}
	if s.req.Fusion == OrgFusionWeaviate {
		s.req.Fusion = search.FusionRRF
	}
	if s.terms, err = search.QueryTerms(s.req); err != nil {
		return nil, &UsageError{err.Error()}
	}
	s.own = segment.Tiny().Terms(q.Text)
	// The user's own words twice: Weaviate's BM25 counts a word repeated
	// in the query more, as local search weighs expansions below them.
	s.qterms = append(append([]string(nil), s.terms...), s.own...)
	s.needText = len(q.Phrases)+len(q.Excludes) > 0
	return s, nil
}

func (s *orgSearch) lap(stage string, t time.Time) {
	s.mu.Lock()
	s.timings[stage] = float64(time.Since(t).Microseconds()) / 1000
	s.mu.Unlock()
}

func (s *orgSearch) degrade(kind search.NoteKind, why string) {
	s.mu.Lock()
	s.degraded = append(s.degraded, search.Note{Kind: kind, Text: why})
	s.mu.Unlock()
}

// gather asks Weaviate for what ranking needs, at once where it can: the
// statistics of the repositories searched (statistics), and meanwhile
// the query's embedding and the vector side (vectors), then the lexical
// side's chunks (lexical). With no vector side where only one was asked
// for (Weaviate's fusion, or dense), it answers lexically.
func (s *orgSearch) gather(ctx context.Context, k *Engine) (*org.Corpus, *orgDense, []org.Chunk, error) {
	var corpus *org.Corpus
	var corpusErr error
	corpusDone := make(chan struct{})
	go func() {
		defer close(corpusDone)
		corpus, corpusErr = s.statistics(ctx)
	}()
	var dense *orgDense
	var denseErr error
	denseDone := make(chan struct{})
	go func() {
		defer close(denseDone)
		dense, denseErr = s.vectors(ctx, k, func() (*org.Corpus, error) {
			<-corpusDone
			return corpus, corpusErr
		})
	}()
	var chunks []org.Chunk
	var err error
	if !s.wfused && s.r.Mode != search.ModeDense {
		chunks, err = s.lexical(ctx)
	}
	<-corpusDone
	<-denseDone
	if err == nil {
		err = corpusErr
	}
	if err != nil {
		if strings.Contains(err.Error(), "could not find class") || strings.Contains(err.Error(), "Cannot query field") || strings.Contains(err.Error(), "no such prop") {
			return nil, nil, nil, fmt.Errorf("org endpoint %s has no collection %s (or not one of this git kb's): publish a repository first (git kb publish)", secrets.RedactURL(k.Settings.Org.URL), s.c.Collection())
		}
		return nil, nil, nil, err
	}
	if denseErr != nil {
		if ctx.Err() != nil {
			return nil, nil, nil, ctx.Err()
		}
		s.degrade(search.NoteDense, "dense retrieval failed: "+denseErr.Error())
		dense = nil
	}
	if dense != nil {
		s.req.Mode = s.r.Mode
		if s.wfused {
			dense.fused = OrgFusionWeaviate
		}
		if s.scope != nil {
			kept := dense.hits[:0]
			for _, h := range dense.hits {
				if s.scope(h.Path) {
					kept = append(kept, h)
				}
			}
			dense.hits = kept
		}
		return corpus, dense, chunks, nil
	}
	if s.wfused || s.r.Mode == search.ModeDense {
		// No vector side, and no lexical side asked for: the lexical
		// answer (Degraded says why), with the document frequencies
		// Weaviate's fusion did not need.
		if s.wfused {
			t0 := time.Now()
			if corpus, err = s.c.Corpus(ctx, s.f, s.terms); err != nil {
				return nil, nil, nil, err
			}
			if corpus.Unavailable == "" {
				if err = orgCommonFileDF(ctx, s.c, s.f, s.req, corpus); err != nil {
					return nil, nil, nil, err
				}
			}
			s.lap("org: statistics again", t0)
		}
		if chunks, err = s.lexical(ctx); err != nil {
			return nil, nil, nil, err
		}
	}
	return corpus, nil, chunks, nil
}

// statistics reads the repositories' statistics objects and the query
// terms' document frequencies. Weaviate's fusion ranks without our BM25:
// then the statistics objects only say which vectors compare, and no
// document frequencies are asked for (two counts per query term: most of
// the request).
func (s *orgSearch) statistics(ctx context.Context) (*org.Corpus, error) {
	t0 := time.Now()
	dfTerms := s.terms
	if s.wfused {
		dfTerms = nil
	}
	corpus, err := s.c.Corpus(ctx, s.f, dfTerms)
	s.lap("org: statistics", t0)
	if err == nil && dfTerms != nil && corpus.Unavailable == "" {
		t0 := time.Now()
		err = orgCommonFileDF(ctx, s.c, s.f, s.req, corpus)
		s.lap("org: statistics of common words", t0)
	}
	return corpus, err
}

// vectors is the vector side: the query embedded here, and Weaviate's
// nearest chunks (or its hybrid ranking, wfused) asked at once, beside
// the statistics; which repositories' vectors compare is known only from
// those (stats waits for them), and the answer is dropped (or, rarely,
// asked again of fewer repositories) when some do not. Meanwhile it was
// never shown to anyone. nil for a lexical search, or when no vectors
// compare (a degradation says why).
func (s *orgSearch) vectors(ctx context.Context, k *Engine, stats func() (*org.Corpus, error)) (*orgDense, error) {
	if s.r.Mode == search.ModeLexical {
		return nil, nil
	}
	t0 := time.Now()
	qvec, err := k.Dense.QueryVector(ctx, k.Secrets, s.raw)
	s.lap("org: embed query", t0)
	if err != nil {
		s.degrade(search.NoteDense, "dense retrieval failed: "+err.Error())
		return nil, nil
	}
	t0 = time.Now()
	nq := org.Query{Vector: qvec, Limit: orgDenseChunks, Filter: s.f, NoText: !s.needText}
	if s.wfused {
		nq.Terms, nq.Alpha = s.qterms, float32(s.alpha)
	}
	hits, err := s.c.Search(ctx, nq)
	s.lap("org: vectors", t0)
	corpus, cerr := stats()
	if cerr != nil {
		return nil, nil // gather reports the statistics' error
	}
	dense, why := k.orgDenseScope(corpus, s.f, qvec)
	if why != "" {
		s.degrade(search.NoteDense, why)
	}
	switch {
	case dense == nil:
		return nil, nil
	case len(dense.refused) > 0 && s.wfused:
		// Weaviate's fusion cannot leave those repositories' vectors
		// out of one query without leaving out their words.
		s.degrade(search.NoteDense, "Weaviate's fusion cannot leave those repositories' vectors out and keep their words: answered lexically (--fusion rrf keeps the vector side for the others)")
		return nil, nil
	case len(dense.refused) > 0:
		t0 := time.Now()
		nq.Filter = dense.filter
		dense.hits, err = s.c.Search(ctx, nq)
		s.lap("org: vectors again", t0)
	default:
		dense.hits = hits
	}
	return dense, err
}

// lexical is the lexical side: the files of the best chunks by
// Weaviate's BM25F over the query's terms, expansions included, then
// every chunk of them that holds a term, the evidence local search would
// have of those files.
func (s *orgSearch) lexical(ctx context.Context) ([]org.Chunk, error) {
	t0 := time.Now()
	cands, err := s.c.Files(ctx, org.Query{Terms: s.qterms, Limit: orgCandidateChunks, Filter: s.f}, orgCandidateFiles(s.r.K))
	s.lap("org: candidates", t0)
	if err != nil {
		return nil, err
	}
	if s.scope != nil {
		kept := cands[:0]
		for _, f := range cands {
			if s.scope(f.Path) {
				kept = append(kept, f)
			}
		}
		cands = kept
	}
	t0 = time.Now()
	chunks, err := s.c.FileChunks(ctx, cands, s.terms, s.needText)
	s.lap("org: chunks", t0)
	return chunks, err
}

// inLinks counts the links to the Markdown pages among the candidates,
// for the overview prior (local search counts them in its postings). A
// count Weaviate cannot give leaves every page unlinked, so no overview
// prior, and says so.
func (s *orgSearch) inLinks(ctx context.Context, chunks []org.Chunk, dense *orgDense) (map[org.LinkPage]int, error) {
	t0 := time.Now()
	defer s.lap("org: links", t0)
	var pages []org.LinkPage
	seen := map[org.LinkPage]bool{}
	add := func(ch *org.Chunk) {
		if ch.File.Links == 0 {
			return
		}
		if term, ok := search.LinkTerm(ch.Path); ok {
			if p := (org.LinkPage{Repo: ch.Repo, Path: ch.Path, Term: term}); !seen[p] {
				seen[p] = true
				pages = append(pages, p)
			}
		}
	}
	for i := range chunks {
		add(&chunks[i])
	}
	if dense != nil {
		for i := range dense.hits {
			add(&dense.hits[i].Chunk)
		}
	}
	in, err := s.c.InLinks(ctx, pages)
	if org.CountsUnavailable(err) {
		s.degrade(search.NoteRanking, "links between pages not counted, so no overview prior: "+err.Error())
		return nil, nil
	}
	return in, err
}

// orgCommonFileDF counts the file document frequencies of the query's
// common added words (read, file, get in Go's source) as local search
// does: local search adds such a word only to chunks its other terms
// found, and counts its files among theirs (search.CommonExpansions), a
// lower count than the collection's, so a larger weight on a file's own
// BM25F. Counted as the collection's, Go's source ranked otherwise at the
// tail of the top 10 (code-dev top-10 overlap with local search .845).
func orgCommonFileDF(ctx context.Context, c *org.Client, f org.Filter, req search.Request, corpus *org.Corpus) error {
	n := 0
	for _, st := range corpus.Repos {
		n += st.Chunks
	}
	common, others, err := search.CommonExpansions(req, corpus.DF, n)
	if err != nil || len(common) == 0 {
		return err
	}
	got, err := c.FilesWith(ctx, f, common, others, n)
	for t, v := range got {
		corpus.FileDF[t] = v
	}
	return err
}

// orgDense is the vector side of an org search: which repositories'
// vectors it compares with the query's, what Weaviate found there.
type orgDense struct {
	filter          org.Filter
	model           string
	vectors, chunks int      // chunks with a comparable vector, of all searched
	refused         []string // repositories whose vectors are of another model
	hits            []org.Hit
	fused           string
}

// orgDenseScope decides which repositories' vectors the query's vector
// qv may be compared with: those published by the same embedder (model
// and input version) with its dimension, as their statistics objects
// record. nil, with why, when none can be; why also names the
// repositories refused or without vectors.
func (k *Engine) orgDenseScope(corpus *org.Corpus, f org.Filter, qv []float32) (*orgDense, string) {
	d := &orgDense{model: OrgModel(k.Dense.Embedder.ID())}
	var ok, none []string
	for repo, st := range corpus.Repos {
		d.chunks += st.Chunks
		switch {
		case st.Vectors == 0:
			none = append(none, repo)
		case st.Model != d.model || st.Dim != len(qv):
			d.refused = append(d.refused, fmt.Sprintf("%s (%s, %d dims)", repo, st.Model, st.Dim))
		default:
			ok = append(ok, repo)
			d.vectors += st.Vectors
		}
	}
	sort.Strings(ok)
	sort.Strings(none)
	sort.Strings(d.refused)
	var why []string
	if len(d.refused) > 0 {
		why = append(why, fmt.Sprintf("vectors of %s are not comparable with this repository's embedder (%s, %d dims): those repositories are searched lexically only", strings.Join(d.refused, ", "), d.model, len(qv)))
	}
	if len(ok) == 0 {
		if len(none) > 0 && len(d.refused) == 0 {
			why = append(why, "no vectors published (git kb publish from an embedded repository writes them): the org index is searched lexically")
		}
		return nil, strings.Join(why, "; ")
	}
	if d.vectors < d.chunks {
		why = append(why, fmt.Sprintf("published vectors cover %d of %d chunks searched: the others are found lexically only", d.vectors, d.chunks))
	}
	d.filter = f
	if len(d.refused) > 0 {
		// Only the comparable repositories' chunks: within the user's
		// repo: choice, as the statistics were read.
		d.filter.Repos, d.filter.NotRepos = ok, nil
	}
	return d, strings.Join(why, "; ")
}

// Candidates of an org search: the files of the best orgCandidateChunks
// chunks by Weaviate's BM25F, at most orgCandidateFiles(K) of them.
// Measured on docs-dev and polaris-dev (bench/org.py), top-10 overlap
// with local search: 60 files .947/.900 (400 chunks), 100 files
// .990/.965; 40 files .840 on polaris. On Go's source 100 files fell
// short (code-dev .875): Weaviate's BM25F counts every added word in
// full where local search discounts them, and ranks chunks where local
// search also ranks each file as a whole, so files local search ranks in
// its top 10 lay beyond the 100th (median the 238th). The share of local search's top 10 among the candidates,
// per pool (chunks / files; code-dev, code-more, docs-dev, polaris-dev):
// 400/100 .875 .879 .997 .970, 1000/150 .915 .888 .993 .990, 600/150
// .945 .935 .997 .990, 1000/200 .950 .946 .997 1.0. Weighting Weaviate's
// query as local search weighs its terms (own words 5 times, glossary
// words 4, dictionary words 2) named fewer (400/100: .830 on code-dev),
// as did ranking files by the sum of their chunks' scores (2000 chunks,
// 100 files: .845). 600
// chunks and 150 files: top-10 overlap .94 on code-dev (.88 before, same
// run), docs .997 and polaris .99 (.997 and .97).
const orgCandidateChunks = 600

func orgCandidateFiles(k int) int { return 10*k + 50 }

// orgDenseChunks is how many chunks the vector side asks Weaviate for:
// as deep as local search's vector list goes into fusion.
const orgDenseChunks = 100

// orgRank ranks an org search's candidate chunks with local search's
// stages (search.Searcher over an overlay of them, no database): BM25F
// per chunk and per file with the collection's statistics, cross-lingual
// concepts, file names, priors, near-duplicate folding, snippets; in
// hybrid mode fused with the vector side's hits (dense). Each result then
// names its repository and commit.
//
// texts, if set, reads the text of the results' chunks, read without it
// (their snippets are made then).
func orgRank(ctx context.Context, req search.Request, resp *search.Response, corpus *org.Corpus, chunks []org.Chunk, dense *orgDense, inLinks map[org.LinkPage]int,
	texts func([]org.ChunkRef) (map[org.ChunkRef]string, error), start time.Time) (*search.Response, error) {
	if dense != nil {
		chunks = joinDenseChunks(chunks, dense.hits)
	}
	ov := newOrgOverlay(orgFiles(chunks), inLinks)
	if dense != nil {
		ov.Dense = ov.placeDense(dense)
	}
	req.View, req.Overlay, req.Corpus = &store.View{}, ov.Overlay, orgSearchCorpus(corpus)
	s := &search.Searcher{ReadBlob: func(store.SHA) ([]byte, error) {
		return nil, fmt.Errorf("an org search reads no blobs")
	}}
	ranked, err := s.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	refs := ov.place(ranked.Results, resp)
	if texts != nil && len(refs) > 0 {
		got, err := texts(refs)
		if err != nil {
			return nil, err
		}
		orgSnippets(resp.Results, refs, got, ranked.Terms)
	}
	resp.Mode, resp.Fusion, resp.Dense = ranked.Mode, ranked.Fusion, ranked.Dense
	resp.SetNotes(ranked.Notes())
	resp.Expansions = ranked.Expansions
	resp.StaleAfter = ranked.StaleAfter
	resp.TookMs = time.Since(start).Milliseconds()
	return resp, nil
}

// orgChunkKey names a chunk of an org search: a chunk of a blob, at a
// path of a repository.
type orgChunkKey struct {
	repo, blob, path string
	ordinal          int
}

// joinDenseChunks adds the vector side's chunks to the lexical side's
// candidates, those not among them already.
func joinDenseChunks(chunks []org.Chunk, hits []org.Hit) []org.Chunk {
	seen := map[orgChunkKey]bool{}
	for _, ch := range chunks {
		seen[orgChunkKey{ch.Repo, ch.Blob, ch.Path, ch.Ordinal}] = true
	}
	for _, h := range hits {
		if key := (orgChunkKey{h.Repo, h.Blob, h.Path, h.Ordinal}); !seen[key] {
			seen[key] = true
			chunks = append(chunks, h.Chunk)
		}
	}
	return chunks
}

// orgFile is one file (a path of a repository) among the candidates,
// with its candidate chunks.
type orgFile struct {
	repo, path, commit, blob string
	chunks                   []org.Chunk
}

// orgFiles groups the candidate chunks by file, in the order files are
// first met. The searcher keeps one chunk list per blob, and a blob two
// files share (the same file in two repositories) may have come back
// with other chunks for each: each of them gets all the blob's chunks
// that came back.
func orgFiles(chunks []org.Chunk) []*orgFile {
	type fileKey struct{ repo, path string }
	files := map[fileKey]*orgFile{}
	var order []*orgFile
	blobChunks := map[string]map[int]org.Chunk{}
	for _, ch := range chunks {
		key := fileKey{ch.Repo, ch.Path}
		if files[key] == nil {
			files[key] = &orgFile{repo: ch.Repo, path: ch.Path, commit: ch.Commit, blob: ch.Blob}
			order = append(order, files[key])
		}
		if blobChunks[ch.Blob] == nil {
			blobChunks[ch.Blob] = map[int]org.Chunk{}
		}
		if _, ok := blobChunks[ch.Blob][ch.Ordinal]; !ok {
			blobChunks[ch.Blob][ch.Ordinal] = ch
		}
	}
	for _, fl := range order {
		for _, ch := range blobChunks[fl.blob] {
			fl.chunks = append(fl.chunks, ch)
		}
	}
	return order
}

// orgOrigin is where an overlay file came from: its repository, path
// and commit, and the ordinal in its blob of each of its chunks.
type orgOrigin struct {
	repo, path, commit string
	ordinals           []int
}

// orgOverlay is the overlay an org search ranks: the candidate files as
// uncommitted files of an empty view, and the way back from each to its
// repository.
type orgOverlay struct {
	*search.Overlay
	// paths counts the files at each path: a path two repositories
	// share gets its repository as a prefix in the overlay (paths are a
	// view's keys).
	paths   map[string]int
	origins map[string]*orgOrigin  // by overlay path
	at      map[orgChunkKey][2]int // each chunk's file and chunk index in the overlay
}

func newOrgOverlay(files []*orgFile, inLinks map[org.LinkPage]int) *orgOverlay {
	ov := &orgOverlay{Overlay: &search.Overlay{Vocab: map[string]uint8{}, InLinks: map[string]int{}, Partial: true},
		paths: map[string]int{}, origins: map[string]*orgOrigin{}, at: map[orgChunkKey][2]int{}}
	for _, fl := range files {
		ov.paths[fl.path]++
	}
	for _, fl := range files {
		ov.add(fl, inLinks)
	}
	return ov
}

// add puts file fl in the overlay: its chunks in ordinal order, their
// terms, lengths and lines, and the links to its page (inLinks). A file
// whose blob is not a SHA is left out.
func (ov *orgOverlay) add(fl *orgFile, inLinks map[org.LinkPage]int) {
	sort.Slice(fl.chunks, func(i, j int) bool { return fl.chunks[i].Ordinal < fl.chunks[j].Ordinal })
	p := fl.path
	if ov.paths[p] > 1 {
		p = fl.repo + "/" + p
	}
	first := fl.chunks[0]
	blob, err := hex.DecodeString(first.Blob)
	if err != nil || len(blob) != len(store.SHA{}) {
		return
	}
	af := store.AnalyzedFile{Path: p, Meta: &store.BlobMeta{Lang: first.Lang, Title: first.Title, Meta: first.File.Meta, Kind: first.File.Kind, MinHash: first.File.MinHash, Links: first.File.Links}}
	// The same blob in two repositories has the same chunks: one
	// blob's metadata serves both files.
	copy(af.Blob[:], blob)
	o := &orgOrigin{repo: fl.repo, path: fl.path, commit: fl.commit}
	for _, ch := range fl.chunks {
		ov.at[orgChunkKey{fl.repo, ch.Blob, fl.path, ch.Ordinal}] = [2]int{len(ov.Files), len(af.Chunks)}
		af.Chunks = append(af.Chunks, chunkTermFreqs(ch))
		af.BodyLen = append(af.BodyLen, uint32(ch.BodyLen))
		af.Meta.Chunks = append(af.Meta.Chunks, store.ChunkMeta{Start: ch.Start, End: ch.End, Heading: ch.Heading, Symbols: ch.Symbols})
		// The chunk's text stands for its lines.
		for i, line := range strings.Split(ch.Text, "\n") {
			n := ch.Start + i
			for len(af.Lines) < n {
				af.Lines = append(af.Lines, "")
			}
			af.Lines[n-1] = line
		}
		o.ordinals = append(o.ordinals, ch.Ordinal)
	}
	af.FieldLen[store.FieldBody] = uint64(first.FileLen)
	ov.Files = append(ov.Files, af)
	ov.Vocab[p] = first.File.Vocab
	if term, ok := search.LinkTerm(fl.path); ok {
		if n, ok := inLinks[org.LinkPage{Repo: fl.repo, Path: fl.path, Term: term}]; ok {
			ov.InLinks[p] = n
		}
	}
	ov.origins[p] = o
}

// chunkTermFreqs counts each term of an org chunk, per field.
func chunkTermFreqs(ch org.Chunk) map[string][store.NumFields]uint16 {
	tf := map[string][store.NumFields]uint16{}
	for f, terms := range ch.Terms {
		for _, t := range strings.Fields(terms) {
			x := tf[t]
			x[f]++
			tf[t] = x
		}
	}
	return tf
}

// placeDense is the vector side's hits, placed at their chunks in the
// overlay (those it holds).
func (ov *orgOverlay) placeDense(dense *orgDense) *search.OverlayDense {
	od := &search.OverlayDense{Fused: dense.fused, Model: dense.model, Vectors: dense.vectors, Chunks: dense.chunks}
	for _, h := range dense.hits {
		if x, ok := ov.at[orgChunkKey{h.Repo, h.Blob, h.Path, h.Ordinal}]; ok {
			od.Hits = append(od.Hits, search.OverlayHit{File: x[0], Chunk: x[1], Score: h.Score})
		}
	}
	return od
}

// orgSearchCorpus is the search statistics of the repositories searched.
func orgSearchCorpus(corpus *org.Corpus) *search.Corpus {
	cp := &search.Corpus{DF: corpus.DF, FileDF: corpus.FileDF}
	for _, st := range corpus.Repos {
		cp.Chunks += st.Chunks
		cp.BodyLen += st.BodyLen
		cp.Files += st.Files
	}
	return cp
}

// place appends the ranked results to resp, each named by its
// repository, commit, path and chunk ordinal, and returns the chunk of
// each (for their texts).
func (ov *orgOverlay) place(ranked []search.Result, resp *search.Response) []org.ChunkRef {
	var refs []org.ChunkRef
	for _, x := range ranked {
		o := ov.origins[x.Path]
		if o == nil {
			continue
		}
		x.Repo, x.Commit, x.Path = o.repo, o.commit, o.path
		blob := strings.SplitN(x.ChunkID, ":", 2)[0]
		ordinal := -1
		if idx, err := strconv.Atoi(strings.TrimPrefix(x.ChunkID, blob+":")); err == nil && idx < len(o.ordinals) {
			ordinal = o.ordinals[idx]
			x.ChunkID = fmt.Sprintf("%s:%d", blob, ordinal)
		}
		x.Citation = OrgCitation(o.repo, o.commit, o.path, x.StartLine, x.EndLine)
		refs = append(refs, org.ChunkRef{Repo: o.repo, Blob: x.Blob, Ordinal: ordinal})
		for i, p := range x.AlsoAt {
			if ao := ov.origins[p]; ao != nil {
				x.AlsoAt[i] = ao.repo + ":" + ao.path
			}
		}
		resp.Results = append(resp.Results, x)
	}
	return refs
}

// orgSnippets makes the results' snippets from their chunks' texts
// (got, by refs[i] for results[i]) and highlights terms in them.
func orgSnippets(results []search.Result, refs []org.ChunkRef, got map[org.ChunkRef]string, terms []string) {
	for i := range results {
		x := &results[i]
		text, ok := got[refs[i]]
		if !ok || x.StartLine < 1 {
			continue
		}
		lines := append(make([]string, x.StartLine-1), strings.Split(text, "\n")...)
		x.Snippet = search.Snippet(lines, x.StartLine, x.EndLine, terms)
	}
	search.Highlight(results, terms)
}

// OrgCitation is an org result's citation: <repo>@<commit>:<path>#L<a>-L<b>.
func OrgCitation(repo, commit, path string, start, end int) string {
	return fmt.Sprintf("%s@%s:%s#L%d-L%d", repo, commit, path, start, end)
}

// ParseOrgCitation splits <repo>@<commit>:<path>#L.. (search.ParseOrgCitation).
func ParseOrgCitation(s string) (repo, local string, ok bool) { return search.ParseOrgCitation(s) }

// orgScope is the exact path filter of the query's path: and -path:
// operators, applied to what Weaviate's Like patterns (a superset) let
// through.
func orgScope(q *search.Query) (func(string) bool, error) {
	var in, out func(string) bool
	var err error
	if len(q.Paths) > 0 {
		if in, err = search.PathScope(strings.Join(q.Paths, ",")); err != nil {
			return nil, err
		}
	}
	if len(q.NotPaths) > 0 {
		if out, err = search.PathScope(strings.Join(q.NotPaths, ",")); err != nil {
			return nil, err
		}
	}
	if in == nil && out == nil {
		return nil, nil
	}
	return func(p string) bool { return (in == nil || in(p)) && (out == nil || !out(p)) }, nil
}

// likePatterns turns PathScope patterns into Weaviate Like patterns that
// match at least what they match: a directory or file name becomes name
// and name/*, a glob's ** and * become *, a glob without a slash matches
// the base name in any directory.
func likePatterns(pats []string) []string {
	var out []string
	for _, list := range pats {
		for _, p := range strings.Split(list, ",") {
			p = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p), "./"))
			if p == "" {
				continue
			}
			if !strings.ContainsAny(p, "*?[") {
				p = strings.TrimSuffix(p, "/")
				out = append(out, p, p+"/*")
				continue
			}
			p = regexp.MustCompile(`\[[^\]]*\]`).ReplaceAllString(p, "?")
			// "**/" is zero or more directories; Like's * crosses slashes.
			p = strings.ReplaceAll(p, "**/", "*")
			p = strings.ReplaceAll(p, "**", "*")
			if !strings.Contains(p, "/") {
				out = append(out, p, "*/"+p)
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

// AutoPublish publishes commit when kb.org.autoPublish is on and HEAD is
// the default branch (the hooks' background runner calls it after
// indexing HEAD); ran is false when it had nothing to do.
func (k *Engine) AutoPublish(ctx context.Context, commit string) (st *PublishStats, ran bool, err error) {
	if !k.Settings.Org.AutoPublish || k.Settings.Org.URL == "" {
		return nil, false, nil
	}
	cur, def := k.Repo.CurrentBranch(ctx), k.Repo.DefaultBranch(ctx)
	if cur == "" || cur != def {
		return nil, false, nil
	}
	st, err = k.Publish(ctx, PublishRequest{Rev: commit})
	return st, true, err
}

// chunkVectors reads the vectors of entries' chunks from the view's
// vector tables (the model search uses), per blob and ordinal (nil where a
// chunk has none yet), and records the model, its dimension and how many
// chunks have one in st. Nothing when embedding is off.
func (k *Engine) chunkVectors(v *View, entries []store.ViewEntry, st *org.RepoStats) (map[store.SHA][][]float32, error) {
	if k.Dense == nil {
		return nil, nil
	}
	segs, err := v.DB.Segments()
	if err != nil {
		return nil, err
	}
	tables := map[uint32]*ann.Table{}
	present := map[uint32]*store.VectorTableInfo{}
	out := map[store.SHA][][]float32{}
	for _, e := range entries {
		sg, ok := segs[e.Seg]
		if !ok {
			continue
		}
		t, loaded := tables[e.Seg]
		if !loaded {
			info, data, err := v.DB.VectorTable(k.Dense.Model, e.Seg)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			if err == nil {
				if t, err = ann.UnmarshalTable(data); err != nil {
					return nil, fmt.Errorf("vector table of segment %d: %w", e.Seg, err)
				}
				present[e.Seg] = info
			}
			tables[e.Seg] = t
		}
		if t == nil {
			continue
		}
		info := present[e.Seg]
		var vs [][]float32
		for i := range e.N {
			row := e.First - sg.First + i
			if row >= info.Rows || int(row) >= t.Len() || !info.Present.Contains(row) {
				continue
			}
			if vs == nil {
				vs = make([][]float32, e.N)
			}
			vs[i] = t.Vector(int(row))
			st.Vectors++
			st.Dim = t.Dim
		}
		if vs != nil {
			out[e.Blob] = vs
		}
	}
	if st.Vectors > 0 {
		st.Model = OrgModel(k.Dense.Embedder.ID())
	}
	return out, nil
}

// OrgModel names a vector space in the org collection: the embedder's ID
// and the version of the text it embeds (as the local model key does).
func OrgModel(embedderID string) string {
	return fmt.Sprintf("%s|input-v%d", embedderID, index.EmbedInputVersion)
}
