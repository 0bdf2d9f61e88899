package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/settings"

	"github.com/urfave/cli/v2"
)

func indexCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "index",
		Usage:     "index the files of a commit (HEAD by default)",
		ArgsUsage: " ",
		Description: `Reads the tree of the commit and indexes every tracked text file that is
not skipped: binaries, files over kb.maxFileSize (default 1 MiB; e.g.
'git config kb.maxFileSize 4m'), vendored trees (vendor/, node_modules/,
third_party/, lock files, *.min.js), secret-looking files (.env, *.pem,
id_rsa...) and paths matched by a .kbignore file (gitignore syntax) in the
commit. GBK/GB18030 files are decoded to UTF-8.

Work is keyed by blob SHA: a file version is chunked and analyzed once,
whatever commit or path it appears under. Indexing the same commit again
does nothing; after a commit that changes one file, one blob is read.

With an embedder configured (kb.embed.*, see 'git kb search --help'), the
new chunks are then embedded: the lexical index is searchable first, and
vectors fill in. --embed sync waits for them (the default when run by
hand), --embed background hands them to a detached process that logs to
.git/kb/embed.log (the default when run from a git hook), --embed off
skips them. Embeddings are cached by the text they were made from, so
unchanged text is never embedded twice; an interrupted run keeps what it
finished.

One index or gc runs at a time. While another holds the lock, index waits
for it, up to --wait (default 2m; 0: not at all), after a second naming
the process that holds it (and saying when it is stopped, as by ^Z); then
it exits 1 with what to do.

Examples:
  git kb index                 # HEAD
  git kb index --rev v1.2.0    # a tag
  git kb index --json          # stats for scripts
  git kb index --wait 30m      # behind a long run, wait for it`,
		Flags: []cli.Flag{revFlag, jsonFlag, quietFlag, verboseFlag,
			&cli.StringFlag{Name: "embed", Usage: "sync, background or off (default: background from a git hook, else sync)"},
			&cli.BoolFlag{Name: "rebuild", Usage: "index HEAD afresh in place of the index (a damaged one is kept under .git/kb/damaged); cached embeddings are kept"},
			&cli.StringFlag{Name: "wait", Value: lockWait.String(), Usage: "how long to wait while another git kb index or gc runs (e.g. 30s, 10m; 0: do not wait)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("index takes no arguments (did you mean --rev %s?)", c.Args().First())
			}
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			mode := c.String("embed")
			switch mode {
			case "":
				mode = "sync"
				if e.getenv("GIT_KB_HOOK") != "" {
					mode = "background"
				}
			case "sync", "background", "off":
			default:
				return usagef("--embed %s: want sync, background or off", mode)
			}
			wait, err := settings.ParseSeconds(c.String("wait"))
			if err != nil {
				return usagef("--wait %s: want a duration like 30s or 10m, or 0 not to wait", c.String("wait"))
			}
			if wait == 0 {
				wait = -1 // engine.Options: no wait
			}
			quiet := c.Bool("quiet") || c.Bool("json")
			o := engineOptions(e, quiet)
			o.Wait = wait
			if c.Bool("rebuild") {
				if rev := c.String("rev"); rev != "HEAD" {
					return usagef("--rebuild indexes HEAD afresh; index --rev %s after it", rev)
				}
				cfg, err := readEmbedConfig(c.Context, e, repo)
				if err != nil {
					return err
				}
				if mode == "off" {
					cfg = &engine.EmbedConfig{Off: "--embed off"}
				}
				return rebuild(c.Context, e, repo, cfg, quiet, wait, false)
			}
			st, err := engine.IndexCommit(c.Context, repo, c.String("rev"), o)
			if err != nil {
				return err
			}
			if st.MemoryNote != "" && !c.Bool("quiet") {
				fmt.Fprintln(e.Stderr, "git kb: "+st.MemoryNote)
			}
			if mode != "off" {
				cfg, err := readEmbedConfig(c.Context, e, repo)
				if err != nil {
					return err
				}
				if err := engine.EmbedAfterIndex(c.Context, repo, cfg, st, mode, o); err != nil {
					return err
				}
			}
			if c.Bool("verbose") {
				printTimings(e.Stderr, "index", st.Timings)
			}
			if c.Bool("json") {
				return writeJSON(e.Stdout, st)
			}
			if st.AlreadyIndexed {
				fmt.Fprintf(e.Stdout, "commit %s already indexed: %d files, %d chunks (0 blobs processed)\n", st.Commit[:12], st.Indexed, st.Chunks)
				printEmbed(e, st)
				return nil
			}
			fmt.Fprintf(e.Stdout, "indexed commit %s (tree %s) in %.2fs\n", st.Commit[:12], st.Tree[:12], st.Seconds)
			fmt.Fprintf(e.Stdout, "  files:  %d in tree, %d indexed%s\n", st.Files, st.Indexed, skippedText(st.Skipped))
			fmt.Fprintf(e.Stdout, "  blobs:  %d new, %d reused (%s read)\n", st.BlobsNew, st.BlobsReused, humanBytes(st.BytesRead))
			fmt.Fprintf(e.Stdout, "  chunks: %d in view, %d new\n", st.Chunks, st.NewChunks)
			fmt.Fprintf(e.Stdout, "  terms:  %d analyzed, %d distinct\n", st.Terms, st.UniqueTerms)
			printEmbed(e, st)
			return nil
		},
	}
}

func skippedText(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(parts)
	return ", skipped " + strings.Join(parts, ", ")
}

func printEmbed(e env, st *index.Stats) {
	if st.EmbedBackground {
		fmt.Fprintf(e.Stdout, "  vectors: embedding in the background (log: .git/kb/embed.log)\n")
	}
	if es := st.Embed; es != nil {
		fmt.Fprintf(e.Stdout, "  vectors: %s, %d dims: %d chunks, %d already done, %d from cache, %d embedded in %.2fs\n",
			es.Model, es.Dim, es.Chunks, es.Ready, es.Cached, es.Embedded, es.Seconds)
	}
}
