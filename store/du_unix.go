//go:build unix

package store

import (
	"os"
	"syscall"
)

// diskUsage is the real allocated size: Badger preallocates sparse files.
func diskUsage(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return fi.Size()
}
