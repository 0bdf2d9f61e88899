package index

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/store"
)

// Check is one finding of Doctor.
type Check struct {
	Name   string `json:"check"`
	Status string `json:"status"` // ok, warn, error
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // what to do about it
}

// Doctor checks the index against git: versions, that every indexed
// commit still exists with the tree its view was built from, that each
// view's chunks add up and its segments and blobs are all there, and
// vector coverage for the configured embedder (emb may be nil).
func Doctor(ctx context.Context, repo *gitx.Repo, emb llm.Embedder) ([]Check, error) {
	var out []Check
	add := func(name, status, detail, fix string) { out = append(out, Check{name, status, detail, fix}) }
	if Running(repo.KBDir()) {
		add("indexer", "ok", "an index run is in progress now; results below may change when it ends", "")
	}
	var kd *kbDirError
	if err := checkKBDir(repo.KBDir()); errors.As(err, &kd) {
		add("index", "error", kd.what, kd.fix)
		return out, nil
	}
	// Every block and value against its checksum first, like git fsck:
	// a damaged file is named here instead of failing a search later.
	const fix = "run: git kb doctor --fix   (moves it aside under .git/kb/damaged and rebuilds it from git)"
	switch err := store.Verify(DBDir(repo)); {
	case errors.Is(err, store.ErrDamaged):
		add("index", "error", err.Error(), fix)
		return out, nil
	case errors.Is(err, store.ErrLocked):
		add("checksums", "ok", "not verified: another git kb process is writing the index", "")
	case err != nil && !errors.Is(err, store.ErrNoIndex):
		add("checksums", "warn", "could not verify: "+err.Error(), "")
	case err == nil:
		add("checksums", "ok", "every block and value of "+DBDir(repo)+" verified", "")
	}
	if err := store.Verify(CacheDir(repo)); errors.Is(err, store.ErrDamaged) {
		add("embedding cache", "warn", err.Error(), "run: git kb doctor --fix   (set aside; vectors are embedded again as needed)")
	}
	db, err := store.Open(ctx, DBDir(repo), store.Options{ReadOnly: true, Wait: 30 * time.Second})
	if errors.Is(err, store.ErrNoIndex) {
		add("index", "warn", "no index yet in "+DBDir(repo), "run: git kb index")
		return out, nil
	}
	if errors.Is(err, store.ErrDamaged) {
		add("index", "error", err.Error(), fix)
		return out, nil
	}
	if err != nil {
		add("index", "error", err.Error(), "if the format is from a newer git-kb, upgrade; else run: git kb index --rebuild")
		return out, nil
	}
	defer db.Close()
	// What the records say, not m/format's pipeline: that is the version
	// the index was created with, and stays after an upgrade's rebuild
	// and the gc that drops the older version's data.
	older, newer, err := db.OtherPipelines(PipelineVersion)
	if err = store.Classify(err); errors.Is(err, store.ErrDamaged) {
		add("index", "error", err.Error(), fix)
		return out, nil
	}
	switch {
	case err != nil:
		add("format", "warn", "could not read the pipeline versions: "+err.Error(), "")
	case older:
		add("format", "warn", fmt.Sprintf("the index holds an older git-kb version's data (pipeline below %d), which this one never reads", PipelineVersion), "run: git kb index (then git kb gc --auto to drop the older version's data)")
	default:
		detail := fmt.Sprintf("format %d, pipeline %d, %d MiB", db.Format.Format, PipelineVersion, db.Size()>>20)
		if newer {
			detail += "; a newer git-kb uses this index too"
		}
		add("format", "ok", detail, "")
	}

	refs, exists, err := refsInGit(ctx, repo, db)
	if err == nil {
		var segs map[uint32]store.Segment
		if segs, err = db.Segments(); err == nil {
			out = checkViews(ctx, repo, db, emb, refs, exists, segs, out)
		}
	}
	if err = store.Classify(err); errors.Is(err, store.ErrDamaged) {
		add("index", "error", err.Error(), fix)
		return out, nil
	}
	return out, err
}

