//go:build !linux

package store

// reserve does nothing where fallocate does not exist: the free-space
// check (CheckSpace) stands alone.
func reserve(dir string, n int64) error { return nil }
