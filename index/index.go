package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/settings"
	"github.com/git-kb/git-kb/store"
)

// Options control a run.
type Options struct {
	Rev string // default HEAD
	// MaxFileSize overrides kb.maxFileSize; 0 reads git config (default 1 MiB).
	MaxFileSize int64
	// Wait bounds how long to wait for another indexer or for the database.
	Wait time.Duration
	// OnWait is told what is being waited for, once per wait.
	OnWait func(what string)
	// Progress receives events while blobs are processed.
	Progress func(Event)
	// Version goes into the index's format record.
	Version string
	// MemoryBudget bounds the memory of a run's buffers, in bytes; 0
	// reads kb.index.memoryMB (default 512 MiB).
	MemoryBudget int64
	// KeepCores leaves GOMAXPROCS alone: the process serves other work
	// while this run goes (an MCP server's searches of other
	// repositories), and a small run's narrowing to one core (cores.go)
	// would slow all of it. A one-shot command leaves it false.
	KeepCores bool

	cores *cores // set by Run (cores.go)
}

// Event reports progress.
type Event struct {
	Phase       string // "read", "write"
	Done, Total int    // blobs
	Bytes       int64
}

// Stats describe a run.
type Stats struct {
	Commit         string         `json:"commit"`
	Tree           string         `json:"tree"`
	AlreadyIndexed bool           `json:"already_indexed"`
	Files          int            `json:"files"`   // files in the tree
	Indexed        int            `json:"indexed"` // files with chunks in the view
	Skipped        map[string]int `json:"skipped"`
	BlobsNew       int            `json:"blobs_new"`
	BlobsReused    int            `json:"blobs_reused"` // of a run built from a parent's view: files of the view whose blob was indexed before
	BytesRead      int64          `json:"bytes_read"`
	Chunks         int            `json:"chunks"`     // chunks in the view
	NewChunks      int            `json:"new_chunks"` // chunks made by this run
	Terms          int            `json:"terms"`      // term occurrences analyzed by this run
	UniqueTerms    int            `json:"unique_terms"`
	// SpillRuns is how many times the postings outgrew the memory
	// budget and were written to a sorted run on disk (then merged).
	SpillRuns int `json:"spill_runs"`
	// MemoryBudgetMB is the budget a big run kept to, and MemoryNote
	// says why when it is less than kb.index.memoryMB (the machine or
	// the cgroup has less memory free).
	MemoryBudgetMB int    `json:"memory_budget_mb,omitempty"`
	MemoryNote     string `json:"memory_note,omitempty"`
	// Base is the indexed commit whose view this one was built from, by
	// the files that differ between their trees (ChangedFiles of them);
	// empty when the whole tree was listed.
	Base         string `json:"base,omitempty"`
	ChangedFiles int    `json:"changed_files,omitempty"`
	// ReadAhead says the commit was on top of the last one indexed and
	// its changed files were analyzed before the database was opened
	// (afterlast.go).
	ReadAhead bool               `json:"read_ahead,omitempty"`
	Seconds   float64            `json:"seconds"`
	Timings   map[string]float64 `json:"timings_ms"`
	// Embed reports the embedding run that followed, if any.
	Embed *EmbedStats `json:"embed,omitempty"`
	// EmbedBackground says embedding was handed to a background process.
	EmbedBackground bool `json:"embed_background,omitempty"`
	// OlderPipelines says this run rebuilt the index for this git-kb's
	// pipeline while an older git-kb's records are still in it, never
	// to be read again (a whole index after an upgrade), and kb.gc.auto
	// is on: GC with Auto drops them (the engine starts it in the
	// background). False when a newer git-kb uses this index too.
	OlderPipelines bool `json:"older_pipelines,omitempty"`
	// GCUnfinished says a gc started over an hour ago never ended well
	// (killed, or failed), and kb.gc.auto is on: the engine starts
	// `git kb gc --auto` again to finish it.
	GCUnfinished bool `json:"gc_unfinished,omitempty"`
	// GCBackground says a `git kb gc --auto` was started for them.
	GCBackground bool `json:"gc_background,omitempty"`
}

type timer struct {
	mu sync.Mutex
	m  map[string]time.Duration
}

func (t *timer) add(stage string, d time.Duration) {
	t.mu.Lock()
	t.m[stage] += d
	t.mu.Unlock()
}

func (t *timer) since(stage string, start time.Time) { t.add(stage, time.Since(start)) }

