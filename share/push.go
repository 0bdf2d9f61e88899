package share

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/store"
)

// PushOptions control Push.
type PushOptions struct {
	Remote string
	Revs   []string // default HEAD
	// Embedder is the configured embedder (nil: lexical data only). Its
	// vectors are pushed for every blob whose chunks all have one.
	Embedder llm.Embedder
	// DryRun builds the local refs but does not push.
	DryRun bool
	// Force replaces a remote view newer than this clone's (see
	// ErrRemoteNewer). A view this clone has not seen is still not
	// replaced (ErrRemoteMoved).
	Force   bool
	Wait    time.Duration
	Version string
}

// PushedView is one view written and pushed.
type PushedView struct {
	Rev      string `json:"rev"`
	Commit   string `json:"commit"`
	Ref      string `json:"ref"`
	KBCommit string `json:"kb_commit"`
	Blobs    int    `json:"blobs"`
	Reused   int    `json:"records_reused"`   // taken from the ref's previous commit
	Exported int    `json:"records_exported"` // read from the local index
	Vectors  int    `json:"vector_records"`
	Withheld int    `json:"withheld_secrets"`
	Filtered int    `json:"filtered"`
	Parent   string `json:"parent,omitempty"`
	// Unchanged: the remote's ref (as last pulled or pushed) already
	// holds this very view; no new commit was made for it.
	Unchanged bool `json:"unchanged,omitempty"`

	tracked gitx.Hash // the remote's ref as last pulled or pushed; zero: none
}

// PushResult is what Push did.
type PushResult struct {
	Remote  string       `json:"remote"`
	Views   []PushedView `json:"views"`
	Objects int          `json:"objects_sent"`
	Bytes   int64        `json:"bytes_sent"`
	// Skipped are the revisions of several not pushed: not indexed, or
	// the remote's view of their name is newer (ErrRemoteNewer). The
	// others were pushed.
	Skipped []string `json:"skipped,omitempty"`
	// SkippedWhy says why, by revision, and what to do.
	SkippedWhy map[string]string `json:"skipped_why,omitempty"`
	// UpToDate: every view was unchanged; the remote already had them all.
	UpToDate bool    `json:"up_to_date"`
	Seconds  float64 `json:"seconds"`
}

// ErrNotIndexed means a revision to push has no view.
var ErrNotIndexed = errors.New("not indexed")

// ErrRemoteMoved means a shared ref on the remote is not what this clone
// last pulled or pushed: another clone pushed to it. Nothing of it was
// replaced.
var ErrRemoteMoved = errors.New("not pushed")

// ErrRemoteNewer means the remote's view of a name, as this clone last
// pulled or pushed it, is newer than this clone's: made by a newer
// pipeline or newer secret rules, or of a commit that descends from ours
// (or, unrelated, committed later). Nothing of it was replaced.
var ErrRemoteNewer = errors.New("not pushed")

// remoteNewerError is an ErrRemoteNewer with its reason.
type remoteNewerError struct{ why string }

func (e *remoteNewerError) Error() string        { return ErrRemoteNewer.Error() + ": " + e.why }
func (e *remoteNewerError) Is(target error) bool { return target == ErrRemoteNewer }

