//go:build !unix

package store

// FreeSpace is unknown here (-1): the free-space check is skipped.
func FreeSpace(dir string) int64 { return -1 }
