package main

import (
	"fmt"
	"strings"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
	"github.com/urfave/cli/v2"
)

func statusCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show what is indexed: commits, sizes, format versions",
		Description: `Prints, one line each:
  index    where the index is, its size on disk and its segments (one per
           indexing run; git kb gc drops those no kept commit uses)
  format   the index's format and pipeline versions, this git-kb's in
           parentheses; after an upgrade, the pipeline the index was
           created with and whether an older git-kb's records are left
           (git kb gc drops them)
  HEAD     whether HEAD is indexed (else the next search indexes it)
  dense    vector search on or off (and why), HEAD's vector coverage
  views    each indexed commit (* is HEAD): its tree, when it was indexed,
           its files, chunks and terms, and whether it was indexed here or
           pulled from a remote (git kb pull)

--json has the same for scripts, plus last_indexed and behind_head (how
many commits HEAD is ahead of the last indexed one; 0 = fresh).`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			noticeGoneHooks(e, repo)
			kb, err := engine.Open(c.Context, repo, engineOptions(e, true))
			if err != nil {
				return err
			}
			rep, err := kb.Status(c.Context)
			if err != nil {
				return err
			}
			if !rep.Exists && !c.Bool("json") {
				fmt.Fprintf(e.Stdout, "no index yet in %s\nrun: git kb index   (or just git kb search \"...\")\n", rep.Dir)
				return nil
			}
			if c.Bool("json") {
				return writeJSON(e.Stdout, rep)
			}
			segs := "segments"
			if rep.Segments == 1 {
				segs = "segment"
			}
			fmt.Fprintf(e.Stdout, "index:    %s (%s on disk, %d %s)\n", rep.Dir, humanBytes(rep.SizeBytes), rep.Segments, segs)
			fmt.Fprintf(e.Stdout, "format:   %d, pipeline %d (this git-kb: %d, %d)%s\n", rep.Format, rep.Pipeline, store.FormatVersion, index.PipelineVersion, pipelineNote(rep))
			headState := "not indexed (next search indexes it)"
			switch {
			case rep.HeadIndex:
				headState = "indexed"
			case rep.Behind > 0:
				headState = fmt.Sprintf("not indexed, %d commits ahead of the last indexed one (next search indexes it)", rep.Behind)
			}
			if rep.Head != "" {
				fmt.Fprintf(e.Stdout, "HEAD:     %s %s\n", rep.Head[:12], headState)
			}
			if rep.Dense.On {
				fmt.Fprintf(e.Stdout, "dense:    on, %s; HEAD has vectors for %d of %d chunks\n", rep.Dense.Model, rep.Dense.HeadVectors, rep.Dense.HeadChunks)
			} else {
				fmt.Fprintf(e.Stdout, "dense:    off: %s\n", rep.Dense.Off)
			}
			commits := "commits"
			if len(rep.Views) == 1 {
				commits = "commit"
			}
			fmt.Fprintf(e.Stdout, "views:    %d indexed %s\n", len(rep.Views), commits)
			for _, v := range rep.Views {
				mark := " "
				if v.IsHead {
					mark = "*"
				}
				fmt.Fprintf(e.Stdout, " %s %s  tree %s  %s  %d files, %d chunks, %d terms\n", mark, v.Commit[:12], v.Tree[:12], v.Indexed.Local().Format("2006-01-02 15:04:05"), v.Files, v.Chunks, v.Terms)
				if o := v.Origin; o != nil {
					fmt.Fprintf(e.Stdout, "     from %s %s (commit %s, view of %s): %d files' data pulled, %d indexed here, %d vectors pulled\n",
						o.Remote, o.Ref, short12(o.KBCommit), short12(o.Commit), o.Imported, o.Local, o.Vectors)
				} else {
					fmt.Fprintf(e.Stdout, "     indexed here\n")
				}
			}
			return nil
		},
	}
}

func short12(s string) string { return s[:min(12, len(s))] }

// pipelineNote says what else the index holds besides this git-kb's
// records: the pipeline it was created with, when older, and an older or
// a newer git-kb's data.
func pipelineNote(rep *index.Report) string {
	var notes []string
	if rep.CreatedPipeline != 0 && rep.CreatedPipeline != rep.Pipeline {
		notes = append(notes, fmt.Sprintf("created at pipeline %d", rep.CreatedPipeline))
	}
	if rep.OlderData {
		notes = append(notes, "an older git-kb's records are left (git kb gc drops them)")
	}
	if rep.NewerData {
		notes = append(notes, "a newer git-kb's records too (left alone)")
	}
	if len(notes) == 0 {
		return ""
	}
	return "; " + strings.Join(notes, "; ")
}