// Push writes the views of revs as refs/kb/1/<name> and pushes them.
// With several revisions (--all-branches), those not indexed, and those
// whose remote view is newer (below), are skipped and listed, and the
// others pushed; with one, either is an error.
//
// A view replaces the remote's ref of its name (a view is whole, not a
// change), but only the value this clone last pulled or pushed: when
// another clone pushed since, the push is refused (ErrRemoteMoved) rather
// than destroy what this clone has not seen. Nor is a view replaced by
// an older one (ErrRemoteNewer), unless o.Force: a push never moves the
// remote's view of a name back in commits or in versions. Views are whole
// and of one commit each, so two are not merged: the newer one stays.
// A view identical to the one
// the remote's ref holds makes no new commit: pushing it changes nothing.
func Push(ctx context.Context, repo *gitx.Repo, o PushOptions) (*PushResult, error) {
	began := time.Now()
	res := &PushResult{Remote: secrets.RedactURL(o.Remote)}
	if len(o.Revs) == 0 {
		o.Revs = []string{"HEAD"}
	}
	pol, err := index.SecretsPolicy(ctx, repo)
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, index.DBDir(repo), store.Options{ReadOnly: true, Wait: o.Wait})
	if errors.Is(err, store.ErrNoIndex) {
		return nil, fmt.Errorf("%w: nothing to push yet; run git kb index first", err)
	}
	if err != nil {
		return nil, err
	}
	var refspecs []string
	leases := map[string]gitx.Hash{}
	for _, rev := range o.Revs {
		pv, err := writeView(ctx, repo, db, o, pol.Fingerprint(), rev)
		if why := skipWhy(err, rev); why != "" && len(o.Revs) > 1 {
			if res.SkippedWhy == nil {
				res.SkippedWhy = map[string]string{}
			}
			res.Skipped = append(res.Skipped, rev)
			res.SkippedWhy[rev] = why
			continue
		}
		if err != nil {
			db.Close()
			return nil, err
		}
		res.Views = append(res.Views, *pv)
		refspecs = append(refspecs, pv.Ref+":"+pv.Ref)
		leases[pv.Ref] = pv.tracked
	}
	db.Close()
	res.UpToDate = len(res.Views) > 0
	for _, v := range res.Views {
		res.UpToDate = res.UpToDate && v.Unchanged
	}
	if len(refspecs) == 0 || o.DryRun {
		res.Seconds = time.Since(began).Seconds()
		return res, nil
	}
	// Unchanged views are pushed too, as they are: git sends nothing for
	// them, and their leases still check the remote has not moved.
	t, err := repo.PushLeased(ctx, o.Remote, leases, refspecs...)
	if errors.Is(err, gitx.ErrStale) {
		var re *gitx.RemoteError
		errors.As(err, &re)
		return nil, fmt.Errorf("%w: a view on %s changed since this clone last pulled or pushed it (another clone pushed), and is not replaced unseen: run git kb pull %s, then push again (git: %s)",
			ErrRemoteMoved, res.Remote, res.Remote, re.Msg)
	}
	if err != nil {
		return nil, err
	}
	res.Objects, res.Bytes = t.Objects, t.Bytes
	// What the remote now has, as a fetch would have recorded it.
	for _, v := range res.Views {
		track := TrackingPrefix(o.Remote) + strings.TrimPrefix(v.Ref, RefPrefix)
		if err := repo.UpdateRef(ctx, track, gitx.ParseHash(v.KBCommit)); err != nil {
			return nil, err
		}
	}
	res.Seconds = time.Since(began).Seconds()
	return res, nil
}

// skipWhy is why rev, one of several, is skipped for err ("": it is not).
func skipWhy(err error, rev string) string {
	var rn *remoteNewerError
	switch {
	case errors.Is(err, ErrNotIndexed):
		return "it is not indexed (git kb index --rev " + rev + ")"
	case errors.As(err, &rn):
		return rn.why
	}
	return ""
}

// refName is the shared name of a revision: heads/<branch> for a branch
// (HEAD on a branch included), tags/<tag>, else commits/<sha>.
func refName(ctx context.Context, repo *gitx.Repo, rev string, commit gitx.Hash) string {
	if rev == "HEAD" || rev == "" {
		if b := repo.CurrentBranch(ctx); b != "" {
			return "heads/" + b
		}
		return "commits/" + commit.String()
	}
	for _, kind := range []string{"heads", "tags"} {
		if h, err := repo.RevParse(ctx, "refs/"+kind+"/"+rev+"^{commit}"); err == nil && h == commit {
			return kind + "/" + rev
		}
	}
	return "commits/" + commit.String()
}

