//go:build !unix

package gitx

import "os"

// openObjectFile opens a file of the object directory for reading (on
// Unix without blocking on a FIFO: openfile_unix.go).
func openObjectFile(path string) (*os.File, error) { return os.Open(path) }
