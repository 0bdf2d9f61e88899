package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// publishOne writes a one-file view of tree at pipeline pv, as an index
// run of that pipeline would: a segment, its postings, the blob record,
// the view and the ref.
func publishOne(t *testing.T, db *DB, pv byte, tree, commit, blob SHA) {
	t.Helper()
	seg, first, err := db.AllocSegment(1)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(pv)
	if err := b.Postings("熔断", seg, EncodePostings([]Posting{{Chunk: first, TF: [NumFields]uint16{1, 0, 0, 0}}})); err != nil {
		t.Fatal(err)
	}
	if err := b.Blob(blob, BlobHeader{Seg: seg, First: first, N: 1}, &BlobMeta{Lang: "markdown"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	v := &View{Created: time.Unix(100, 0), Chunks: 1, Entries: []ViewEntry{{Path: "a.md", Blob: blob, Seg: seg, First: first, N: 1, FieldLen: [NumFields]uint32{1, 0, 0, 0}, Unique: 1}},
		Stats: ViewStats{Files: 1, Indexed: 1}, EntryStats: true}
	if err := db.Publish(pv, &Segment{ID: seg, First: first, N: 1}, tree, v, Ref{Commit: commit, Tree: tree, Indexed: time.Unix(200, 0)}); err != nil {
		t.Fatal(err)
	}
}

// TestOtherPipelines: an upgrade leaves the older git-kb's records, which
// OtherPipelines finds, and a GC that keeps every view of this pipeline
// drops them and nothing of its own.
func TestOtherPipelines(t *testing.T) {
	db := open(t, t.TempDir(), false)
	defer db.Close()
	if older, newer, err := db.OtherPipelines(5); older || newer || err != nil {
		t.Fatalf("empty index: older %v newer %v %v", older, newer, err)
	}
	publishOne(t, db, 5, SHA{1}, SHA{11}, SHA{21})
	publishOne(t, db, 5, SHA{2}, SHA{12}, SHA{22}) // another commit's view: not HEAD's, kept all the same
	if older, newer, _ := db.OtherPipelines(5); older || newer {
		t.Fatalf("one pipeline: older %v newer %v", older, newer)
	}
	publishOne(t, db, 3, SHA{1}, SHA{11}, SHA{21})
	for _, c := range []struct {
		pv           byte
		older, newer bool
	}{{5, true, false}, {3, false, true}, {4, true, true}, {9, true, false}, {1, false, true}} {
		older, newer, err := db.OtherPipelines(c.pv)
		if err != nil || older != c.older || newer != c.newer {
			t.Errorf("OtherPipelines(%d) = older %v newer %v %v, want %v %v", c.pv, older, newer, err, c.older, c.newer)
		}
	}

	st, err := db.GC(5, func(Ref) bool { return true }, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.RefsDropped != 0 || st.SegmentsDropped != 1 || st.OtherPipelineFiles != 1 || st.KeysDeleted == 0 {
		t.Errorf("gc: %+v", st)
	}
	if older, newer, _ := db.OtherPipelines(5); older || newer {
		t.Errorf("after gc: older %v newer %v", older, newer)
	}
	if _, err := db.View(3, SHA{1}); !errors.Is(err, ErrNotFound) {
		t.Errorf("pipeline 3's view is still there: %v", err)
	}
	for _, tree := range []SHA{{1}, {2}} {
		v, err := db.View(5, tree)
		if err != nil {
			t.Fatalf("pipeline 5's view of %x went: %v", tree[:1], err)
		}
		n := 0
		db.Postings(5, "熔断", v.Segments(), func(uint32, []byte) error { n++; return nil })
		if n != 1 {
			t.Errorf("view %x: %d posting lists of its term, want 1", tree[:1], n)
		}
	}
}

// TestGCFreesTheSpaceAtOnce: the records a collection deletes leave the
// disk in the same gc, not at the next one (Compact writes the deletions
// out of the memtable before it flattens the levels).
func TestGCFreesTheSpaceAtOnce(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, false)
	// An older pipeline's postings, some 4 MB of them, as an upgrade
	// leaves them.
	seg, first, err := db.AllocSegment(1)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(3)
	post := EncodePostings([]Posting{{Chunk: first, TF: [NumFields]uint16{1}}})
	rnd := rand.New(rand.NewPCG(1, 2))
	pad := make([]byte, 200) // incompressible, as real postings nearly are
	for i := 0; i < 20000; i++ {
		for j := range pad {
			pad[j] = byte(rnd.Uint32())
		}
		if err := b.Postings(fmt.Sprintf("term%06d", i), seg, append(append([]byte{}, post...), pad...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	publishOne(t, db, 5, SHA{1}, SHA{11}, SHA{21})
	db.Close()
	before := DirSize(dir)

	db = open(t, dir, false)
	if _, err := db.GC(5, func(Ref) bool { return true }, false); err != nil {
		t.Fatal(err)
	}
	db.Close()
	after := DirSize(dir)
	if after*3 > before {
		t.Errorf("gc left %d of %d bytes on disk; the deleted postings should have gone", after, before)
	}
	db = open(t, dir, true)
	defer db.Close()
	if _, err := db.View(5, SHA{1}); err != nil {
		t.Errorf("the kept view went: %v", err)
	}
}
