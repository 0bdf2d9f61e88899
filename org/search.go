package org

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
	"golang.org/x/sync/errgroup"
)

func strfmtUUID(s string) strfmt.UUID { return strfmt.UUID(s) }

// FieldWeights are the local BM25F field weights (search.fieldWeight):
// body, heading, path, symbols.
var FieldWeights = [4]float64{1.0, 2.0, 1.5, 2.0}

// Filter narrows a query inside Weaviate. Empty fields do not filter.
type Filter struct {
	Repos, NotRepos []string
	// PathLike are Weaviate Like patterns (* and ?), any of which a path
	// matches; NotPathLike drop paths.
	PathLike, NotPathLike []string
	Langs, NotLangs       []string
	Tags, Owners          []string
}

func (f Filter) where() *filters.WhereBuilder {
	var and []*filters.WhereBuilder
	anyOf := func(prop string, op filters.WhereOperator, vals []string) {
		if len(vals) == 0 {
			return
		}
		var or []*filters.WhereBuilder
		for _, v := range vals {
			or = append(or, filters.Where().WithPath([]string{prop}).WithOperator(op).WithValueText(v))
		}
		if len(or) == 1 {
			and = append(and, or[0])
			return
		}
		and = append(and, filters.Where().WithOperator(filters.Or).WithOperands(or))
	}
	noneOf := func(prop string, op filters.WhereOperator, vals []string) {
		for _, v := range vals {
			and = append(and, filters.Where().WithOperator(filters.Not).WithOperands([]*filters.WhereBuilder{
				filters.Where().WithPath([]string{prop}).WithOperator(op).WithValueText(v)}))
		}
	}
	anyOf(pRepo, filters.Equal, f.Repos)
	noneOf(pRepo, filters.Equal, f.NotRepos)
	anyOf(pPath, filters.Like, f.PathLike)
	noneOf(pPath, filters.Like, f.NotPathLike)
	anyOf(pLang, filters.Equal, f.Langs)
	noneOf(pLang, filters.Equal, f.NotLangs)
	// Each tag: or owner: asked for must hold (as local search does).
	for _, t := range f.Tags {
		and = append(and, filters.Where().WithPath([]string{pTags}).WithOperator(filters.ContainsAny).WithValueText(t))
	}
	anyOf(pOwner, filters.Equal, f.Owners)
	switch len(and) {
	case 0:
		return nil
	case 1:
		return and[0]
	}
	return filters.Where().WithOperator(filters.And).WithOperands(and)
}

// Query is one org search.
type Query struct {
	// Terms are the query's terms as our analyzer cuts them.
	Terms []string
	// Vector, if set, is the query's embedding: alone, the search is
	// Weaviate's nearVector (cosine); with Terms, Weaviate's hybrid
	// (relative-score fusion of BM25F over Terms and the vector),
	// weighted by Alpha (0: BM25 only, 1: vector only).
	Vector []float32
	Alpha  float32
	Limit  int // chunks wanted
	Filter Filter
	// NoText leaves the chunks' text out of the answer (Texts reads it
	// for the few shown): two fifths of what a chunk weighs.
	NoText bool
}

// Hit is one chunk found, with its score: BM25F, the hybrid's fused
// score, or for a vector alone the cosine similarity.
type Hit struct {
	Chunk
	Score float64
}

// bm25Props are the terms properties BM25F ranks by, with the local
// field weights.
func bm25Props() []string {
	return []string{
		weighted(pBody, FieldWeights[0]), weighted(pHeadTerms, FieldWeights[1]),
		weighted(pPathTerms, FieldWeights[2]), weighted(pSymTerms, FieldWeights[3]),
	}
}