// Run indexes the tree of a commit.
func Run(ctx context.Context, repo *gitx.Repo, o Options) (*Stats, error) {
	began := time.Now()
	if !o.KeepCores {
		o.cores = narrow()
		defer o.cores.widen()
	}
	tm := &timer{m: map[string]time.Duration{}}
	st := &Stats{Skipped: map[string]int{}}
	defer func() {
		st.Seconds = time.Since(began).Seconds()
		st.Timings = map[string]float64{}
		for k, v := range tm.m {
			st.Timings[k] = float64(v.Microseconds()) / 1000
		}
	}()
	onWait := func(what string) func() {
		return func() {
			if o.OnWait != nil {
				o.OnWait(what)
			}
		}
	}

	t0 := time.Now()
	commit, tree, err := repo.Resolve(ctx, o.Rev)
	if err != nil {
		return st, err
	}
	st.Commit, st.Tree = commit.String(), tree.String()
	tm.since("resolve", t0)

	t0 = time.Now()
	release, err := lockIndex(ctx, repo.KBDir(), o.Wait, waitNote(o.OnWait, "another git kb index or gc to finish"))
	if err != nil {
		return st, err
	}
	defer release()
	tm.since("lock", t0)
	// What a killed run left (we hold the index lock): also when this run
	// finds its commit indexed, as when a run was killed after publishing
	// but before it cleaned up.
	os.RemoveAll(SpillDir(repo.KBDir()))

	// One read of git config serves the secrets policy and the run's
	// settings (each read is a git process).
	t0 = time.Now()
	set, err := settings.Load(ctx, repo, nil)
	if err != nil {
		return st, err
	}
	// A gc --auto killed half way (we hold the index lock, so none runs)
	// may have dropped records whose space only its compaction frees.
	st.GCUnfinished = set.GCAuto && gcUnfinished(repo.KBDir())
	rr, err := newRunRules(repo, set, &o, commit)
	if err != nil {
		return st, err
	}
	tm.since("settings", t0)

	dbDir := DBDir(repo)
	storeOpts := store.Options{Wait: o.Wait, OnWait: onWait("searches to release the index"), Pipeline: PipelineVersion, CreatedBy: "git-kb " + o.Version}

	// A commit on top of the last one indexed (the post-commit hook's
	// case) is read and analyzed before the database is opened at all,
	// then written in one read-write session (afterlast.go).
	if !rr.rederive && !rr.learn {
		done, err := indexAfterLast(ctx, repo, o, tm, st, storeOpts, dbDir, commit, tree, rr.pol, rr.f)
		if done {
			if err == nil {
				err = rr.record(repo)
			}
			return st, err
		}
	}

	// Read phase: read-only, so searches are not locked out.
	t0 = time.Now()
	ro := storeOpts
	ro.ReadOnly = true
	db, err := store.Open(ctx, dbDir, ro)
	if errors.Is(err, store.ErrNoIndex) {
		db, err = store.Open(ctx, dbDir, storeOpts) // first run: create
	}
	if err != nil {
		return st, err
	}
	tm.since("open", t0)
	if rr.rederive {
		rr.f.since = nextSegment(db)
	}

	if done, err := alreadyIndexed(ctx, repo, db, rr, st, storeOpts, dbDir, commit, tree); done {
		return st, err
	}

	// A commit whose parent (or the last indexed commit) has a view is
	// indexed from the files that differ: the cost follows the change.
	if !rr.rederive && !rr.learn {
		t0 = time.Now()
		plan, err := planDelta(ctx, repo, db, commit, tree, rr.f, nil)
		tm.since("diff", t0)
		if err != nil {
			db.Close()
			return st, err
		}
		if plan != nil {
			if err = db.Close(); err != nil {
				return st, err
			}
			st.Base, st.ChangedFiles = plan.baseCommit.String(), plan.changed
			if err = build(ctx, repo, o, tm, st, storeOpts, dbDir, commit, tree, plan.add, plan.headers, rr.pol, rr.f, plan); err == nil {
				err = rr.record(repo)
			}
			return st, err
		}
	}
	files, headers, err := rebuildPlan(ctx, repo, db, rr, set, tm, st, tree)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return st, err
	}
	if err = build(ctx, repo, o, tm, st, storeOpts, dbDir, commit, tree, files, headers, rr.pol, rr.f, nil); err == nil {
		err = rr.record(repo)
	}
	return st, err
}

// runRules are the rules a run indexes under, and what it records once
// its view is published: the secrets policy, the word list (kb.dict, and
// learned words), the size limit and .kbignore, all held by the filter.
// A change of any makes older records stale (rederive); a word list
// still to learn (learn) is known only after reading the whole tree.
type runRules struct {
	pol      *secrets.Policy
	fp       string // the policy's fingerprint
	vin      *vocabInputs
	recIn    string // the recorded vocabulary's inputs, fingerprint and first good segment
	recFP    string
	recSince uint32
	f        *filter
	rederive bool
	learn    bool
}

