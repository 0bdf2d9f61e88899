package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
	"github.com/urfave/cli/v2"
)

// lockWait bounds how long a command waits for another git-kb process.
const lockWait = 2 * time.Minute

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
func friendly(err error) error {
	if err == nil {
		return nil
	}
	err = store.Classify(err)
	switch {
	case errors.Is(err, gitx.ErrNotARepo):
		return fmt.Errorf("%w\nrun git kb inside a git repository, or use git -C <dir> kb ...", err)
	case errors.Is(err, gitx.ErrEmptyRepo):
		return fmt.Errorf("%w: nothing to index; commit some files first", err)
	case errors.Is(err, store.ErrLocked):
		return fmt.Errorf("%w for more than %s; try again when it has finished", err, lockWait)
	case errors.Is(err, index.ErrBusy):
		return fmt.Errorf("%w for more than %s", err, lockWait)
	case errors.Is(err, store.ErrDamaged):
		return fmt.Errorf("%w\nrun: git kb doctor --fix   (moves it aside and rebuilds it from git; cached embeddings are kept)", err)
	case errors.Is(err, syscall.ENOSPC):
		var se *store.SpaceError
		if !errors.As(err, &se) {
			return fmt.Errorf("the disk is full (%v); free some space and run the command again", firstLine(err))
		}
		return fmt.Errorf("%w; free some space and run the command again", se)
	case errors.Is(err, syscall.EROFS) || strings.Contains(err.Error(), "read-only file system"):
		return fmt.Errorf("cannot write the index: the file system is read-only (%v)", firstLine(err))
	case isMissingObject(err):
		return fmt.Errorf("a git object is missing from the repository (%s): a partial clone, or a damaged repository (run git fsck)", missingObject(err))
	case errors.Is(err, syscall.EIO) || strings.Contains(err.Error(), "input/output error"):
		return fmt.Errorf("the disk failed to read or write (%v); check the disk, then run: git kb doctor", firstLine(err))
	}
	return err
}

// isMissingObject recognises git failing on an object it does not have.
func isMissingObject(err error) bool {
	var ge *gitx.GitError
	var me *gitx.MissingObjectsError
	if errors.As(err, &me) {
		return true
	}
	return errors.As(err, &ge) && (strings.Contains(ge.Stderr, "unable to read") || strings.Contains(ge.Stderr, "bad object") ||
		strings.Contains(ge.Stderr, "missing blob") || strings.Contains(ge.Stderr, "does not exist") && strings.Contains(ge.Stderr, "object"))
}

func missingObject(err error) string {
	var me *gitx.MissingObjectsError
	if errors.As(err, &me) {
		return me.First
	}
	var ge *gitx.GitError
	errors.As(err, &ge)
	return firstLine(errors.New(strings.TrimPrefix(strings.TrimSpace(ge.Stderr), "fatal: ")))
}

// firstLine keeps an error to one line.
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

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
	note := notifier(e, quiet)
	bar := newProgress(e.Stderr, e.StderrTTY && !quiet)
	defer bar.done()
	return index.Run(ctx, repo, index.Options{
		Rev:      rev,
		Wait:     lockWait,
		Version:  version,
		OnWait:   func(what string) { note("waiting for %s...", what) },
		Progress: bar.update,
	})
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
