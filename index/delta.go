package index

import (
	"context"
	"sort"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/store"
)

// Indexing a commit from its parent's view (issue 20): rather than list
// the whole tree and look up every file's blob record, the run asks git
// which files differ between the two trees (gitx.DiffTrees compares
// subtrees by hash, so its cost follows the change), reads the records of
// those files only, and builds the new view as the parent's entries less
// the files that changed or went, plus the new ones. The view's totals and
// each file's vocabulary score are then recomputed in memory from the
// entries (finishView), exactly as a full run computes them; the store
// writes the view as a delta over its root (store.PublishOver).

// maxDeltaShare: a commit that changes more than this share of the base's
// files is indexed by listing its whole tree, which costs little more then.
const maxDeltaShare = 4 // 1/4

// deltaPlan is a commit's view to be built from an indexed view.
type deltaPlan struct {
	parent     *store.View
	baseCommit gitx.Hash
	changed    int
	// The new view's entries from the parent are those whose path is
	// not in gone (view copies them once, straight into the new view);
	// the file count, skip counts and indexed bytes of the new tree so
	// far (the new files' are added by view).
	gone        map[string]bool
	goneIndexed int // of gone, the paths in the parent's view
	files       int
	skipped     map[string]int
	bytes       int64
	// add are the new tree's changed files that the filter accepts;
	// headers the records of those already indexed.
	add     []gitx.Entry
	headers map[store.SHA]store.BlobHeader
}

// planDelta returns how to build the view of tree from the view of an
// indexed commit (the commit's first indexed parent, else the most
// recently indexed commit), or nil when none can serve: no such view, one
// built under other filter rules (kb.maxFileSize, .kbignore) or before
// views kept per-file statistics, one missing objects, or too many files
// changed.
//
// pre, if not nil, is the diff of tree against some tree already made
// (indexAfterLast's): used when that is the base's tree.
func planDelta(ctx context.Context, repo *gitx.Repo, db *store.DB, commit, tree gitx.Hash, f *filter, pre *treeDiff) (*deltaPlan, error) {
	parent, baseCommit, baseTree := pickBase(repo, db, commit, f.fingerprint())
	if parent == nil {
		return nil, nil
	}
	d := pre
	if d == nil || d.from != baseTree {
		var err error
		if d, err = diffTrees(ctx, repo, baseTree, tree); err != nil {
			return nil, err
		}
	}
	changes, objs := d.changes, d.sizes
	if len(changes) > max(64, parent.Stats.Files/maxDeltaShare) {
		return nil, nil
	}
	p := &deltaPlan{parent: parent, baseCommit: baseCommit, changed: len(changes),
		files: parent.Stats.Files, skipped: map[string]int{}, bytes: parent.Stats.Bytes}
	for k, n := range parent.Stats.Skipped {
		p.skipped[k] = n
	}
	gone := map[string]bool{}
	for _, c := range changes {
		if !c.Old.IsZero() {
			gone[c.Path] = true
		}
	}
	if d.missing {
		return nil, nil // a partial clone: let the full run count what is missing
	}

	// The parent's files that go: indexed ones leave the view, the
	// others leave the skip count they were in.
	p.gone = gone
	wasIndexed := map[string]bool{}
	for i := range parent.Entries {
		if gone[parent.Entries[i].Path] {
			wasIndexed[parent.Entries[i].Path] = true
		}
	}
	p.goneIndexed = len(wasIndexed)
	var unindexed []gitx.Change // gone, and not in the parent's view
	for _, c := range changes {
		if c.Old.IsZero() {
			continue
		}
		p.files--
		if wasIndexed[c.Path] {
			p.bytes -= objs[c.Old].Size
			continue
		}
		if why := f.skip(c.Path, c.OldMode, objs[c.Old].Size); why != "" {
			p.skipped[why]--
			continue
		}
		unindexed = append(unindexed, c)
	}
	// Files the filter accepted but the view left out: why is in their
	// blob records (binary, failed, empty).
	var look []store.SHA
	for _, c := range unindexed {
		look = append(look, c.Old)
	}
	for _, c := range changes {
		if c.New.IsZero() {
			continue
		}
		p.files++
		size := objs[c.New].Size
		if why := f.skip(c.Path, c.NewMode, size); why != "" {
			p.skipped[why]++
			continue
		}
		p.add = append(p.add, gitx.Entry{Path: c.Path, Blob: c.New, Mode: c.NewMode, Size: size})
		look = append(look, c.New)
	}
	segs, err := db.Segments()
	if err != nil {
		return nil, err
	}
	if p.headers, err = db.BlobHeaders(PipelineVersion, uniqueSHAs(look), segs); err != nil {
		return nil, err
	}
	freshHeaders(p.headers, f.since)
	for _, c := range unindexed {
		h, ok := p.headers[c.Old]
		switch {
		case !ok:
			return nil, nil // not what the parent's view says: list the tree
		case h.Skip == store.SkipBinary:
			p.skipped[SkipBinary]--
		case h.Skip != store.SkipNone:
			p.skipped[SkipFailed]--
		case h.N == 0:
			p.skipped[SkipEmpty]--
		default:
			return nil, nil // indexed, yet not in the view: list the tree
		}
	}
	for _, n := range p.skipped {
		if n < 0 {
			return nil, nil // counts that do not add up: list the tree
		}
	}
	// Only the headers of new files go to build (the others' blobs are
	// not to be read again, nor counted as reused).
	adds := map[store.SHA]bool{}
	for _, e := range p.add {
		adds[e.Blob] = true
	}
	for b := range p.headers {
		if !adds[b] {
			delete(p.headers, b)
		}
	}
	return p, nil
}