// newRunRules reads the rules of a run from its settings and what the
// last run recorded, and fills in o's size and memory limits from the
// settings where o leaves them.
func newRunRules(repo *gitx.Repo, set *settings.Settings, o *Options, commit gitx.Hash) (*runRules, error) {
	rr := &runRules{pol: secrets.NewPolicy(set.SecretsAllow)}
	// A changed kb.secrets.allow re-derives every blob (see policyFile).
	rr.fp = rr.pol.Fingerprint()
	rr.rederive = indexedPolicy(repo.KBDir()) != rr.fp
	// So does a changed vocabulary (vocab.go). One made by learning is
	// known only after reading the whole tree: learn marks that run.
	var err error
	if rr.vin, err = readVocabInputs(repo, set); err != nil {
		return nil, err
	}
	var vocab *segment.Vocab
	rr.recIn, rr.recFP, rr.recSince = recordedVocab(repo.KBDir())
	switch {
	case rr.vin.fp == "":
		// no kb.dict, no learning: no vocabulary
	case rr.recIn == rr.vin.fp:
		if vocab, err = LoadVocab(repo.KBDir(), rr.recFP); err != nil {
			rr.learn, vocab = rr.vin.learn, rr.vin.user // lost: make it again
		}
	case rr.vin.learn:
		rr.learn = true
	default:
		vocab = rr.vin.user
	}
	if !rr.learn && vocab.Fingerprint() != rr.recFP {
		rr.rederive = true
	}
	if o.MaxFileSize == 0 {
		o.MaxFileSize = set.MaxFileSize
	}
	if o.MemoryBudget == 0 {
		o.MemoryBudget = int64(set.IndexMemoryMB) << 20
	}
	kbignore := ""
	if _, b, err := repo.FileAt(commit, ".kbignore"); err == nil {
		kbignore = string(b)
	}
	rr.f = newFilter(o.MaxFileSize, kbignore)
	rr.f.policy = rr.fp // a view built under another secrets policy is no base
	rr.f.pol = rr.pol
	rr.f.vocab, rr.f.since = vocab, rr.recSince
	return rr, nil
}

// record writes what a run records once its view is published: the
// policy, and since when records are good (a new policy or word list
// made every older record stale, for every later run too).
func (rr *runRules) record(repo *gitx.Repo) error {
	if err := recordPolicy(repo.KBDir(), rr.fp, rr.f.fingerprint()); err != nil {
		return err
	}
	if rr.recIn == rr.vin.fp && rr.recFP == rr.f.vocab.Fingerprint() && rr.recSince == rr.f.since {
		return nil
	}
	return recordVocab(repo.KBDir(), rr.vin.fp, rr.f.vocab, rr.f.since)
}

// nextSegment is the first segment a new word list's records will be
// in: every record made so far was cut with another one.
func nextSegment(db *store.DB) uint32 {
	segs, _ := db.Segments()
	last := uint32(0)
	for id := range segs {
		last = max(last, id)
	}
	return last + 1
}

// alreadyIndexed answers a run whose tree has a view made under the
// same rules (secrets policy, word list, size limit: its filter
// fingerprint holds all three): the view is the run's answer, and a new
// commit of that tree (an amended message) gets its ref only. One made
// under other rules is not: a rule allowed then and not now would keep
// its values in the view of a branch checked out again. Nor is one that
// lacks files git did not have. done is false when the run must index;
// db is closed when done is true.
func alreadyIndexed(ctx context.Context, repo *gitx.Repo, db *store.DB, rr *runRules, st *Stats, storeOpts store.Options, dbDir string, commit, tree gitx.Hash) (done bool, err error) {
	v, err := db.View(PipelineVersion, tree)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		db.Close()
		return true, err
	}
	if rr.rederive || rr.learn || v.Filter != rr.f.fingerprint() {
		return false, nil
	}
	// A view that lacks files git did not have (a partial clone, a lost
	// object) is made again: git may have them now, and the run reads
	// only those. A search does not come here (it indexes a commit with
	// no view only), so a partial clone's searches do not pay for this.
	if v.Stats.Skipped[SkipMissing] > 0 {
		return false, nil
	}
	st.AlreadyIndexed = true
	if err := recordPolicy(repo.KBDir(), rr.fp, v.Filter); err != nil {
		db.Close()
		return true, err
	}
	st.Files, st.Indexed, st.Chunks = v.Stats.Files, v.Stats.Indexed, int(v.Chunks)
	for k, n := range v.Stats.Skipped {
		st.Skipped[k] = n
	}
	_, rerr := db.Ref(commit)
	db.Close()
	if rerr == nil {
		writeLast(dbDir, commit, tree) // a commit on top of it is read ahead
		return true, nil
	}
	// Same tree, new commit (e.g. an amended message): record the ref only.
	return true, publish(ctx, dbDir, storeOpts, nil, tree, nil, commit)
}

// rebuildPlan lists the tree's files for a run from scratch (no view to
// build on, or new rules), learns the word list if one is to be learned,
// and finds the blobs already indexed under the rules. A rebuild from
// scratch is also what a new pipeline version takes: it says whether an
// older one's records are left to drop (Stats.OlderPipelines).
func rebuildPlan(ctx context.Context, repo *gitx.Repo, db *store.DB, rr *runRules, set *settings.Settings, tm *timer, st *Stats, tree gitx.Hash) ([]gitx.Entry, map[store.SHA]store.BlobHeader, error) {
	t0 := time.Now()
	entries, err := repo.ListTree(ctx, tree)
	if err != nil {
		return nil, nil, err
	}
	st.Files = len(entries)
	var files []gitx.Entry
	for _, e := range entries {
		if why := rr.f.skip(e.Path, e.Mode, e.Size); why != "" {
			st.Skipped[why]++
			continue
		}
		files = append(files, e)
	}
	tm.since("list tree", t0)

	if rr.learn {
		words, err := learnVocab(ctx, repo, tm, rr.pol, files)
		if err != nil {
			return nil, nil, err
		}
		for i := range words {
			words[i].Freq = 0 // counts in this corpus are not gse frequencies: let NewVocab choose
		}
		learned, _ := segment.NewVocab(words)
		rr.f.vocab = segment.Merge(rr.vin.user, learned)
		if rr.f.vocab.Fingerprint() != rr.recFP {
			rr.rederive = true
			rr.f.since = nextSegment(db)
		}
	}

	t0 = time.Now()
	if set.GCAuto {
		older, newer, err := db.OtherPipelines(PipelineVersion)
		st.OlderPipelines = err == nil && older && !newer
	}
	segs, err := db.Segments()
	if err != nil {
		return nil, nil, err
	}
	headers, err := db.BlobHeaders(PipelineVersion, uniqueBlobs(files), segs)
	if err != nil {
		return nil, nil, err
	}
	if rr.rederive {
		headers = map[store.SHA]store.BlobHeader{}
	}
	freshHeaders(headers, rr.f.since)
	tm.since("lookup", t0)
	return files, headers, nil
}