// writeView builds the shared view of rev on its local ref.
func writeView(ctx context.Context, repo *gitx.Repo, db *store.DB, o PushOptions, secretsFP, rev string) (*PushedView, error) {
	commit, tree, err := repo.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	pv := &PushedView{Rev: rev, Commit: commit.String()}
	name := refName(ctx, repo, rev, commit)
	pv.Ref = RefPrefix + name
	if !o.Force {
		if why := notOlder(ctx, repo, o.Remote, name, commit); why != "" {
			// With several views, --force would replace them all.
			force := "git kb push --force to replace it anyway"
			if len(o.Revs) > 1 {
				force = "git kb push --rev " + rev + " --force to replace this view alone"
			}
			return nil, &remoteNewerError{fmt.Sprintf("the view %s%s on %s is newer than this clone's and is not replaced by an older one: %s; or %s",
				RefPrefix, name, secrets.RedactURL(o.Remote), why, force)}
		}
	}
	v, err := currentView(ctx, repo, db, rev, commit, tree, secretsFP)
	if err != nil {
		return nil, err
	}
	inTree, keep, filtered, err := keptPaths(ctx, repo, v, commit, tree)
	if err != nil {
		return nil, err
	}
	pv.Filtered = filtered
	chunked := v.ChunkEntries(func(p string) bool { return keep[p] })
	vb, err := shareableBlobs(db, chunked)
	if err != nil {
		return nil, err
	}
	pv.Withheld, pv.Blobs = vb.withheld, len(vb.share)
	mk, model := modelToPush(db, o.Embedder)

	// Records the ref's previous commit already holds are reused as they
	// are: same blob, same pipeline, same bytes.
	parent, prevRec, prevVec := previous(ctx, repo, o.Remote, name, secretsFP, v.Vocab, model)
	pv.Parent = parent.String()
	if parent.IsZero() {
		pv.Parent = ""
	}
	files, err := recordFiles(db, vb, prevRec, entrySizes(chunked, inTree), pv)
	if err != nil {
		return nil, err
	}
	if model != nil {
		vf, err := vectorFiles(db, mk, model, vb, prevVec)
		if err != nil {
			return nil, err
		}
		files = append(files, vf...)
		pv.Vectors = model.Blobs
	}
	man := Manifest{Share: Version, Format: store.SharedFormat, Pipeline: index.PipelineVersion, Secrets: secretsFP, SecretsRules: secrets.RulesVersion, Vocab: v.Vocab,
		Commit: commit.String(), CommitTime: commitTime(ctx, repo, commit.String()), Tree: tree.String(), Name: name, Blobs: len(vb.share), Withheld: pv.Withheld, Filtered: pv.Filtered,
		CreatedBy: "git-kb " + o.Version}
	if model != nil && model.Blobs > 0 {
		man.Models = []Model{*model}
	}
	mb, _ := json.MarshalIndent(man, "", "  ")
	files = append(files, gitx.File{Path: "kb.json", Data: append(mb, '\n')})
	msg := fmt.Sprintf("git kb index of %s (%s)\n\n%d blobs, %d with vectors; pipeline %d", commit.String()[:12], name, len(vb.share), pv.Vectors, index.PipelineVersion)
	kc, err := repo.WriteCommit(ctx, pv.Ref, parent, msg, files)
	if err != nil {
		return nil, err
	}
	// The remote's ref as this clone last saw it: the push's lease, and
	// if it holds this very tree, the commit to keep.
	if th, err := repo.RevParse(ctx, TrackingPrefix(o.Remote)+name+"^{commit}"); err == nil {
		pv.tracked = th
		kt, err1 := repo.RevParse(ctx, kc.String()+"^{tree}")
		tt, err2 := repo.RevParse(ctx, th.String()+"^{tree}")
		if err1 == nil && err2 == nil && kt == tt {
			if err := repo.UpdateRef(ctx, pv.Ref, th); err != nil {
				return nil, err
			}
			kc, pv.Unchanged = th, true
			pv.Parent = ""
			if p, err := repo.RevParse(ctx, th.String()+"^"); err == nil {
				pv.Parent = p.String()
			}
		}
	}
	pv.KBCommit = kc.String()
	return pv, nil
}

