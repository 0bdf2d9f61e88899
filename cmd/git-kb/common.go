package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/settings"
	"io"
	"sort"
	"strings"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
	"github.com/urfave/cli/v2"
)

// lockWait bounds how long a command waits for another git-kb process.
const lockWait = engine.LockWait

var (
	revFlag     = &cli.StringFlag{Name: "rev", Aliases: []string{"r"}, Value: "HEAD", Usage: "the commit to work on (any git revision: a branch, tag, SHA, HEAD~3)"}
	jsonFlag    = &cli.BoolFlag{Name: "json", Usage: "print one JSON object on stdout instead of text"}
	quietFlag   = &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress or notices on stderr"}
	verboseFlag = &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print where the time went, per stage, on stderr"}
)

func openRepo(e env) (*gitx.Repo, error) {
	return gitx.Open(e.Dir)
}

// friendly turns known errors into what the user should do.
func friendly(err error) error { return engine.Friendly(err) }

// notifier prints one-line notices to stderr unless quiet.
func notifier(e env, quiet bool) func(format string, a ...any) {
	return func(format string, a ...any) {
		if !quiet {
			fmt.Fprintf(e.Stderr, "git kb: "+format+"\n", a...)
		}
	}
}

// runIndex indexes rev with a progress bar on a TTY stderr.
func runIndex(ctx context.Context, e env, repo *gitx.Repo, rev string, quiet bool) (*index.Stats, error) {
	return engine.IndexCommit(ctx, repo, rev, engineOptions(e, quiet))
}

// readEmbedConfig reads the settings (one git call) and picks out the
// embedder's.
func readEmbedConfig(ctx context.Context, e env, repo *gitx.Repo) (*engine.EmbedConfig, error) {
	s, err := settings.Load(ctx, repo, e.getenv)
	if err != nil {
		return nil, err
	}
	return engine.EmbedConfigOf(s), nil
}

// configuredEmbedder reads kb.embed.* and builds the query-side embedder
// (nil when dense is off; cfg.Off says why).
func configuredEmbedder(ctx context.Context, e env, repo *gitx.Repo) (*engine.EmbedConfig, llm.Embedder, error) {
	cfg, err := readEmbedConfig(ctx, e, repo)
	if err != nil {
		return nil, nil, err
	}
	emb, err := cfg.Embedder(false)
	return cfg, emb, err
}

// embedAfterIndex runs or schedules embedding of an indexed commit when an
// embedder is configured.
func embedAfterIndex(ctx context.Context, e env, repo *gitx.Repo, cfg *engine.EmbedConfig, st *index.Stats, mode string, quiet bool) error {
	return engine.EmbedAfterIndex(ctx, repo, cfg, st, mode, engineOptions(e, quiet))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printTimings(w io.Writer, what string, t map[string]float64) {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return t[keys[i]] > t[keys[j]] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.1fms", k, t[k]))
	}
	fmt.Fprintf(w, "timings (%s): %s\n", what, strings.Join(parts, ", "))
}

// humanBytes is store.HumanBytes: one way of printing sizes in every message.
func humanBytes(n int64) string { return store.HumanBytes(n) }

// worktreeFlag is --worktree, for search, context and ask.
var worktreeFlag = &cli.BoolFlag{Name: "worktree", Usage: "search HEAD plus the working tree's uncommitted files (modified, added, untracked; cited as worktree:PATH)"}

// jsonFormatFlag is --json on commands whose output is chosen by --format:
// every command with a machine-readable output takes --json the same way.
var jsonFormatFlag = &cli.BoolFlag{Name: "json", Usage: "the same as --format json"}

// formatOf is --format, or json with --json; the two may not disagree.
func formatOf(c *cli.Context) (string, error) {
	format := c.String("format")
	if !c.Bool("json") {
		return format, nil
	}
	if c.IsSet("format") && format != "json" {
		return "", usagef("--json and --format %s disagree: give one of them", format)
	}
	return "json", nil
}
