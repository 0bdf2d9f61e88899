//go:build !unix

package store

import "os"

func diskUsage(fi os.FileInfo) int64 { return fi.Size() }
