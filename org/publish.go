package org

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// Chunk is one chunk as published: where it is, what it says (secrets
// already redacted by the caller) and its analyzed terms.
type Chunk struct {
	Repo, Remote, Commit, Blob, Path string
	Ordinal, Start, End              int
	Title, Heading, Lang, Owner      string
	Tags, Symbols                    []string
	Text                             string
	// Terms are the chunk's terms per field as the local index counts
	// them (body, heading, path, symbols), each repeated by its frequency
	// and joined by spaces.
	Terms [4]string
	// ChunkTerms are the chunk's distinct terms (any field), FileTerms on
	// a file's first chunk the file's, each joined by spaces: document
	// frequencies are counted on them (Corpus).
	ChunkTerms, FileTerms string
	// BodyLen is the chunk's body length in terms, FileLen its file's.
	BodyLen, FileLen int
	// File is what search's priors know of the file: its kind, its
	// MinHash, its front-matter, its vocabulary outlier score.
	File FileMeta
	// Vector is the chunk's embedding, when the repository has one.
	Vector []float32
}

// FileMeta is a file's metadata as published with each of its chunks
// (JSON): what local search's priors and near-duplicate folding read.
type FileMeta struct {
	Kind    string            `json:"kind,omitempty"`
	MinHash []byte            `json:"mh,omitempty"`
	Meta    map[string]string `json:"meta,omitempty"`
	Vocab   uint8             `json:"vocab,omitempty"`
	// Links is how many other pages of its repository a Markdown file
	// links to (the overview prior's out-degree).
	Links int `json:"links,omitempty"`
}

// RepoStats are a repository's BM25 statistics as its local index counts
// them, published beside its chunks (one object per repository) so that
// an org search scores as local search does.
type RepoStats struct {
	Commit  string `json:"commit"`
	Chunks  int    `json:"chunks"`
	BodyLen uint64 `json:"body_len"` // body terms over all chunks
	Files   int    `json:"files"`    // distinct blobs with chunks
	// Model and Dim name the vector space of the chunks' vectors (the
	// embedder's ID, e.g. hash-v2/256, and input version), Vectors how
	// many chunks were published with one: a query embedded by another
	// model must not be compared with them.
	Model   string `json:"model,omitempty"`
	Dim     int    `json:"dim,omitempty"`
	Vectors int    `json:"vectors,omitempty"`
}

// Stats reads repo's published statistics; ok is false when it has none.
func (c *Client) Stats(ctx context.Context, repo string) (st RepoStats, ok bool, err error) {
	cp, err := c.Corpus(ctx, Filter{Repos: []string{repo}}, nil)
	if err != nil {
		return st, false, err
	}
	st, ok = cp.Repos[repo]
	return st, ok, nil
}

// MaxBatch is the most objects written per request, and MaxBatchBytes
// the most text: a request must end within the server's write timeout
// (60 s by default), and chunks of code are larger than chunks of prose.
const (
	MaxBatch      = 100
	MaxBatchBytes = 256 << 10
)

// batchSize is how many of chunks (at least one) fit in one request.
func batchSize(chunks []Chunk) int {
	n, bytes := 0, 0
	for n < len(chunks) && n < MaxBatch {
		c := &chunks[n]
		bytes += 8*len(c.Vector) + len(c.Text) + len(c.Terms[0]) + len(c.Terms[1]) + len(c.Terms[2]) + len(c.Terms[3]) + len(c.ChunkTerms) + len(c.FileTerms)
		if n > 0 && bytes > MaxBatchBytes {
			break
		}
		n++
	}
	return n
}

// Existing lists repo's published entries (Entry: blob and path) with
// their object counts, so a publish writes only what is missing and
// deletes what is no longer in the view.
func (c *Client) Existing(ctx context.Context, repo string) (map[string]int, error) {
	out := map[string]int{}
	total, err := c.Count(ctx, repo)
	if err != nil || total == 0 {
		return out, err
	}
	// Groups are at most objects (and the statistics object).
	out, err = c.groupCounts(ctx, "listing what "+repo+" has published", eq(pRepo, repo), pEntry, total+2)
	delete(out, statsEntry)
	return out, err
}

