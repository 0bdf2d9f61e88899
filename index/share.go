package index

import (
	"context"
	"sort"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// What package share needs of the pipeline: the same file filter, the
// same embedding-cache keys and the same analysis of one blob, so that
// what is pushed is what this machine would index, and what is pulled can
// be checked against what this machine would make.

// Filter returns the indexer's file filter for commit (.kbignore of that
// commit, kb.maxFileSize, vendored, binary and secret-looking paths): the
// reason a file is skipped, or "".
func Filter(ctx context.Context, repo *gitx.Repo, commit gitx.Hash) (func(path string, mode uint32, size int64) string, error) {
	maxSize, err := configSize(ctx, repo)
	if err != nil {
		return nil, err
	}
	kbignore := ""
	if _, b, err := repo.FileAt(commit, ".kbignore"); err == nil {
		kbignore = string(b)
	}
	f := newFilter(maxSize, kbignore)
	if f.pol, err = SecretsPolicy(ctx, repo); err != nil {
		return nil, err
	}
	return f.skip, nil
}

// ChunkVecKey is the embedding-cache key of chunk i of a blob.
func ChunkVecKey(m *store.BlobMeta, i int) store.VecKey {
	c := m.Chunks[i]
	return vecKeyOf(m.Title, c.Heading, c.Hash)
}

// TermTF is one term of a chunk and its frequency in each field.
type TermTF struct {
	Term string
	TF   [store.NumFields]uint16
}

// Analysis is what the indexer makes of one blob: its header (segment
// and ordinals unset), metadata, and per chunk its terms (sorted) and
// body length.
type Analysis struct {
	Header store.BlobHeader
	Meta   *store.BlobMeta
	Chunks [][]TermTF
	Lens   []uint32
}

// Analyzer analyzes single blobs as the indexer does, with the
// repository's secrets policy.
type Analyzer struct {
	an  *segment.Analyzer
	pol *secrets.Policy
	tm  *timer
}

// NewAnalyzer builds an Analyzer for repo; many says it will analyze
// enough text for the full dictionary's load to pay (both give the same
// terms).
func NewAnalyzer(ctx context.Context, repo *gitx.Repo, many bool) (*Analyzer, error) {
	pol, err := SecretsPolicy(ctx, repo)
	if err != nil {
		return nil, err
	}
	vocab, err := VocabInForce(ctx, repo)
	if err != nil {
		return nil, err
	}
	an := vocab.Tiny()
	if many {
		an = vocab.Full()
	}
	return &Analyzer{an: an, pol: pol, tm: &timer{m: map[string]time.Duration{}}}, nil
}

// Analyze analyzes one blob found at path.
func (a *Analyzer) Analyze(path string, blob store.SHA, data []byte) *Analysis {
	r := analyze(a.an, a.tm, a.pol, path, blob, data)
	out := &Analysis{Header: r.header, Meta: r.meta, Lens: r.lens}
	for _, c := range r.chunks {
		ts := make([]TermTF, len(c))
		for i, t := range c {
			ts[i] = TermTF{t.term, t.tf}
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i].Term < ts[j].Term })
		out.Chunks = append(out.Chunks, ts)
	}
	return out
}