// Search ranks chunks by BM25F over the published terms, by vector
// similarity, or both (Query.Vector), with Filter applied inside
// Weaviate, and reads everything an org search ranks them by.
func (c *Client) Search(ctx context.Context, q Query) ([]Hit, error) {
	if q.Limit <= 0 {
		q.Limit = 10
	}
	text := strings.Join(q.Terms, " ")
	add := graphql.Field{Name: "score"}
	get := c.c.GraphQL().Get().WithClassName(c.class).WithLimit(q.Limit)
	switch {
	case len(q.Vector) > 0 && len(q.Terms) > 0:
		get = get.WithHybrid(c.c.GraphQL().HybridArgumentBuilder().WithQuery(text).WithProperties(bm25Props()).
			WithVector(q.Vector).WithAlpha(q.Alpha).WithFusionType(graphql.RelativeScore))
	case len(q.Vector) > 0:
		get = get.WithNearVector(c.c.GraphQL().NearVectorArgBuilder().WithVector(q.Vector))
		add = graphql.Field{Name: "distance"}
	default:
		get = get.WithBM25(c.c.GraphQL().Bm25ArgBuilder().WithQuery(text).WithProperties(bm25Props()...))
	}
	if w := q.Filter.where(); w != nil {
		get = get.WithWhere(w)
	}
	get = get.WithFields(append(chunkFields(!q.NoText), graphql.Field{Name: "_additional", Fields: []graphql.Field{add}})...)
	return c.readChunks(ctx, "searching "+c.class, get)
}

// chunkFields are what an org search reads of a chunk: where it is, its
// terms, its file's metadata, and with text what it says.
func chunkFields(text bool) []graphql.Field {
	return fieldsOf(text, pRepo, pRemote, pCommit, pBlob, pPath, pOrdinal, pStart, pEnd, pTitle, pHeading,
		pLang, pTags, pOwner, pSymbols, pBody, pHeadTerms, pPathTerms, pSymTerms, pBodyLen, pFileLen, pFileMeta)
}

// ChunkRef names one published chunk.
type ChunkRef struct {
	Repo, Blob string
	Ordinal    int
}

// Texts reads the text of the chunks named, in one request (by their
// object ids): the text of the few results shown, when the candidates
// were read without it.
func (c *Client) Texts(ctx context.Context, refs []ChunkRef) (map[ChunkRef]string, error) {
	out := map[ChunkRef]string{}
	if len(refs) == 0 {
		return out, nil
	}
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = ObjectID(r.Repo, r.Blob, c.pipeline, r.Ordinal)
	}
	get := c.c.GraphQL().Get().WithClassName(c.class).WithLimit(len(ids)).
		WithWhere(filters.Where().WithPath([]string{"id"}).WithOperator(filters.ContainsAny).WithValueText(ids...)).
		WithFields(graphql.Field{Name: pRepo}, graphql.Field{Name: pBlob}, graphql.Field{Name: pOrdinal}, graphql.Field{Name: pText})
	err := c.call(ctx, "reading the results' text", func(ctx context.Context) error {
		resp, err := c.getOne(ctx, get)
		if err != nil {
			return err
		}
		var r struct {
			Get map[string][]struct {
				Repo, Blob, Text string
				Ordinal          int
			}
		}
		if err := remarshal(resp.Data, &r); err != nil {
			return err
		}
		for _, o := range r.Get[c.class] {
			out[ChunkRef{o.Repo, o.Blob, o.Ordinal}] = o.Text
		}
		return nil
	})
	return out, err
}

// readChunks runs a Get of chunkFields (and _additional score or
// distance) and reads its answer.
func (c *Client) readChunks(ctx context.Context, what string, get *graphql.GetBuilder) ([]Hit, error) {
	var out []Hit
	err := c.call(ctx, what, func(ctx context.Context) error {
		resp, err := c.getOne(ctx, get)
		if err != nil {
			return err
		}
		var r struct {
			Get map[string][]struct {
				Repo, Remote, Commit, Blob, Path              string
				Ordinal, StartLine, EndLine, BodyLen, FileLen int
				Title, Heading, Lang, Owner, Text, FileMeta   string
				Tags, Symbols                                 []string
				BodyTerms, HeadingTerms, PathTerms            string
				SymbolTerms                                   string
				Additional                                    struct {
					Score    string   `json:"score"`
					Distance *float64 `json:"distance"`
				} `json:"_additional"`
			}
		}
		if err := remarshal(resp.Data, &r); err != nil {
			return err
		}
		for _, o := range r.Get[c.class] {
			h := Hit{Chunk: Chunk{Repo: o.Repo, Remote: o.Remote, Commit: o.Commit, Blob: o.Blob, Path: o.Path,
				Ordinal: o.Ordinal, Start: o.StartLine, End: o.EndLine, Title: o.Title, Heading: o.Heading,
				Lang: o.Lang, Owner: o.Owner, Tags: o.Tags, Symbols: o.Symbols, Text: o.Text,
				Terms: [4]string{o.BodyTerms, o.HeadingTerms, o.PathTerms, o.SymbolTerms}, BodyLen: o.BodyLen, FileLen: o.FileLen}}
			json.Unmarshal([]byte(o.FileMeta), &h.File)
			if o.Additional.Distance != nil {
				// Cosine distance: similarity is one minus it.
				h.Score = 1 - *o.Additional.Distance
			} else {
				fmt.Sscan(o.Additional.Score, &h.Score)
			}
			out = append(out, h)
		}
		return nil
	})
	return out, err
}