// DBDir is where the database of a repository lives.
func DBDir(repo *gitx.Repo) string { return repo.KBDir() + "/db" }

// configSize is kb.maxFileSize (package settings reads and checks it).
func configSize(ctx context.Context, repo *gitx.Repo) (int64, error) {
	set, err := settings.Load(ctx, repo, nil)
	if err != nil {
		return 0, err
	}
	return set.MaxFileSize, nil
}

// parseSize reads git-style sizes: 1048576, 512k, 2m, 1g.
func parseSize(s string) (int64, error) { return settings.ParseSize(s) }

func uniqueSHAs(bs []store.SHA) []store.SHA {
	seen := map[store.SHA]bool{}
	var out []store.SHA
	for _, b := range bs {
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}

func uniqueBlobs(files []gitx.Entry) []store.SHA {
	seen := map[store.SHA]bool{}
	var out []store.SHA
	for _, e := range files {
		if !seen[e.Blob] {
			seen[e.Blob] = true
			out = append(out, e.Blob)
		}
	}
	return out
}

// analyzed is one blob after decode, chunk and analysis.
type analyzed struct {
	blob   store.SHA
	header store.BlobHeader
	meta   *store.BlobMeta
	chunks [][]termTF // per chunk: its terms, sorted
	lens   []uint32   // per chunk: body length
	terms  int
}

// Bits of analyzeKeep's seen: a term of the file, in any field and in a body.
const (
	seenAny uint8 = 1 << iota
	seenBody
)

type termTF struct {
	term string
	tf   [store.NumFields]uint16
}

// build reads and analyzes the blobs of files not in headers, writes them
// as one segment and publishes the view of tree: of all its files (plan
// nil: files are all the tree's files the filter f accepts), or plan's
// parent view with the changed files (files are the new ones f accepts).
func build(ctx context.Context, repo *gitx.Repo, o Options, tm *timer, st *Stats, storeOpts store.Options, dbDir string,
	commit, tree gitx.Hash, files []gitx.Entry, headers map[store.SHA]store.BlobHeader, pol *secrets.Policy, f *filter, plan *deltaPlan) error {
	rd, err := readPhase(ctx, repo, o, tm, st, dbDir, files, headers, pol, f)
	if err != nil {
		return err // nothing was written: the previous view stays
	}
	defer rd.done()
	// Write phase: the only time the database is held read-write. What
	// it writes was measured at 0.6x the bytes read at its peak (logs
	// plus the tables they flush into; tidb-docs-cn: 12.1 MiB read, 7.3
	// MiB peak): Open checks for room and allocates it up front, so a full
	// disk is one clear error before anything is written.
	t0 := time.Now()
	storeOpts.Reserve = writeEstimate(st.BytesRead)
	db, err := store.Open(ctx, dbDir, storeOpts)
	if err != nil {
		return err
	}
	tm.since("open rw", t0)
	return rd.write(ctx, db, o, tm, st, commit, tree, files, headers, f, plan)
}

// analyzedBlobs is what a run's read phase made, for its write phase: the
// new blobs' records, their chunks' lengths and postings.
type analyzedBlobs struct {
	todo []gitx.Hash
	recs []blobRec
	lens []uint32
	buf  *postingBuffer
	// budget is the run's memory budget: Options.MemoryBudget, or less
	// when the machine has less (fitBudget).
	budget int64
	done   func() // puts the memory limit back, removes the spill files
}

// readPhase reads and analyzes the blobs of files not in headers, without
// the database: an error leaves nothing written.
func readPhase(ctx context.Context, repo *gitx.Repo, o Options, tm *timer, st *Stats, dbDir string,
	files []gitx.Entry, headers map[store.SHA]store.BlobHeader, pol *secrets.Policy, f *filter) (*analyzedBlobs, error) {
	todo, pathOf, todoBytes := blobsToRead(files, headers)
	st.BlobsNew = len(todo)
	st.BlobsReused = len(uniqueBlobs(files)) - len(todo)
	// Refuse a run the disk cannot hold before reading anything: the
	// write phase needs about 0.6x the bytes read (see build), in its
	// logs and again in the tables they become.
	est := writeEstimate(todoBytes)
	if err := store.CheckSpace(dbDir, est, est); err != nil {
		return nil, err
	}

	if todoBytes >= parallelBytes || len(todo) > parallelBlobs {
		o.cores.widen()
	}
	// Pick the dictionary by volume: a full load pays off on big runs only.
	an := f.vocab.Tiny()
	big := segment.FullWorthIt(int(todoBytes / 2))
	if big {
		an = f.vocab.Full()
	}

	// Analysis runs on every core; one collector takes the results in
	// read order (chunk ordinals follow it, as they always have), inverts
	// them into a buffer of bounded size and drops them, so memory does
	// not grow with the repository (spill.go). Tokens bound the blobs read
	// but not yet collected.
	budget := o.MemoryBudget
	if big {
		// A big run: check the machine can hold it, and keep to what it
		// can (a one-file commit needs a few MiB and is not held up).
		avail, source := availableMemory()
		var err error
		if budget, err = fitBudget(budget, avail, source); err != nil {
			return nil, err
		}
		st.MemoryBudgetMB = int(budget >> 20)
		if budget < o.MemoryBudget {
			st.MemoryNote = fmt.Sprintf("memory budget lowered from %d to %d MiB: %d MiB is available (%s)", o.MemoryBudget>>20, budget>>20, avail>>20, source)
		}
	}
	restore := limitMemory(budget)
	spillDir := SpillDir(repo.KBDir())
	os.RemoveAll(spillDir) // what a killed run left (we hold the index lock)
	rd := &analyzedBlobs{todo: todo, budget: budget, done: func() { restore(); os.RemoveAll(spillDir) }}
	rd.buf = newPostingBuffer(spillDir, bufferLimit(budget))

	var err error
	rd.recs, rd.lens, err = analyzeAll(ctx, repo, o, tm, st, an, pol, todo, pathOf, rd.buf)
	if err != nil {
		rd.done()
		return nil, err
	}
	st.NewChunks = len(rd.lens)
	st.SpillRuns = len(rd.buf.runs)
	return rd, nil
}

// write writes the analyzed blobs as one segment of db (open read-write)
// and publishes the view of tree (see build), then closes db.
func (rd *analyzedBlobs) write(ctx context.Context, db *store.DB, o Options, tm *timer, st *Stats,
	commit, tree gitx.Hash, files []gitx.Entry, headers map[store.SHA]store.BlobHeader, f *filter, plan *deltaPlan) error {
	recs, lens := rd.recs, rd.lens
	var err error
	t0 := time.Now()
	var seg *store.Segment
	if len(recs) > 0 {
		id, first, err := db.AllocSegment(uint32(len(lens)))
		if err != nil {
			db.Close()
			return err
		}
		seg = &store.Segment{ID: id, First: first, N: uint32(len(lens))}
		for i := range recs {
			recs[i].header.Seg = id
			recs[i].header.First += first
			headers[recs[i].blob] = recs[i].header
		}
		if st.UniqueTerms, err = writeSegment(ctx, db, seg, rd.buf, lens, recs, headers, o.Progress, reopenEvery(rd.budget)); err != nil {
			db.Close()
			return err
		}
	}
	tm.since("write", t0)

	t0 = time.Now()
	v := newView(files, headers, st, f, plan)
	if plan != nil {
		// Built from a parent: reused are the view's files whose blob
		// was indexed before (counting each file: no map of every blob).
		read := make(map[store.SHA]bool, len(rd.todo))
		for _, h := range rd.todo {
			read[h] = true
		}
		st.BlobsReused = 0
		for _, e := range v.Entries {
			if !read[e.Blob] {
				st.BlobsReused++
			}
		}
	}
	var parent *store.View
	if plan != nil {
		parent = plan.parent
	}
	err = db.PublishOver(PipelineVersion, seg, tree, v, parent, store.Ref{Commit: commit, Tree: tree, Indexed: time.Now()})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	tm.since("publish", t0)
	if err == nil {
		writeLast(db.Dir(), commit, tree)
	}
	return err
}

// blobsToRead lists the blobs of files the index lacks, once each (the
// first path wins for language detection), and their bytes.
func blobsToRead(files []gitx.Entry, headers map[store.SHA]store.BlobHeader) (todo []gitx.Hash, pathOf map[store.SHA]string, bytes int64) {
	pathOf = map[store.SHA]string{}
	for _, e := range files {
		if _, done := headers[e.Blob]; done {
			continue
		}
		if _, dup := pathOf[e.Blob]; dup {
			continue
		}
		pathOf[e.Blob] = e.Path
		todo = append(todo, e.Blob)
		bytes += max(e.Size, 0)
	}
	return todo, pathOf, bytes
}

// analyzeAll reads the blobs of todo and analyzes them on every core; one
// collector takes the results in read order (chunk ordinals follow it),
// inverts them into buf and drops them. It returns each blob's record and
// each new chunk's body length, or why it stopped (then nothing is
// written).
func analyzeAll(ctx context.Context, repo *gitx.Repo, o Options, tm *timer, st *Stats, an *segment.Analyzer,
	pol *secrets.Policy, todo []gitx.Hash, pathOf map[store.SHA]string, buf *postingBuffer) ([]blobRec, []uint32, error) {
	type job struct {
		i    int
		blob gitx.Hash
		data []byte
	}
	type done struct {
		i int
		r *analyzed
	}
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan job, 16)
	dones := make(chan done, 16)
	// Blobs in flight are outside the budget: keep them few (each is up
	// to kb.maxFileSize, and its analysis several times that).
	tokens := make(chan struct{}, 2*workers+4)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				dones <- done{j.i, analyze(an, tm, pol, pathOf[j.blob], j.blob, j.data)}
			}
		}()
	}
	go func() { wg.Wait(); close(dones) }()

	// The collector.
	col := &collector{buf: buf}
	var failed atomic.Bool
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		pending := map[int]*analyzed{}
		next := 0
		for d := range dones {
			pending[d.i] = d.r
			for r := pending[next]; r != nil; r = pending[next] {
				delete(pending, next)
				next++
				<-tokens
				if col.err != nil {
					continue // drain: the reader stops at its next blob
				}
				t := time.Now()
				col.take(r, st)
				if col.err != nil {
					failed.Store(true)
				}
				tm.since("invert", t)
			}
		}
	}()

	t0 := time.Now()
	n := 0
	readErr := repo.ReadBlobs(ctx, todo, func(h gitx.Hash, data []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if failed.Load() {
			return errCollect
		}
		tokens <- struct{}{}
		st.BytesRead += int64(len(data))
		jobs <- job{i: n, blob: h, data: data}
		n++
		if o.Progress != nil {
			o.Progress(Event{Phase: "index", Done: n, Total: len(todo), Bytes: st.BytesRead})
		}
		return nil
	})
	close(jobs)
	<-collected
	tm.since("read+analyze (wall)", t0)
	// Blobs git does not have (a partial clone, a lost object) are left
	// out of the view and counted; the rest is indexed.
	var missing *gitx.MissingObjectsError
	if errors.As(readErr, &missing) || errors.Is(readErr, errCollect) {
		readErr = nil
	}
	if readErr == nil {
		readErr = col.err
	}
	if readErr != nil {
		return nil, nil, readErr
	}
	return col.recs, col.lens, nil
}

