package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
)

// fill writes n records of about 300 bytes (kept in the tables, under the
// value threshold) and closes the database, which flushes them to a table.
func fill(t *testing.T, dir string, n int) {
	t.Helper()
	db := open(t, dir, false)
	rng := rand.New(rand.NewSource(1))
	err := db.db.Update(func(txn *badger.Txn) error {
		for i := range n {
			v := make([]byte, 300)
			rng.Read(v)
			if err := txn.Set(fmt.Appendf(nil, "k/%06d", i), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func tables(t *testing.T, dir string) []string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(names) == 0 {
		t.Fatal("no table files")
	}
	return names
}

// The pre-open table check must leave the tables in place: Badger deletes
// a table file when its last reference goes.
func TestReopenKeepsTables(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, 2000)
	before := tables(t, dir)
	for range 3 {
		open(t, dir, true).Close()
	}
	if after := tables(t, dir); len(after) != len(before) {
		t.Fatalf("tables %v after reopening, were %v", after, before)
	}
	if err := Verify(dir); err != nil {
		t.Fatalf("Verify on a sound index: %v", err)
	}
}

func TestDamagedTable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(path string, size int64) error
		// onOpen: Open itself must refuse; else only Verify finds it.
		onOpen bool
	}{
		{"truncated", func(p string, n int64) error { return os.Truncate(p, n/2) }, true},
		{"empty", func(p string, n int64) error { return os.Truncate(p, 0) }, true},
		{"footer garbage", func(p string, n int64) error { return overwrite(p, n-40, 40, 0xA5) }, true},
		{"block zeroed", func(p string, n int64) error { return overwrite(p, n/4, 4096, 0) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fill(t, dir, 4000)
			name := tables(t, dir)[0]
			fi, _ := os.Stat(name)
			if err := tc.damage(name, fi.Size()); err != nil {
				t.Fatal(err)
			}
			db, err := Open(context.Background(), dir, Options{ReadOnly: true})
			if tc.onOpen {
				var de *DamagedError
				if !errors.As(err, &de) || de.File != filepath.Base(name) {
					t.Fatalf("Open: %v, want a DamagedError naming %s", err, filepath.Base(name))
				}
			} else if err == nil {
				db.Close()
			}
			err = Verify(dir)
			var de *DamagedError
			if !errors.As(err, &de) || !errors.Is(err, ErrDamaged) {
				t.Fatalf("Verify: %v, want a DamagedError", err)
			}
			if de.File != filepath.Base(name) {
				t.Errorf("Verify names %q, want %s (%v)", de.File, filepath.Base(name), err)
			}
		})
	}
}

// Tables checked by one process are listed for the next (CHECKED-TABLES),
// which skips them; a table changed after its check is checked again.
func TestCheckedTablesAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, 4000)
	open(t, dir, true).Close()
	names := tables(t, dir)
	checked.Clear() // as a new process
	listed := readChecked(dir)
	for _, name := range names {
		fi, _ := os.Stat(name)
		if !listed[checkedKey{name, fi.Size(), fi.ModTime().UnixNano()}] {
			t.Fatalf("%s is not in %s after a check: %v", name, checkedFile, listed)
		}
	}
	open(t, dir, true).Close() // from the list
	checked.Clear()
	fi, _ := os.Stat(names[0])
	if err := overwrite(names[0], fi.Size()-40, 40, 0xA5); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), dir, Options{ReadOnly: true})
	var de *DamagedError
	if !errors.As(err, &de) || de.File != filepath.Base(names[0]) {
		t.Fatalf("Open after damage to a listed table: %v, want a DamagedError naming %s", err, filepath.Base(names[0]))
	}
}