func weighted(p string, w float64) string {
	if w == 1 {
		return p
	}
	return fmt.Sprintf("%s^%g", p, w)
}

// Repos lists the published repositories with their object counts.
func (c *Client) Repos(ctx context.Context) (map[string]int, error) {
	total, err := c.Count(ctx, "")
	if err != nil || total == 0 {
		return map[string]int{}, err
	}
	return c.groupCounts(ctx, "listing published repositories", notStats(), pRepo, 10000)
}

func notStats() *filters.WhereBuilder {
	return filters.Where().WithOperator(filters.Not).WithOperands([]*filters.WhereBuilder{eq(pEntry, statsEntry)})
}

func and(ws ...*filters.WhereBuilder) *filters.WhereBuilder {
	var ops []*filters.WhereBuilder
	for _, w := range ws {
		if w != nil {
			ops = append(ops, w)
		}
	}
	switch len(ops) {
	case 0:
		return nil
	case 1:
		return ops[0]
	}
	return filters.Where().WithOperator(filters.And).WithOperands(ops)
}

// FileRef is one published file of one repository.
type FileRef struct {
	Repo, Blob, Path string
}

// Files are the files of the best chunks by BM25F over q.Terms (q.Limit
// chunks asked for), in the order of their best chunk, at most max of
// them: the candidates an org search ranks.
func (c *Client) Files(ctx context.Context, q Query, max int) ([]FileRef, error) {
	get := c.c.GraphQL().Get().WithClassName(c.class).WithLimit(q.Limit).
		WithFields(graphql.Field{Name: pRepo}, graphql.Field{Name: pBlob}, graphql.Field{Name: pPath}).
		WithBM25(c.c.GraphQL().Bm25ArgBuilder().WithQuery(strings.Join(q.Terms, " ")).WithProperties(bm25Props()...))
	if w := q.Filter.where(); w != nil {
		get = get.WithWhere(w)
	}
	var out []FileRef
	err := c.call(ctx, "searching "+c.class, func(ctx context.Context) error {
		resp, err := c.getOne(ctx, get)
		if err != nil {
			return err
		}
		var r struct{ Get map[string][]FileRef }
		if err := remarshal(resp.Data, &r); err != nil {
			return err
		}
		seen := map[FileRef]bool{}
		for _, f := range r.Get[c.class] {
			if !seen[f] && len(out) < max {
				seen[f] = true
				out = append(out, f)
			}
		}
		return nil
	})
	return out, err
}

// getOne runs a Get, at consistency ONE when the default (quorum) read
// fails: a replicated collection with a node down fails the quorum, and
// one replica's answer is enough for a search. (Only a replicated
// collection takes the argument.)
func (c *Client) getOne(ctx context.Context, get *graphql.GetBuilder) (*models.GraphQLResponse, error) {
	resp, err := get.Do(ctx)
	if err == nil {
		err = gqlErr(resp)
	}
	if err != nil && ctx.Err() == nil && !strings.Contains(err.Error(), "Cannot query field") {
		if r2, err2 := get.WithConsistencyLevel("ONE").Do(ctx); err2 == nil && gqlErr(r2) == nil {
			return r2, nil
		}
	}
	return resp, err
}