// WriteStats publishes repo's statistics (one object, overwritten).
func (c *Client) WriteStats(ctx context.Context, repo string, st RepoStats) error {
	js, _ := json.Marshal(st)
	o := &models.Object{Class: c.class, ID: strfmtUUID(ObjectID(repo, statsEntry, c.pipeline, -1)), Properties: map[string]any{
		pRepo: repo, pEntry: statsEntry, pCommit: st.Commit, pOrdinal: -1, pPipeline: int(c.pipeline), pRepoStats: string(js)}}
	return c.call(ctx, "writing "+repo+"'s statistics", func(ctx context.Context) error {
		res, err := c.c.Batch().ObjectsBatcher().WithObjects(o).Do(ctx)
		if err != nil {
			return err
		}
		for _, r := range res {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				return errors.New(r.Result.Errors.Error[0].Message)
			}
		}
		return nil
	})
}

// groupCounts counts the objects (of those where selects; nil: all) per
// value of the property groupBy, for at most limit values.
func (c *Client) groupCounts(ctx context.Context, what string, where *filters.WhereBuilder, groupBy string, limit int) (map[string]int, error) {
	out := map[string]int{}
	b := c.c.GraphQL().Aggregate().WithClassName(c.class).WithGroupBy(groupBy).WithLimit(limit).
		WithFields(graphql.Field{Name: "groupedBy", Fields: []graphql.Field{{Name: "value"}}}, metaCount())
	if where != nil {
		b = b.WithWhere(where)
	}
	err := c.call(ctx, what, func(ctx context.Context) error {
		resp, err := b.Do(ctx)
		if err != nil {
			return err
		}
		if err := gqlErr(resp); err != nil {
			return err
		}
		var r struct {
			Aggregate map[string][]struct {
				GroupedBy struct{ Value string } `json:"groupedBy"`
				Meta      struct{ Count int }    `json:"meta"`
			}
		}
		if err := remarshal(resp.Data, &r); err != nil {
			return err
		}
		for _, g := range r.Aggregate[c.class] {
			out[g.GroupedBy.Value] += g.Meta.Count
		}
		return nil
	})
	return out, err
}

func metaCount() graphql.Field {
	return graphql.Field{Name: "meta", Fields: []graphql.Field{{Name: "count"}}}
}

func eq(prop, val string) *filters.WhereBuilder {
	return filters.Where().WithPath([]string{prop}).WithOperator(filters.Equal).WithValueText(val)
}

// Write upserts chunks (at most MaxBatch per request) under their
// deterministic ids.
func (c *Client) Write(ctx context.Context, chunks []Chunk) error {
	for len(chunks) > 0 {
		n := batchSize(chunks)
		objs := make([]*models.Object, n)
		for i, ch := range chunks[:n] {
			objs[i] = c.object(ch)
		}
		chunks = chunks[n:]
		if err := c.writeObjects(ctx, objs, true); err != nil {
			return err
		}
	}
	return nil
}

// writeObjects writes one batch. A batch that times out is written again
// as two halves, once: a busy server (flushing or compacting its
// indexes) often takes a smaller request in time, and the ids make a
// write repeatable. A half that times out too is the error, so a server
// that hangs costs at most three timeouts, never a hang.
func (c *Client) writeObjects(ctx context.Context, objs []*models.Object, split bool) error {
	err := c.call(ctx, fmt.Sprintf("writing %d chunks", len(objs)), func(ctx context.Context) error {
		res, err := c.c.Batch().ObjectsBatcher().WithObjects(objs...).Do(ctx)
		if err != nil {
			return err
		}
		for _, r := range res {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				return fmt.Errorf("object %s: %s", r.ID, r.Result.Errors.Error[0].Message)
			}
		}
		return nil
	})
	if err != nil && split && len(objs) > 1 && errors.Is(err, ErrTimeout) && ctx.Err() == nil {
		h := len(objs) / 2
		if err := c.writeObjects(ctx, objs[:h], false); err != nil {
			return err
		}
		return c.writeObjects(ctx, objs[h:], false)
	}
	return err
}