// notOlder says why this clone's view of commit must not replace the
// remote's view of name, as this clone last pulled or pushed it ("": it
// may): the remote's is newer on either of its two axes:
//
//   - versions: made by a newer pipeline, or under newer secret rules;
//   - commits: of a commit that descends from ours (it covers commits
//     ours lacks); or, when neither descends from the other or this clone
//     does not have the remote's commit, of one committed at the same
//     time as ours or later (a rewritten branch's new commit is committed
//     later than the one it replaces), or at a time not recorded.
//
// A remote view that cannot be read is no reason to keep it.
func notOlder(ctx context.Context, repo *gitx.Repo, remote, name string, commit gitx.Hash) string {
	th, err := repo.RevParse(ctx, TrackingPrefix(remote)+name+"^{commit}")
	if err != nil {
		return "" // never pulled or pushed: the lease decides
	}
	m, err := readManifest(ctx, repo, th)
	if err != nil {
		return ""
	}
	ours, theirs := commit.String(), m.Commit
	why := ""
	switch {
	case m.Pipeline > index.PipelineVersion:
		why = fmt.Sprintf("it was made by pipeline %d (%s), this git-kb uses pipeline %d: upgrade git-kb", m.Pipeline, m.CreatedBy, index.PipelineVersion)
	case m.SecretsRules > secrets.RulesVersion:
		why = fmt.Sprintf("it was made under secret rules %d (%s), this git-kb has rules %d: upgrade git-kb", m.SecretsRules, m.CreatedBy, secrets.RulesVersion)
	case theirs == ours:
	case repo.IsAncestor(ctx, ours, theirs):
		why = fmt.Sprintf("it is of commit %s, which descends from yours (%s): it covers commits yours lacks; git pull, git kb index, then push", short(theirs), short(ours))
	case repo.IsAncestor(ctx, theirs, ours):
	default:
		have, _ := repo.ExistingCommits(ctx, []string{theirs})
		tt := m.CommitTime
		if have[theirs] {
			tt = commitTime(ctx, repo, theirs)
		}
		ot := commitTime(ctx, repo, ours)
		switch {
		case !have[theirs] && tt == 0:
			why = fmt.Sprintf("it is of commit %s, which this clone does not have, and its view does not say when it was committed: git fetch, then push again", short(theirs))
		case !have[theirs] && tt >= ot:
			why = fmt.Sprintf("it is of commit %s, which this clone does not have, committed %s, not before yours (%s): git fetch and git pull, git kb index, then push", short(theirs), time.Unix(tt, 0).UTC().Format(time.RFC3339), short(ours))
		case tt >= ot:
			why = fmt.Sprintf("it is of commit %s, not in the history of yours (%s) and committed %s, not before it: check out the commit the branch should be at, git kb index, then push", short(theirs), short(ours), time.Unix(tt, 0).UTC().Format(time.RFC3339))
		}
	}
	return why
}

// commitTime is a commit's committer date in Unix seconds, 0 if unknown.
func commitTime(ctx context.Context, repo *gitx.Repo, commit string) int64 {
	t, err := repo.CommitTime(ctx, commit)
	if err != nil {
		return 0
	}
	return t.Unix()
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// currentView is the index's view of rev's tree. Blob records are the
// index's current ones: a view cut with another word list than they were
// is not shipped under its name, nor one made under other secret rules
// or another kb.secrets.allow than secretsFP, which the manifest names
// (its records may hold what the current rules redact).
func currentView(ctx context.Context, repo *gitx.Repo, db *store.DB, rev string, commit, tree gitx.Hash, secretsFP string) (*store.View, error) {
	v, err := db.View(index.PipelineVersion, store.SHA(tree))
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%s (%s) is %w: run git kb index --rev %s first", rev, commit.String()[:12], ErrNotIndexed, rev)
	}
	if err != nil {
		return nil, err
	}
	if !index.ViewsUnderPolicy(repo.KBDir(), secretsFP)(v) {
		return nil, fmt.Errorf("%s (%s) was indexed under other secret rules or another kb.secrets.allow than the current ones: run git kb index --rev %s first", rev, commit.String()[:12], rev)
	}
	if vocab, err := index.VocabInForce(ctx, repo); err != nil {
		return nil, err
	} else if vocab.Fingerprint() != v.Vocab {
		return nil, fmt.Errorf("%s (%s) was indexed with another word list than the index's current one (kb.dict or kb.vocab.learn changed since): run git kb index --rev %s first", rev, commit.String()[:12], rev)
	}
	return v, nil
}