// collector takes analyzed blobs in read order: their chunks are numbered
// in that order and inverted into buf; recs and lens grow with them.
type collector struct {
	buf  *postingBuffer
	recs []blobRec
	lens []uint32 // each chunk's body length, by ordinal
	err  error    // the first failure; take is not called after it
}

// take inverts one analyzed blob, its chunks numbered after those taken
// before, and keeps its record.
func (c *collector) take(r *analyzed, st *Stats) {
	r.header.First = uint32(len(c.lens))
	for ci, terms := range r.chunks {
		if err := c.buf.add(r.header.First+uint32(ci), terms); err != nil {
			c.err = err
		}
	}
	c.lens = append(c.lens, r.lens...)
	st.Terms += r.terms
	if r.meta != nil && c.err == nil {
		mb, err := store.EncodeBlobMeta(r.meta)
		if err == nil {
			err = c.buf.addMeta(r.blob, mb)
		}
		if err != nil {
			c.err = err
		}
	}
	c.recs = append(c.recs, blobRec{r.blob, r.header, r.meta != nil})
}

// newView is the view of tree: of all its indexed files (plan nil), or
// plan's parent view with the changed files; each entry in chunk order,
// with the totals BM25 needs. It counts what it leaves out in st.
func newView(files []gitx.Entry, headers map[store.SHA]store.BlobHeader, st *Stats, f *filter, plan *deltaPlan) *store.View {
	var v *store.View
	if plan != nil {
		v = plan.view(st, headers)
	} else {
		v = &store.View{Stats: store.ViewStats{Files: st.Files, Skipped: st.Skipped}}
		for _, e := range files {
			if ve, ok := viewEntry(st.Skipped, e, headers); ok {
				v.Entries = append(v.Entries, ve)
				v.Stats.Bytes += e.Size
			}
		}
		sort.Slice(v.Entries, func(i, j int) bool {
			a, b := v.Entries[i], v.Entries[j]
			return a.First < b.First || a.First == b.First && a.Path < b.Path
		})
	}
	v.Created = time.Now()
	v.Filter = f.fingerprint()
	v.Vocab = f.vocab.Fingerprint()
	finishView(v)
	st.Indexed, st.Chunks = v.Stats.Indexed, int(v.Chunks)
	return v
}

