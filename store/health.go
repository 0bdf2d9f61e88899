package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/ristretto/v2/z"
)

// ErrDamaged matches every *DamagedError.
var ErrDamaged = errors.New("the index is damaged")

// DamagedError says which file of the database failed and how. The index
// is a cache of git: the cure is to move it aside and rebuild (Rebuild in
// package index, `git kb doctor --fix`).
type DamagedError struct {
	Dir  string
	File string // base name, "" when Badger did not say
	What string
}

func (e *DamagedError) Error() string {
	where := e.Dir
	if e.File != "" {
		where = filepath.Join(e.Dir, e.File)
	}
	if where == "" {
		return fmt.Sprintf("the index is damaged (%s)", e.What)
	}
	return fmt.Sprintf("the index is damaged (%s: %s)", where, e.What)
}

// corrupt is a record that does not decode: what damage looks like once
// it got past the checksums (or where there are none).
func corrupt(format string, a ...any) error {
	return &DamagedError{What: fmt.Sprintf(format, a...)}
}

// Is makes errors.Is(err, ErrDamaged) true.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// SpaceError is a write refused (or failed) for lack of disk space.
type SpaceError struct {
	Dir        string
	Path       string // the file a write failed on, when Dir is unknown
	Free, Need int64  // bytes; Need 0 when unknown (ENOSPC mid-write); Free -1 when unknown
}

func (e *SpaceError) Error() string {
	free := ""
	if e.Free >= 0 {
		free = " (" + HumanBytes(e.Free) + " free)"
	}
	switch {
	case e.Need > 0:
		return fmt.Sprintf("not enough disk space for the index in %s: %s free, about %s needed", e.Dir, HumanBytes(e.Free), HumanBytes(e.Need))
	case e.Dir != "":
		return fmt.Sprintf("the disk holding the index in %s is full%s", e.Dir, free)
	case e.Path != "":
		return fmt.Sprintf("the disk is full: cannot write %s%s", e.Path, free)
	}
	return "the disk holding the index is full" + free
}

// Is makes errors.Is(err, syscall.ENOSPC) true.
func (e *SpaceError) Is(target error) bool { return target == syscall.ENOSPC }

// HumanBytes prints a byte count the way people read disk sizes (KiB, MiB, GiB).
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// classify turns what the file system and Badger report into one of our
// errors: ENOSPC into *SpaceError, checksum and format failures into
// *DamagedError. Badger wraps errnos with pkg/errors (Unwrap works) but
// words some failures only in text, hence the message checks.
func classify(dir string, err error) error {
	if err == nil {
		return nil
	}
	var de *DamagedError
	var se *SpaceError
	if errors.As(err, &de) || errors.As(err, &se) {
		return err
	}
	msg := err.Error()
	switch {
	case errors.Is(err, syscall.ENOSPC) || strings.Contains(msg, "no space left on device"):
		if dir != "" {
			return &SpaceError{Dir: dir, Free: FreeSpace(dir)}
		}
		// Where is not known (Classify): the file that failed says, if
		// any; FreeSpace("") would be the working directory's disk.
		se := &SpaceError{Free: -1}
		var pe *fs.PathError
		if errors.As(err, &pe) && filepath.IsAbs(pe.Path) {
			se.Path, se.Free = pe.Path, FreeSpace(filepath.Dir(pe.Path))
		}
		return se
	case strings.Contains(msg, "checksum") || strings.Contains(msg, "CHECKSUM") ||
		strings.Contains(msg, "MANIFEST") || strings.Contains(msg, "manifest has") ||
		strings.Contains(msg, "KEYREGISTRY"):
		return &DamagedError{Dir: dir, File: fileIn(msg), What: firstLine(msg)}
	}
	return err
}

// Classify turns a disk-full or checksum failure that came out of a read
// or write through a *DB into a *SpaceError or *DamagedError; other
// errors pass unchanged.
func Classify(err error) error { return classify("", err) }

