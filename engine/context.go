package engine

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/search"
)

// ContextRequest asks for a context pack: the best of a search's results
// packed into a token budget.
type ContextRequest struct {
	// Request is the search (Query, Parsed, Mode, Related); K and PerFile
	// are the pack's own (40 chunks, up to 4 per file).
	search.Request
	Rev      string // "" = HEAD
	Worktree bool   // HEAD with the working tree's uncommitted files on top
	Rerank   string // as SearchRequest.Rerank
	Budget   int    // tokens (cl100k_base)
	Ratios   pack.Ratios
	Format   string // pack.Markdown, pack.JSON or pack.XML
}

// ContextPack retrieves for r (40 chunks, up to 4 per file) and packs the
// results into r.Budget tokens. Lines come from git (the working tree for
// uncommitted files), with secrets redacted.
func (k *Engine) ContextPack(ctx context.Context, r ContextRequest) (*pack.Pack, error) {
	req := r.Request
	req.K, req.PerFile = 40, 4
	resp, err := k.Search(ctx, SearchRequest{Request: req, Rev: r.Rev, Worktree: r.Worktree, Rerank: r.Rerank})
	if err != nil {
		return nil, err
	}
	// The files the search could not read are named once, below, with
	// what the pack did with them.
	if d := resp.DegradedBesides(search.NoteUnread); d != "" {
		k.opt.note("%s", d)
	}
	counter, err := pack.CL100K()
	if err != nil {
		return nil, fmt.Errorf("load the tokenizer: %w", err)
	}
	var cands []pack.Candidate
	rankOf := map[string]int{}
	uncommitted := map[string]string{} // blob -> path of files read from the working tree
	pathOf := map[string]string{}      // blob -> a path it is at, for kb.secrets.allow globs
	for _, r := range resp.Results {
		rank := r.Rank
		if r.Related != nil {
			// Right behind the match it belongs to (the pack's sort is
			// stable, and related results come after all matches).
			rank = rankOf[r.Related.From]
		} else if _, ok := rankOf[r.Path]; !ok {
			rankOf[r.Path] = r.Rank
		}
		if _, ok := pathOf[r.Blob]; !ok {
			pathOf[r.Blob] = r.Path
		}
		cand := pack.Candidate{Path: r.Path, Blob: r.Blob, Lang: r.Lang, Heading: r.Heading, Start: r.StartLine, End: r.EndLine, Rank: rank}
		if strings.HasPrefix(r.Citation, WorktreeRev+":") {
			cand.Rev = WorktreeRev
			uncommitted[r.Blob] = r.Path
		}
		cands = append(cands, cand)
	}
	p, err := pack.Build(cands, pack.Options{
		Query: req.Query, Commit: resp.Commit, Budget: r.Budget, Ratios: r.Ratios, Format: r.Format, Counter: counter,
		Lines: func(blob string) ([]string, error) {
			if p, ok := uncommitted[blob]; ok {
				lines, err := WorktreeLines(k.Repo, p)
				if err != nil {
					return nil, &pack.UnreadableError{Err: err}
				}
				return k.Secrets.RedactLines(p, lines), nil
			}
			lines, unread, err := k.searchedLines(resp, pathOf[blob], blob)
			if err != nil && (unread || ctx.Err() == nil) {
				// A damaged or missing object (search degrades the same
				// way): the pack holds what can be read, and says what not.
				return nil, &pack.UnreadableError{Err: err}
			}
			return lines, err
		},
	})
	if err != nil {
		return nil, err
	}
	if len(p.Unread) > 0 {
		k.opt.note("left out of the pack, unreadable: %s (git fsck checks the repository's objects)", strings.Join(p.Unread, "; "))
	}
	// Files the search could not read and the pack never asked for (a
	// phrase filter left them out): named as the search names them.
	var others []search.Unread
	for _, u := range resp.Unread() {
		if !slices.ContainsFunc(p.UnreadFiles, func(f pack.UnreadFile) bool { return f.Path == u.Path }) {
			others = append(others, u)
		}
	}
	if note := search.UnreadNote(others); note != "" {
		k.opt.note("%s", note)
	}
	return p, nil
}

// WorktreeRev is the revision worktree citations name.
const WorktreeRev = "worktree"

// WorktreeLines reads a working tree file's text as lines. The path must
// stay inside the working tree.
func WorktreeLines(repo *gitx.Repo, p string) ([]string, error) {
	if repo.WorkTree == "" {
		return nil, fmt.Errorf("this repository has no working tree")
	}
	clean := path.Clean(strings.TrimPrefix(p, "/"))
	if clean == ".." || strings.HasPrefix(clean, "../") || filepath.IsAbs(p) {
		return nil, fmt.Errorf("%s is outside the working tree", p)
	}
	data, err := os.ReadFile(filepath.Join(repo.WorkTree, filepath.FromSlash(clean)))
	if err != nil {
		return nil, err
	}
	return TextLines(p, data)
}

// searchedLines are the redacted lines of a committed blob of resp's
// results (path is where it is, for kb.secrets.allow globs): cut from the
// text the search read for its snippet when it has it, else read from git
// (BlobLines). unread says the search failed on the blob a moment ago:
// not read again, err is git's error then.
func (k *Engine) searchedLines(resp *search.Response, path, blob string) (lines []string, unread bool, err error) {
	if i := slices.IndexFunc(resp.Unread(), func(u search.Unread) bool { return u.Blob == blob }); i >= 0 {
		return nil, true, resp.Unread()[i].Err
	}
	if text, ok := resp.UnredactedBlobText(blob); ok {
		return k.Secrets.RedactLines(path, textLines(text)), false, nil
	}
	lines, err = k.BlobLines(path, blob)
	return lines, false, err
}

// textLines are text's lines, without the empty line after a final
// newline (as TextLines').
func textLines(text string) []string {
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