// viewEntry is the view's entry for file e, or false when e has no chunks
// (counted in skipped by why).
func viewEntry(skipped map[string]int, e gitx.Entry, headers map[store.SHA]store.BlobHeader) (store.ViewEntry, bool) {
	h, ok := headers[e.Blob]
	switch {
	case !ok:
		skipped[SkipMissing]++
		return store.ViewEntry{}, false
	case h.Skip == store.SkipNone:
	case h.Skip == store.SkipBinary:
		skipped[SkipBinary]++
		return store.ViewEntry{}, false
	default:
		skipped[SkipFailed]++
		return store.ViewEntry{}, false
	}
	if h.N == 0 {
		skipped[SkipEmpty]++
		return store.ViewEntry{}, false
	}
	return store.ViewEntry{Path: e.Path, Blob: e.Blob, Seg: h.Seg, First: h.First, N: h.N, FieldLen: h.FieldLen, Unique: h.UniqueTerm}, true
}

// finishView computes what a view holds about all its files, from its
// entries alone (sorted in view order), the same however they were
// gathered: each file's vocabulary outlier score and the BM25 totals.
func finishView(v *store.View) {
	// Each blob once, in entry order (a blob at two paths is one set of
	// chunks); slices, not maps: this runs over every file of the view
	// on every commit.
	seen := make(map[store.SHA]int32, len(v.Entries))
	owner := make([]int32, len(v.Entries)) // entry -> its blob's point
	pts := make([]vocabPoint, 0, len(v.Entries))
	v.Chunks, v.FieldLen = 0, [store.NumFields]uint64{}
	for i := range v.Entries {
		e := &v.Entries[i]
		if j, dup := seen[e.Blob]; dup {
			owner[i] = j
			continue
		}
		seen[e.Blob] = int32(len(pts))
		owner[i] = int32(len(pts))
		pts = append(pts, vocabPoint{body: e.FieldLen[store.FieldBody], unique: e.Unique})
		v.Chunks += e.N
		for f := range v.FieldLen {
			v.FieldLen[f] += uint64(e.FieldLen[f])
		}
	}
	scores := vocabScores(pts)
	for i := range v.Entries {
		v.Entries[i].Vocab = scores[owner[i]]
	}
	v.Stats.Indexed = len(v.Entries)
	v.EntryStats = true
}