func fileIn(msg string) string {
	for _, f := range strings.FieldsFunc(msg, func(r rune) bool {
		return r == ' ' || r == '"' || r == '\'' || r == ',' || r == ':' || r == '/' || r == '(' || r == ')'
	}) {
		if strings.HasSuffix(f, ".sst") || strings.HasSuffix(f, ".vlog") || strings.HasSuffix(f, ".mem") ||
			f == "MANIFEST" || f == "KEYREGISTRY" || f == "DISCARD" {
			return f
		}
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, "\n =")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// guard turns a panic of Badger in the calling goroutine into a
// *DamagedError: Badger trusts its files and indexes slices with what it
// reads from them, so a damaged block panics instead of failing.
func guard(dir string, err *error) {
	if r := recover(); r != nil {
		*err = &DamagedError{Dir: dir, What: fmt.Sprintf("reading it failed: %v", firstLine(fmt.Sprint(r)))}
		saveCrash(dir, r)
	}
}

// saveCrash keeps the stack of a recovered panic beside the index, for a
// bug report; the user sees one line.
func saveCrash(dir string, r any) {
	path := filepath.Join(filepath.Dir(dir), "crash.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s panic: %v\n%s\n", time.Now().Format(time.RFC3339), r, debug.Stack())
}

// tableOptions are the options Badger opens our tables with (Open).
func tableOptions(mode options.ChecksumVerificationMode) table.Options {
	return table.Options{ReadOnly: true, BlockSize: 4 << 10, BloomFalsePositive: 0.01, Compression: options.Snappy, ChkMode: mode}
}

// checkTables opens every table file of dir the way Badger will, in this
// goroutine and under recover. Badger opens tables in goroutines of its
// own, where a damaged footer panics beyond anyone's recover and a table
// whose index fails its checksum is silently left out (its keys vanish);
// checking first turns both into a *DamagedError. With full, every block's
// checksum is verified too (doctor); else only each table's index and
// first and last blocks are read, which costs little.
//
// Only the tables the MANIFEST lists are checked. A table file it does not
// list is one a writer has not finished (a concurrent indexer, or one
// killed mid-flush): Badger deletes such orphans when it opens, and a
// half-written one must not read as damage.
func checkTables(dir string, full bool) error {
	names, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	sort.Strings(names)
	if listed, ok := manifestTables(dir); ok {
		kept := names[:0]
		for _, name := range names {
			if id, ok := table.ParseFileID(name); !ok || listed[id] {
				kept = append(kept, name)
			}
		}
		names = kept
	}
	mode := options.NoVerification
	if full {
		mode = options.OnTableRead
	}
	var passed map[checkedKey]bool // by earlier processes
	if !full {
		passed = readChecked(dir)
	}
	now := make([]checkedKey, 0, len(names))
	fresh := false
	for _, name := range names {
		var key checkedKey
		if fi, err := os.Stat(name); err == nil && !full {
			key = checkedKey{name, fi.Size(), fi.ModTime().UnixNano()}
			if _, ok := checked.Load(key); ok {
				now = append(now, key)
				continue
			}
			if passed[key] {
				checked.Store(key, true)
				now = append(now, key)
				continue
			}
		}
		if err := checkTable(dir, name, mode); err != nil {
			return err
		}
		if key.name != "" {
			checked.Store(key, true)
			now = append(now, key)
			fresh = true
		}
	}
	if fresh || len(now) != len(passed) {
		writeChecked(dir, now)
	}
	return nil
}

// checkedFile lists the tables of dir that passed checkTables (name, size
// and modification time), so that the next process skips them as this one
// does: each check maps, reads and unmaps a table, and every process that
// opens the index (a search, each index run twice) paid for all of them,
// ~20 ms of CPU on a loaded 2-core machine at 45 tables (issue 20). Badger
// never rewrites a table (a compaction writes new files under new names),
// and a file changed since its check has another size or time and is
// checked again; doctor (full) checks everything whatever the list says.
const checkedFile = "CHECKED-TABLES"

func readChecked(dir string) map[checkedKey]bool {
	b, err := os.ReadFile(filepath.Join(dir, checkedFile))
	if err != nil {
		return nil
	}
	m := map[checkedKey]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		var base string
		var size, mtime int64
		if n, _ := fmt.Sscanf(line, "%s %d %d", &base, &size, &mtime); n == 3 && filepath.Base(base) == base {
			m[checkedKey{filepath.Join(dir, base), size, mtime}] = true
		}
	}
	return m
}

