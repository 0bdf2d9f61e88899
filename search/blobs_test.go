package search

import (
	"testing"

	"github.com/git-kb/git-kb/store"
)

// TestDistinctBlobs: files are counted by blob, once however many paths
// hold it, without the entries that have no chunks, and blobs that share
// their first 8 bytes are told apart by the rest.
func TestDistinctBlobs(t *testing.T) {
	blob := func(head, tail byte) store.SHA {
		var s store.SHA
		for i := range 8 {
			s[i] = head
		}
		s[19] = tail
		return s
	}
	es := []store.ViewEntry{
		{Path: "a", Blob: blob(1, 1), N: 2},
		{Path: "b", Blob: blob(1, 1), N: 2}, // same blob, another path
		{Path: "c", Blob: blob(1, 2), N: 1}, // same first 8 bytes, another blob
		{Path: "d", Blob: blob(1, 2), N: 1}, // ... at another path
		{Path: "e", Blob: blob(1, 3), N: 1}, // a third with those 8 bytes
		{Path: "f", Blob: blob(2, 1), N: 0}, // no chunks
		{Path: "g", Blob: blob(3, 1), N: 4},
	}
	if got := distinctBlobs(es); got != 4 {
		t.Fatalf("distinctBlobs = %d, want 4", got)
	}
	if got := distinctBlobs(nil); got != 0 {
		t.Fatalf("distinctBlobs(nil) = %d", got)
	}
}
