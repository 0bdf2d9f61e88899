package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/git-kb/git-kb/gitx"
	"sort"
	"strings"
	"time"

	"github.com/git-kb/git-kb/expand"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// View is one commit's view with the database open read-only, for one or
// more searches; close it promptly, as it holds off the indexer.
type View struct {
	DB       *store.DB
	Searcher *search.Searcher
	blobs    *gitx.BlobReader // the searcher's; closed with the view
	// Commit is the commit answered from: the one asked for, or when
	// Stale is set the last indexed one standing in for it.
	Commit store.SHA
	View   *store.View
	Stale  *search.Stale
	// staleAfter is kb.staleAfter, for doc health.
	staleAfter time.Duration
	// noPriors, noExpand: kb.priors false, kb.expand false.
	noPriors, noExpand bool
	// exiting: Close leaves the view to the process's exit (Options.Exiting).
	exiting bool
	// synonyms reads kb.synonyms (Engine.Synonyms), for searches that
	// bring none of their own.
	synonyms func() (*expand.Synonyms, error)
}

// Search runs req against the view, with the repository's settings
// (kb.staleAfter, kb.priors, kb.expand, kb.synonyms) where req leaves
// them open.
func (v *View) Search(ctx context.Context, req search.Request) (*search.Response, error) {
	req.Commit, req.View = v.Commit, v.View
	if req.StaleAfter == 0 {
		req.StaleAfter = v.staleAfter
	}
	req.NoPriors = req.NoPriors || v.noPriors
	req.NoExpand = req.NoExpand || v.noExpand
	if err := fillSynonyms(&req, v.synonyms); err != nil {
		return nil, err
	}
	resp, err := v.Searcher.Search(ctx, req)
	if resp != nil {
		resp.Stale = v.Stale
	}
	return resp, err
}

// Close releases the database and ends the snippets' git process.
func (v *View) Close() {
	if v.exiting {
		return
	}
	v.DB.Close()
	v.blobs.Close()
}

// OpenView resolves rev and opens its view, indexing the commit first
// (unless noIndex) if it has not been. While another process indexes rev,
// or when rev cannot be indexed now, the last indexed commit's view stands
// in, with Stale saying why.
func (k *Engine) OpenView(ctx context.Context, rev string, noIndex bool) (*View, error) {
	return k.openViewWith(ctx, rev, noIndex, nil)
}

// openViewWith is OpenView with the view's snippets read through blobs
// (nil: a reader of its own, started on the first read).
func (k *Engine) openViewWith(ctx context.Context, rev string, noIndex bool, blobs *gitx.BlobReader) (*View, error) {
	v, err := k.openView(ctx, rev, noIndex, blobs)
	if v != nil {
		v.exiting = k.opt.Exiting
	}
	return v, err
}

