package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/review"
	"github.com/git-kb/git-kb/search"
)

// File reads path as tracked at rev: the commit, the blob and the bytes.
// An untracked path is an error wrapping gitx.ErrNoSuchPath.
func (k *Engine) File(ctx context.Context, rev, path string) (commit, blob string, data []byte, err error) {
	c, _, err := k.Repo.Resolve(ctx, rev)
	if err != nil {
		return "", "", nil, err
	}
	b, data, err := k.Repo.FileAt(c, path)
	if errors.Is(err, gitx.ErrNoSuchPath) {
		return "", "", nil, untracked(fmt.Sprintf("%s is not a file tracked at %s (%s): only tracked files can be read", path, rev, c.String()[:12]))
	}
	if err != nil {
		return "", "", nil, err
	}
	return c.String(), hex.EncodeToString(b[:]), data, nil
}

// untracked is File's error for a path not in the commit: worded for the
// user, and still gitx.ErrNoSuchPath to a caller deciding what an
// argument names (search.ReadCited).
type untracked string

func (e untracked) Error() string { return string(e) }
func (untracked) Unwrap() error   { return gitx.ErrNoSuchPath }

// Shared is an Engine kept for the life of a server (the MCP server's
// backend, one per served repository): safe for concurrent use, its
// decoded vectors (and HNSW graphs, when kb.ann.graphMin built them) kept
// warm between calls, errors worded for the user. It never reads a
// working tree.
type Shared struct {
	k *Engine
	// mu serialises calls: go-git's object reads are not safe for
	// concurrent use, and a local agent's calls rarely overlap.
	mu sync.Mutex
}

// NewShared keeps k for a server. k should be quiet (no Note, no
// Progress): a server's stdout or stderr may carry its protocol.
func NewShared(k *Engine) *Shared {
	if k.Dense != nil {
		// Decoded tables stay warm between calls, and graphs too when
		// kb.ann.graphMin asked for them to be built. (A CLI search never
		// loads graphs: reading one from the index on top of the table
		// cost more than the scan it saves; see docs/MEASURED.md.)
		k.Dense.Cache = &search.VectorCache{Graphs: k.Embed.GraphMin > 0}
	}
	return &Shared{k: k}
}

// Engine is the engine s serves.
func (s *Shared) Engine() *Engine { return s.k }

// Search runs req against rev ("" = HEAD), indexing rev first if it has
// not been. No rerank: an agent reranks itself.
func (s *Shared) Search(ctx context.Context, req search.Request, rev string) (*search.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	resp, err := s.k.Search(ctx, SearchRequest{Request: req, Rev: rev, Rerank: "off"})
	return resp, Friendly(err)
}

// OrgSearch searches every repository published to the org index
// (kb.org.url): no lock, as it reads nothing local.
func (s *Shared) OrgSearch(ctx context.Context, query, path, mode string, k int) (*search.Response, error) {
	resp, err := s.k.OrgSearch(ctx, OrgSearchRequest{Query: query, Path: path, Mode: mode, K: k})
	return resp, Friendly(err)
}

// OrgRepo is the name this repository is published under in the org
// index (kb.org.repo, else the origin remote's path): an org citation
// naming it is readable here.
func (s *Shared) OrgRepo(ctx context.Context) string {
	name, _ := s.k.OrgRepoName(ctx)
	return name
}

// File reads path as tracked at rev.
func (s *Shared) File(ctx context.Context, rev, path string) (string, string, []byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.k.File(ctx, rev, path)
}

// Status reports what is indexed.
func (s *Shared) Status(ctx context.Context) (*index.Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.k.Status(ctx)
}

// DenseOn says whether an embedder is configured.
func (s *Shared) DenseOn() bool { return s.k.Dense != nil }

// ContextPack packs the best of req's results into budget tokens, as JSON
// blocks, reranked as kb.rerank.mode says.
func (s *Shared) ContextPack(ctx context.Context, req search.Request, rev string, budget int) (*pack.Pack, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.k.ContextPack(ctx, ContextRequest{Request: req, Rev: rev, Budget: budget, Ratios: pack.DefaultRatios, Format: pack.JSON})
	return p, Friendly(err)
}

// BlameContext explains a change ("" = HEAD; staged: the index against
// HEAD), with 3 lines of context around each hunk.
func (s *Shared) BlameContext(ctx context.Context, change string, staged bool) (*review.Report, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep, err := s.k.BlameContext(ctx, BlameRequest{Change: change, Staged: staged, Context: 3})
	return rep, Friendly(err)
}