// keptPaths checks that the view is the commit's, every entry a file of
// its tree. It returns the tree's files by path, the view's paths to
// share and how many it filtered: what the filters skip now stays home.
func keptPaths(ctx context.Context, repo *gitx.Repo, v *store.View, commit, tree gitx.Hash) (inTree map[string]gitx.Entry, keep map[string]bool, filtered int, err error) {
	entries, err := repo.ListTree(ctx, tree)
	if err != nil {
		return nil, nil, 0, err
	}
	inTree = make(map[string]gitx.Entry, len(entries))
	for _, e := range entries {
		inTree[e.Path] = e
	}
	skip, err := index.Filter(ctx, repo, commit)
	if err != nil {
		return nil, nil, 0, err
	}
	keep = map[string]bool{}
	for _, e := range v.Entries {
		te, ok := inTree[e.Path]
		if !ok || store.SHA(te.Blob) != e.Blob {
			return nil, nil, 0, fmt.Errorf("the index holds data of %s that commit %s does not have; refusing to push it (run git kb doctor)", e.Path, commit.String()[:12])
		}
		if skip(te.Path, te.Mode, te.Size) != "" {
			filtered++
			continue
		}
		keep[e.Path] = true
	}
	return inTree, keep, filtered, nil
}

// viewBlobs are the blobs of a view to share, with their records in the
// index.
type viewBlobs struct {
	share    []store.SHA // in SHA order
	headers  map[store.SHA]store.BlobHeader
	metas    map[store.SHA]*store.BlobMeta
	withheld int // blobs left out: nothing derived from a secret leaves the machine
}

// shareableBlobs reads the records of the chunked entries' blobs and
// leaves out those in which secrets were found. A blob without a record
// is an error.
func shareableBlobs(db *store.DB, chunked []store.ViewEntry) (*viewBlobs, error) {
	segs, err := db.Segments()
	if err != nil {
		return nil, err
	}
	var blobs []store.SHA
	for _, e := range chunked {
		blobs = append(blobs, e.Blob)
	}
	headers, err := db.BlobHeaders(index.PipelineVersion, blobs, segs)
	if err != nil {
		return nil, err
	}
	vb := &viewBlobs{headers: headers, metas: map[store.SHA]*store.BlobMeta{}}
	for _, b := range blobs {
		if _, ok := headers[b]; !ok {
			return nil, fmt.Errorf("blob %x of the view has no record in the index (run git kb doctor)", b[:6])
		}
		m, err := db.BlobMeta(index.PipelineVersion, b)
		if err != nil {
			return nil, err
		}
		if len(m.Secrets) > 0 {
			vb.withheld++
			continue
		}
		vb.metas[b] = m
		vb.share = append(vb.share, b)
	}
	sort.Slice(vb.share, func(i, j int) bool { return string(vb.share[i][:]) < string(vb.share[j][:]) })
	return vb, nil
}

// modelToPush is the configured embedder's model, whose vectors are
// shared where every chunk of a blob has one: nil if there is no embedder
// or the index has no vectors of it.
func modelToPush(db *store.DB, emb llm.Embedder) (store.ModelKey, *Model) {
	var mk store.ModelKey
	if emb == nil {
		return mk, nil
	}
	mk = index.ModelKey(emb)
	info, err := db.Model(mk)
	if err != nil {
		return mk, nil
	}
	return mk, &Model{Key: modelHex(mk), ID: info.ID, Dim: info.Dim, Input: index.EmbedInputVersion}
}

// recordFiles are the files of vb's records: the previous commit's
// object where it has one (prev), else exported from the index and
// encoded. It counts both in pv.
func recordFiles(db *store.DB, vb *viewBlobs, prev map[store.SHA]gitx.Hash, sizes map[store.SHA]int64, pv *PushedView) ([]gitx.File, error) {
	var files []gitx.File
	var todo []store.SHA
	for _, b := range vb.share {
		if h, ok := prev[b]; ok {
			files = append(files, gitx.File{Path: recordPath(b), Blob: h})
			pv.Reused++
		} else {
			todo = append(todo, b)
		}
	}
	recs, err := exportRecords(db, todo, vb.headers, vb.metas, sizes)
	if err != nil {
		return nil, err
	}
	for _, b := range todo {
		data, err := recs[b].Encode()
		if err != nil {
			return nil, err
		}
		files = append(files, gitx.File{Path: recordPath(b), Data: data})
		pv.Exported++
	}
	return files, nil
}

