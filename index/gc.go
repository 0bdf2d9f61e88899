package index

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/store"
)

// GCOptions say what a collection keeps. The views of branch heads and of
// HEAD are always kept.
type GCOptions struct {
	KeepRecent int  // also keep the N most recently indexed commits (still in git)
	KeepTags   bool // also keep the views of tagged commits
	// QueryCacheAge drops cached query vectors older than this (0: 30 days);
	// QueryModel, if set, is the model in use: other models' are dropped.
	QueryCacheAge time.Duration
	QueryModel    string
	DryRun        bool
	// Auto drops only what an upgrade of git-kb leaves: the records of
	// older pipeline versions (and the segments no view of this one
	// uses). Every view of this pipeline stays, whatever the commit, and
	// nothing is done when there are no older records or when a newer
	// git-kb uses the index too (Skipped says why). KeepRecent and
	// KeepTags do not apply; the query cache is left alone.
	Auto   bool
	Wait   time.Duration
	OnWait func(what string)
}

// GCReport is what gc did.
type GCReport struct {
	store.GCStats
	Kept              []string `json:"kept"` // commits whose views stay
	QueryFilesDropped int      `json:"query_cache_files_dropped"`
	QueryBytesFreed   int64    `json:"query_cache_bytes_freed"`
	DamagedDropped    int      `json:"damaged_stores_dropped"` // moved aside by a rebuild over DamagedKeep ago
	// ReplacedDropped counts the sound indexes killed rebuilds left.
	ReplacedDropped int  `json:"replaced_indexes_dropped"`
	DryRun          bool `json:"dry_run,omitempty"`
	// Skipped says why an Auto collection did nothing.
	Skipped string `json:"skipped,omitempty"`
}

// GC drops derived data that no retained view uses, and compacts the
// database. It holds the indexer and embedder locks for its duration.
func GC(ctx context.Context, repo *gitx.Repo, o GCOptions) (*GCReport, error) {
	kbDir := repo.KBDir()
	wait := func(what string) func() {
		return func() {
			if o.OnWait != nil {
				o.OnWait(what)
			}
		}
	}
	release, err := lockIndex(ctx, kbDir, o.Wait, waitNote(o.OnWait, "a git kb index run to finish"))
	if err != nil {
		return nil, err
	}
	defer release()
	releaseEmbed, err := lockFile(ctx, kbDir, "embed.lock", ErrEmbedBusy, o.Wait, waitNote(o.OnWait, "an embedding run to finish"))
	if err != nil {
		return nil, err
	}
	defer releaseEmbed()

	// A marker left by an earlier gc: this run is its retry. Its time is
	// the try's, so a retry that fails before it starts (a disk too full
	// for the compaction: CheckSpace below) waits an hour for the next
	// (gcUnfinished), as one that fails later does.
	marker := filepath.Join(kbDir, gcMarker)
	_, statErr := os.Stat(marker)
	unfinished := statErr == nil
	if unfinished && !o.DryRun {
		now := time.Now()
		os.Chtimes(marker, now, now)
	}

	rep := &GCReport{DryRun: o.DryRun, Kept: []string{}}
	dir := DBDir(repo)
	before := store.DirSize(dir)
	// The session's logs (the deletions: Reserve below, which Open
	// checks and allocates) and, beside them, the tables compaction
	// writes before the old ones go: up to a copy of the database.
	// Badger writes tables through memory mappings, where a full disk is
	// a SIGBUS, so the room is checked up front: with only the logs'
	// room, gc crashed on a disk with a little more free than the index's
	// size (tidb-docs-cn, 8.9 MB: 9.5 MB free on a tmpfs).
	if !o.DryRun {
		if err := store.CheckSpace(dir, before/2, before); err != nil {
			return nil, err
		}
	}
	db, err := store.Open(ctx, dir, store.Options{Wait: o.Wait, OnWait: wait("searches to release the index"), Pipeline: PipelineVersion, Reserve: before / 2})
	if err != nil {
		return nil, err
	}
	// The marker stays if this run is killed or fails: its drops may be
	// done and the compaction that frees their space not, and nothing in
	// the index would tell (see gcUnfinished).
	if !o.DryRun {
		if err := os.WriteFile(marker, []byte("git kb gc started "+time.Now().Format(time.RFC3339)+"\n"), 0o644); err != nil {
			db.Close()
			return nil, fmt.Errorf("gc: write %s: %w", marker, err)
		}
	}
	if o.Auto {
		rep, err = autoGC(db, rep, o.DryRun, unfinished)
	} else {
		rep, err = collect(ctx, repo, db, rep, o)
	}
	if err == nil {
		refs, rerr := db.Refs()
		rep.ReplacedDropped = pruneReplaced(repo, rerr == nil && len(refs) > 0, o.DryRun)
	}
	if cerr := db.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	// An earlier gc's marker stays when this one left the index to a
	// newer git-kb: that one's index runs find it and finish the work.
	if !o.DryRun && !(unfinished && rep.Skipped == skippedNewer) {
		os.Remove(marker)
	}
	// The sizes on disk with the database closed: an open one counts the
	// room its session reserved (store.Options.Reserve, half the size),
	// and gc reported Go's source's index as 145 MiB -> 104 MiB where the
	// disk held 81 MB, then 41.
	rep.BytesBefore, rep.BytesAfter = before, before
	if !o.DryRun {
		rep.BytesAfter = store.DirSize(dir)
	}
	return rep, nil
}

