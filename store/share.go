package store

import (
	"encoding/binary"
	"encoding/json"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// What sharing the index needs of the store: reading a segment's postings
// whole (to export per-blob records), committing a segment written from
// imported records, and remembering where a view's data came from.

// ScanPostings calls fn with every term's encoded postings in the segments
// segs, under pipeline pv. Values of other segments are not read.
func (d *DB) ScanPostings(pv byte, segs map[uint32]bool, fn func(term string, seg uint32, data []byte) error) error {
	return d.db.View(func(txn *badger.Txn) error {
		prefix := []byte{'p', pv}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			// p pv term 0 seg(4)
			if len(k) < len(prefix)+5 || k[len(k)-5] != 0 {
				continue
			}
			seg := binary.BigEndian.Uint32(k[len(k)-4:])
			if !segs[seg] {
				continue
			}
			term := string(k[len(prefix) : len(k)-5])
			if err := it.Item().Value(func(b []byte) error { return fn(term, seg, b) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// CommitSegment makes a segment written through a Batch visible on its
// own, without a view: records imported from elsewhere, which the next
// index run of a commit then finds already indexed.
func (d *DB) CommitSegment(seg Segment) error {
	return d.db.Update(func(txn *badger.Txn) error {
		b := binary.AppendUvarint(nil, uint64(seg.First))
		b = binary.AppendUvarint(b, uint64(seg.N))
		return txn.Set(segKey(seg.ID), b)
	})
}

// Origin says where the data of a view came from when it was not (all)
// indexed on this machine.
type Origin struct {
	Remote    string    `json:"remote"`               // remote name or URL
	Ref       string    `json:"ref"`                  // the remote's ref, e.g. refs/kb/1/heads/main
	KBCommit  string    `json:"kb_commit"`            // the commit of that ref that was imported
	Commit    string    `json:"source_commit"`        // the commit its data was indexed from
	Imported  int       `json:"blobs_imported"`       // blob records taken from it
	Local     int       `json:"blobs_local"`          // blob records this machine had or made
	Vectors   int       `json:"vectors_imported"`     // embeddings taken from it
	Pulled    time.Time `json:"pulled_at"`            //
	Verified  bool      `json:"verified,omitempty"`   // every imported blob re-analysed and equal
	VerifyErr string    `json:"verify_err,omitempty"` // what a verification found
}

func originKey(pv byte, tree SHA) []byte { return key([]byte{'o', pv}, tree[:]) }

// PutOrigin records where the view of tree came from.
func (d *DB) PutOrigin(pv byte, tree SHA, o *Origin) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return d.db.Update(func(txn *badger.Txn) error { return txn.Set(originKey(pv, tree), b) })
}

// Origin returns where the view of tree came from, or ErrNotFound when it
// was indexed here.
func (d *DB) Origin(pv byte, tree SHA) (*Origin, error) {
	var o Origin
	err := d.db.View(func(txn *badger.Txn) error { return getJSON(txn, originKey(pv, tree), &o) })
	if err != nil {
		return nil, err
	}
	return &o, nil
}