// vectorFiles are the files of vb's vectors by model: the previous
// commit's object where it has one (prev), else exported from the
// embedding cache, for the blobs whose every chunk has a vector. It
// counts them in model.Blobs.
func vectorFiles(db *store.DB, mk store.ModelKey, model *Model, vb *viewBlobs, prev map[store.SHA]gitx.Hash) ([]gitx.File, error) {
	var files []gitx.File
	var todo []store.SHA
	for _, b := range vb.share {
		if h, ok := prev[b]; ok {
			files = append(files, gitx.File{Path: vectorPath(model.Key, b), Blob: h})
			model.Blobs++
		} else {
			todo = append(todo, b)
		}
	}
	vecs, err := exportVectors(db, mk, model.Dim, todo, vb.metas)
	if err != nil {
		return nil, err
	}
	for _, b := range todo {
		if vs := vecs[b]; vs != nil {
			files = append(files, gitx.File{Path: vectorPath(model.Key, b), Data: vs.Encode()})
			model.Blobs++
		}
	}
	return files, nil
}

func entrySizes(es []store.ViewEntry, inTree map[string]gitx.Entry) map[store.SHA]int64 {
	m := make(map[store.SHA]int64, len(es))
	for _, e := range es {
		m[e.Blob] = inTree[e.Path].Size
	}
	return m
}

// previous finds the last shared commit of name, the remote's (as last
// fetched or pushed) before our own, else another view of the remote's,
// and the records and vectors of its tree, if it was made compatibly.
func previous(ctx context.Context, repo *gitx.Repo, remote, name, secretsFP, vocabFP string, model *Model) (gitx.Hash, map[store.SHA]gitx.Hash, map[store.SHA]gitx.Hash) {
	recs, vecs := map[store.SHA]gitx.Hash{}, map[store.SHA]gitx.Hash{}
	cands := []string{TrackingPrefix(remote) + name, RefPrefix + name}
	// A first push of a name descends from another view the remote has:
	// git sends what a commit's ancestors lack, so without one it would
	// send every record again.
	if others, err := repo.RefsUnder(ctx, TrackingPrefix(remote)); err == nil {
		var names []string
		for n := range others {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool {
			mi, mj := isMainline(names[i]), isMainline(names[j])
			return mi && !mj || mi == mj && names[i] < names[j]
		})
		cands = append(cands, names...)
	}
	for _, ref := range cands {
		h, err := repo.RevParse(ctx, ref+"^{commit}")
		if err != nil {
			continue
		}
		m, err := readManifest(ctx, repo, h)
		if err != nil || compatible(m, secretsFP, vocabFP) != "" {
			return h, recs, vecs // parent only: history, nothing reused
		}
		entries, err := repo.ListTree(ctx, h)
		if err != nil {
			return h, recs, vecs
		}
		var mkey string
		var pm *Model
		if model != nil {
			mkey = model.Key
			pm = m.model(mkey)
		}
		for _, e := range entries {
			kind, mod, blob, ok := parsePath(e.Path)
			switch {
			case !ok:
			case kind == "blobs":
				recs[blob] = e.Blob
			case kind == "vectors" && mod == mkey && pm != nil && pm.Dim == model.Dim:
				vecs[blob] = e.Blob
			}
		}
		return h, recs, vecs
	}
	return gitx.Hash{}, recs, vecs
}

// readManifest reads kb.json with the git binary: go-git does not see
// packs fetched after it opened the repository.
func isMainline(ref string) bool {
	return strings.HasSuffix(ref, "/heads/main") || strings.HasSuffix(ref, "/heads/master")
}

func readManifest(ctx context.Context, repo *gitx.Repo, kbCommit gitx.Hash) (*Manifest, error) {
	b, err := repo.Show(ctx, kbCommit.String()+":kb.json")
	if err != nil {
		return nil, fmt.Errorf("%w: kb.json missing", errCorrupt)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: kb.json: %v", errCorrupt, err)
	}
	return &m, nil
}