// treeDiff is how tree to differs from tree from, and the sizes of the
// blobs on either side.
type treeDiff struct {
	from    gitx.Hash
	changes []gitx.Change
	sizes   map[gitx.Hash]gitx.ObjectInfo
	missing bool // some blob is not in the repository (a partial clone)
}

// diffTrees lists the files that differ between two trees (gitx.DiffTrees)
// and the sizes of their old and new blobs.
func diffTrees(ctx context.Context, repo *gitx.Repo, from, to gitx.Hash) (*treeDiff, error) {
	changes, err := repo.DiffTrees(ctx, from, to)
	if err != nil {
		return nil, err
	}
	var sizesOf []gitx.Hash
	for _, c := range changes {
		if !c.Old.IsZero() {
			sizesOf = append(sizesOf, c.Old)
		}
		if !c.New.IsZero() {
			sizesOf = append(sizesOf, c.New)
		}
	}
	objs, err := repo.BlobSizes(ctx, sizesOf)
	if err != nil {
		return nil, err
	}
	d := &treeDiff{from: from, changes: changes, sizes: objs}
	for _, h := range sizesOf {
		if objs[h].Type != "blob" {
			d.missing = true
		}
	}
	return d, nil
}

// ancestorWalk is how many first-parent generations pickBase looks back
// for an indexed commit: hooks index HEAD after each commit, but a rebase,
// a pull or a hook that did not run leaves unindexed commits in between.
const ancestorWalk = 64

// pickBase returns the view to build from, its commit and tree: that of
// the commit's nearest indexed ancestor (any parent first, then back along
// first parents), whose tree is the likeliest to differ least; else that of
// the most recently indexed commit with a usable view. Ancestry comes first
// because index times are kept in seconds: two commits indexed in the same
// second tie, and the tie would pick either.
func pickBase(repo *gitx.Repo, db *store.DB, commit gitx.Hash, filterFP string) (*store.View, gitx.Hash, gitx.Hash) {
	usable := func(c gitx.Hash, tree store.SHA) *store.View {
		v, err := db.View(PipelineVersion, tree)
		if err != nil || !v.EntryStats || v.Filter != filterFP || v.Stats.Skipped[SkipMissing] > 0 {
			return nil
		}
		return v
	}
	parents, _ := repo.CommitParents(commit)
	for gen := 0; len(parents) > 0 && gen < ancestorWalk; gen++ {
		for _, p := range parents {
			r, err := db.Ref(p)
			if err != nil {
				continue
			}
			if v := usable(p, r.Tree); v != nil {
				return v, p, r.Tree
			}
		}
		parents, _ = repo.CommitParents(parents[0])
	}
	refs, err := db.Refs()
	if err != nil {
		return nil, gitx.Hash{}, gitx.Hash{}
	}
	// The most recently indexed usable view; a few tries, as each is a
	// decode of a whole view.
	for _, r := range refs[:min(len(refs), 8)] {
		if r.Commit == commit {
			continue
		}
		if v := usable(r.Commit, r.Tree); v != nil {
			return v, r.Commit, r.Tree
		}
	}
	return nil, gitx.Hash{}, gitx.Hash{}
}

// view is the new view: the parent's entries less those gone, and the new
// files' (their blobs read and written by now, headers holding all of
// them), in view order. finishView adds the totals and scores.
func (p *deltaPlan) view(st *Stats, headers map[store.SHA]store.BlobHeader) *store.View {
	v := &store.View{Stats: store.ViewStats{Files: p.files, Skipped: p.skipped, Bytes: p.bytes}}
	var fresh []store.ViewEntry
	for _, e := range p.add {
		if ve, ok := viewEntry(p.skipped, e, headers); ok {
			fresh = append(fresh, ve)
			v.Stats.Bytes += e.Size
		}
	}
	for k, n := range p.skipped {
		if n == 0 {
			delete(p.skipped, k)
		}
	}
	sort.Slice(fresh, func(i, j int) bool {
		a, b := fresh[i], fresh[j]
		return a.First < b.First || a.First == b.First && a.Path < b.Path
	})
	// One pass, one allocation: the views of a large repository hold
	// tens of thousands of entries, and every fresh megabyte is page
	// faults (issue 20).
	v.Entries = make([]store.ViewEntry, 0, len(p.parent.Entries)-p.goneIndexed+len(fresh))
	j := 0
	for i := range p.parent.Entries {
		e := &p.parent.Entries[i]
		if p.gone[e.Path] {
			continue
		}
		for j < len(fresh) && (fresh[j].First < e.First || fresh[j].First == e.First && fresh[j].Path < e.Path) {
			v.Entries = append(v.Entries, fresh[j])
			j++
		}
		v.Entries = append(v.Entries, *e)
	}
	v.Entries = append(v.Entries, fresh[j:]...)
	st.Files, st.Skipped = p.files, p.skipped
	return v
}