// checkViews checks each indexed commit's view against git.
func checkViews(ctx context.Context, repo *gitx.Repo, db *store.DB, emb llm.Embedder, refs []store.Ref, exists map[string]bool, segs map[uint32]store.Segment, out []Check) []Check {
	add := func(name, status, detail, fix string) { out = append(out, Check{name, status, detail, fix}) }
	okViews, gone := 0, 0
	for _, r := range refs {
		c := hex.EncodeToString(r.Commit[:])
		name := "view " + c[:12]
		if !exists[c] {
			gone++
			add(name, "warn", "indexed commit is no longer in the repository (history rewritten or pruned)", "run: git kb gc")
			continue
		}
		if _, tree, err := repo.Resolve(ctx, c); err != nil || tree != r.Tree {
			add(name, "error", fmt.Sprintf("git says tree %s, the index says %s", tree, hex.EncodeToString(r.Tree[:])), "run: git kb gc, then git kb index --rev "+c[:12])
			continue
		}
		v, err := db.View(PipelineVersion, r.Tree)
		if err := store.Classify(err); errors.Is(err, store.ErrDamaged) {
			add(name, "error", err.Error(), "run: git kb doctor --fix")
			continue
		}
		if err != nil {
			add(name, "error", "the commit is recorded but its view is missing", "run: git kb index --rev "+c[:12])
			continue
		}
		if problem := checkView(db, v, segs); problem != "" {
			add(name, "error", problem, "run: git kb doctor --fix   (and please report it)")
			continue
		}
		okViews++
		if emb != nil {
			n, err := Coverage(db, ModelKey(emb), v)
			if err == nil && n < int(v.Chunks) {
				add(name, "warn", fmt.Sprintf("%s: vectors for %d of %d chunks", emb.ID(), n, v.Chunks), "run: git kb index --rev "+c[:12]+" --embed sync")
			}
		}
	}
	if len(refs) == 0 {
		add("views", "warn", "the index holds no commit", "run: git kb index")
	} else {
		msg := fmt.Sprintf("%d of %d indexed commits are consistent with git (%d gone from git)", okViews, len(refs), gone)
		switch {
		case len(refs) != 1:
		case okViews == 1:
			msg = "the indexed commit is consistent with git"
		case gone == 1:
			msg = "the indexed commit is gone from git"
		default:
			msg = "the indexed commit is not consistent with git"
		}
		add("views", "ok", msg, "")
	}
	return out
}

// checkView verifies that a view's chunk count adds up and that the
// segments and blob records it points at exist and agree.
func checkView(db *store.DB, v *store.View, segs map[uint32]store.Segment) string {
	var total uint32
	var blobs []store.SHA
	for _, e := range v.ChunkEntries(nil) {
		total += e.N
		blobs = append(blobs, e.Blob)
		sg, ok := segs[e.Seg]
		if !ok {
			return fmt.Sprintf("%s: segment %d is not committed", e.Path, e.Seg)
		}
		if e.First < sg.First || e.First+e.N > sg.First+sg.N {
			return fmt.Sprintf("%s: chunks %d+%d outside segment %d", e.Path, e.First, e.N, e.Seg)
		}
	}
	if total != v.Chunks {
		return fmt.Sprintf("its files hold %d chunks, its total says %d", total, v.Chunks)
	}
	hs, err := db.BlobHeaders(PipelineVersion, blobs, segs)
	if err != nil {
		return err.Error()
	}
	for _, e := range v.ChunkEntries(nil) {
		h, ok := hs[e.Blob]
		if !ok {
			return fmt.Sprintf("%s: blob %x has no record", e.Path, e.Blob[:6])
		}
		if h.Seg != e.Seg || h.First != e.First || h.N != e.N {
			return fmt.Sprintf("%s: blob record says segment %d chunks %d+%d, the view %d %d+%d", e.Path, h.Seg, h.First, h.N, e.Seg, e.First, e.N)
		}
	}
	return ""
}
