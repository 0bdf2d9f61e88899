package store

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// BenchmarkBlobChunks: a file's best chunks (search/proximity.go asks for
// 1+fileSupport of them) out of a record of 400 chunks, found in the
// record's chunk list by one walk for all of them (nthChunks) against a
// walk per index, as BlobChunks did before (nthChunk each: the list found
// again and walked again from its start), in the same run; and the whole
// of BlobChunks on real Badger.
func BenchmarkBlobChunks(b *testing.B) {
	m := &BlobMeta{Lang: "go", MinHash: make([]byte, 4*MinHashSize)}
	for i := range 400 {
		m.Chunks = append(m.Chunks, ChunkMeta{Start: i*20 + 1, End: i*20 + 20, Heading: fmt.Sprintf("func Handler%d(w http.ResponseWriter, r *http.Request)", i),
			Symbols: []string{fmt.Sprintf("Handler%d", i), "ServeHTTP"}, Hash: strings.Repeat("ab", 8)})
	}
	db, err := Open(b.Context(), b.TempDir(), Options{Pipeline: 1, CreatedBy: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	seg, first, err := db.AllocSegment(1)
	if err != nil {
		b.Fatal(err)
	}
	batch := db.NewBatch(1)
	blob := SHA{7}
	if err := batch.Blob(blob, BlobHeader{Seg: seg, First: first, N: 400}, m); err != nil {
		b.Fatal(err)
	}
	if err := batch.Flush(); err != nil {
		b.Fatal(err)
	}
	var tail []byte
	err = db.db.View(func(txn *badger.Txn) error {
		return readValue(txn, metaKey(1, blob), func(v []byte) error {
			_, t, err := splitMeta(v, false)
			if t == nil {
				t = v
			}
			tail = append([]byte(nil), t...)
			return err
		})
	})
	if err != nil {
		b.Fatal(err)
	}
	idxs := []int{371, 12, 188, 240}
	want, walked := nthChunks(tail, idxs)
	for i, idx := range idxs {
		if elem, _, _ := nthChunk(tail, idx); !walked || !reflect.DeepEqual(elem, want[i]) || want[i] == nil {
			b.Fatalf("chunk %d: one pass %q, per index %q", idx, want[i], elem)
		}
	}
	// The two walks alternate within each iteration, so that the load of
	// a shared machine falls on both alike; their ratio is the figure.
	b.Run("one-walk-vs-per-index", func(b *testing.B) {
		var per, one time.Duration
		for range b.N {
			t0 := time.Now()
			for _, idx := range idxs {
				nthChunk(tail, idx)
			}
			t1 := time.Now()
			nthChunks(tail, idxs)
			t2 := time.Now()
			per, one = per+t1.Sub(t0), one+t2.Sub(t1)
		}
		b.ReportMetric(float64(per.Nanoseconds())/float64(b.N), "per-index-ns/op")
		b.ReportMetric(float64(one.Nanoseconds())/float64(b.N), "one-walk-ns/op")
		b.ReportMetric(float64(one)/float64(per), "one/per")
	})
	b.Run("BlobChunks", func(b *testing.B) {
		for range b.N {
			if _, _, err := db.BlobChunks(1, blob, idxs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
