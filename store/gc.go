package store

import (
	"context"
	"encoding/binary"
	"errors"

	badger "github.com/dgraph-io/badger/v4"
)

// GCStats is what a collection found (and, unless it was a dry run, freed).
type GCStats struct {
	RefsKept     int `json:"refs_kept"`
	RefsDropped  int `json:"refs_dropped"`
	ViewsDropped int `json:"views_dropped"`
	// ViewsStoredWhole are kept views that were stored as a delta over a
	// view that went: they are rewritten whole.
	ViewsStoredWhole int `json:"views_stored_whole,omitempty"`
	BlobsDropped     int `json:"blobs_dropped"`
	SegmentsDropped  int `json:"segments_dropped"`
	// DeadChunks are chunks of kept segments that no kept view uses: their
	// postings stay until their whole segment goes (or a rebuild).
	DeadChunks int `json:"dead_chunks_in_kept_segments"`
	// OtherPipelineFiles counts the file records of other pipeline
	// versions dropped (BlobsDropped counts this pipeline's).
	OtherPipelineFiles int `json:"other_pipeline_files,omitempty"`
	KeysDeleted        int `json:"keys_deleted"`
	// BytesBefore and BytesAfter are the database's size on disk, set
	// by the caller with the database closed (open, it counts the room
	// the session reserved).
	BytesBefore int64 `json:"bytes_before"`
	BytesAfter  int64 `json:"bytes_after"`
}

// GC deletes the refs that keep rejects and every piece of derived data
// that no remaining view reaches: views of other trees, blobs in none of
// the kept views, and whole segments (postings, lengths, vector tables,
// graphs) none of whose chunks a kept view uses, including the leftovers
// of killed runs and everything of other pipeline versions. Cached
// embeddings stay: they are keyed by text, not by blob, and cheap to keep.
//
// The caller must hold the indexer and embedder locks: GC assumes no
// segment is being written. With dryRun it only counts.
func (d *DB) GC(pv byte, keep func(Ref) bool, dryRun bool) (*GCStats, error) {
	st := &GCStats{}
	refs, err := d.Refs()
	if err != nil {
		return nil, err
	}
	liveTrees := map[SHA]bool{}
	var del [][]byte
	for _, r := range refs {
		if keep(r) {
			st.RefsKept++
			liveTrees[r.Tree] = true
		} else {
			st.RefsDropped++
			del = append(del, refKey(r.Commit))
		}
	}
	live, err := d.liveData(pv, liveTrees)
	if err != nil {
		return nil, err
	}
	st.DeadChunks = d.deadChunks(live)
	dead, err := d.deadKeys(live, st)
	if err != nil {
		return nil, err
	}
	del = append(del, dead...)
	st.ViewsStoredWhole = len(live.rewrite)
	st.KeysDeleted = len(del)
	if dryRun {
		return st, nil
	}
	if err := d.storeWhole(pv, live.rewrite); err != nil {
		return nil, err
	}
	if err := d.deleteKeys(del); err != nil {
		return nil, err
	}
	if err := d.Compact(); err != nil {
		return nil, err
	}
	return st, nil
}

// gcLive is what the kept views reach, for GC.
type gcLive struct {
	pv     byte
	trees  map[SHA]bool
	blobs  map[SHA]bool
	segs   map[uint32]bool
	chunks map[uint32]uint32 // per segment, chunks a kept view uses
	// rewrite holds the kept views stored as a delta over a view that
	// goes, encoded whole.
	rewrite map[SHA][]byte
}

// liveData reads the kept views (those of trees) of pipeline pv: the
// blobs and segments they use, and which of them must be stored whole.
func (d *DB) liveData(pv byte, trees map[SHA]bool) (*gcLive, error) {
	live := &gcLive{pv: pv, trees: trees, blobs: map[SHA]bool{}, segs: map[uint32]bool{},
		chunks: map[uint32]uint32{}, rewrite: map[SHA][]byte{}}
	for tree := range trees {
		v, err := d.View(pv, tree)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		// A kept view stored as a delta over a view that goes is stored
		// whole first (in its own transaction, before anything is
		// deleted, so a crash between the two leaves both records
		// readable).
		if v.delta != nil && !trees[v.delta.root] {
			live.rewrite[tree] = v.encode()
		}
		for _, e := range v.Entries {
			if e.N > 0 {
				live.segs[e.Seg] = true
				if !live.blobs[e.Blob] { // a blob's chunks count once
					live.chunks[e.Seg] += e.N
				}
			}
			live.blobs[e.Blob] = true
		}
	}
	return live, nil
}

// deadChunks counts the chunks of kept segments that no kept view uses
// (0 if the segments cannot be read: the count is only reported).
func (d *DB) deadChunks(live *gcLive) int {
	n := 0
	if segs, err := d.Segments(); err == nil {
		for id, sg := range segs {
			if live.segs[id] {
				n += int(sg.N - min(sg.N, live.chunks[id]))
			}
		}
	}
	return n
}

