//go:build !windows

package store

import badger "github.com/dgraph-io/badger/v4"

// openBadger opens the database. On Unix Badger's own directory lock is
// shared for read-only opens and exclusive otherwise: many searches, or
// one writer.
func openBadger(opts badger.Options) (*badger.DB, func(), error) {
	db, err := badger.Open(opts)
	return db, func() {}, err
}