func (c *Client) object(ch Chunk) *models.Object {
	props := map[string]any{
		pRepo: ch.Repo, pRemote: ch.Remote, pCommit: ch.Commit, pBlob: ch.Blob, pPath: ch.Path,
		pEntry: Entry(ch.Blob, ch.Path), pOrdinal: ch.Ordinal, pStart: ch.Start, pEnd: ch.End,
		pPipeline: int(c.pipeline), pTitle: ch.Title, pHeading: ch.Heading, pLang: ch.Lang,
		pOwner: ch.Owner, pText: ch.Text,
		pBody: ch.Terms[0], pHeadTerms: ch.Terms[1], pPathTerms: ch.Terms[2], pSymTerms: ch.Terms[3],
		pChunkTerms: ch.ChunkTerms, pFileTerms: ch.FileTerms, pBodyLen: ch.BodyLen, pFileLen: ch.FileLen,
	}
	if js, err := json.Marshal(ch.File); err == nil {
		props[pFileMeta] = string(js)
	}
	if len(ch.Tags) > 0 {
		props[pTags] = ch.Tags
	}
	if len(ch.Symbols) > 0 {
		props[pSymbols] = ch.Symbols
	}
	o := &models.Object{Class: c.class, ID: strfmtUUID(ObjectID(ch.Repo, ch.Blob, c.pipeline, ch.Ordinal)), Properties: props}
	if len(ch.Vector) > 0 {
		o.Vector = ch.Vector
	}
	return o
}

// DeleteEntries deletes repo's objects of the given entries, in requests
// of a few hundred entries, and returns how many objects went.
func (c *Client) DeleteEntries(ctx context.Context, repo string, entries []string) (int, error) {
	deleted := 0
	for len(entries) > 0 {
		n := min(len(entries), 200)
		where := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
			eq(pRepo, repo),
			filters.Where().WithPath([]string{pEntry}).WithOperator(filters.ContainsAny).WithValueText(entries[:n]...),
		})
		entries = entries[n:]
		err := c.call(ctx, "deleting chunks no longer in the view", func(ctx context.Context) error {
			// A batch delete stops at the server's maximum result count:
			// repeat until nothing matches.
			for {
				res, err := c.c.Batch().ObjectsBatchDeleter().WithClassName(c.class).WithWhere(where).WithOutput("minimal").Do(ctx)
				if err != nil {
					return err
				}
				if res == nil || res.Results == nil {
					return nil
				}
				if res.Results.Failed > 0 {
					return fmt.Errorf("%d objects could not be deleted", res.Results.Failed)
				}
				deleted += int(res.Results.Successful)
				if res.Results.Matches == 0 || res.Results.Successful < res.Results.Matches || res.Results.Limit == 0 || res.Results.Matches < res.Results.Limit {
					return nil
				}
			}
		})
		if err != nil {
			return deleted, err
		}
	}
	return deleted, nil
}

// DeleteRepo deletes every object of repo.
func (c *Client) DeleteRepo(ctx context.Context, repo string) (int, error) {
	ex, err := c.Existing(ctx, repo)
	if err != nil {
		return 0, err
	}
	entries := make([]string, 0, len(ex))
	for e := range ex {
		entries = append(entries, e)
	}
	return c.DeleteEntries(ctx, repo, entries)
}

// Terms joins terms, each repeated by its frequency, for a terms property.
func Terms(b *strings.Builder, term string, n int) {
	for range n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(term)
	}
}

// WrongDimensions reports whether err is Weaviate refusing a vector whose
// length is not its vector index's (which keeps the dimension of the
// first vector it was given, even once every vector is deleted).
func WrongDimensions(err error) bool {
	return err != nil && strings.Contains(err.Error(), "vector dimensions do not match")
}
