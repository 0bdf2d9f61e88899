package index

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// WorktreeChanges are the uncommitted files of a working tree, analyzed
// as the indexer would analyze them, for searching on top of HEAD's view.
type WorktreeChanges struct {
	Files []store.AnalyzedFile
	// Gone are paths whose committed version no longer stands: deleted,
	// or now skipped (binary, too large, .kbignore'd).
	Gone    []string
	Skipped map[string]int // why changed files were left out
}

// Worktree reads the working tree's changes against HEAD. committed
// gives the blob indexed for a path at HEAD: a file whose content is
// unchanged (touched, or staged and reverted) is not an overlay. Nothing
// is written, to the repository or to the index.
// an cuts their text (nil: the built-in dictionary); it must carry the
// word list of the view they are searched with.
func Worktree(ctx context.Context, repo *gitx.Repo, committed func(path string) (store.SHA, bool), an *segment.Analyzer) (*WorktreeChanges, error) {
	paths, err := repo.WorktreeChanges(ctx)
	if err != nil {
		return nil, err
	}
	out := &WorktreeChanges{Skipped: map[string]int{}}
	if len(paths) == 0 {
		return out, nil
	}
	maxSize, err := configSize(ctx, repo)
	if err != nil {
		return nil, err
	}
	kbignore, _ := os.ReadFile(filepath.Join(repo.WorkTree, ".kbignore"))
	f := newFilter(maxSize, string(kbignore))
	pol, err := SecretsPolicy(ctx, repo)
	if err != nil {
		return nil, err
	}
	f.pol = pol
	if an == nil {
		an = segment.Tiny()
	}
	tm := &timer{m: map[string]time.Duration{}}
	// Each changed file is read and analyzed on its own, on every core:
	// the analysis is most of the cost of a --worktree search.
	type one struct {
		file *store.AnalyzedFile
		gone bool
		skip string
		err  error
	}
	results := make([]one, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.NumCPU(), len(paths)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := &results[i]
				r.file, r.gone, r.skip, r.err = worktreeFile(ctx, repo, f, pol, an, tm, paths[i], committed)
			}
		}()
	}
	for i := range paths {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, r := range results {
		switch {
		case r.err != nil:
			return nil, r.err
		case r.skip != "":
			out.Skipped[r.skip]++
			if !pol.InPath(paths[i]) { // else never indexed, and its name goes nowhere
				out.Gone = append(out.Gone, paths[i])
			}
		case r.gone:
			out.Gone = append(out.Gone, paths[i])
		case r.file != nil:
			out.Files = append(out.Files, *r.file)
		}
	}
	return out, nil
}

// worktreeFile reads and analyzes one changed path: the file, or gone
// (deleted), or why it is skipped; nil for all when there is nothing to
// search (a directory, or content equal to the committed blob).
func worktreeFile(ctx context.Context, repo *gitx.Repo, f *filter, pol *secrets.Policy, an *segment.Analyzer, tm *timer, p string, committed func(string) (store.SHA, bool)) (*store.AnalyzedFile, bool, string, error) {
	full := filepath.Join(repo.WorkTree, filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, "", nil
	}
	if err != nil {
		return nil, false, "", err
	}
	if fi.IsDir() {
		return nil, false, "", nil // a nested repository or submodule
	}
	mode := uint32(0o100644)
	if fi.Mode()&fs.ModeSymlink != 0 {
		mode = 0o120000
	}
	if why := f.skip(p, mode, fi.Size()); why != "" {
		return nil, false, why, nil
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, false, "", fmt.Errorf("read %s: %w", p, err)
	}
	blob := gitBlobHash(data)
	if old, ok := committed(p); ok && old == blob {
		return nil, false, "", nil
	}
	af, why := analyzeFile(an, tm, pol, p, blob, data)
	if why != "" {
		return nil, false, why, nil
	}
	return af, false, "", nil
}

// AnalyzeBlob chunks and analyzes one blob at path exactly as the indexer
// does (secrets redacted by pol first), keeping in memory what the indexer
// turns into postings: each chunk's terms by field, and the redacted
// lines. skip says why the blob has no chunks (SkipBinary, SkipFailed,
// SkipEmpty). For callers that send a view's chunks elsewhere (git kb
// publish) and must analyze them as local search does.
func AnalyzeBlob(pol *secrets.Policy, path string, blob store.SHA, data []byte) (af *store.AnalyzedFile, skip string) {
	return analyzeFile(segment.Tiny(), &timer{m: map[string]time.Duration{}}, pol, path, blob, data)
}

func analyzeFile(an *segment.Analyzer, tm *timer, pol *secrets.Policy, p string, blob store.SHA, data []byte) (*store.AnalyzedFile, string) {
	a, text, doc := analyzeKeep(an, tm, pol, p, blob, data)
	if why := map[byte]string{store.SkipBinary: SkipBinary, store.SkipFailed: SkipFailed}[a.header.Skip]; why != "" || a.header.N == 0 {
		if why == "" {
			why = SkipEmpty
		}
		return nil, why
	}
	af := &store.AnalyzedFile{Path: p, Blob: blob, Meta: a.meta, Lines: strings.Split(text, "\n"), BodyLen: a.lens}
	for f, l := range a.header.FieldLen {
		af.FieldLen[f] = uint64(l)
	}
	for _, terms := range a.chunks {
		m := make(map[string][store.NumFields]uint16, len(terms))
		for _, t := range terms {
			m[t.term] = t.tf
		}
		af.Chunks = append(af.Chunks, m)
	}
	for _, c := range doc.Chunks {
		af.EmbedInputs = append(af.EmbedInputs, EmbedText(a.meta.Title, c.Heading, c.Text))
	}
	return af, ""
}

// gitBlobHash is git's object name for a blob: SHA-1 of "blob <size>\0"
// and the content.
func gitBlobHash(data []byte) store.SHA {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var s store.SHA
	copy(s[:], h.Sum(nil))
	return s
}
