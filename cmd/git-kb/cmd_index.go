package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/index"

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

Examples:
  git kb index                 # HEAD
  git kb index --rev v1.2.0    # a tag
  git kb index --json          # stats for scripts`,
		Flags: []cli.Flag{revFlag, jsonFlag, quietFlag, verboseFlag,
			&cli.StringFlag{Name: "embed", Usage: "sync, background or off (default: background from a git hook, else sync)"},
			&cli.BoolFlag{Name: "rebuild", Usage: "move the index aside (to .git/kb/damaged) and index HEAD afresh; cached embeddings are kept"},
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
			quiet := c.Bool("quiet") || c.Bool("json")
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
				return rebuild(c.Context, e, repo, cfg, quiet)
			}
			st, err := runIndex(c.Context, e, repo, c.String("rev"), quiet)
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
				if err := embedAfterIndex(c.Context, e, repo, cfg, st, mode, quiet); err != nil {
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
