package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrBusy means another indexer held the lock past the wait time.
var ErrBusy = fmt.Errorf("another git kb index is running")

// ErrEmbedBusy means another embedding run held its lock past the wait time.
var ErrEmbedBusy = fmt.Errorf("another git kb embedding run is in progress")

// lockIndex takes the indexer lock (kb/index.lock). The OS drops it when
// the process dies, so a killed indexer never leaves a stale lock behind.
// onWait is called once if the lock is busy.
func lockIndex(ctx context.Context, kbDir string, wait time.Duration, onWait func()) (release func(), err error) {
	return lockFile(ctx, kbDir, "index.lock", ErrBusy, wait, onWait)
}

// lockFile takes an exclusive lock on kbDir/name, waiting up to wait.
// gofrs/flock is flock(2) on Unix and LockFileEx on Windows: both are
// released by the OS with the process, which a lock file's mere existence
// is not.
func lockFile(ctx context.Context, kbDir, name string, busy error, wait time.Duration, onWait func()) (release func(), err error) {
	if err := checkKBDir(kbDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(kbDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", kbDir, err)
	}
	l := flock.New(filepath.Join(kbDir, name))
	deadline := time.Now().Add(wait)
	waited := false
	for {
		ok, err := l.TryLock()
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", l.Path(), err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return nil, busy
		}
		if !waited && onWait != nil {
			onWait()
		}
		waited = true
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return func() { l.Unlock() }, nil
}

// Running reports whether an indexer holds the lock right now.
func Running(kbDir string) bool {
	p := filepath.Join(kbDir, "index.lock")
	if _, err := os.Stat(p); err != nil {
		return false // never indexed here
	}
	l := flock.New(p, flock.SetFlag(os.O_RDWR))
	ok, err := l.TryLock()
	if err != nil {
		return false
	}
	if ok {
		l.Unlock()
		return false
	}
	return true
}

// kbDirError is a .git/kb that is there but no directory: a file, or a
// link to a directory that is gone (an index moved to a disk since
// unmounted), and what to do about it.
type kbDirError struct{ what, fix string }

func (e *kbDirError) Error() string { return e.what + "\n" + e.fix }

// checkKBDir returns a *kbDirError when kbDir exists (as a name) but is
// no directory; nil when it is one or is not there at all.
func checkKBDir(kbDir string) error {
	fi, err := os.Stat(kbDir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return &kbDirError{kbDir + " is not a directory", "move it away, then run: git kb index   (it makes a new index there)"}
	}
	to, lerr := os.Readlink(kbDir)
	if lerr != nil {
		return nil // not there: it is made
	}
	if !filepath.IsAbs(to) {
		to = filepath.Join(filepath.Dir(kbDir), to)
	}
	return &kbDirError{kbDir + " links to " + to + ", which does not exist",
		"create " + to + " (or mount the disk it was on), or remove the link; then run: git kb index"}
}
