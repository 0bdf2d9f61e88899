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

// moveAside renames a database directory into kb/damaged and returns
// where it went ("" if there was nothing to move). A rename, not a copy:
// instant, and a full disk cannot stop it.
func moveAside(repo *gitx.Repo, dir string) (string, error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return "", nil
	}
	if err := os.MkdirAll(damagedDir(repo), 0o755); err != nil {
		return "", err
	}
	to := filepath.Join(damagedDir(repo), filepath.Base(dir)+"-"+time.Now().UTC().Format("20060102T150405.000"))
	if err := os.Rename(dir, to); err != nil {
		return "", fmt.Errorf("move the damaged index aside: %w", err)
	}
	now := time.Now()
	os.Chtimes(to, now, now) // gc counts DamagedKeep from now
	return to, nil
}

// RebuildReport says what a rebuild moved aside.
type RebuildReport struct {
	MovedIndex string `json:"moved_index,omitempty"` // where the old index went
	MovedCache string `json:"moved_cache,omitempty"` // the embedding cache, if it was damaged too
}

// Rebuild moves the index aside (kept under kb/damaged for a bug report,
// removed by gc after DamagedKeep) and indexes rev afresh from git. The
// embedding cache is a database of its own (CacheDir): it stays, unless
// it fails its own checks, so re-embedding the rebuilt index costs no
// model calls. The caller then runs Embed as usual.
func Rebuild(ctx context.Context, repo *gitx.Repo, o Options) (*RebuildReport, *Stats, error) {
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
	rep.MovedIndex, err = moveAside(repo, DBDir(repo))
	if err == nil {
		if verr := store.Verify(CacheDir(repo)); verr != nil && verr != store.ErrNoIndex && verr != store.ErrLocked {
			rep.MovedCache, err = moveAside(repo, CacheDir(repo))
		}
	}
	releaseEmbed()
	release()
	if err != nil {
		return rep, nil, err
	}
	st, err := Run(ctx, repo, o)
	if err != nil && rep.MovedIndex != "" && putBack(repo, rep.MovedIndex, o) {
		rep.MovedIndex = ""
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

// pruneDamaged removes moved-aside stores older than DamagedKeep.
func pruneDamaged(repo *gitx.Repo, dryRun bool) (n int) {
	entries, _ := os.ReadDir(damagedDir(repo))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) < DamagedKeep {
			continue
		}
		n++
		if !dryRun {
			os.RemoveAll(filepath.Join(damagedDir(repo), e.Name()))
		}
	}
	if !dryRun {
		os.Remove(damagedDir(repo)) // only if now empty
	}
	return n
}
