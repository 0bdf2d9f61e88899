package engine

import (
	"context"
	"fmt"

	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/rerank"
	"github.com/git-kb/git-kb/search"
)

// SearchRequest is a search of one commit: the ranking request and what
// the engine adds around it.
type SearchRequest struct {
	search.Request
	// Rev is the commit to search (any revision; "" = HEAD).
	Rev string
	// NoIndex fails instead of indexing a commit not indexed yet.
	NoIndex bool
	// Worktree searches HEAD with the working tree's uncommitted files on
	// top, read from disk and analyzed on the fly; nothing is written.
	Worktree bool
	// Rerank is "off", "llm" or "endpoint"; "" = kb.rerank.mode, else off.
	// A reranked search ranks max(K, RerankDepth) and keeps K.
	Rerank string
	// MinScore drops reranked results the judge scored below it (0-10);
	// without a rerank it is a usage error.
	MinScore float64
}

// Search resolves the commit, makes sure it is indexed, searches it and
// reranks the results when asked. A failing judge leaves fusion order and
// says so in Degraded.
func (k *Engine) Search(ctx context.Context, r SearchRequest) (*search.Response, error) {
	// The judge's scores run from 0 to 10 (an endpoint's 0-1 scaled to
	// them): a bound outside keeps everything or drops everything, and
	// NaN, which no score is below, keeps everything too.
	if !(r.MinScore >= 0 && r.MinScore <= 10) {
		return nil, Usagef("--min-score %g is outside the judge's scale of 0 to 10 (an endpoint's 0-1 relevance is scaled to it: 0.5 is 5)", r.MinScore)
	}
	mode, err := k.RerankMode(r.Rerank)
	if err != nil {
		return nil, err
	}
	// MinScore filters by the judge's score: with no judge it would be
	// silently ignored.
	if r.MinScore != 0 && mode == "off" {
		how := "add --rerank llm (the chat model judges) or --rerank endpoint (a /rerank API), or git config kb.rerank.mode llm to rerank by default"
		if r.Rerank != "" {
			how = fmt.Sprintf("--rerank %s turns the judge off; use --rerank llm or --rerank endpoint, or drop --min-score", r.Rerank)
		}
		return nil, Usagef("--min-score %g drops results the judge scored below it, but nothing reranks this search: %s", r.MinScore, how)
	}
	req, want := r.Request, r.K
	var judge rerank.Scorer
	if mode != "off" {
		if judge, err = k.Scorer(mode, req.Query); err != nil {
			return nil, err
		}
		req.K = max(req.K, RerankDepth)
	}
	resp, err := k.search(ctx, req, r.Rev, r.NoIndex, r.Worktree)
	if err != nil {
		return nil, err
	}
	if judge != nil {
		k.ApplyRerank(ctx, resp, judge, mode, req.Query, want, r.MinScore)
	}
	return resp, nil
}

// search resolves the commit, makes sure it is indexed and searches it.
func (k *Engine) search(ctx context.Context, req search.Request, rev string, noIndex, worktree bool) (*search.Response, error) {
	if err := k.CheckMode(req.Mode); err != nil {
		return nil, err
	}
	if worktree && rev != "" && rev != "HEAD" {
		return nil, Usagef("--worktree searches HEAD and the working tree: leave out --rev %s", rev)
	}
	if rev == "" {
		rev = "HEAD"
	}
	// git starts while the index opens and the search ranks; snippets
	// read from it. Started after the view opened, it was still starting
	// when the first snippet asked on the docs corpus.
	blobs := k.Repo.NewBlobReader()
	blobs.Start()
	v, err := k.openViewWith(ctx, rev, noIndex, blobs)
	if err != nil {
		if !k.opt.Exiting {
			blobs.Close()
		}
		return nil, err
	}
	defer v.Close()
	if worktree {
		if req.Overlay, err = k.worktreeOverlay(ctx, v.View); err != nil {
			return nil, fmt.Errorf("--worktree: %w", err)
		}
		if len(req.Overlay.Files)+len(req.Overlay.Gone) == 0 {
			k.opt.note("--worktree: no uncommitted changes; searching HEAD as committed")
		}
	}
	return v.Search(ctx, req)
}

// Status reports what is indexed: views, sizes, format versions, and
// whether dense retrieval is on and how far HEAD's vectors are.
func (k *Engine) Status(ctx context.Context) (*index.Report, error) {
	emb, err := k.Embed.Embedder(false)
	if err != nil {
		return nil, err
	}
	return index.Status(ctx, k.Repo, emb, k.Embed.Off, LockWait)
}