// deadKeys lists every key of derived data that no kept view reaches,
// counting in st the views, blobs, segments and other pipelines' files
// they drop.
func (d *DB) deadKeys(live *gcLive, st *GCStats) ([][]byte, error) {
	var del [][]byte
	droppedSegs := map[uint32]bool{}
	err := d.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().KeyCopy(nil)
			if live.dead(k, st, droppedSegs) {
				del = append(del, k)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	st.SegmentsDropped = len(droppedSegs)
	return del, nil
}

// dead says whether key k is of data no kept view reaches, counting in
// st what it drops; a segment record's dropped segment joins droppedSegs.
func (live *gcLive) dead(k []byte, st *GCStats, droppedSegs map[uint32]bool) bool {
	switch {
	case len(k) == 0:
		// Only a damaged table holds one (badger refuses it from Set):
		// no record of ours, so not gc's to drop; doctor reads the rest.
		return false
	case len(k) >= 2 && k[0] == 's' && k[1] == '/':
		if seg, ok := segOf(k, 2); ok && !live.segs[seg] {
			droppedSegs[seg] = true
			return true
		}
	case len(k) >= 2 && k[1] != '/' && (k[0] == 'v' || k[0] == 'o' || k[0] == 'b' || k[0] == 'c' || k[0] == 'p' || k[0] == 'l'):
		if k[1] != live.pv {
			if k[0] == 'b' {
				st.OtherPipelineFiles++
			}
			return true // another pipeline's data: never read again
		}
		switch k[0] {
		case 'v':
			var tree SHA
			copy(tree[:], k[2:])
			if !live.trees[tree] {
				st.ViewsDropped++
				return true
			}
		case 'o': // where a view came from: goes with the view
			var tree SHA
			copy(tree[:], k[2:])
			return !live.trees[tree]
		case 'b', 'c':
			var blob SHA
			copy(blob[:], k[2:])
			if !live.blobs[blob] {
				if k[0] == 'b' {
					st.BlobsDropped++
				}
				return true
			}
		case 'p':
			seg, ok := segOf(k, len(k)-4)
			return ok && !live.segs[seg]
		case 'l':
			seg, ok := segOf(k, 2)
			return ok && !live.segs[seg]
		}
	case k[0] == 'x' || k[0] == 'y' || k[0] == 'g' || k[0] == 'h':
		seg, ok := segOf(k, 1+len(ModelKey{}))
		return ok && !live.segs[seg]
	}
	return false
}

// segOf reads the segment id at offset off of key k.
func segOf(k []byte, off int) (uint32, bool) {
	if len(k) < off+4 {
		return 0, false
	}
	return binary.BigEndian.Uint32(k[off:]), true
}

// storeWhole writes the views of rewrite whole, in one transaction.
func (d *DB) storeWhole(pv byte, rewrite map[SHA][]byte) error {
	if len(rewrite) == 0 {
		return nil
	}
	return d.db.Update(func(txn *badger.Txn) error {
		for tree, rec := range rewrite {
			if err := txn.Set(viewKey(pv, tree), rec); err != nil {
				return err
			}
		}
		return nil
	})
}

// deleteKeys deletes keys in one write batch.
func (d *DB) deleteKeys(keys [][]byte) error {
	wb := d.db.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range keys {
		if err := wb.Delete(k); err != nil {
			return err
		}
	}
	return wb.Flush()
}

// Compact rewrites the LSM tree into its last level and reclaims value-log
// files that are mostly garbage, so deleted data leaves the disk.
//
// The deletions a collection just wrote are still in the memtable, and
// Flatten neither reaches the memtable nor merges a level 0 that is the
// only level with tables (a small index's case): compacted that way, the
// levels kept every record the deletions drop, and a gc freed half of
// what it dropped until the next one (tidb-docs-cn after an upgrade: 9.7
// MB on disk for an index of 4.6). So the database is closed (writing
// the memtable out to level 0) and reopened to be closed once more with
// level 0 merged into the levels below, where deletions meet what they
// delete; then Flatten merges what other levels remain.
func (d *DB) Compact() error {
	ctx := context.Background()
	// The reopened sessions write nothing of their own, only the tables
	// compaction makes (the caller checked room for them): no log
	// reserve, whose allocation would take that room.
	normal := d.opened
	normal.Reserve = 0
	once := normal
	once.compactL0OnClose = true
	if err := d.reopenAs(ctx, once); err != nil {
		return err
	}
	if err := d.reopenAs(ctx, normal); err != nil {
		return err
	}
	if err := d.db.Flatten(2); err != nil {
		return err
	}
	for {
		if err := d.db.RunValueLogGC(0.5); err != nil {
			if errors.Is(err, badger.ErrNoRewrite) || errors.Is(err, badger.ErrRejected) {
				return nil
			}
			return err
		}
	}
}

// OtherPipelines says whether the database holds records of pipeline
// versions below pv (an older git-kb's, which this one never reads again:
// an upgrade leaves a whole index of them behind) or above it (a newer
// git-kb uses this index too, and what it wrote is not ours to judge).
// It seeks to the edges of the view and blob records, so it costs a few
// reads whatever the index holds.
func (d *DB) OtherPipelines(pv byte) (older, newer bool, err error) {
	err = d.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: false})
		defer it.Close()
		// A record of another kind may share the first letter, with '/'
		// second ("s/", "r/"): no pipeline byte, skipped.
		first := func(kind byte, from byte) (byte, bool) {
			for it.Seek([]byte{kind, from}); it.Valid(); it.Next() {
				k := it.Item().Key()
				if len(k) < 2 || k[0] != kind {
					return 0, false
				}
				if k[1] != '/' {
					return k[1], true
				}
			}
			return 0, false
		}
		for _, kind := range []byte{'v', 'b'} {
			if p, ok := first(kind, 0); ok && p < pv {
				older = true
			}
			if pv < 0xff {
				if _, ok := first(kind, pv+1); ok {
					newer = true
				}
			}
		}
		return nil
	})
	return older, newer, err
}
