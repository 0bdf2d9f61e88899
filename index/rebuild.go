package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/store"
)

// DamagedKeep is how long a store moved aside by Rebuild is kept (for a
// bug report) before gc removes it.
const DamagedKeep = 14 * 24 * time.Hour

// damagedDir holds the stores moved aside: kb/damaged/<name>-<time>.
func damagedDir(repo *gitx.Repo) string { return filepath.Join(repo.KBDir(), "damaged") }

// replacedDir holds a sound index while a rebuild replaces it: put back
// if the rebuild fails, removed once the new index has a view. Only a
// killed rebuild leaves one behind, for gc (pruneReplaced).
func replacedDir(repo *gitx.Repo) string { return filepath.Join(repo.KBDir(), "replaced") }

// moveAside renames a database directory into to (kb/damaged or
// kb/replaced) and returns where it went ("" if there was nothing to
// move). A rename, not a copy: instant, and a full disk cannot stop it.
func moveAside(dir, to string) (string, error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return "", nil
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return "", err
	}
	to = filepath.Join(to, filepath.Base(dir)+"-"+time.Now().UTC().Format("20060102T150405.000"))
	if err := os.Rename(dir, to); err != nil {
		return "", fmt.Errorf("move %s aside: %w", dir, err)
	}
	now := time.Now()
	os.Chtimes(to, now, now) // gc counts DamagedKeep from now
	return to, nil
}

// RebuildReport says what a rebuild moved aside.
type RebuildReport struct {
	MovedIndex string `json:"moved_index,omitempty"` // where the old, damaged index went
	MovedCache string `json:"moved_cache,omitempty"` // the embedding cache, if it was damaged too
	// Replaced says the old index was sound and is gone: the new one
	// took its place.
	Replaced bool `json:"replaced,omitempty"`
}

// Rebuild indexes rev afresh from git in place of the index. A damaged
// index (damaged: the caller found it so, as doctor does; or it fails
// store.Verify) is moved to kb/damaged for a bug report, removed by gc
// after DamagedKeep. A sound one is removed once the new index has a
// view, so a rebuild asked for leaves no copy taking the index's size
// on disk. Either way a rebuild that fails before that puts the old
// index back. The embedding cache is a database of its own (CacheDir):
// it stays, unless it fails its own checks, so re-embedding the rebuilt
// index costs no model calls. The caller then runs Embed as usual.
func Rebuild(ctx context.Context, repo *gitx.Repo, o Options, damaged bool) (*RebuildReport, *Stats, error) {
	rep := &RebuildReport{}
	release, err := lockIndex(ctx, repo.KBDir(), o.Wait, waitNote(o.OnWait, "another git kb index or gc to finish"))
	if err != nil {
		return rep, nil, err
	}
	releaseEmbed, err := lockFile(ctx, repo.KBDir(), "embed.lock", ErrEmbedBusy, o.Wait, waitNote(o.OnWait, "an embedding run to finish"))
	if err != nil {
		release()
		return rep, nil, err
	}
	// Both locks are held: no git kb process writes the index, so a
	// failure here is the index's own.
	sound := !damaged && store.Verify(DBDir(repo)) == nil
	var moved string
	if sound {
		moved, err = moveAside(DBDir(repo), replacedDir(repo))
	} else {
		moved, err = moveAside(DBDir(repo), damagedDir(repo))
		rep.MovedIndex = moved
	}
	if err == nil {
		if verr := store.Verify(CacheDir(repo)); verr != nil && verr != store.ErrNoIndex && verr != store.ErrLocked {
			rep.MovedCache, err = moveAside(CacheDir(repo), damagedDir(repo))
		}
	}
	releaseEmbed()
	release()
	if err != nil {
		return rep, nil, err
	}
	st, err := Run(ctx, repo, o)
	switch {
	case err != nil && moved != "" && putBack(repo, moved, o):
		rep.MovedIndex = ""
	case err == nil && sound && moved != "":
		// The new index has its view: the old one is of no more use.
		if rerr := os.RemoveAll(moved); rerr == nil {
			os.Remove(replacedDir(repo)) // only if now empty
			rep.Replaced = true
		}
	}
	return rep, st, err
}

// putBack returns the index Rebuild moved aside to its place when the
// rebuild failed before it published a view (a disk without room for a
// new index, an interrupt): a failed command leaves the index as it was.
// It used to stay among the damaged ones, and searches found no index
// at all. It reports whether it did.
func putBack(repo *gitx.Repo, moved string, o Options) bool {
	// The run's context may be cancelled (an interrupt): the lock is
	// taken anew, waiting no longer than the run would have.
	release, err := lockIndex(context.Background(), repo.KBDir(), o.Wait, nil)
	if err != nil {
		return false
	}
	defer release()
	dir := DBDir(repo)
	switch db, err := store.Open(context.Background(), dir, store.Options{ReadOnly: true}); {
	case err == nil:
		refs, rerr := db.Refs()
		db.Close()
		if rerr != nil || len(refs) > 0 {
			return false // the rebuild got as far as a view: keep it
		}
	case !errors.Is(err, store.ErrNoIndex):
		return false
	}
	if err := os.RemoveAll(dir); err != nil {
		return false
	}
	return os.Rename(moved, dir) == nil
}

// pruneReplaced removes the sound indexes a killed rebuild left in
// kb/replaced, once the index has a view (viewed): until then one may be
// the last index there is, for a rebuild that fails to put back. It
// returns how many it removed (or would, with dryRun).
func pruneReplaced(repo *gitx.Repo, viewed, dryRun bool) int {
	if !viewed {
		return 0
	}
	return pruneAside(replacedDir(repo), 0, dryRun)
}

// pruneDamaged removes moved-aside stores older than DamagedKeep.
func pruneDamaged(repo *gitx.Repo, dryRun bool) int {
	return pruneAside(damagedDir(repo), DamagedKeep, dryRun)
}

// pruneAside removes the stores in dir moved there over keep ago, and
// dir if that empties it.
func pruneAside(dir string, keep time.Duration, dryRun bool) (n int) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) < keep {
			continue
		}
		n++
		if !dryRun {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	if !dryRun {
		os.Remove(dir) // only if now empty
	}
	return n
}
