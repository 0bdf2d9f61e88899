package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	badger "github.com/dgraph-io/badger/v4"
)

func open(t *testing.T, dir string, ro bool) *DB {
	t.Helper()
	db, err := Open(context.Background(), dir, Options{ReadOnly: ro, Pipeline: 1, CreatedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func setFormat(t *testing.T, dir string, fi FormatInfo) {
	t.Helper()
	bdb, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(fi)
	if err := bdb.Update(func(txn *badger.Txn) error { return txn.Set([]byte("m/format"), b) }); err != nil {
		t.Fatal(err)
	}
	bdb.Close()
}

func TestFormatVersions(t *testing.T) {
	tests := []struct {
		name    string
		fi      FormatInfo
		wantErr error
	}{
		{"current", FormatInfo{Format: FormatVersion, MinReader: MinReader}, nil},
		{"newer but readable", FormatInfo{Format: FormatVersion + 1, MinReader: FormatVersion}, nil},
		{"too new", FormatInfo{Format: FormatVersion + 1, MinReader: FormatVersion + 1}, ErrFormatTooNew},
		{"format 1 (views of version 2 and before)", FormatInfo{Format: 1, MinReader: 1}, nil},
		{"too old", FormatInfo{Format: oldestFormat - 1, MinReader: 0}, ErrFormatTooOld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			open(t, dir, false).Close()
			setFormat(t, dir, tt.fi)
			db, err := Open(context.Background(), dir, Options{ReadOnly: true})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil {
				db.Close()
			}
		})
	}
}

func TestReadOnlyOpenOfMissingIndex(t *testing.T) {
	if _, err := Open(context.Background(), t.TempDir(), Options{ReadOnly: true}); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("err = %v, want ErrNoIndex", err)
	}
}

// TestUnpublishedSegmentInvisible is the crash-safety contract at the store
// level: data written for a segment that was never published is not seen.
func TestUnpublishedSegmentInvisible(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, false)
	blob := SHA{1}
	seg, first, err := db.AllocSegment(2)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(1)
	ps := []Posting{{Chunk: first, TF: [NumFields]uint16{3, 1, 0, 0}}, {Chunk: first + 1, TF: [NumFields]uint16{0, 0, 2, 0}}}
	if err := b.Postings("回滚", seg, EncodePostings(ps)); err != nil {
		t.Fatal(err)
	}
	if err := b.Blob(blob, BlobHeader{Seg: seg, First: first, N: 2}, &BlobMeta{Lang: "markdown"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	// "Crash" here: no Publish.
	segs, _ := db.Segments()
	if hs, _ := db.BlobHeaders(1, []SHA{blob}, segs); len(hs) != 0 {
		t.Fatalf("blob of an unpublished segment counts as indexed: %v", hs)
	}
	// A new run gets a fresh segment id, never the abandoned one.
	seg2, first2, _ := db.AllocSegment(2)
	if seg2 == seg || first2 < first+2 {
		t.Fatalf("ids reused: seg %d->%d, first %d->%d", seg, seg2, first, first2)
	}
	tree, commit := SHA{9}, SHA{8}
	v := &View{Created: time.Unix(100, 0), Chunks: 2, Entries: []ViewEntry{{Path: "a.md", Blob: blob, Seg: seg2, First: first2, N: 2, FieldLen: [NumFields]uint32{7, 1, 2, 0}, Unique: 5}},
		Stats: ViewStats{Files: 1, Indexed: 1, Skipped: map[string]int{"binary": 2}}, Filter: "f1", EntryStats: true}
	if err := db.Publish(1, &Segment{ID: seg2, First: first2, N: 2}, tree, v, Ref{Commit: commit, Tree: tree, Indexed: time.Unix(200, 0)}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ro := open(t, dir, true)
	defer ro.Close()
	got, err := ro.View(1, tree)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.View(2, tree); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a pipeline-1 view was returned for pipeline 2: %v", err)
	}
	v.tree = tree // DB.View notes which tree it read
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("view round trip:\n%+v\n%+v", got, v)
	}
	var seen []uint32
	err = ro.Postings(1, "回滚", got.Segments(), func(s uint32, _ []byte) error { seen = append(seen, s); return nil })
	if err != nil || len(seen) != 0 {
		t.Fatalf("postings of the abandoned segment %d leaked into the view: %v %v", seg, seen, err)
	}
	if r, err := ro.Ref(commit); err != nil || r.Tree != tree {
		t.Fatalf("ref: %+v %v", r, err)
	}
}

func TestPostingsRoundTrip(t *testing.T) {
	ps := []Posting{{Chunk: 5, TF: [NumFields]uint16{1}}, {Chunk: 7, TF: [NumFields]uint16{0, 2, 3, 65535}}, {Chunk: 1 << 30, TF: [NumFields]uint16{9}}}
	got, err := DecodePostings(nil, EncodePostings(ps))
	if err != nil || !reflect.DeepEqual(got, ps) {
		t.Fatalf("got %v %v", got, err)
	}
	if _, err := DecodePostings(nil, []byte{0x05, 0x01}); err == nil {
		t.Fatal("truncated postings decoded without error")
	}
}

func TestReaderWaitsForWriter(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, false)
	released := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		w.Close()
		close(released)
	}()
	waited := false
	db, err := Open(context.Background(), dir, Options{ReadOnly: true, Wait: 10 * time.Second, OnWait: func() { waited = true }})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	<-released
	if !waited {
		t.Fatal("reader did not report waiting for the writer")
	}
	w = open(t, dir, false)
	defer w.Close()
	if _, err := Open(context.Background(), dir, Options{ReadOnly: true, Wait: 100 * time.Millisecond}); !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
}

