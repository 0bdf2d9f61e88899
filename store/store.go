package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// FormatVersion is the key layout version.
//
//	1: initial layout (see doc.go)
//	2: view records of version 3, which may be deltas over another view;
//	   a format 1 index is read as it is, and marked 2 by the first
//	   read-write open (older git-kb then says the index is too new
//	   instead of misreading a view)
//	3: blob metadata records hold their chunk lists compressed
//	   (EncodeBlobMeta); records of format 2 are still read, and the
//	   first read-write open marks the index 3 as it did 2
const FormatVersion = 3

// MinReader is the oldest reader format that can read what this version writes.
const MinReader = 3

// oldestFormat is the oldest format this version reads.
const oldestFormat = 1

// SharedFormat is the layout of the records that package share exports
// (blob records, postings, vectors): views are not shared, so format 2
// left it as format 1 had it.
const SharedFormat = 1

var (
	// ErrFormatTooNew means the index was written by a newer git-kb.
	ErrFormatTooNew = errors.New("index format is newer than this git-kb")
	// ErrFormatTooOld means the index must be rebuilt (delete it and re-index).
	ErrFormatTooOld = errors.New("index format is too old")
	// ErrNotFound means a record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrLocked means another process held the database past the wait time.
	ErrLocked = errors.New("index is locked by another git-kb process")
	// ErrNoIndex means the database does not exist yet.
	ErrNoIndex = errors.New("no index yet")
)

// FormatInfo is the m/format record.
type FormatInfo struct {
	Format    int    `json:"format"`
	Pipeline  int    `json:"pipeline"`
	MinReader int    `json:"min_reader"`
	CreatedBy string `json:"created_by"`
}

// SHA is an opaque 20-byte object name.
type SHA = [20]byte

// DB is an open index.
type DB struct {
	db       *badger.DB
	dir      string
	readOnly bool
	release  func() // the lock openBadger took, if any
	opened   Options
	Format   FormatInfo
}

// Options control Open.
type Options struct {
	ReadOnly bool
	// Wait is how long to retry while another process holds the lock.
	Wait time.Duration
	// OnWait is called once if Open has to wait.
	OnWait func()
	// Pipeline and CreatedBy go into m/format when the index is created.
	Pipeline  int
	CreatedBy string
	// Reserve is about how many bytes a read-write session will write. Open
	// refuses with a *SpaceError unless the disk has room for it, and
	// allocates that much of Badger's memory-mapped logs up front (reserve).
	Reserve int64

	// compactL0OnClose makes Close merge level 0 into the levels below
	// (Compact's use: Badger's Flatten leaves a lone level 0 alone).
	compactL0OnClose bool
}

// minReserve is what any read-write open reserves: a ref, a format record.
const minReserve = 1 << 20

// smallSession: a read-write open that reserves less than this writes
// little (an incremental index run of a few files).
const smallSession = 16 << 20

// smallSessionInline is the value threshold of a small session: Badger's
// largest (values larger still go to the value log), below the batch
// limit of a 16 MiB memtable (15%).
const smallSessionInline = 1 << 20

// badgerOptions are the Badger settings of every open of our database.
func badgerOptions(dir string, readOnly bool) badger.Options {
	return badger.DefaultOptions(dir).
		WithLogger(nil).
		WithMemTableSize(16 << 20).
		WithValueLogFileSize(16 << 20).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(8).
		WithNumCompactors(2).
		WithBlockCacheSize(32 << 20).
		WithValueThreshold(1 << 10).
		WithReadOnly(readOnly).
		// Every block and value read is checked against its checksum, so
		// a damaged file is an error, not a wrong answer or a panic. Cost
		// within noise: 24 searches of tidb-docs-cn took 8.9 s without,
		// 7.8 s with (the block cache keeps what was verified).
		WithChecksumVerificationMode(options.OnBlockRead).
		WithVerifyValueChecksum(true)
}

