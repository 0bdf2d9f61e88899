//go:build !windows

package store

import (
	"os"

	badger "github.com/dgraph-io/badger/v4"
	"golang.org/x/sys/unix"
)

// openBadger opens the database. On Unix Badger's own directory lock is
// shared for read-only opens and exclusive otherwise: many searches, or
// one writer.
func openBadger(opts badger.Options) (*badger.DB, func(), error) {
	db, err := badger.Open(opts)
	return db, func() {}, err
}

// lockExclusive takes the lock a read-write Badger open takes (flock on
// the directory), if nobody holds it.
func lockExclusive(dir string) (unlock func(), ok bool) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if unix.Flock(int(d.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		d.Close()
		return nil, false
	}
	return func() { d.Close() }, true
}
