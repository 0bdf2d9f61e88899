//go:build unix

package gitx

import (
	"os"
	"syscall"
)

// openObjectFile opens a file of the object directory for reading
// without blocking: a FIFO put in place of an object would block open(2)
// until a writer came, forever. O_NONBLOCK makes that open return at
// once; openRegular then refuses what is not a regular file. (Reads of a
// regular file do not block either way.)
func openObjectFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