// FileChunks are the chunks of files that hold any of terms (chunkTerms),
// with everything published of them (the text only if asked): the
// evidence an org search ranks its candidate files by, as local search
// ranks a file by its chunks that match.
//
// A chunk row carries what is the chunk's own (where it is, its terms),
// and each file's fields (commit, title, language, front-matter, kind,
// MinHash, lengths) are read once, from its first chunk, beside them:
// on Go's source they were a fifth of what every row of a candidate's
// dozens of chunks weighed. The files are asked for in groups of
// filesPerRequest, in parallel requests (Weaviate answers each on its
// own core).
func (c *Client) FileChunks(ctx context.Context, files []FileRef, terms []string, text bool) ([]Chunk, error) {
	if len(files) == 0 || len(terms) == 0 {
		return nil, nil
	}
	var groups [][]FileRef
	for i := 0; i < len(files); i += filesPerRequest {
		groups = append(groups, files[i:min(len(files), i+filesPerRequest)])
	}
	has := filters.Where().WithPath([]string{pChunkTerms}).WithOperator(filters.ContainsAny).WithValueText(terms...)
	first := filters.Where().WithPath([]string{pOrdinal}).WithOperator(filters.Equal).WithValueInt(0)
	rows := make([][]Hit, len(groups))
	heads := make([][]Hit, len(groups))
	var g errgroup.Group
	g.SetLimit(maxParallel)
	for i, fs := range groups {
		where := entriesWhere(fs)
		g.Go(func() error {
			get := c.c.GraphQL().Get().WithClassName(c.class).WithLimit(maxFileChunks).WithWhere(and(where, has)).WithFields(chunkOwnFields(text)...)
			var err error
			rows[i], err = c.readChunks(ctx, "reading the candidates' chunks", get)
			return err
		})
		g.Go(func() error {
			get := c.c.GraphQL().Get().WithClassName(c.class).WithLimit(len(fs)).WithWhere(and(where, first)).WithFields(fileFields()...)
			var err error
			heads[i], err = c.readChunks(ctx, "reading the candidates' files", get)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	type fileKey struct{ repo, blob, path string }
	head := map[fileKey]*Chunk{}
	for _, hs := range heads {
		for i := range hs {
			h := &hs[i].Chunk
			head[fileKey{h.Repo, h.Blob, h.Path}] = h
		}
	}
	var out []Chunk
	for _, hs := range rows {
		for _, h := range hs {
			ch := h.Chunk
			f := head[fileKey{ch.Repo, ch.Blob, ch.Path}]
			if f == nil {
				continue // deleted between the two reads: a publish ran
			}
			ch.Remote, ch.Commit, ch.Title, ch.Lang, ch.Owner, ch.Tags = f.Remote, f.Commit, f.Title, f.Lang, f.Owner, f.Tags
			ch.FileLen, ch.File = f.FileLen, f.File
			out = append(out, ch)
		}
	}
	return out, nil
}

// entriesWhere selects the chunks of files.
func entriesWhere(files []FileRef) *filters.WhereBuilder {
	byRepo := map[string][]string{}
	var repos []string
	for _, f := range files {
		if _, ok := byRepo[f.Repo]; !ok {
			repos = append(repos, f.Repo)
		}
		byRepo[f.Repo] = append(byRepo[f.Repo], Entry(f.Blob, f.Path))
	}
	var or []*filters.WhereBuilder
	for _, r := range repos {
		or = append(or, and(eq(pRepo, r), filters.Where().WithPath([]string{pEntry}).WithOperator(filters.ContainsAny).WithValueText(byRepo[r]...)))
	}
	if len(or) == 1 {
		return or[0]
	}
	return filters.Where().WithOperator(filters.Or).WithOperands(or)
}

// chunkOwnFields are a chunk's own fields (FileChunks), fileFields its
// file's, read from the file's first chunk.
func chunkOwnFields(text bool) []graphql.Field {
	return fieldsOf(text, pRepo, pBlob, pPath, pOrdinal, pStart, pEnd, pHeading, pSymbols, pBody, pHeadTerms, pPathTerms, pSymTerms, pBodyLen)
}

func fileFields() []graphql.Field {
	return fieldsOf(false, pRepo, pBlob, pPath, pRemote, pCommit, pTitle, pLang, pTags, pOwner, pFileLen, pFileMeta)
}

func fieldsOf(text bool, props ...string) []graphql.Field {
	out := make([]graphql.Field, 0, len(props)+1)
	for _, p := range props {
		out = append(out, graphql.Field{Name: p})
	}
	if text {
		out = append(out, graphql.Field{Name: pText})
	}
	return out
}

// filesPerRequest is how many candidate files one FileChunks request
// asks for, and maxParallel how many requests an org search has in
// flight at once.
const (
	filesPerRequest = 40
	maxParallel     = 4
)

// maxFileChunks bounds FileChunks' answer (Weaviate's default maximum
// result count).
const maxFileChunks = 10000

// Corpus is what BM25 statistics an org search needs of the repositories
// it searches: each one's totals, and the document frequencies of the
// query's terms counted in chunks and in files.
type Corpus struct {
	Repos      map[string]RepoStats
	DF, FileDF map[string]int
	// Unavailable, when set, says why the document frequencies could not
	// be counted (DF and FileDF are then empty): a replicated collection
	// with a node down (CountsUnavailable).
	Unavailable string
}

// CountsUnavailable reports whether err is Weaviate refusing to count
// because a replica is down. Its aggregations read at the default
// consistency (a quorum of each shard's replicas) and take no other: with
// one node of three down and two replicas, shards resolve to quorums of
// one and of two, and Weaviate refuses the mix ("inconsistent consistency
// levels"). Searches (Get) read at ONE then (getOne).
func CountsUnavailable(err error) bool {
	return err != nil && strings.Contains(err.Error(), "consistency level")
}

// Corpus reads the statistics of the repositories f selects (its repo:
// and -repo: only: statistics are those of whole repositories, as local
// search's are the whole view's under path: filters) for terms: the
// statistics objects, and two counts per term (its chunks and its
// files), termsPerRequest terms to a request, the requests in parallel.
// Weaviate resolves one request's counts one after the other, each
// ~50-100 ms on Go's source; four requests beside each other measured
// 2.8 s -> 0.8 s for 16 terms (loaded 2-core machine).
func (c *Client) Corpus(ctx context.Context, f Filter, terms []string) (*Corpus, error) {
	repos := Filter{Repos: f.Repos, NotRepos: f.NotRepos}.where()
	out := &Corpus{Repos: map[string]RepoStats{}, DF: map[string]int{}, FileDF: map[string]int{}}
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(maxParallel)
	g.Go(func() error {
		q := fmt.Sprintf("{Get{%s(limit:10000,%%s%s){repo repoStats}}}", c.class, and(repos, eq(pEntry, statsEntry)).String())
		return c.call(ctx, "reading the collection's statistics", func(ctx context.Context) error {
			var r struct {
				Get map[string][]struct {
					Repo      string
					RepoStats string
				}
			}
			err := c.rawQuery(ctx, fmt.Sprintf(q, ""), &r)
			if err != nil && ctx.Err() == nil {
				// As getOne: a replicated collection with a node down
				// answers at consistency ONE.
				if c.rawQuery(ctx, fmt.Sprintf(q, "consistencyLevel:ONE,"), &r) == nil {
					err = nil
				}
			}
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			for _, o := range r.Get[c.class] {
				var st RepoStats
				if json.Unmarshal([]byte(o.RepoStats), &st) == nil {
					out.Repos[o.Repo] = st
				}
			}
			return nil
		})
	})
	var counts errgroup.Group
	counts.SetLimit(maxParallel)
	for lo := 0; lo < len(terms); lo += termsPerRequest {
		part := terms[lo:min(len(terms), lo+termsPerRequest)]
		counts.Go(func() error {
			var q strings.Builder
			q.WriteString("{Aggregate{")
			for i, t := range part {
				for _, p := range []string{pChunkTerms, pFileTerms} {
					w := and(repos, filters.Where().WithPath([]string{p}).WithOperator(filters.Equal).WithValueText(t))
					fmt.Fprintf(&q, "%s%d:%s(%s){meta{count}} ", p[:1], i, c.class, w.String())
				}
			}
			q.WriteString("}}")
			return c.call(ctx, "reading the collection's statistics", func(ctx context.Context) error {
				var r struct {
					Aggregate map[string][]struct {
						Meta struct{ Count int } `json:"meta"`
					}
				}
				if err := c.rawQuery(ctx, q.String(), &r); err != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				for i, t := range part {
					for _, g := range r.Aggregate[fmt.Sprintf("c%d", i)] {
						out.DF[t] += g.Meta.Count
					}
					for _, g := range r.Aggregate[fmt.Sprintf("f%d", i)] {
						out.FileDF[t] += g.Meta.Count
					}
				}
				return nil
			})
		})
	}
	cerr := counts.Wait()
	if err := g.Wait(); err != nil {
		return out, err
	}
	if CountsUnavailable(cerr) {
		out.DF, out.FileDF = map[string]int{}, map[string]int{}
		out.Unavailable = firstLine(cerr.Error())
		return out, nil
	}
	return out, cerr
}

// termsPerRequest is how many terms' counts one Corpus request asks for.
const termsPerRequest = 4

// FilesWith counts, for each of terms, the files of the repositories f
// selects (its repo: and -repo: only, as Corpus) that hold it in a chunk
// that also holds any of with, in one request (Weaviate's groups, by
// entry, of those chunks): local search counts a common added word's
// file document frequency so (search.CommonExpansions). limit bounds the
// groups counted (the files searched).
func (c *Client) FilesWith(ctx context.Context, f Filter, terms, with []string, limit int) (map[string]int, error) {
	out := map[string]int{}
	if len(terms) == 0 || len(with) == 0 {
		return out, nil
	}
	repos := Filter{Repos: f.Repos, NotRepos: f.NotRepos}.where()
	has := filters.Where().WithPath([]string{pChunkTerms}).WithOperator(filters.ContainsAny).WithValueText(with...)
	var q strings.Builder
	q.WriteString("{Aggregate{")
	for i, t := range terms {
		w := and(repos, filters.Where().WithPath([]string{pChunkTerms}).WithOperator(filters.Equal).WithValueText(t), has)
		fmt.Fprintf(&q, "w%d:%s(groupBy:[%q],limit:%d,%s){groupedBy{value}} ", i, c.class, pEntry, max(limit, 1), w.String())
	}
	q.WriteString("}}")
	err := c.call(ctx, "reading the collection's statistics", func(ctx context.Context) error {
		var r struct {
			Aggregate map[string][]json.RawMessage
		}
		if err := c.rawQuery(ctx, q.String(), &r); err != nil {
			return err
		}
		for i, t := range terms {
			out[t] = len(r.Aggregate[fmt.Sprintf("w%d", i)])
		}
		return nil
	})
	return out, err
}

// LinkPage is a page whose in-links an org search counts: its
// repository, its path, and the term other files name it by (its file
// name as the analyzer keeps it).
type LinkPage struct {
	Repo, Path, Term string
}

// InLinks counts, for each page, the other files of its repository that
// name it (their terms hold its file name), in one request: the files
// holding the term, less those of the same file name (their path holds
// it). The overview prior's in-degree, as local search counts it in its
// postings (a file of the same name that also names the page in its text
// is not counted).
func (c *Client) InLinks(ctx context.Context, pages []LinkPage) (map[LinkPage]int, error) {
	out := map[LinkPage]int{}
	if len(pages) == 0 {
		return out, nil
	}
	first := filters.Where().WithPath([]string{pOrdinal}).WithOperator(filters.Equal).WithValueInt(0)
	var q strings.Builder
	q.WriteString("{Aggregate{")
	for i, p := range pages {
		base := p.Path[strings.LastIndexByte(p.Path, '/')+1:]
		named := and(eq(pRepo, p.Repo), filters.Where().WithPath([]string{pFileTerms}).WithOperator(filters.Equal).WithValueText(p.Term))
		same := and(eq(pRepo, p.Repo), first, filters.Where().WithOperator(filters.Or).WithOperands([]*filters.WhereBuilder{
			eq(pPath, base), filters.Where().WithPath([]string{pPath}).WithOperator(filters.Like).WithValueText("*/" + base)}))
		fmt.Fprintf(&q, "n%d:%s(%s){meta{count}} s%d:%s(%s){meta{count}} ", i, c.class, named.String(), i, c.class, same.String())
	}
	q.WriteString("}}")
	err := c.call(ctx, "counting the links to the candidate pages", func(ctx context.Context) error {
		var r struct {
			Aggregate map[string][]struct {
				Meta struct{ Count int } `json:"meta"`
			}
		}
		if err := c.rawQuery(ctx, q.String(), &r); err != nil {
			return err
		}
		count := func(k string) int {
			n := 0
			for _, g := range r.Aggregate[k] {
				n += g.Meta.Count
			}
			return n
		}
		for i, p := range pages {
			out[p] = max(0, count(fmt.Sprintf("n%d", i))-count(fmt.Sprintf("s%d", i)))
		}
		return nil
	})
	return out, err
}

// rawQuery runs a raw GraphQL query (many aliased parts in one request)
// and decodes its data into out; a GraphQL error is an error.
func (c *Client) rawQuery(ctx context.Context, query string, out any) error {
	resp, err := c.c.GraphQL().Raw().WithQuery(query).Do(ctx)
	if err == nil {
		err = gqlErr(resp)
	}
	if err != nil {
		return err
	}
	return remarshal(resp.Data, out)
}
