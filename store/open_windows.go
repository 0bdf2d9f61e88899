//go:build windows

package store

import (
	"errors"
	"path/filepath"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/gofrs/flock"
)

// lockName sits in the database directory; Badger ignores files it does
// not know.
const lockName = "git-kb-rw.lock"

// errBusy reads like Badger's Unix lock error, so isLockErr retries it.
var errBusy = errors.New("Cannot acquire directory lock: another git-kb process is writing the index")

// openBadger opens the database with the locking Badger gives on Unix and
// refuses on Windows: there a read-only open fails outright
// (ErrWindowsNotSupported) and Badger's lock is exclusive for everyone.
// So we keep our own lock: shared (LockFileEx) for read-only opens, which
// then skip Badger's lock, exclusive for read-write ones, which also take
// Badger's. Many searches, or one writer, as on Unix.
func openBadger(opts badger.Options) (*badger.DB, func(), error) {
	l := flock.New(filepath.Join(opts.Dir, lockName))
	try := l.TryLock
	if opts.ReadOnly {
		try = l.TryRLock
		opts = opts.WithBypassLockGuard(true)
	}
	ok, err := try()
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, errBusy
	}
	db, err := badger.Open(opts)
	if err != nil {
		l.Unlock()
		return nil, nil, err
	}
	return db, func() { l.Unlock() }, nil
}

// lockExclusive takes our read-write lock (see openBadger), if nobody
// holds it.
func lockExclusive(dir string) (unlock func(), ok bool) {
	l := flock.New(filepath.Join(dir, lockName))
	if got, err := l.TryLock(); err != nil || !got {
		return nil, false
	}
	return func() { l.Unlock() }, true
}
