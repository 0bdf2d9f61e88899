package store

import (
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/ristretto/v2/z"
)

// TestGCZeroLengthKey: a damaged store holding a zero-length key (badger
// refuses one from Set; a damaged table can hold one all the same) is
// collected without a panic, the key is left alone and the kept view
// stays readable.
func TestGCZeroLengthKey(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir, false)
	publishOne(t, db, 5, SHA{1}, SHA{11}, SHA{21})
	db.Close()

	// The key goes in below badger's checks, as a table of its own.
	raw, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	sw := raw.NewStreamWriter()
	if err := sw.PrepareIncremental(); err != nil {
		t.Fatal(err)
	}
	buf := z.NewBuffer(1<<10, "test")
	defer buf.Release()
	badger.KVToBuffer(&pb.KV{Key: []byte{}, Value: []byte("junk"), Version: 1}, buf)
	if err := sw.Write(buf); err != nil {
		t.Fatal(err)
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	found := false
	raw.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			found = found || len(it.Item().Key()) == 0
		}
		return nil
	})
	raw.Close()
	if !found {
		t.Fatal("the zero-length key did not make it into the store")
	}

	db = open(t, dir, false)
	defer db.Close()
	st, err := db.GC(5, func(Ref) bool { return true }, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.ViewsDropped != 0 || st.BlobsDropped != 0 {
		t.Errorf("gc dropped kept data: %+v", st)
	}
	if _, err := db.View(5, SHA{1}); err != nil {
		t.Errorf("the kept view: %v", err)
	}
}