// collect is GC's collection of an open database: it keeps the views of
// HEAD, the branch heads (and tags, with o.KeepTags) and the
// o.KeepRecent most recently indexed commits. (gc --auto keeps every
// view and asks git for none of this.)
func collect(ctx context.Context, repo *gitx.Repo, db *store.DB, rep *GCReport, o GCOptions) (*GCReport, error) {
	kbDir := repo.KBDir()
	keep := map[string]bool{}
	prefixes := []string{"refs/heads"}
	if o.KeepTags {
		prefixes = append(prefixes, "refs/tags")
	}
	tips, err := repo.RefTips(ctx, prefixes...)
	if err != nil {
		return nil, err
	}
	for _, t := range tips {
		keep[t] = true
	}
	if head, _, err := repo.Resolve(ctx, "HEAD"); err == nil {
		keep[head.String()] = true
	}
	refs, exists, err := refsInGit(ctx, repo, db)
	if err != nil {
		return nil, err
	}
	// The N most recently indexed commits that git still has.
	sort.Slice(refs, func(i, j int) bool { return refs[i].Indexed.After(refs[j].Indexed) })
	recent := 0
	for _, r := range refs {
		c := hex.EncodeToString(r.Commit[:])
		if exists[c] && recent < o.KeepRecent {
			keep[c] = true
			recent++
		}
	}
	st, err := db.GC(PipelineVersion, func(r store.Ref) bool {
		c := hex.EncodeToString(r.Commit[:])
		if keep[c] && exists[c] {
			rep.Kept = append(rep.Kept, c)
			return true
		}
		return false
	}, o.DryRun)
	if err != nil {
		return nil, err
	}
	rep.GCStats = *st
	rep.DamagedDropped = pruneDamaged(repo, o.DryRun)
	rep.QueryFilesDropped, rep.QueryBytesFreed = pruneQueryCache(filepath.Join(kbDir, "cache", "query"), o.QueryModel, o.QueryCacheAge, o.DryRun)
	return rep, nil
}

// autoGC drops older pipelines' records and keeps every view of this
// one (GCOptions.Auto). unfinished says an earlier gc was killed or
// failed: what it dropped may still take its space until a compaction,
// so that runs even when no older records are left.
func autoGC(db *store.DB, rep *GCReport, dryRun, unfinished bool) (*GCReport, error) {
	older, newer, err := db.OtherPipelines(PipelineVersion)
	switch {
	case err != nil:
		return nil, err
	case newer:
		rep.Skipped = skippedNewer
		return rep, nil
	case !older && !unfinished:
		rep.Skipped = "no data of an older git-kb version"
		return rep, nil
	}
	st, err := db.GC(PipelineVersion, func(r store.Ref) bool {
		rep.Kept = append(rep.Kept, hex.EncodeToString(r.Commit[:]))
		return true
	}, dryRun)
	if err != nil {
		return nil, err
	}
	rep.GCStats = *st
	return rep, nil
}

// gcMarker is the file in .git/kb a gc writes when it starts and removes
// when it has ended well.
const gcMarker = "gc-unfinished"

// skippedNewer is why gc --auto left an index alone that a newer git-kb
// also uses.
const skippedNewer = "a newer git-kb also uses this index: run git kb gc with the newest one"

// gcRetryAfter is how old a marker must be before an index run asks for
// gc --auto again: a gc that keeps failing (a disk too full for its
// compaction) is retried hourly, not by every hook.
var gcRetryAfter = time.Hour

// gcUnfinished reports whether a gc started in kbDir more than
// gcRetryAfter ago and never ended well (killed, or failed). Call it
// holding the index lock, which a running gc holds.
func gcUnfinished(kbDir string) bool {
	fi, err := os.Stat(filepath.Join(kbDir, gcMarker))
	return err == nil && time.Since(fi.ModTime()) > gcRetryAfter
}

// pruneQueryCache removes cached query vectors older than age, and all of
// models other than model (if set).
func pruneQueryCache(dir, model string, age time.Duration, dryRun bool) (files int, bytes int64) {
	if age <= 0 {
		age = 30 * 24 * time.Hour
	}
	models, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0
	}
	cutoff := time.Now().Add(-age)
	for _, m := range models {
		mdir := filepath.Join(dir, m.Name())
		entries, _ := os.ReadDir(mdir)
		for _, e := range entries {
			fi, err := e.Info()
			if err != nil {
				continue
			}
			if (model != "" && m.Name() != model) || fi.ModTime().Before(cutoff) {
				files++
				bytes += fi.Size()
				if !dryRun {
					os.Remove(filepath.Join(mdir, e.Name()))
				}
			}
		}
		if !dryRun {
			os.Remove(mdir) // only if now empty
		}
	}
	return files, bytes
}

// refsInGit lists the indexed commits and says which of them git still has.
func refsInGit(ctx context.Context, repo *gitx.Repo, db *store.DB) ([]store.Ref, map[string]bool, error) {
	refs, err := db.Refs()
	if err != nil {
		return nil, nil, err
	}
	var shas []string
	for _, r := range refs {
		shas = append(shas, hex.EncodeToString(r.Commit[:]))
	}
	exists, err := repo.ExistingCommits(ctx, shas)
	return refs, exists, err
}