// exportRecords rebuilds per-blob records from the index: headers and
// metadata as stored, lengths from their segments, and each chunk's terms
// from the segments' postings (inverted back, one scan of the postings of
// the segments involved).
func exportRecords(db *store.DB, blobs []store.SHA, headers map[store.SHA]store.BlobHeader, metas map[store.SHA]*store.BlobMeta, sizes map[store.SHA]int64) (map[store.SHA]*Record, error) {
	out := make(map[store.SHA]*Record, len(blobs))
	if len(blobs) == 0 {
		return out, nil
	}
	segs, err := db.Segments()
	if err != nil {
		return nil, err
	}
	type span struct {
		first, n uint32
		rec      *Record
	}
	bySeg := map[uint32][]span{}
	for _, b := range blobs {
		h := headers[b]
		r := &Record{Size: sizes[b], Header: h, Meta: metas[b], Chunks: make([][]index.TermTF, h.N)}
		r.Header.Seg, r.Header.First = 0, 0 // local placement, not shared
		out[b] = r
		bySeg[h.Seg] = append(bySeg[h.Seg], span{h.First, h.N, r})
	}
	want := map[uint32]bool{}
	for id, sp := range bySeg {
		want[id] = true
		sort.Slice(sp, func(i, j int) bool { return sp[i].first < sp[j].first })
		ls, err := db.Lengths(index.PipelineVersion, id)
		if err != nil {
			return nil, err
		}
		sg := segs[id]
		for _, s := range sp {
			lo := s.first - sg.First
			if int(lo+s.n) > len(ls) {
				return nil, fmt.Errorf("segment %d: lengths for %d chunks, need %d (run git kb doctor)", id, len(ls), lo+s.n)
			}
			s.rec.Lens = append([]uint32(nil), ls[lo:lo+s.n]...)
		}
	}
	var ps []store.Posting
	err = db.ScanPostings(index.PipelineVersion, want, func(term string, seg uint32, data []byte) error {
		var err error
		if ps, err = store.DecodePostings(ps[:0], data); err != nil {
			return fmt.Errorf("postings of %q in segment %d: %w", term, seg, err)
		}
		sp := bySeg[seg]
		for _, p := range ps {
			i := sort.Search(len(sp), func(i int) bool { return sp[i].first+sp[i].n > p.Chunk })
			if i == len(sp) || p.Chunk < sp[i].first {
				continue // a chunk of a blob not being exported
			}
			c := p.Chunk - sp[i].first
			sp[i].rec.Chunks[c] = append(sp[i].rec.Chunks[c], index.TermTF{Term: term, TF: p.TF})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range out {
		for _, c := range r.Chunks {
			sort.Slice(c, func(i, j int) bool { return c[i].Term < c[j].Term })
		}
	}
	return out, nil
}

// exportVectors reads the cached embeddings of the blobs' chunks; a blob
// gets vectors only when every chunk has one of the model's dimension.
func exportVectors(db *store.DB, mk store.ModelKey, dim int, blobs []store.SHA, metas map[store.SHA]*store.BlobMeta) (map[store.SHA]*Vectors, error) {
	type at struct {
		blob store.SHA
		i    int
	}
	var keys []store.VecKey
	var where []at
	for _, b := range blobs {
		m := metas[b]
		for i := range m.Chunks {
			keys = append(keys, index.ChunkVecKey(m, i))
			where = append(where, at{b, i})
		}
	}
	rows := map[store.SHA][][]byte{}
	err := db.CachedVectors(mk, keys, func(k int, v []byte) error {
		w := where[k]
		if len(v) != dim+4 {
			return nil
		}
		if rows[w.blob] == nil {
			rows[w.blob] = make([][]byte, len(metas[w.blob].Chunks))
		}
		rows[w.blob][w.i] = append([]byte(nil), v...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[store.SHA]*Vectors{}
	for b, rs := range rows {
		complete := true
		for _, r := range rs {
			complete = complete && r != nil
		}
		if complete {
			out[b] = &Vectors{Dim: dim, Rows: rs}
		}
	}
	return out, nil
}

// shortSHA is the first 12 hex digits.
func shortSHA(s store.SHA) string { return hex.EncodeToString(s[:6]) }
