package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/review"
	"github.com/git-kb/git-kb/search"
)

// BlameRequest names a change to explain.
type BlameRequest struct {
	// Change is "" (HEAD, the last commit), "A..B", "A...B" (from their
	// merge base) or a commit (against its first parent).
	Change string
	// Base compares one commit with Base instead of its parent.
	Base string
	// Staged explains the index against HEAD.
	Staged bool
	// Context is how many lines around each hunk count for its history.
	Context int
}

// BlameContext builds the blame-context report of a change: per hunk, the
// commits behind the lines it touches, the docs and the code most relevant
// to it, searched in the base commit's view (indexed first if needed).
func (k *Engine) BlameContext(ctx context.Context, r BlameRequest) (*review.Report, error) {
	o, err := changeOf(ctx, k.Repo, r.Change, r.Base, r.Staged)
	if err != nil {
		return nil, err
	}
	o.Context = r.Context
	o.Secrets = k.Secrets
	// Docs and code come from the base's view; a root commit has no base,
	// so its own view stands in.
	searchRev := o.Base
	if searchRev == gitx.EmptyTree {
		searchRev = o.Head
	}
	view, err := k.OpenView(ctx, searchRev, false)
	if err != nil {
		return nil, err
	}
	defer view.Close()
	o.Search = func(ctx context.Context, q string, n int, scope func(string) bool) ([]search.Result, error) {
		resp, err := view.Search(ctx, search.Request{Query: q, K: n, Mode: search.ModeLexical, Scope: scope})
		if err != nil {
			return nil, err
		}
		return resp.Results, nil
	}
	rep, err := review.Explain(ctx, o)
	if err == nil {
		if cut := k.Repo.ShallowCommits(); cut != nil {
			// Blame stops at the clone's depth and credits every older
			// line to the boundary commit: say so once, at the top.
			rep.Notes = append(rep.Notes, fmt.Sprintf("Shallow clone: history before %s is cut off, so older lines are credited to it; for full history run git fetch --unshallow (in CI: fetch-depth: 0).", Shortest(cut)))
		}
	}
	return rep, err
}

// Shortest names the boundary commits of a shallow clone, briefly.
func Shortest(cut map[string]bool) string {
	var names []string
	for c := range cut {
		names = append(names, c[:12])
	}
	sort.Strings(names)
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
	}
	return strings.Join(names, ", ")
}

// changeOf turns the command's argument into base and head commits.
func changeOf(ctx context.Context, repo *gitx.Repo, arg, base string, staged bool) (review.Options, error) {
	o := review.Options{Repo: repo, Staged: staged, Range: arg}
	resolve := func(rev string) (string, error) {
		if rev == "" {
			rev = "HEAD"
		}
		commit, _, err := repo.Resolve(ctx, rev)
		return commit.String(), err
	}
	var err error
	switch {
	case staged:
		if repo.WorkTree == "" {
			// A bare repository has no index of its own: diffing it
			// would explain every file as deleted.
			return o, fmt.Errorf("staged: %s is a bare repository: it has no staging area; give a range (base..head) or a commit", repo.CommonDir)
		}
		o.Range = "staged changes"
		o.Base, err = resolve("HEAD")
	case base != "":
		if o.Range == "" {
			o.Range = "HEAD"
		}
		if o.Head, err = resolve(arg); err != nil {
			return o, err
		}
		if o.Base, err = resolve(base); err != nil {
			return o, fmt.Errorf("--base %s: %w", base, err)
		}
		o.Range = base + ".." + o.Range
	case strings.Contains(arg, "..."):
		a, b, _ := strings.Cut(arg, "...")
		if o.Head, err = resolve(b); err != nil {
			return o, err
		}
		var left string
		if left, err = resolve(a); err != nil {
			return o, err
		}
		if o.Base, err = repo.MergeBase(ctx, left, o.Head); err != nil && repo.ShallowCommits() != nil {
			return o, &gitx.HistoryCutError{What: arg + ": no merge base", Commit: Shortest(repo.ShallowCommits())}
		}
	case strings.Contains(arg, ".."):
		a, b, _ := strings.Cut(arg, "..")
		if o.Base, err = resolve(a); err != nil {
			return o, err
		}
		o.Head, err = resolve(b)
	default:
		if o.Range == "" {
			o.Range = "HEAD"
		}
		if o.Head, err = resolve(arg); err != nil {
			return o, err
		}
		var parents []string
		if parents, err = repo.Parents(ctx, o.Head); err != nil {
			return o, err
		}
		o.Base = gitx.EmptyTree
		if len(parents) > 0 {
			o.Base = parents[0] // first parent: what a merge brought in
		} else if repo.ShallowCommits()[o.Head] {
			// Not a root commit: its parent was cut off by the clone's
			// depth. Comparing with the empty tree would list every file.
			return o, &gitx.HistoryCutError{What: o.Range, Commit: o.Head}
		}
	}
	if err != nil {
		return o, err
	}
	if o.Base == o.Head {
		return o, fmt.Errorf("%s: base and head are the same commit, nothing to explain", o.Range)
	}
	return o, nil
}