func (k *Engine) openView(ctx context.Context, rev string, noIndex bool, blobs *gitx.BlobReader) (*View, error) {
	repo := k.Repo
	var commit, tree gitx.Hash
	// HEAD's commit from the refs, and its tree from the index's record of
	// it: a search of an indexed HEAD reads no git object (HeadCommit).
	head, fast := repo.HeadCommit(rev)
	if !fast {
		var err error
		if commit, tree, err = repo.Resolve(ctx, rev); err != nil {
			return nil, err
		}
	}
	note := k.opt.note
	ro := store.Options{ReadOnly: true, Wait: LockWait, OnWait: func() { note("waiting for the indexer to finish writing...") }}
	for attempt := 0; ; attempt++ {
		// Read each attempt: indexing the commit adds its view to those
		// made under the current policy.
		underPolicy := k.underPolicy()
		db, err := store.Open(ctx, index.DBDir(repo), ro)
		if fast {
			fast = false
			known := false
			if err == nil {
				if ref, rerr := db.Ref(head); rerr == nil && ref.Commit == head {
					commit, tree, known = ref.Commit, ref.Tree, true
				}
			}
			if !known {
				var rerr error
				if commit, tree, rerr = repo.Resolve(ctx, rev); rerr != nil {
					if err == nil {
						db.Close()
					}
					return nil, rerr
				}
			}
		}
		var view *store.View
		if err == nil {
			view, err = db.View(index.PipelineVersion, tree)
			if err == nil && !underPolicy(view) {
				// Made while a rule now redacted was allowed: its
				// postings would still match the values. Indexed again,
				// like a commit never indexed.
				err = errOtherPolicy
				note("%s (%s) was indexed under other secret rules or another kb.secrets.allow", rev, commit.String()[:12])
			}
			if err != nil {
				db.Close()
			}
		}
		newSearcher := func(db *store.DB, v *store.View) (*search.Searcher, *gitx.BlobReader) {
			// Snippets read their blobs through one git cat-file process:
			// faster than go-git for a search's handful (gitx.BlobReader).
			if blobs == nil {
				blobs = repo.NewBlobReader()
			}
			br := blobs
			return &search.Searcher{DB: db, Pipeline: index.PipelineVersion, Dense: k.Dense, Secrets: k.Secrets, Analyzer: k.analyzerFor(v),
				ReadBlob: func(h store.SHA) ([]byte, error) { return br.Read(h) },
				Prefetch: func(hs []store.SHA) {
					gh := make([]gitx.Hash, len(hs))
					for i, h := range hs {
						gh[i] = h
					}
					br.Prefetch(gh)
				}}, br
		}
		staleAfter, noPriors, noExpand := k.Settings.StaleAfter, !k.Settings.Priors, !k.Settings.Expand
		if err == nil {
			s, blobs := newSearcher(db, view)
			return &View{DB: db, Searcher: s, blobs: blobs, Commit: commit, View: view, staleAfter: staleAfter, noPriors: noPriors, noExpand: noExpand, synonyms: k.Synonyms}, nil
		}
		// The commit is being indexed right now: answer from the last
		// complete view instead of waiting, and say so.
		if errors.Is(err, store.ErrNotFound) && attempt == 0 && index.Running(repo.KBDir()) {
			if db, err := store.Open(ctx, index.DBDir(repo), ro); err == nil {
				if ref, v := latestView(db, underPolicy); v != nil {
					note("%s (%s) is being indexed; answering from %s, the last indexed commit", rev, commit.String()[:12], hex.EncodeToString(ref.Commit[:6]))
					s, blobs := newSearcher(db, v)
					return &View{DB: db, Searcher: s, blobs: blobs, Commit: ref.Commit, View: v, staleAfter: staleAfter, noPriors: noPriors, noExpand: noExpand, synonyms: k.Synonyms,
						Stale: &search.Stale{Requested: commit.String(), Reason: "being indexed by another git kb process; this is the last indexed commit"}}, nil
				}
				db.Close()
			}
		}
		if !errors.Is(err, store.ErrNoIndex) && !errors.Is(err, store.ErrNotFound) && err != errOtherPolicy {
			return nil, err
		}
		if attempt > 0 {
			return nil, fmt.Errorf("commit %s is still not indexed after indexing it", commit)
		}
		if noIndex && err == errOtherPolicy {
			return nil, fmt.Errorf("commit %s was indexed under other secret rules or another kb.secrets.allow (run git kb index --rev %s)", commit.String()[:12], rev)
		}
		if noIndex {
			return nil, fmt.Errorf("commit %s is not indexed (run git kb index --rev %s)", commit.String()[:12], rev)
		}
		if short := commit.String()[:12]; len(rev) >= 7 && strings.HasPrefix(commit.String(), strings.ToLower(rev)) {
			note("indexing %s before the first search of it...", short) // a SHA: once
		} else {
			note("indexing %s (%s) before the first search of it...", rev, short)
		}
		st, err := IndexCommit(ctx, repo, commit.String(), k.opt)
		if err != nil {
			// A commit that cannot be indexed now (disk full, read-only,
			// a git object missing) still gets an answer: the last
			// indexed commit's, marked stale.
			if ctx.Err() != nil {
				return nil, err
			}
			if db, oerr := store.Open(ctx, index.DBDir(repo), ro); oerr == nil {
				if ref, v := latestView(db, underPolicy); v != nil {
					why := FirstLine(Friendly(err))
					note("cannot index %s (%s): %s; answering from %s, the last indexed commit", rev, commit.String()[:12], why, hex.EncodeToString(ref.Commit[:6]))
					s, blobs := newSearcher(db, v)
					return &View{DB: db, Searcher: s, blobs: blobs, Commit: ref.Commit, View: v, staleAfter: staleAfter,
						Stale: &search.Stale{Requested: commit.String(), Reason: "could not be indexed (" + why + "); this is the last indexed commit"}}, nil
				}
				db.Close()
			}
			return nil, err
		}
		// Answer now, lexically; vectors fill in behind.
		if err := EmbedAfterIndex(ctx, repo, k.Embed, st, "background", k.opt); err != nil {
			note("%v", err)
		}
	}
}

