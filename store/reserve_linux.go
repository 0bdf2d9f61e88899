package store

import (
	"errors"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// reserve allocates the first n bytes of the newest write-ahead log and
// value log files Badger has just created. Badger writes both through
// memory mappings of sparse files: on a full disk such a write is a
// SIGBUS that kills the process with a Go crash dump, where an allocation
// made now fails with a plain ENOSPC. fallocate keeps the file size, so
// Badger sees nothing different.
func reserve(dir string, n int64) error {
	for _, pat := range []string{"*.mem", "*.vlog"} {
		names, _ := filepath.Glob(filepath.Join(dir, pat))
		if len(names) == 0 {
			continue
		}
		sort.Strings(names) // zero-padded ids: the last is the newest
		name := names[len(names)-1]
		fi, err := os.Stat(name)
		if err != nil {
			continue
		}
		size := min(n, fi.Size())
		if size <= 0 {
			continue
		}
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		err = unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, size)
		f.Close()
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
			return nil // the file system cannot: the free-space check stands alone
		}
		if err != nil {
			return err
		}
	}
	return nil
}
