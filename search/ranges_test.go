package search

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// chunkRanges joins ranges before adding them; the bitmap must be the one
// adding each range gives, for ranges in order, overlapping, repeated (a
// blob at two paths), empty and out of order.
func TestChunkRangesAsAddRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 16))
	for trial := 0; trial < 200; trial++ {
		var r chunkRanges
		want := roaring.New()
		at := uint32(rng.IntN(100))
		for range rng.IntN(50) {
			first, n := at, uint32(rng.IntN(5))
			switch rng.IntN(6) {
			case 0:
				first = uint32(rng.IntN(300)) // anywhere
			case 1:
				first = at - min(at, uint32(rng.IntN(3))) // overlapping or repeated
			case 2:
				first = at + uint32(rng.IntN(4)) // a gap
			}
			r.add(first, n)
			want.AddRange(uint64(first), uint64(first)+uint64(n))
			at = max(at, first+n)
		}
		if got := r.bitmap(); !got.Equals(want) {
			t.Fatalf("trial %d: got %v, want %v", trial, got.ToArray(), want.ToArray())
		}
	}
}