// errOtherPolicy: the view was made under another secrets policy.
var errOtherPolicy = errors.New("indexed under other secret rules or another kb.secrets.allow")

// underPolicy returns whether a view was made under the repository's
// current secrets policy (index.ViewsUnderPolicy).
func (k *Engine) underPolicy() func(*store.View) bool {
	fp := secrets.NewPolicy(nil).Fingerprint()
	if k.Secrets != nil {
		fp = k.Secrets.Fingerprint()
	}
	return index.ViewsUnderPolicy(k.Repo.KBDir(), fp)
}

// latestView is the most recently indexed commit's view that ok accepts
// (made under the current secrets policy).
func latestView(db *store.DB, ok func(*store.View) bool) (store.Ref, *store.View) {
	refs, err := db.Refs()
	if err != nil {
		return store.Ref{}, nil
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Indexed.After(refs[j].Indexed) })
	for _, r := range refs {
		if v, err := db.View(index.PipelineVersion, r.Tree); err == nil && ok(v) {
			return r, v
		}
	}
	return store.Ref{}, nil
}

// worktreeOverlay analyzes the working tree's uncommitted files, to be
// searched in place of view's versions. Nothing is written anywhere.
func (k *Engine) worktreeOverlay(ctx context.Context, view *store.View) (*search.Overlay, error) {
	committed := make(map[string]store.SHA, len(view.Entries))
	for _, e := range view.Entries {
		committed[e.Path] = e.Blob
	}
	wt, err := index.Worktree(ctx, k.Repo, func(p string) (store.SHA, bool) {
		b, ok := committed[p]
		return b, ok
	}, k.analyzerFor(view)) // cut as the view's files were
	if err != nil {
		return nil, err
	}
	return &search.Overlay{Files: wt.Files, Gone: wt.Gone}, nil
}

// analyzerFor is the analyzer that cuts queries as view's files were cut:
// with the word list the view records (index.LoadVocab), loaded once per
// list by this engine (one repository's; an MCP server holds one engine
// per repository, so lists never mix). A list that cannot be read is
// said, and the built-in dictionary stands in.
func (k *Engine) analyzerFor(view *store.View) *segment.Analyzer {
	if view == nil || view.Vocab == "" {
		return segment.Tiny()
	}
	k.vocabMu.Lock()
	defer k.vocabMu.Unlock()
	if an, ok := k.vocabs[view.Vocab]; ok {
		return an
	}
	v, err := index.LoadVocab(k.Repo.KBDir(), view.Vocab)
	if err != nil {
		k.opt.note("%v; cutting queries with the built-in dictionary only", err)
	}
	an := v.Tiny()
	if k.vocabs == nil {
		k.vocabs = map[string]*segment.Analyzer{}
	}
	k.vocabs[view.Vocab] = an
	return an
}
