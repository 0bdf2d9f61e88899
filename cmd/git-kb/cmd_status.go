package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
	"github.com/urfave/cli/v2"
)

type statusView struct {
	Commit  string         `json:"commit"`
	Tree    string         `json:"tree"`
	Indexed time.Time      `json:"indexed_at"`
	Files   int            `json:"files"`
	Chunks  uint32         `json:"chunks"`
	Terms   uint64         `json:"terms"`
	Skipped map[string]int `json:"skipped,omitempty"`
	IsHead  bool           `json:"head,omitempty"`
}

type statusReport struct {
	Dir       string       `json:"dir"`
	Exists    bool         `json:"exists"`
	SizeBytes int64        `json:"size_bytes"`
	Format    int          `json:"format"`
	Pipeline  int          `json:"pipeline"`
	HeadIndex bool         `json:"head_indexed"`
	Head      string       `json:"head,omitempty"`
	Views     []statusView `json:"views"`
	Dense     statusDense  `json:"dense"`
}

type statusDense struct {
	On          bool   `json:"on"`
	Model       string `json:"model,omitempty"`
	Off         string `json:"off_reason,omitempty"`
	HeadVectors int    `json:"head_vectors"`
	HeadChunks  int    `json:"head_chunks"`
}

func statusCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show what is indexed: commits, sizes, format versions",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			rep := statusReport{Dir: index.DBDir(repo), Views: []statusView{}, Pipeline: index.PipelineVersion, Format: store.FormatVersion}
			head, _, herr := repo.Resolve(c.Context, "HEAD")
			if herr == nil {
				rep.Head = head.String()
			}
			db, err := store.Open(c.Context, rep.Dir, store.Options{ReadOnly: true, Wait: lockWait})
			if errors.Is(err, store.ErrNoIndex) {
				if c.Bool("json") {
					return writeJSON(e.Stdout, rep)
				}
				fmt.Fprintf(e.Stdout, "no index yet in %s\nrun: git kb index   (or just git kb search \"...\")\n", rep.Dir)
				return nil
			}
			if err != nil {
				return err
			}
			defer db.Close()
			rep.Exists = true
			cfg, err := readEmbedConfig(c.Context, e, repo)
			if err != nil {
				return err
			}
			emb, err := cfg.embedder(false)
			if err != nil {
				return err
			}
			rep.Dense.On, rep.Dense.Off = emb != nil, cfg.Off
			rep.SizeBytes = db.Size()
			rep.Format, rep.Pipeline = db.Format.Format, db.Format.Pipeline
			refs, err := db.Refs()
			if err != nil {
				return err
			}
			for _, r := range refs {
				v, err := db.View(index.PipelineVersion, r.Tree)
				if err != nil {
					continue
				}
				sv := statusView{Commit: hex.EncodeToString(r.Commit[:]), Tree: hex.EncodeToString(r.Tree[:]), Indexed: r.Indexed,
					Files: v.Stats.Indexed, Chunks: v.Chunks, Terms: v.FieldLen[store.FieldBody], Skipped: v.Stats.Skipped}
				sv.IsHead = sv.Commit == rep.Head
				rep.HeadIndex = rep.HeadIndex || sv.IsHead
				if sv.IsHead && emb != nil {
					rep.Dense.Model, rep.Dense.HeadChunks = emb.ID(), int(v.Chunks)
					if rep.Dense.HeadVectors, err = index.Coverage(db, index.ModelKey(emb), v); err != nil {
						return err
					}
				}
				rep.Views = append(rep.Views, sv)
			}
			if c.Bool("json") {
				return writeJSON(e.Stdout, rep)
			}
			fmt.Fprintf(e.Stdout, "index:    %s (%s on disk)\n", rep.Dir, humanBytes(rep.SizeBytes))
			fmt.Fprintf(e.Stdout, "format:   %d, pipeline %d (this git-kb: %d, %d)\n", rep.Format, rep.Pipeline, store.FormatVersion, index.PipelineVersion)
			headState := "not indexed (next search indexes it)"
			if rep.HeadIndex {
				headState = "indexed"
			}
			if rep.Head != "" {
				fmt.Fprintf(e.Stdout, "HEAD:     %s %s\n", rep.Head[:12], headState)
			}
			if rep.Dense.On {
				fmt.Fprintf(e.Stdout, "dense:    on, %s; HEAD has vectors for %d of %d chunks\n", rep.Dense.Model, rep.Dense.HeadVectors, rep.Dense.HeadChunks)
			} else {
				fmt.Fprintf(e.Stdout, "dense:    off: %s\n", rep.Dense.Off)
			}
			fmt.Fprintf(e.Stdout, "views:    %d indexed commits\n", len(rep.Views))
			for _, v := range rep.Views {
				mark := " "
				if v.IsHead {
					mark = "*"
				}
				fmt.Fprintf(e.Stdout, " %s %s  tree %s  %s  %d files, %d chunks, %d terms\n", mark, v.Commit[:12], v.Tree[:12], v.Indexed.Local().Format("2006-01-02 15:04:05"), v.Files, v.Chunks, v.Terms)
			}
			return nil
		},
	}
}