// Open opens (read-write: creating) the database in dir. A damaged
// database is reported as a *DamagedError, never a panic; a disk without
// room for o.Reserve as a *SpaceError.
func Open(ctx context.Context, dir string, o Options) (db *DB, err error) {
	if o.ReadOnly {
		if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
			return nil, ErrNoIndex
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create index dir: %w", classify(dir, err))
	}
	if err := checkTables(dir, false); err != nil {
		return nil, err
	}
	sweepTornLogs(dir)
	need := max(o.Reserve, minReserve)
	if !o.ReadOnly {
		if err := CheckSpace(dir, need, need); err != nil {
			return nil, err
		}
	}
	defer guard(dir, &err)
	opts := badgerOptions(dir, o.ReadOnly)
	if !o.ReadOnly && o.Reserve < smallSession {
		// A small write session (a commit's few files, a ref) leaves its
		// tables in level 0 for a later session to merge: merging level 0
		// into level 1 rewrites level 1's overlapping tables, megabytes
		// on a large index, and a one-file commit paid for that every
		// other run (issue 20). Up to 8 small tables wait; a large
		// session (or the 8th small one) merges them all at once.
		//
		// Its values stay in the tables too, however large (up to
		// Badger's 1 MiB limit): a session that puts one value in the
		// value log keeps a value-log file of its own for good (Badger
		// removes only empty ones), and every later open, a search's
		// too, maps and unmaps each such file. One file per indexed
		// commit made opening cost grow with the history (issue 20).
		opts = opts.WithNumLevelZeroTables(8).WithNumLevelZeroTablesStall(16).WithValueThreshold(smallSessionInline)
	}
	if o.compactL0OnClose {
		opts = opts.WithCompactL0OnClose(true)
	}
	delay := 25 * time.Millisecond
	deadline := time.Now().Add(o.Wait)
	waited, recovered := false, false
	for {
		bdb, release, err := openBadger(opts)
		if err == nil {
			d := &DB{db: bdb, dir: dir, readOnly: o.ReadOnly, release: release, opened: o}
			if err := d.checkFormat(o); err != nil {
				d.Close()
				return nil, classify(dir, err)
			}
			if !o.ReadOnly {
				if err := reserve(dir, need); err != nil {
					d.Close()
					return nil, classify(dir, err)
				}
			}
			return d, nil
		}
		if !isLockErr(err) {
			if o.ReadOnly && !recovered {
				// A writer killed mid-write leaves a log that only a
				// read-write open replays; do that once, then read.
				recovered = true
				if rw, release, rerr := openBadger(opts.WithReadOnly(false)); rerr == nil {
					rw.Close()
					release()
					continue
				} else if isLockErr(rerr) {
					err = rerr
				}
			}
			if !isLockErr(err) {
				return nil, openFailed(dir, err)
			}
		}
		if time.Now().After(deadline) {
			return nil, ErrLocked
		}
		if !waited && o.OnWait != nil {
			o.OnWait()
		}
		waited = true
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(delay*2, 500*time.Millisecond)
	}
}

// CheckSpace returns a *SpaceError unless the disk holding dir has room
// for a write session whose logs take about logs bytes and whose tables
// about tables bytes. Badger's logs and tables are written through memory
// mappings, where a full disk is a SIGBUS, not an error: so all of it
// must be free before the first write. Open reserves logs bytes in each
// of Badger's two logs (the write-ahead log and the value log: which one
// a session fills is not known up front), and the tables the logs are
// flushed into come beside them: an index run (tables about the size of
// its logs) asked for only twice its estimate, and on a disk with a
// little more than that free its first table flush died of a SIGBUS.
func CheckSpace(dir string, logs, tables int64) error {
	need := 2*max(logs, minReserve) + max(tables, minReserve)
	if free := FreeSpace(dir); free >= 0 && free < need {
		return &SpaceError{Dir: dir, Free: free, Need: need}
	}
	return nil
}

