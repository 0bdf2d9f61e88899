package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"
)

// TestViewDeltas publishes a chain of views, each built from the one
// before by random edits, additions, deletions and score changes, and
// reads every one back: the same entries and totals whether it was stored
// whole or as a delta over its root, deltas stay over a full record (never
// a chain), grow with the change, and give way to a full record past
// MaxDeltaShare. Then gc drops the roots: the kept views are rewritten
// whole and still read the same.
func TestViewDeltas(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, false)
	rng := rand.New(rand.NewPCG(7, 9))
	next := uint32(0)
	entry := func(path string) ViewEntry {
		n := 1 + rng.Uint32N(5)
		e := ViewEntry{Path: path, Blob: SHA{byte(next), byte(next >> 8), 1}, Seg: 1, First: next, N: n,
			FieldLen: [NumFields]uint32{rng.Uint32N(900), rng.Uint32N(9), 3, 0}, Unique: rng.Uint32N(300), Vocab: uint8(rng.IntN(3))}
		next += n
		return e
	}
	var entries []ViewEntry
	for i := range 600 {
		entries = append(entries, entry(fmt.Sprintf("d%d/f%03d.go", i%7, i)))
	}
	sortEntries(entries)

	var trees []SHA
	var want []*View
	var parent *View
	deltas, wholes := 0, 0
	for c := range 40 {
		es := append([]ViewEntry(nil), entries...)
		k := 1 + rng.IntN(12)
		if c == 25 {
			k = 200 // a large change: stored whole
		}
		for range k {
			i := rng.IntN(len(es))
			switch rng.IntN(4) {
			case 0: // edit: new blob, new chunks
				es[i] = entry(es[i].Path)
			case 1: // delete
				es = append(es[:i], es[i+1:]...)
			case 2: // add
				es = append(es, entry(fmt.Sprintf("new/c%d-%d.md", c, rng.IntN(1000))))
			case 3: // only the vocabulary score moves
				es[i].Vocab++
			}
		}
		sortEntries(es)
		dedup := es[:0]
		seen := map[string]bool{}
		for _, e := range es {
			if !seen[e.Path] {
				seen[e.Path] = true
				dedup = append(dedup, e)
			}
		}
		entries = dedup
		v := &View{Created: time.Unix(int64(1000+c), 0), Chunks: uint32(c), Entries: append([]ViewEntry(nil), entries...),
			Stats: ViewStats{Files: len(entries) + 3, Indexed: len(entries), Skipped: map[string]int{"binary": 3}}, Filter: "f", EntryStats: true}
		if c%3 != 1 { // the last one (gc rewrites it whole) has one
			v.Vocab = fmt.Sprintf("vocab%d", c%5) // a word list's fingerprint, after the entries
		}
		tree := SHA{0xee, byte(c)}
		if err := db.PublishOver(1, nil, tree, v, parent, Ref{Commit: SHA{0xcc, byte(c)}, Tree: tree, Indexed: time.Unix(int64(1000+c), 0)}); err != nil {
			t.Fatal(err)
		}
		if v.delta != nil {
			deltas++
			if v.delta.size() > max(MinDelta, len(v.Entries)/MaxDeltaShare) {
				t.Fatalf("commit %d: a delta of %d entries for a view of %d", c, v.delta.size(), len(v.Entries))
			}
		} else {
			wholes++
		}
		if c == 25 && v.delta != nil {
			t.Fatalf("a change of 200 files was stored as a delta")
		}
		got, err := db.View(1, tree)
		if err != nil {
			t.Fatal(err)
		}
		check := func(when string, got *View, w *View) {
			t.Helper()
			if !reflect.DeepEqual(got.Entries, w.Entries) {
				t.Fatalf("%s: %d entries read back, %d written; first differences: %v", when, len(got.Entries), len(w.Entries), firstDiff(got.Entries, w.Entries))
			}
			if got.Chunks != w.Chunks || got.Stats.Files != w.Stats.Files || !reflect.DeepEqual(got.Stats.Skipped, w.Stats.Skipped) || got.Filter != w.Filter || !got.EntryStats || got.Vocab != w.Vocab {
				t.Fatalf("%s: head %+v read back, %+v written", when, got, w)
			}
		}
		check(fmt.Sprintf("commit %d", c), got, v)
		parent = got
		trees = append(trees, tree)
		want = append(want, v)
	}
	if deltas < 20 || wholes < 2 {
		t.Fatalf("%d views stored as deltas, %d whole: the test does not exercise both", deltas, wholes)
	}
	for i, tree := range trees { // earlier views still read the same
		got, err := db.View(1, tree)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Entries, want[i].Entries) {
			t.Fatalf("view %d changed after later commits", i)
		}
	}

	// gc keeps only the last view: its root goes, so it is stored whole.
	last := trees[len(trees)-1]
	st, err := db.GC(1, func(r Ref) bool { return r.Tree == last }, false)
	if err != nil {
		t.Fatal(err)
	}
	if want[len(want)-1].delta != nil && st.ViewsStoredWhole != 1 {
		t.Fatalf("gc rewrote %d views whole, want 1", st.ViewsStoredWhole)
	}
	got, err := db.View(1, last)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Entries, want[len(want)-1].Entries) || got.delta != nil || got.Vocab != want[len(want)-1].Vocab {
		t.Fatalf("the kept view changed in gc (delta %v)", got.delta != nil)
	}
	if _, err := db.View(1, trees[0]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a dropped view still reads: %v", err)
	}
	db.Close()
}

