package org

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/graphql"
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
	// Vector, if set, makes the search hybrid (Weaviate's relative-score
	// fusion of BM25 over Terms and the vector), weighted by Alpha (0:
	// BM25 only, 1: vector only).
	Vector []float32
	Alpha  float32
	Limit  int // chunks wanted
	Filter Filter
}

// Hit is one chunk found, with its score.
type Hit struct {
	Chunk
	Score float64
}

// Search ranks chunks by BM25F over the published terms (hybrid with
// Vector), with Filter applied inside Weaviate.
func (c *Client) Search(ctx context.Context, q Query) ([]Hit, error) {
	if q.Limit <= 0 {
		q.Limit = 10
	}
	props := []string{
		weighted(pBody, FieldWeights[0]), weighted(pHeadTerms, FieldWeights[1]),
		weighted(pPathTerms, FieldWeights[2]), weighted(pSymTerms, FieldWeights[3]),
	}
	text := strings.Join(q.Terms, " ")
	get := c.c.GraphQL().Get().WithClassName(c.class).WithLimit(q.Limit).WithFields(
		graphql.Field{Name: pRepo}, graphql.Field{Name: pRemote}, graphql.Field{Name: pCommit},
		graphql.Field{Name: pBlob}, graphql.Field{Name: pPath}, graphql.Field{Name: pOrdinal},
		graphql.Field{Name: pStart}, graphql.Field{Name: pEnd}, graphql.Field{Name: pTitle},
		graphql.Field{Name: pHeading}, graphql.Field{Name: pLang}, graphql.Field{Name: pTags},
		graphql.Field{Name: pOwner}, graphql.Field{Name: pSymbols}, graphql.Field{Name: pText},
		graphql.Field{Name: "_additional", Fields: []graphql.Field{{Name: "score"}}},
	)
	if len(q.Vector) > 0 {
		get = get.WithHybrid(c.c.GraphQL().HybridArgumentBuilder().WithQuery(text).WithProperties(props).
			WithVector(q.Vector).WithAlpha(q.Alpha).WithFusionType(graphql.RelativeScore))
	} else {
		get = get.WithBM25(c.c.GraphQL().Bm25ArgBuilder().WithQuery(text).WithProperties(props...))
	}
	if w := q.Filter.where(); w != nil {
		get = get.WithWhere(w)
	}
	var hits []Hit
	err := c.call(ctx, "searching "+c.class, func(ctx context.Context) error {
		resp, err := get.Do(ctx)
		if err == nil {
			err = gqlErr(resp)
		}
		if err != nil && ctx.Err() == nil && !strings.Contains(err.Error(), "Cannot query field") {
			// A replicated collection with a node down fails the default
			// (quorum) read: one replica's answer is enough for a search.
			// (Only a replicated collection takes the argument.)
			if r2, err2 := get.WithConsistencyLevel("ONE").Do(ctx); err2 == nil && gqlErr(r2) == nil {
				resp, err = r2, nil
			}
		}
		if err != nil {
			return err
		}
		var r struct {
			Get map[string][]struct {
				Repo, Remote, Commit, Blob, Path string
				Ordinal                          int
				StartLine, EndLine               int
				Title, Heading, Lang, Owner      string
				Tags, Symbols                    []string
				Text                             string
				Additional                       struct {
					Score string `json:"score"`
				} `json:"_additional"`
			}
		}
		if err := remarshal(resp.Data, &r); err != nil {
			return err
		}
		for _, o := range r.Get[c.class] {
			var score float64
			fmt.Sscan(o.Additional.Score, &score)
			hits = append(hits, Hit{Score: score, Chunk: Chunk{
				Repo: o.Repo, Remote: o.Remote, Commit: o.Commit, Blob: o.Blob, Path: o.Path,
				Ordinal: o.Ordinal, Start: o.StartLine, End: o.EndLine, Title: o.Title, Heading: o.Heading,
				Lang: o.Lang, Owner: o.Owner, Tags: o.Tags, Symbols: o.Symbols, Text: o.Text,
			}})
		}
		return nil
	})
	return hits, err
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
	return c.groupCounts(ctx, "listing published repositories", nil, pRepo, 10000)
}
