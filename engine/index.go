package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
)

// IndexCommit indexes rev, with o's notices and progress.
func IndexCommit(ctx context.Context, repo *gitx.Repo, rev string, o Options) (*index.Stats, error) {
	DefaultGC() // a search that indexes first: indexing's heap is not a search's
	update, done := o.progress()
	defer done()
	st, err := index.Run(ctx, repo, index.Options{
		Rev:       rev,
		Wait:      o.lockWait(),
		Version:   o.Version,
		OnWait:    func(what string) { o.note("waiting for %s...", what) },
		Progress:  update,
		KeepCores: o.Server,
	})
	if err == nil && (st.OlderPipelines || st.GCUnfinished) {
		// An upgrade's rebuild: the older version's records are as big as
		// the new index (Go's source: 133 MB beside 41 MB) and dropping
		// them takes a third of the rebuild's time, so that runs after
		// this command, in the background, as git's own gc --auto does.
		// Or a gc that was killed: what it dropped takes its space until
		// the compaction it never reached.
		what := "dropping an older git-kb's index data"
		if !st.OlderPipelines {
			what = "finishing a git kb gc that did not end"
		}
		if serr := spawnDetached(repo, "gc.log", what, "gc", "--auto", "--quiet"); serr != nil {
			o.note("could not start git kb gc --auto (%v): run git kb gc --auto for %s", serr, what)
		} else {
			st.GCBackground = true
			o.note("%s in the background (git kb gc --auto, log: .git/kb/gc.log)", what)
		}
	}
	return st, err
}

// SearchGCPercent is the collector's GOGC for a one-shot search. Its heap
// stays small (at most ~6 MB live on Go's source) and it ends within a
// second, yet at the default 100 (a cycle every 4 MB at first) the
// collector ran 4 cycles per search, 12-16% of its CPU; at 400 it ran
// once or not at all, for 3 MB more RSS (bench/cold_search.py
// --old-env GOGC=100, issue 16). 800 measured better again once snippets'
// blobs were read in process (two runs, --new-env GOGC=800 against 400,
// quiet machine: CPU 0.95x docs, 0.98x Go's source; peak RSS on Go's
// source 60-75 MB either way); off or 1600 let Go's source's heap grow
// into fresh huge pages, which the kernel zeroes: 1.10-1.15x there.
const SearchGCPercent = 800

// LighterGC sets SearchGCPercent for the rest of a one-shot search
// process, unless the user set GOGC; IndexCommit puts the default back.
func LighterGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(SearchGCPercent)
	}
}

// DefaultGC puts the collector back to Go's default, unless the user set
// GOGC.
func DefaultGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
}

// EmbedAfterIndex runs (mode "sync") or schedules (mode "background") the
// embedding of an indexed commit when an embedder is configured.
func EmbedAfterIndex(ctx context.Context, repo *gitx.Repo, cfg *EmbedConfig, st *index.Stats, mode string, o Options) error {
	emb, err := cfg.Embedder(true)
	if err != nil || emb == nil {
		return err
	}
	if mode == "background" {
		if err := spawnDetached(repo, "embed.log", "embedding "+st.Commit, "index", "--rev", st.Commit, "--embed", "sync", "--quiet"); err != nil {
			return fmt.Errorf("start background embedding: %w", err)
		}
		st.EmbedBackground = true
		return nil
	}
	update, done := o.progress()
	es, err := index.Embed(ctx, repo, index.EmbedOptions{
		Rev: st.Commit, Embedder: emb, Wait: o.lockWait(), GraphMin: cfg.GraphMin,
		OnWait:   func(what string) { o.note("waiting for %s...", what) },
		Progress: update,
	})
	done()
	if err != nil {
		return fmt.Errorf("embedding (the lexical index is complete and searchable): %w", err)
	}
	st.Embed = es
	return nil
}

// spawnDetached starts a detached "git-kb ARGS..." in repo, appending its
// output to kb/LOG (kept under 1 MiB) after a line that says what it is.
func spawnDetached(repo *gitx.Repo, log, what string, args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// Only git-kb itself: a program that embeds the engine (a Go test
	// binary, which runs its whole suite whatever the arguments) would
	// run itself again, detached, and perhaps spawn again from there.
	if name := strings.TrimSuffix(filepath.Base(exe), ".exe"); name != "git-kb" {
		return fmt.Errorf("%s is not the git-kb binary", filepath.Base(exe))
	}
	logPath := filepath.Join(repo.KBDir(), log)
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > 1<<20 {
		os.Rename(logPath, logPath+".1")
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "%s %s\n", time.Now().Format(time.RFC3339), what)
	cmd := exec.Command(exe, args...)
	cmd.Dir = repo.WorkTree
	if cmd.Dir == "" {
		cmd.Dir = repo.GitDir // bare repository
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	Detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