// TestDeltaOverMissingRoot: a delta whose root record is gone is a
// corrupt index (doctor's business), not a wrong or empty view.
func TestDeltaOverMissingRoot(t *testing.T) {
	db := open(t, t.TempDir(), false)
	defer db.Close()
	es := []ViewEntry{{Path: "a", Blob: SHA{1}, Seg: 1, First: 0, N: 1}, {Path: "b", Blob: SHA{2}, Seg: 1, First: 1, N: 1}}
	root := &View{Entries: es, EntryStats: true}
	if err := db.Publish(1, nil, SHA{1}, root, Ref{Commit: SHA{11}, Tree: SHA{1}}); err != nil {
		t.Fatal(err)
	}
	parent, err := db.View(1, SHA{1})
	if err != nil {
		t.Fatal(err)
	}
	v := &View{Entries: es[:1], EntryStats: true}
	if err := db.PublishOver(1, nil, SHA{2}, v, parent, Ref{Commit: SHA{12}, Tree: SHA{2}}); err != nil || v.delta == nil {
		t.Fatalf("not stored as a delta: %v", err)
	}
	if err := db.db.DropPrefix(viewKey(1, SHA{1})); err != nil {
		t.Fatal(err)
	}
	if _, err := db.View(1, SHA{2}); !errors.Is(err, ErrDamaged) {
		t.Fatalf("err = %v, want corrupt", err)
	}
}

func firstDiff(a, b []ViewEntry) []string {
	var out []string
	pa, pb := map[string]ViewEntry{}, map[string]ViewEntry{}
	for _, e := range a {
		pa[e.Path] = e
	}
	for _, e := range b {
		pb[e.Path] = e
	}
	for p, e := range pa {
		if pb[p] != e {
			out = append(out, fmt.Sprintf("%s: %+v vs %+v", p, e, pb[p]))
		}
	}
	for p := range pb {
		if _, ok := pa[p]; !ok {
			out = append(out, "missing "+p)
		}
	}
	sort.Strings(out)
	return out[:min(len(out), 5)]
}

// TestBatchReopen: a batch that reopens the database midway (to let Badger
// unmap what it wrote) loses nothing, and the handle keeps working.
func TestBatchReopen(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, false)
	b := db.NewBatch(1)
	for i := range 3000 {
		if err := b.Postings(fmt.Sprintf("term%05d", i), 1, EncodePostings([]Posting{{Chunk: uint32(i), TF: [NumFields]uint16{1}}})); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 999 {
			if b.Written() == 0 {
				t.Fatal("Written counts nothing")
			}
			if err := b.Reopen(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.CommitSegment(Segment{ID: 1, First: 0, N: 3000}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro := open(t, dir, true)
	defer ro.Close()
	n := 0
	if err := ro.ScanPostings(1, map[uint32]bool{1: true}, func(string, uint32, []byte) error { n++; return nil }); err != nil || n != 3000 {
		t.Fatalf("%d postings read back, want 3000 (%v)", n, err)
	}
}
