// Package review explains a change to a reviewer (git kb blame-context).
// For each changed file and hunk it finds:
//
//   - history: the commits that last touched the lines the hunk modifies or
//     deletes, and the lines just around it (git blame of the pre-image at
//     the base, only on those ranges), with issue references from their
//     messages;
//   - docs: the knowledge-base chunks most relevant to the change, found by
//     searching the base's view with the hunk's identifiers, symbols, the
//     file's name and the blamed commits' subjects;
//   - code: where the symbols the change touches are defined or used in
//     other files.
//
// It reads git through gitx and searches through a function the caller
// supplies (the base's view, indexed if need be); it never writes.
package review

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/secrets"
)

// Options say what to explain and how.
type Options struct {
	Repo *gitx.Repo
	// Base and Head are commit SHAs; with Staged, Head is ignored and the
	// index is compared with Base.
	Base, Head string
	Staged     bool
	// Range is how the user named the change, for the report.
	Range string
	// Search runs a lexical query against Base's view, among the files
	// scope accepts. Nil skips docs and code.
	Search func(ctx context.Context, query string, k int, scope func(path string) bool) ([]search.Result, error)
	// Context is how many lines around each hunk are blamed too (default 3).
	Context int
	// Parallel bounds the git blame processes at once (default 4).
	Parallel int
	// Secrets redacts the file text, hunk headers and commit subjects the
	// report is built from (kb.secrets.allow); nil redacts everything the
	// rules find. The report goes to agents and reviewers' tools.
	Secrets *secrets.Policy
}

// Report is the explanation of a change.
type Report struct {
	Range  string `json:"range"`
	Base   string `json:"base"`
	Head   string `json:"head"` // "" when the change is the staged one
	Staged bool   `json:"staged,omitempty"`
	Files  []File `json:"files"`
	// Notes are caveats about the whole report, e.g. a shallow clone's
	// history cut off.
	Notes     []string `json:"notes,omitempty"`
	Truncated bool     `json:"truncated,omitempty"` // items were dropped to fit --max-bytes
	Dropped   int      `json:"dropped,omitempty"`
	TookMs    int64    `json:"took_ms"`
}

// File is one changed file.
type File struct {
	Path    string   `json:"path"`
	OldPath string   `json:"old_path,omitempty"` // renames and copies
	Status  string   `json:"status"`             // added, deleted, modified, renamed, copied, type-changed
	Binary  bool     `json:"binary,omitempty"`   // listed, not explained
	Lang    string   `json:"lang,omitempty"`
	Added   int      `json:"added"`
	Removed int      `json:"removed"`
	Symbols []string `json:"symbols,omitempty"` // declarations the change touches
	Hunks   []Hunk   `json:"hunks,omitempty"`
	History []Commit `json:"history,omitempty"` // most relevant first, merged over hunks
	Docs    []Ref    `json:"docs,omitempty"`
	Code    []Ref    `json:"code,omitempty"`
	// Note explains an empty section (e.g. an added file has no history).
	Note string `json:"note,omitempty"`

	terms []string // what the change is about, for the docs query
}

// Hunk is one change inside a file.
type Hunk struct {
	OldStart int      `json:"old_start"`
	OldLines int      `json:"old_lines"`
	NewStart int      `json:"new_start"`
	NewLines int      `json:"new_lines"`
	Header   string   `json:"header,omitempty"`  // git's function context
	Symbols  []string `json:"symbols,omitempty"` // declarations it touches
	Commits  []string `json:"commits,omitempty"` // short SHAs from History, most lines first
}

// Commit is a commit behind the changed lines.
type Commit struct {
	SHA     string   `json:"sha"`
	Short   string   `json:"short"`
	Author  string   `json:"author"`
	Date    string   `json:"date"` // author date, YYYY-MM-DD
	Subject string   `json:"subject"`
	Refs    []string `json:"refs,omitempty"` // #123, !45, ABC-123 from the message
	Lines   int      `json:"lines"`          // changed lines it last touched
	Nearby  int      `json:"nearby"`         // lines around the hunks it last touched
}