// reopenEvery is how many bytes a write phase writes before it reopens
// the database: a quarter of the memory budget, at least 1 MiB.
func reopenEvery(budget int64) int64 { return max(budget/4, 1<<20) }

// writeEstimate is what a write phase adds to the database at its peak
// for blobs of n bytes, with a margin over the measured 0.6x.
func writeEstimate(n int64) int64 { return n*3/4 + 1<<20 }

// blobRec is what the write phase needs of an analyzed blob.
type blobRec struct {
	blob    store.SHA
	header  store.BlobHeader
	hasMeta bool // its meta is in the buffer (not for a skipped blob)
}

// errCollect stops the reader when the collector has failed.
var errCollect = errors.New("collector failed")

// writeSegment merges the buffer's runs into seg and writes the blobs'
// records; it returns the number of distinct terms.
func writeSegment(ctx context.Context, db *store.DB, seg *store.Segment, buf *postingBuffer, lens []uint32, recs []blobRec, headers map[store.SHA]store.BlobHeader, progress func(Event), reopen int64) (int, error) {
	b := db.NewBatch(PipelineVersion)
	defer func() { b.Cancel() }()
	// Every reopen bytes, let Badger go of the files it has mapped (the
	// pages it wrote count in the process's memory until it closes them).
	rotate := func() error {
		if b.Written() < reopen {
			return nil
		}
		return b.Reopen(ctx)
	}
	// Terms in runs may repeat from run to run: the total is a bound.
	total := buf.runTerms + len(buf.m)
	n := 0
	terms, err := buf.merge(func(term string, ps []store.Posting) error {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if progress != nil {
				progress(Event{Phase: "write", Done: n, Total: max(total, n+1)})
			}
		}
		n++
		for i := range ps {
			ps[i].Chunk += seg.First
		}
		// A fresh slice each time: the batch keeps it until it commits.
		if err := b.Postings(term, seg.ID, store.EncodePostings(ps)); err != nil {
			return fmt.Errorf("write postings: %w", err)
		}
		return rotate()
	})
	if err != nil {
		return terms, err
	}
	if err := b.Lengths(seg.ID, lens); err != nil {
		return terms, fmt.Errorf("write lengths: %w", err)
	}
	err = buf.eachMeta(func(blob store.SHA, meta []byte) error {
		if err := b.BlobEncoded(blob, headers[blob], meta); err != nil {
			return fmt.Errorf("write blob record: %w", err)
		}
		return rotate()
	})
	if err != nil {
		return terms, err
	}
	for _, r := range recs {
		if !r.hasMeta {
			if err := b.BlobEncoded(r.blob, r.header, nil); err != nil {
				return terms, fmt.Errorf("write blob record: %w", err)
			}
		}
	}
	if err := b.Flush(); err != nil {
		return terms, fmt.Errorf("write segment %d: %w", seg.ID, err)
	}
	if progress != nil {
		progress(Event{Phase: "write", Done: n, Total: n})
	}
	return terms, nil
}

// publish records a ref (and optionally a view) without a new segment.
func publish(ctx context.Context, dbDir string, o store.Options, seg *store.Segment, tree gitx.Hash, v *store.View, commit gitx.Hash) error {
	db, err := store.Open(ctx, dbDir, o)
	if err != nil {
		return err
	}
	err = db.Publish(PipelineVersion, seg, tree, v, store.Ref{Commit: commit, Tree: tree, Indexed: time.Now()})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		writeLast(dbDir, commit, tree)
	}
	return err
}

// analyze decodes, chunks and analyzes one blob. A bug on one odd file
// must not stop the run: a panic is recovered and the blob is skipped as
// unreadable (and logged in the stats).
func analyze(an *segment.Analyzer, tm *timer, pol *secrets.Policy, path string, blob store.SHA, data []byte) *analyzed {
	r, _, _ := analyzeKeep(an, tm, pol, path, blob, data)
	return r
}