// openFailed says why Badger could not open an existing database: the
// file system (full, read-only, no permission, I/O error) or, for
// anything else, damage: Badger refuses a database whose files do not
// agree with each other, and the cure is a rebuild.
func openFailed(dir string, err error) error {
	err = classify(dir, err)
	var de *DamagedError
	var se *SpaceError
	switch {
	case errors.As(err, &de) || errors.As(err, &se):
		return err
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EIO),
		// Badger words some errnos only in text.
		strings.Contains(err.Error(), "read-only file system"), strings.Contains(err.Error(), "permission denied"),
		strings.Contains(err.Error(), "input/output error"):
		return fmt.Errorf("open index %s: %w", dir, err)
	}
	return &DamagedError{Dir: dir, File: fileIn(err.Error()), What: firstLine(err.Error())}
}

// isLockErr recognises Badger's directory-lock failure. Badger wraps the
// errno without Unwrap, so only the message identifies it (LIBRARIES.md).
// On Windows Badger says "Another process is using this Badger database".
func isLockErr(err error) bool {
	return strings.Contains(err.Error(), "Cannot acquire directory lock") ||
		strings.Contains(err.Error(), "Another process is using this Badger database")
}

func (d *DB) checkFormat(o Options) error {
	var fi FormatInfo
	err := d.db.View(func(txn *badger.Txn) error {
		return getJSON(txn, []byte("m/format"), &fi)
	})
	if errors.Is(err, ErrNotFound) {
		if d.readOnly {
			return ErrNoIndex
		}
		fi = FormatInfo{Format: FormatVersion, Pipeline: o.Pipeline, MinReader: MinReader, CreatedBy: o.CreatedBy}
		b, _ := json.Marshal(fi)
		if err := d.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("m/format"), b) }); err != nil {
			return fmt.Errorf("write format: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("read format: %w", err)
	}
	if fi.MinReader > FormatVersion {
		return fmt.Errorf("%w: index format %d needs git-kb reading format %d, this one reads %d", ErrFormatTooNew, fi.Format, fi.MinReader, FormatVersion)
	}
	if fi.Format < oldestFormat {
		return fmt.Errorf("%w: index format %d, this git-kb writes %d; run `git kb reset` and index again", ErrFormatTooOld, fi.Format, FormatVersion)
	}
	if fi.Format < FormatVersion && !d.readOnly {
		fi.Format, fi.MinReader = FormatVersion, MinReader
		b, _ := json.Marshal(fi)
		if err := d.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("m/format"), b) }); err != nil {
			return fmt.Errorf("write format: %w", err)
		}
	}
	d.Format = fi
	return nil
}

// Close closes the database.
func (d *DB) Close() error {
	err := d.db.Close()
	d.release()
	return err
}

// Reopen closes the database and opens it again as it was opened. A long
// write session calls it every so often: Badger keeps every value-log
// file it wrote mapped until it closes, and the pages written stay
// resident, so a session that writes hundreds of megabytes held them all
// in memory (at 8x Go's source, 1,168 MiB peak RSS with a Go heap under
// 600 MB; issue 20).
func (d *DB) Reopen(ctx context.Context) error { return d.reopenAs(ctx, d.opened) }

func (d *DB) reopenAs(ctx context.Context, o Options) error {
	if err := d.Close(); err != nil {
		return err
	}
	nd, err := Open(ctx, d.dir, o)
	if err != nil {
		return err
	}
	*d = *nd
	return nil
}

// Dir is the database directory.
func (d *DB) Dir() string { return d.dir }

// Size is the on-disk size of the database (real bytes, not apparent size).
func (d *DB) Size() int64 { return DirSize(d.dir) }

// DirSize is the on-disk size of the database in dir.
func DirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += diskUsage(fi)
		}
		return nil
	})
	return n
}

func getJSON(txn *badger.Txn, key []byte, v any) error {
	return readValue(txn, key, func(b []byte) error {
		if err := json.Unmarshal(b, v); err != nil {
			return corrupt("record %s does not decode: %v", keyName(key), err)
		}
		return nil
	})
}

// readValue calls f with key's value in place (valid only during f, as
// Badger's Item.Value says), ErrNotFound when there is none.
func readValue(txn *badger.Txn, key []byte, f func([]byte) error) error {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	return item.Value(f)
}

func get(txn *badger.Txn, key []byte) ([]byte, error) {
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

func key(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 0, n)
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

func be32(v uint32) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return b[:]
}