// writeChecked replaces the list with keys (by rename: a reader sees the
// old list or the new one). A directory it cannot write to (an index
// read by another user) only means the next process checks again.
func writeChecked(dir string, keys []checkedKey) {
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d %d\n", filepath.Base(k.name), k.size, k.mtime)
	}
	tmp, err := os.CreateTemp(dir, checkedFile+".tmp*")
	if err != nil {
		return
	}
	_, err = tmp.WriteString(b.String())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, checkedFile))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// manifestTables returns the ids of the tables dir's MANIFEST lists, read
// the way Badger replays it; ok is false when it cannot be read, and then
// every table file is checked (Badger's own open will say what is wrong
// with the MANIFEST).
func manifestTables(dir string) (ids map[uint64]bool, ok bool) {
	f, err := os.Open(filepath.Join(dir, badger.ManifestFilename))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	m, _, err := badger.ReplayManifestFile(f, 0, badger.DefaultOptions(dir))
	if err != nil {
		return nil, false
	}
	ids = make(map[uint64]bool, len(m.Tables))
	for id := range m.Tables {
		ids[id] = true
	}
	return ids, true
}

// checked remembers the tables this process has checked: Badger never
// rewrites a table file (a compaction writes new ones under new names),
// so an indexer, which opens the database read-only and then read-write,
// checks each table once.
var checked sync.Map

type checkedKey struct {
	name        string
	size, mtime int64
}

func checkTable(dir, name string, mode options.ChecksumVerificationMode) (err error) {
	base := filepath.Base(name)
	defer func() {
		if r := recover(); r != nil {
			what := "unreadable table: " + firstLine(fmt.Sprint(r))
			if mode != options.NoVerification {
				// Badger's VerifyChecksum dereferences the nil block it
				// got with the checksum error: the panic is the finding.
				what = "a block fails its checksum or does not decode"
			}
			err = &DamagedError{Dir: dir, File: base, What: what}
		}
	}()
	fi, err := os.Stat(name)
	if err != nil {
		return err
	}
	if fi.Size() < 8 {
		return &DamagedError{Dir: dir, File: base, What: fmt.Sprintf("table file truncated to %d bytes", fi.Size())}
	}
	mf, err := z.OpenMmapFile(name, os.O_RDONLY, 0)
	if err != nil && !errors.Is(err, z.NewFile) {
		return classify(dir, err)
	}
	t, err := table.OpenTable(mf, tableOptions(mode))
	if err != nil {
		return &DamagedError{Dir: dir, File: base, What: firstLine(err.Error())}
	}
	// Not t.DecrRef: at zero references Badger deletes the table file.
	return t.MmapFile.Close(-1)
}

// Verify reads every block of every table and every value of the database
// and checks their checksums, like git fsck: what a doctor runs. It
// returns a *DamagedError naming the file that failed, or nil.
func Verify(dir string) (err error) {
	if _, serr := os.Stat(filepath.Join(dir, "MANIFEST")); serr != nil {
		return ErrNoIndex
	}
	defer guard(dir, &err)
	if err := checkTables(dir, true); err != nil {
		return err
	}
	opts := badgerOptions(dir, true).WithVerifyValueChecksum(true).WithChecksumVerificationMode(options.OnTableAndBlockRead)
	bdb, release, err := openBadger(opts)
	if err != nil {
		if isLockErr(err) {
			return ErrLocked
		}
		return classify(dir, err)
	}
	defer release()
	defer bdb.Close()
	if err := bdb.VerifyChecksum(); err != nil {
		return classify(dir, err)
	}
	// Values in the value log carry their own checksums, checked on read.
	return classify(dir, bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{AllVersions: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := it.Item().Value(func([]byte) error { return nil }); err != nil {
				return fmt.Errorf("value of key %q: %w", keyName(it.Item().Key()), err)
			}
		}
		return nil
	}))
}

func keyName(k []byte) string {
	if len(k) > 12 {
		k = k[:12]
	}
	return fmt.Sprintf("%x", k)
}