// analyzeKeep is analyze that also returns the decoded text and its
// chunks, for a caller that needs them (Worktree) without doing the work
// again; the indexer does not keep them.
//
// Secrets are redacted right after decoding, so chunks, postings, chunk
// hashes and embedding inputs never see their values.
func analyzeKeep(an *segment.Analyzer, tm *timer, pol *secrets.Policy, path string, blob store.SHA, data []byte) (r *analyzed, text string, doc chunk.Doc) {
	r = &analyzed{blob: blob}
	defer func() {
		if p := recover(); p != nil {
			r = &analyzed{blob: blob, header: store.BlobHeader{Skip: store.SkipFailed}}
		}
	}()
	t0 := time.Now()
	text, enc, binary := chunk.Decode(data)
	if binary {
		r.header.Skip = store.SkipBinary
		return r, "", doc
	}
	tm.since("chunk", t0)
	t0 = time.Now()
	text, found := pol.Redact(path, text)
	tm.since("secrets", t0)
	t0 = time.Now()
	doc = chunk.Split(path, text)
	tm.since("chunk", t0)

	t0 = time.Now()
	r.meta = &store.BlobMeta{Lang: doc.Lang, Title: doc.Title, Meta: doc.Meta, Encoding: enc, Kind: chunk.ContentKind(path, text)}
	for _, f := range found {
		r.meta.Secrets = append(r.meta.Secrets, store.Redaction{Line: f.Line, Rule: f.Rule})
	}
	pathTerms := an.Terms(path)
	// What the page says it is about (front-matter summary, description)
	// counts in every chunk, as its title does: a section is part of the
	// page the author summed up.
	aboutTerms := an.Terms(doc.About())
	// Term counts without an allocation per term: tf maps a chunk's term
	// to its place in scratch (both reused from chunk to chunk), and each
	// chunk keeps one exact-size copy; seen marks the file's distinct
	// terms (seenAny), and those of a body (seenBody, for the MinHash). A
	// map of pointers per chunk and two maps per file were a third of the
	// analysis's allocations, and in a one-file commit's run every fresh
	// page is a page fault (issue 20).
	tf := map[string]int32{}
	seen := map[string]uint8{}
	var scratch []termTF
	var bodyTerms []string
	for _, c := range doc.Chunks {
		// The text is not kept: hash it in place rather than a copy.
		sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(c.Text), len(c.Text)))
		r.meta.Chunks = append(r.meta.Chunks, store.ChunkMeta{Start: c.StartLine, End: c.EndLine, Heading: c.Heading, Symbols: c.Symbols, Hash: hex.EncodeToString(sum[:12])})
		clear(tf)
		scratch = scratch[:0]
		count := func(field int, terms []string) int {
			for _, t := range terms {
				i, ok := tf[t]
				if !ok {
					i = int32(len(scratch))
					tf[t] = i
					scratch = append(scratch, termTF{term: t})
				}
				if p := &scratch[i].tf; p[field] < 65535 {
					p[field]++
				}
			}
			return len(terms)
		}
		body := count(store.FieldBody, an.Terms(c.Text))
		lens := [store.NumFields]int{store.FieldBody: body}
		lens[store.FieldHeading] = count(store.FieldHeading, an.Terms(doc.Title+"\n"+c.Heading))
		lens[store.FieldPath] = count(store.FieldPath, pathTerms)
		lens[store.FieldAbout] = count(store.FieldAbout, aboutTerms)
		if len(c.Symbols) > 0 {
			lens[store.FieldSymbol] = count(store.FieldSymbol, an.Terms(joinSymbols(c.Symbols)))
		}
		for i := range scratch {
			t := &scratch[i]
			was := seen[t.term]
			now := was | seenAny
			if t.tf[store.FieldBody] > 0 {
				now |= seenBody
			}
			if now != was {
				if now&^was&seenBody != 0 {
					bodyTerms = append(bodyTerms, t.term)
				}
				seen[t.term] = now
			}
		}
		r.chunks = append(r.chunks, append([]termTF(nil), scratch...))
		r.lens = append(r.lens, uint32(body))
		for f, l := range lens {
			r.header.FieldLen[f] += uint32(l)
		}
		r.terms += body
	}
	r.header.N = uint32(len(doc.Chunks))
	r.header.UniqueTerm = uint32(len(seen))
	if fileKind(text) == store.KindAPISpec { // more telling than "generated"
		r.meta.Kind = store.KindAPISpec
		if spec, ok := embeddedSpec(text); ok && doc.Lang != "json" && doc.Lang != "yaml" {
			// The spec's own words, not its generator's wrapper: see embeddedSpec.
			bodyTerms = distinct(an.Terms(spec))
		}
	}
	r.meta.MinHash = minHash(bodyTerms)
	if doc.Lang == "markdown" {
		r.meta.Links = chunk.DocLinks(text)
	}
	tm.since("analyze", t0)
	return r, text, doc
}

func joinSymbols(s []string) string {
	n := 0
	for _, x := range s {
		n += len(x) + 1
	}
	b := make([]byte, 0, n)
	for _, x := range s {
		b = append(b, x...)
		b = append(b, ' ')
	}
	return string(b)
}