func TestVectorRecords(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, t.TempDir(), Options{Pipeline: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mk := ModelKeyFor("hash-v1/8", 1)
	if mk == ModelKeyFor("hash-v1/8", 2) || mk == ModelKeyFor("hash-v1/16", 1) {
		t.Fatal("model keys collide")
	}
	if _, _, err := db.VectorTable(mk, 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing table: %v", err)
	}
	// Cache: content-addressed, visible after the batch flushes.
	b := db.NewBatch(1)
	keys := []VecKey{{1}, {2}, {3}}
	b.CacheVector(mk, keys[0], []byte("v1"))
	b.CacheVector(mk, keys[2], []byte("v3"))
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	db.CachedVectors(mk, keys, func(i int, v []byte) error { got[i] = string(v); return nil })
	if len(got) != 2 || got[0] != "v1" || got[2] != "v3" {
		t.Fatalf("cache: %v", got)
	}
	// A table larger than one part round-trips.
	data := make([]byte, partSize*2+123)
	for i := range data {
		data[i] = byte(i * 7)
	}
	info := &VectorTableInfo{Dim: 8, First: 100, Rows: 5, Present: roaring.BitmapOf(0, 2, 4)}
	if err := db.PutVectorTable(mk, 7, info, data); err != nil {
		t.Fatal(err)
	}
	info2, data2, err := db.VectorTable(mk, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, data2) || info2.Dim != 8 || info2.First != 100 || info2.Rows != 5 || !info2.Present.Equals(info.Present) {
		t.Fatalf("table round trip: %+v, %d bytes", info2, len(data2))
	}
	if err := db.PutGraph(mk, 7, []byte("graph")); err != nil {
		t.Fatal(err)
	}
	if g, err := db.Graph(mk, 7); err != nil || string(g) != "graph" {
		t.Fatalf("graph: %q %v", g, err)
	}
	db.PutModel(mk, &ModelInfo{ID: "hash-v1/8", Dim: 8})
	m, err := db.Model(mk)
	if err != nil || m.ID != "hash-v1/8" || m.Dim != 8 {
		t.Fatalf("model record: %+v %v", m, err)
	}
}
