package index

import (
	"context"
	"encoding/hex"
	"errors"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/store"
)

// Report is what is indexed: the `git kb status --json` contract, and the
// MCP index_status tool's output.
type Report struct {
	Dir       string `json:"dir"`
	Exists    bool   `json:"exists"`
	SizeBytes int64  `json:"size_bytes"`
	// Segments is how many committed segments the index holds (one per
	// indexing run that read new blobs, until gc drops unused ones).
	Segments int `json:"segments"`
	Format   int `json:"format"`
	// Pipeline is the pipeline version of the views listed: this
	// git-kb's, which is all it reads. CreatedPipeline is the one the
	// index was created with, and OlderData / NewerData say whether
	// records of an older git-kb (git kb gc drops them) or a newer one
	// (left alone) are there too.
	Pipeline        int    `json:"pipeline"`
	CreatedPipeline int    `json:"created_pipeline"`
	OlderData       bool   `json:"older_pipeline_data"`
	NewerData       bool   `json:"newer_pipeline_data"`
	HeadIndex       bool   `json:"head_indexed"`
	Head            string `json:"head,omitempty"`
	// LastIndexed is the most recently indexed commit, and Behind how many
	// commits HEAD is ahead of it (-1: unknown, e.g. unrelated history).
	LastIndexed string       `json:"last_indexed,omitempty"`
	Behind      int          `json:"behind_head"`
	Views       []ReportView `json:"views"`
	Dense       ReportDense  `json:"dense"`
}

// ReportView is one indexed commit.
type ReportView struct {
	Commit  string         `json:"commit"`
	Tree    string         `json:"tree"`
	Indexed time.Time      `json:"indexed_at"`
	Files   int            `json:"files"`
	Chunks  uint32         `json:"chunks"`
	Terms   uint64         `json:"terms"`
	Skipped map[string]int `json:"skipped,omitempty"`
	IsHead  bool           `json:"head,omitempty"`
	// Origin says where the view's data came from (git kb pull); absent
	// when it was indexed on this machine.
	Origin *store.Origin `json:"origin,omitempty"`
}

// ReportDense is the state of dense retrieval.
type ReportDense struct {
	On          bool   `json:"on"`
	Model       string `json:"model,omitempty"`
	Off         string `json:"off_reason,omitempty"`
	HeadVectors int    `json:"head_vectors"`
	HeadChunks  int    `json:"head_chunks"`
}

// Status reports the index of repo. emb is the configured embedder (nil:
// dense is off, for the reason denseOff).
func Status(ctx context.Context, repo *gitx.Repo, emb llm.Embedder, denseOff string, wait time.Duration) (*Report, error) {
	rep := &Report{Dir: DBDir(repo), Views: []ReportView{}, Pipeline: PipelineVersion, Format: store.FormatVersion, Behind: -1}
	rep.Dense.On, rep.Dense.Off = emb != nil, denseOff
	if emb != nil {
		rep.Dense.Model = emb.ID()
	}
	head, _, err := repo.Resolve(ctx, "HEAD")
	switch {
	case err == nil:
		rep.Head = head.String()
	case errors.Is(err, gitx.ErrNotARepo):
		// Deleted while a server ran: no status to report.
		return nil, err
	}
	db, err := store.Open(ctx, rep.Dir, store.Options{ReadOnly: true, Wait: wait})
	if errors.Is(err, store.ErrNoIndex) {
		return rep, nil
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rep.Exists = true
	rep.SizeBytes = db.Size()
	rep.Format, rep.CreatedPipeline = db.Format.Format, db.Format.Pipeline
	if rep.OlderData, rep.NewerData, err = db.OtherPipelines(PipelineVersion); err != nil {
		return nil, err
	}
	segs, err := db.Segments()
	if err != nil {
		return nil, err
	}
	rep.Segments = len(segs)
	refs, err := db.Refs()
	if err != nil {
		return nil, err
	}
	var last time.Time
	for _, r := range refs {
		v, err := db.View(PipelineVersion, r.Tree)
		if err != nil {
			continue
		}
		rv := ReportView{Commit: hex.EncodeToString(r.Commit[:]), Tree: hex.EncodeToString(r.Tree[:]), Indexed: r.Indexed,
			Files: v.Stats.Indexed, Chunks: v.Chunks, Terms: v.FieldLen[store.FieldBody], Skipped: v.Stats.Skipped}
		rv.IsHead = rv.Commit == rep.Head
		if o, err := db.Origin(PipelineVersion, r.Tree); err == nil {
			rv.Origin = o
		}
		rep.HeadIndex = rep.HeadIndex || rv.IsHead
		// Times are stored in seconds; on a tie, HEAD's view is the newer.
		if r.Indexed.After(last) || r.Indexed.Equal(last) && rv.IsHead {
			last, rep.LastIndexed = r.Indexed, rv.Commit
		}
		if rv.IsHead && emb != nil {
			rep.Dense.HeadChunks = int(v.Chunks)
			if rep.Dense.HeadVectors, err = Coverage(db, ModelKey(emb), v); err != nil {
				return nil, err
			}
		}
		rep.Views = append(rep.Views, rv)
	}
	switch {
	case rep.HeadIndex:
		rep.Behind = 0
	case rep.LastIndexed != "" && rep.Head != "":
		if n, err := repo.CountCommits(ctx, rep.LastIndexed, rep.Head); err == nil {
			rep.Behind = n
		}
	}
	return rep, nil
}