// TestUnfinishedTableIsNotDamage: a table file the MANIFEST does not list
// (a flush a killed indexer left half-written, or one a running indexer is
// writing) is not damage: the index opens, reads all it holds, passes
// Verify, and Badger's read-write open removes the orphan.
func TestUnfinishedTableIsNotDamage(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, 4000)
	src := tables(t, dir)[0]
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, "000099.sst")
	if err := os.WriteFile(orphan, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	db := open(t, dir, true)
	err = db.db.View(func(txn *badger.Txn) error {
		_, err := txn.Get([]byte("k/003999"))
		return err
	})
	db.Close()
	if err != nil {
		t.Fatalf("reading past an unfinished table: %v", err)
	}
	if err := Verify(dir); err != nil {
		t.Fatalf("Verify with an unfinished table: %v", err)
	}
	open(t, dir, false).Close()
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the unfinished table is still there after a read-write open: %v", err)
	}
}

func overwrite(path string, off, n int64, b byte) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = b
	}
	_, err = f.WriteAt(buf, max(off, 0))
	return err
}

func TestCheckSpace(t *testing.T) {
	dir := t.TempDir()
	free := FreeSpace(dir)
	if free < 0 {
		t.Skip("free space unknown on this system")
	}
	err := CheckSpace(dir, free, free)
	var se *SpaceError
	if !errors.As(err, &se) || !errors.Is(err, syscall.ENOSPC) || se.Need != 3*free || se.Free <= 0 {
		t.Fatalf("CheckSpace(free): %v", err)
	}
	if err := CheckSpace(dir, 1<<10, 1<<10); err != nil && free > 16<<20 {
		t.Fatalf("CheckSpace(1 KiB): %v", err)
	}
	// Open refuses a write session the disk cannot hold, before writing.
	if _, err := Open(context.Background(), filepath.Join(dir, "db"), Options{Reserve: free}); !errors.As(err, &se) {
		t.Fatalf("Open with Reserve > free: %v", err)
	}
}

// TestTornLogFiles: a writer killed between creating a log file and
// sizing it leaves an empty (or header-short) .mem or .vlog file, which
// Badger refuses to open. Open sweeps them when no writer holds the lock,
// and the data is all there; while a writer holds it they are left alone.
func TestTornLogFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		ro   bool
	}{
		{"00009.mem", 0, true},
		{"00009.mem", 0, false},
		{"00009.mem", 7, true},
		{"000009.vlog", 0, true},
		{"000009.vlog", 19, false},
	} {
		t.Run(fmt.Sprintf("%s %d bytes ro=%v", tc.name, tc.size, tc.ro), func(t *testing.T) {
			dir := t.TempDir()
			fill(t, dir, 500)
			torn := filepath.Join(dir, tc.name)
			if err := os.WriteFile(torn, make([]byte, tc.size), 0o644); err != nil {
				t.Fatal(err)
			}
			db, err := Open(context.Background(), dir, Options{ReadOnly: tc.ro})
			if err != nil {
				t.Fatalf("Open with a torn %s: %v", tc.name, err)
			}
			n := 0
			err = db.db.View(func(txn *badger.Txn) error {
				it := txn.NewIterator(badger.DefaultIteratorOptions)
				defer it.Close()
				for it.Rewind(); it.Valid(); it.Next() {
					if bytes.HasPrefix(it.Item().Key(), []byte("k/")) {
						n++
					}
				}
				return nil
			})
			db.Close()
			if err != nil || n != 500 {
				t.Fatalf("after the sweep: %d of 500 keys, %v", n, err)
			}
		})
	}
	t.Run("writer holds the lock", func(t *testing.T) {
		dir := t.TempDir()
		fill(t, dir, 10)
		torn := filepath.Join(dir, "00009.mem")
		os.WriteFile(torn, nil, 0o644)
		unlock, ok := lockExclusive(dir)
		if !ok {
			t.Fatal("could not take the lock of a closed database")
		}
		sweepTornLogs(dir)
		unlock()
		if _, err := os.Stat(torn); err != nil {
			t.Fatalf("swept a file while a writer held the lock: %v", err)
		}
	})
}