// Ref is a chunk of the knowledge base: a doc for the change, or a place
// where one of its symbols is defined or used.
type Ref struct {
	Path     string  `json:"path"`
	Heading  string  `json:"heading,omitempty"`
	Citation string  `json:"citation"`
	Snippet  string  `json:"snippet,omitempty"`
	Score    float64 `json:"score"`
	Symbol   string  `json:"symbol,omitempty"`
	Kind     string  `json:"kind,omitempty"` // definition or use
}

const (
	nearbyWeight = 0.25 // a line around a hunk counts a quarter of a changed one
	docsPerFile  = 3
	symbolsFiles = 3 // symbols per file looked up elsewhere
	refsPerSym   = 3
)

// Explain builds the report.
func Explain(ctx context.Context, o Options) (*Report, error) {
	began := time.Now()
	if o.Context <= 0 {
		o.Context = 3
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	rep := &Report{Range: o.Range, Base: o.Base, Head: o.Head, Staged: o.Staged, Files: []File{}}
	if o.Staged {
		rep.Head = ""
	}
	files, patch, err := o.Repo.Diff(ctx, o.Base, o.Head, o.Staged)
	if err != nil {
		return nil, err
	}
	sections, err := parsePatch(patch)
	if err != nil {
		return nil, err
	}
	if len(sections) != len(files) {
		return nil, fmt.Errorf("git diff listed %d files but the patch has %d sections", len(files), len(sections))
	}
	if o.Staged && len(files) == 0 {
		// "0 files changed" alone reads like a failure to find them.
		rep.Notes = append(rep.Notes, "nothing is staged: git add the changes to explain, or name a commit or range")
	}
	rep.Files = make([]File, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.Parallel)
	errs := make([]error, len(files))
	for i := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rep.Files[i], errs[i] = explainFile(ctx, o, files[i], sections[i])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := addMessages(ctx, o.Repo, rep); err != nil {
		return nil, err
	}
	if o.Search != nil {
		blobs := blobLines{}
		for i := range rep.Files {
			if err := findRefs(ctx, o, &rep.Files[i], blobs); err != nil {
				return nil, err
			}
		}
	}
	// A secret in a file's name (a token as the name) goes no further.
	for i := range rep.Files {
		f := &rep.Files[i]
		f.Path, f.OldPath = o.Secrets.RedactText(f.Path, f.Path), o.Secrets.RedactText(f.OldPath, f.OldPath)
	}
	rep.TookMs = time.Since(began).Milliseconds()
	return rep, nil
}

var statusNames = map[byte]string{'A': "added", 'D': "deleted", 'M': "modified", 'R': "renamed", 'C': "copied", 'T': "type-changed"}

// explainFile blames one file's hunks and finds the symbols they touch.
func explainFile(ctx context.Context, o Options, df gitx.DiffFile, sec section) (File, error) {
	f := File{Path: df.NewPath, Status: statusNames[df.Status], Binary: sec.Binary}
	if f.Status == "" {
		f.Status = string(df.Status)
	}
	if df.NewPath == "" {
		f.Path = df.OldPath
	}
	if df.OldPath != "" && df.OldPath != df.NewPath && df.NewPath != "" {
		f.OldPath = df.OldPath
	}
	f.Lang = chunk.Lang(f.Path)
	if sec.Binary {
		f.Note = "binary file: not explained"
		return f, nil
	}
	var changed []string
	for _, h := range sec.Hunks {
		f.Added += len(h.Added)
		f.Removed += len(h.Removed)
		changed = append(append(changed, o.Secrets.RedactLines(f.Path, h.Removed)...), o.Secrets.RedactLines(f.Path, h.Added)...)
		f.Hunks = append(f.Hunks, Hunk{OldStart: h.OldStart, OldLines: h.OldLines, NewStart: h.NewStart, NewLines: h.NewLines})
	}
	f.terms = changeTerms(changed)
	// Both sides' text, for symbols (and the old one's length, to clip
	// blame ranges).
	var oldDoc, newDoc chunk.Doc
	oldLines := 0
	if df.OldPath != "" {
		data, err := o.Repo.Show(ctx, o.Base+":"+df.OldPath)
		if err != nil {
			return f, err
		}
		if text, _, bin := chunk.Decode(data); !bin {
			red := o.Secrets.RedactText(df.OldPath, text)
			oldDoc = chunk.Split(df.OldPath, red)
			oldLines = strings.Count(text, "\n")
			if text != "" && !strings.HasSuffix(text, "\n") {
				oldLines++
			}
			raw, redLines := strings.Split(text, "\n"), strings.Split(red, "\n")
			for i, h := range sec.Hunks {
				f.Hunks[i].Header = hunkHeader(h.Header, raw, redLines, h.OldStart)
			}
		}
	}
	for i, h := range sec.Hunks {
		if f.Hunks[i].Header == "" {
			f.Hunks[i].Header = o.Secrets.RedactText(f.Path, h.Header)
		}
	}
	if df.NewPath != "" {
		spec := o.Head + ":" + df.NewPath
		if o.Staged {
			spec = ":" + df.NewPath
		}
		data, err := o.Repo.Show(ctx, spec)
		if err != nil {
			return f, err
		}
		if text, _, bin := chunk.Decode(data); !bin {
			newDoc = chunk.Split(df.NewPath, o.Secrets.RedactText(df.NewPath, text))
		}
	}
	seenSym := map[string]bool{}
	for i, h := range sec.Hunks {
		var syms []string
		if h.OldLines > 0 {
			syms = append(syms, symbolsIn(oldDoc, h.OldStart, h.OldStart+h.OldLines-1)...)
		}
		if h.NewLines > 0 {
			syms = append(syms, symbolsIn(newDoc, h.NewStart, h.NewStart+h.NewLines-1)...)
		}
		f.Hunks[i].Symbols = dedupe(syms)
		for _, s := range f.Hunks[i].Symbols {
			if !seenSym[s] {
				seenSym[s] = true
				f.Symbols = append(f.Symbols, s)
			}
		}
	}
	switch {
	case df.OldPath == "":
		f.Note = "new file: no history"
		return f, nil
	case oldLines == 0:
		return f, nil
	}
	return f, blameFile(ctx, o, df.OldPath, oldLines, sec.Hunks, &f)
}

// hunkHeader is git's function context of a hunk, a line of the old file
// at or above the hunk (maybe cut short), as the redacted file red has it:
// a line of a private key's body is a secret only among its neighbours,
// so redacting the header alone would let it through. "" when no line
// above holds it.
func hunkHeader(header string, raw, red []string, oldStart int) string {
	if header == "" || len(raw) != len(red) {
		return ""
	}
	for i := min(oldStart, len(raw)) - 1; i >= 0; i-- {
		if !strings.Contains(raw[i], header) {
			continue
		}
		if raw[i] == red[i] {
			return header
		}
		return strings.TrimSpace(red[i])
	}
	return ""
}

// symbolsIn lists the declarations of the chunks overlapping [a, b].
func symbolsIn(d chunk.Doc, a, b int) []string {
	var out []string
	for _, c := range d.Chunks {
		if c.StartLine <= b && c.EndLine >= a {
			out = append(out, c.Symbols...)
		}
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// blameFile blames the pre-image lines each hunk replaces plus o.Context
// lines around it, in one git blame over all the ranges, and ranks the
// commits found: by changed lines they last touched, then by lines around.
// Per hunk, a changed line counts 1 and a line around it a quarter.
func blameFile(ctx context.Context, o Options, oldPath string, oldLines int, hunks []hunk, f *File) error {
	type span struct{ lo, hi, touchLo, touchHi int }
	spans := make([]span, len(hunks))
	var ranges []gitx.BlameRange
	for i, h := range hunks {
		touchLo, touchHi := h.OldStart, h.OldStart+h.OldLines-1
		if h.OldLines == 0 { // a pure insertion after line OldStart
			touchLo, touchHi = h.OldStart+1, h.OldStart
		}
		lo := max(1, touchLo-o.Context)
		hi := min(oldLines, max(touchHi, touchLo-1)+o.Context)
		spans[i] = span{lo, hi, touchLo, touchHi}
		if lo > hi {
			continue
		}
		if n := len(ranges); n > 0 && lo <= ranges[n-1].End+1 {
			ranges[n-1].End = max(ranges[n-1].End, hi)
		} else {
			ranges = append(ranges, gitx.BlameRange{Start: lo, End: hi})
		}
	}
	if len(ranges) == 0 {
		return nil
	}
	out, err := o.Repo.Blame(ctx, o.Base, oldPath, ranges)
	if err != nil {
		return fmt.Errorf("blame %s at %s: %w", oldPath, short(o.Base), err)
	}
	lineOwner, commits := parsePorcelain(out)
	byCommit := map[string]*Commit{}
	for i, sp := range spans {
		perHunk := map[string]float64{}
		for ln := sp.lo; ln <= sp.hi; ln++ {
			sha, ok := lineOwner[ln]
			if !ok {
				continue
			}
			c := byCommit[sha]
			if c == nil {
				bc := commits[sha]
				c = &Commit{SHA: sha, Short: short(sha), Author: bc.Author, Subject: o.Secrets.RedactText("", bc.Summary)}
				if !bc.Time.IsZero() {
					c.Date = bc.Time.Format("2006-01-02")
				}
				byCommit[sha] = c
			}
			w := nearbyWeight
			if ln >= sp.touchLo && ln <= sp.touchHi {
				w = 1
				c.Lines++
			} else {
				c.Nearby++
			}
			perHunk[sha] += w
		}
		f.Hunks[i].Commits = rankedShas(perHunk)
	}
	for _, c := range byCommit {
		f.History = append(f.History, *c)
	}
	// The commits behind the changed lines first, then those around them.
	sort.Slice(f.History, func(i, j int) bool {
		a, b := f.History[i], f.History[j]
		if a.Lines != b.Lines {
			return a.Lines > b.Lines
		}
		if a.Nearby != b.Nearby {
			return a.Nearby > b.Nearby
		}
		return a.Date > b.Date || a.Date == b.Date && a.SHA < b.SHA
	})
	return nil
}

func rankedShas(m map[string]float64) []string {
	var out []string
	for sha := range m {
		out = append(out, sha)
	}
	sort.Slice(out, func(i, j int) bool { return m[out[i]] > m[out[j]] || m[out[i]] == m[out[j]] && out[i] < out[j] })
	for i := range out {
		out[i] = short(out[i])
	}
	return out
}

func short(sha string) string { return sha[:min(len(sha), 12)] }

// refRE finds issue and pull-request references in commit messages:
// #123 (GitHub issues/PRs), !45 (GitLab merge requests), ABC-123 (Jira).
var refRE = regexp.MustCompile(`(?:^|[^\w&])([#!]\d+|[A-Z][A-Z0-9]{1,9}-\d+)\b`)

// addMessages fills in each blamed commit's references from its full
// message, read in one git call for the whole report.
func addMessages(ctx context.Context, repo *gitx.Repo, rep *Report) error {
	seen := map[string]bool{}
	var shas []string
	for _, f := range rep.Files {
		for _, c := range f.History {
			if !seen[c.SHA] {
				seen[c.SHA] = true
				shas = append(shas, c.SHA)
			}
		}
	}
	msgs, err := repo.CommitMessages(ctx, shas)
	if err != nil {
		return err
	}
	for i := range rep.Files {
		for j := range rep.Files[i].History {
			c := &rep.Files[i].History[j]
			var refs []string
			for _, m := range refRE.FindAllStringSubmatch(msgs[c.SHA], -1) {
				refs = append(refs, m[1])
			}
			c.Refs = dedupe(refs)
		}
	}
	return nil
}
