//go:build unix

package store

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// FreeSpace is what the file system holding dir (or its nearest existing
// parent) has free for this user, in bytes; -1 if unknown.
func FreeSpace(dir string) int64 {
	for d := dir; ; d = filepath.Dir(d) {
		var st unix.Statfs_t
		if err := unix.Statfs(d, &st); err == nil {
			return int64(st.Bavail) * int64(st.Bsize)
		}
		if d == filepath.Dir(d) {
			return -1
		}
	}
}
