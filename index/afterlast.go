package index

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/store"
)

// A commit made on top of the last commit indexed (what the post-commit
// hook indexes, every time) is read ahead: its changed files are diffed,
// read and analyzed before the database is opened, and the run then
// opens it once, read-write, to check the plan against the base's view
// and write. The usual path opens it twice, read-only to plan and
// read-write to write, and each open maps every table and value-log file
// and each close unmaps them (an unmap is a TLB shootdown across cores,
// costly in a VM): about a quarter of a one-file commit's ~0.2 s of CPU
// went to the two (issue 20). The read-write session is the usual one
// plus reading the base's view and the new blobs' records: searches wait
// for a few milliseconds more, not for the analysis.
//
// Which commit was indexed last is a hint in the database's directory
// (lastFile), never trusted: the plan is made again from the database,
// as the usual path makes it, and anything that differs from what was
// read ahead (no view for that commit any more, a file whose blob was
// indexed before, such as a revert) drops what was read ahead and takes
// the usual path.

// lastFile names the last commit whose view a run published, and its tree.
const lastFile = "LAST-INDEXED"

// aheadMaxChanges bounds the files a commit may change to be read ahead
// (the in-process diff's own bound): what is read ahead is thrown away
// when the plan disagrees, so the bet stays small.
const aheadMaxChanges = 256

// writeLast records commit and its tree as the last indexed. A hint: a
// failure to write it costs the next run its read-ahead, nothing else.
func writeLast(dbDir string, commit, tree gitx.Hash) {
	tmp := filepath.Join(dbDir, lastFile+".tmp")
	if os.WriteFile(tmp, []byte(commit.String()+" "+tree.String()+"\n"), 0o644) == nil {
		os.Rename(tmp, filepath.Join(dbDir, lastFile))
	}
}

// readLast returns the hint writeLast left, if any.
func readLast(dbDir string) (commit, tree gitx.Hash, ok bool) {
	b, err := os.ReadFile(filepath.Join(dbDir, lastFile))
	if err != nil {
		return commit, tree, false
	}
	f := bytes.Fields(b)
	if len(f) != 2 || len(f[0]) != 40 || len(f[1]) != 40 {
		return commit, tree, false
	}
	if _, err := hex.Decode(commit[:], f[0]); err != nil {
		return commit, tree, false
	}
	if _, err := hex.Decode(tree[:], f[1]); err != nil {
		return commit, tree, false
	}
	return commit, tree, true
}

// indexAfterLast indexes commit by reading ahead (see above) when its
// first parent is the last commit indexed. done false: it did not, and
// left st and the database as they were; the caller takes the usual path.
func indexAfterLast(ctx context.Context, repo *gitx.Repo, o Options, tm *timer, st *Stats, storeOpts store.Options, dbDir string,
	commit, tree gitx.Hash, pol *secrets.Policy, f *filter) (done bool, err error) {
	t0 := time.Now()
	last, lastTree, ok := readLast(dbDir)
	if !ok {
		return false, nil
	}
	parents, err := repo.CommitParents(commit)
	if err != nil || len(parents) == 0 || parents[0] != last || lastTree == tree {
		return false, nil
	}
	d, err := diffTrees(ctx, repo, lastTree, tree)
	if err != nil || d.missing || len(d.changes) > aheadMaxChanges {
		return false, nil // the usual path says what is wrong, if anything
	}
	// The files to read: the new side of each change the filter accepts,
	// but for blobs the parent had at another path (a move: indexed
	// already, most likely).
	moved := map[gitx.Hash]bool{}
	for _, c := range d.changes {
		if !c.Old.IsZero() {
			moved[c.Old] = true
		}
	}
	var ahead []gitx.Entry
	for _, c := range d.changes {
		if c.New.IsZero() || moved[c.New] {
			continue
		}
		size := d.sizes[c.New].Size
		if f.skip(c.Path, c.NewMode, size) != "" {
			continue
		}
		ahead = append(ahead, gitx.Entry{Path: c.Path, Blob: c.New, Mode: c.NewMode, Size: size})
	}
	tm.since("diff", t0)
	saved := *st // readPhase counts into st; restored if the plan disagrees
	rd, err := readPhase(ctx, repo, o, tm, st, dbDir, ahead, map[store.SHA]store.BlobHeader{}, pol, f)
	if err != nil {
		return true, err // nothing was written: the previous view stays
	}
	defer rd.done()

	t0 = time.Now()
	storeOpts.Reserve = writeEstimate(st.BytesRead)
	db, err := store.Open(ctx, dbDir, storeOpts)
	if err != nil {
		return true, err
	}
	tm.since("open rw", t0)
	t0 = time.Now()
	// A view of the tree (another branch made it) is the usual path's
	// to judge: plan nil.
	var plan *deltaPlan
	if _, err = db.View(PipelineVersion, tree); errors.Is(err, store.ErrNotFound) {
		plan, err = planDelta(ctx, repo, db, commit, tree, f, d)
	}
	tm.since("plan", t0)
	if err == nil && plan != nil && plan.baseCommit == last {
		if todo, _, _ := blobsToRead(plan.add, plan.headers); slices.Equal(todo, rd.todo) {
			st.Base, st.ChangedFiles = plan.baseCommit.String(), plan.changed
			st.BlobsNew, st.ReadAhead = len(todo), true
			return true, rd.write(ctx, db, o, tm, st, commit, tree, plan.add, plan.headers, f, plan)
		}
	}
	// The database disagrees with the hint (or the tree was indexed
	// already): nothing written, the usual path decides.
	db.Close()
	if err != nil {
		return true, err
	}
	*st = saved
	return false, nil
}
