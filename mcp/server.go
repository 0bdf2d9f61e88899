// Package mcp serves the knowledge base to AI agents over the Model Context
// Protocol, with the official Go SDK: typed tools whose results carry
// citations pinned to commit SHAs.
//
// The package is the protocol side only: schema -> request -> result. What
// a tool does to a repository (search, read a file, report status) comes
// from a Backend, one per served repository, that stays alive for the
// server's lifetime: that is where the analyzer, the embedder's query cache
// and decoded vectors stay warm between calls. The command supplies
// engine.Shared, the repository's engine made safe for concurrent calls.
//
// Every tool is read-only: none modifies the repository, and the index
// changes only by indexing a commit a caller asked to search.
package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/review"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/secrets"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Backend is one repository's knowledge base, as the tools see it. It must
// be safe for concurrent use.
type Backend interface {
	// Search runs req against rev ("" = HEAD), indexing rev first if it
	// has not been.
	Search(ctx context.Context, req search.Request, rev string) (*search.Response, error)
	// File reads path as tracked at rev; an untracked path is an error
	// wrapping gitx.ErrNoSuchPath.
	File(ctx context.Context, rev, path string) (commit, blob string, data []byte, err error)
	// Status reports what is indexed.
	Status(ctx context.Context) (*index.Report, error)
	// DenseOn says whether an embedder is configured.
	DenseOn() bool
	// OrgSearch searches every repository published to the organisation's
	// index (git kb publish, kb.org.url); path filters as Search's scope.
	// mode as hybrid_search's ("": hybrid with an embedder and
	// comparable vectors published, else lexical).
	OrgSearch(ctx context.Context, query, path, mode string, k int) (*search.Response, error)
	// OrgRepo is the name the repository is published under in the org
	// index: get_document reads org citations that name it.
	OrgRepo(ctx context.Context) string
	// ContextPack packs the best of req's results into budget tokens (JSON
	// blocks).
	ContextPack(ctx context.Context, req search.Request, rev string, budget int) (*pack.Pack, error)
	// BlameContext explains a change ("" = HEAD, "A..B", "A...B", a
	// commit; staged: the index against HEAD).
	BlameContext(ctx context.Context, change string, staged bool) (*review.Report, error)
}

// Repo is a served repository.
type Repo struct {
	Name    string // how tools refer to it (the repo argument)
	Dir     string // its working tree or git dir, for list_collections
	Backend Backend
	// Secrets redacts get_document's text (kb.secrets.allow); nil
	// redacts everything the rules find.
	Secrets *secrets.Policy
}

// Limits on what one call returns, so an agent's context is not flooded.
const (
	maxTopK     = 50
	maxDocLines = 2000
	maxDocBytes = 256 << 10
	// maxBlameBytes bounds blame_context's max_bytes, as maxDocBytes
	// bounds get_document's text (about 64k tokens).
	maxBlameBytes = 256 << 10
	defaultTopK   = 10
	instructions  = `git-kb: search this repository's docs and code (Chinese and English) at any commit.
Start with hybrid_search (or keyword_search for exact identifiers and error messages), then read what a
result cites with get_document, passing its citation. Citations look like <commit>:<path>#L<a>-L<b> and stay
valid after the file changes. index_status says how fresh the index is.`
)

// NewServer builds the MCP server for repos (the first is the default).
func NewServer(version string, repos []Repo) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "git-kb", Title: "git kb", Version: version},
		&sdk.ServerOptions{Instructions: instructions})
	t := &tools{repos: repos}
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}

	sdk.AddTool(s, &sdk.Tool{
		Name:  "hybrid_search",
		Title: "Search docs and code",
		Description: `Search the repository's documents and code at a commit (HEAD by default) and return the best
chunks, one per file, each with a snippet and a citation <commit>:<path>#L<start>-L<end>. Mixes keyword
ranking (BM25 over Chinese words and split identifiers) with vector similarity when an embedder is
configured (see index_status: dense.on); otherwise it is keyword search. Ask in Chinese or English, with
identifiers as they appear in code. Narrow with path ("docs/", "*.go", "docs/**/*.md"). Read a hit in full
with get_document(path=<its citation>). top_k counts the matches; related: true lists up to 12 related files
after them (match: related), not counted in top_k.`,
		Annotations: ro,
	}, recovered(t.hybridSearch))

	sdk.AddTool(s, &sdk.Tool{
		Name:  "keyword_search",
		Title: "Keyword search",
		Description: `Keyword-only (BM25) search of the repository at a commit: best for exact identifiers, config
keys, error messages and Chinese terms. Same results format and citations as hybrid_search.`,
		Annotations: ro,
	}, recovered(t.keywordSearch))

	sdk.AddTool(s, &sdk.Tool{
		Name:  "get_document",
		Title: "Read a document",
		Description: `Return a tracked file's text at a commit, with line numbers. Pass either a search result's
citation (<commit>:<path>#L<a>-L<b>: that commit and those lines; an org search's
<repo>@<commit>:<path>#L<a>-L<b> when this server serves that repository) or a path relative to the
repository root with an optional rev and line range (path#L<a>-L<b> works too). A path may hold a colon
(notes/12:30.md); when the text before the colon is also a revision that has the rest (branch a's b.md for
a:b.md), the revision wins and the result's note says how to read the other (HEAD:a:b.md). Long files are
cut at 2000 lines: ask for the next range with start_line. Only files tracked at that commit can be read.`,
		Annotations: ro,
	}, recovered(t.getDocument))

	sdk.AddTool(s, &sdk.Tool{
		Name:  "context_pack",
		Title: "Context within a token budget",
		Description: `Return the most relevant docs and code for a query, packed into a token budget (cl100k
tokens): whole small documents first, then the best sections (adjacent chunks merged), each block with its
citation. Use it to load background for a task in one call instead of searching and reading piece by piece.
Same query operators as hybrid_search.`,
		Annotations: ro,
	}, recovered(t.contextPack))

	sdk.AddTool(s, &sdk.Tool{
		Name:  "blame_context",
		Title: "Explain a change",
		Description: `Explain a diff for code review: for each changed file, the commits that last touched the
changed lines and those around them (author, date, subject, #123/ABC-123 references), the docs most
relevant to the change (runbooks, ADRs), and where the symbols it touches are defined or used elsewhere,
with citations pinned to the base commit. range: "A..B", "A...B" (from the merge base, as a pull request),
a single commit (against its first parent; default HEAD), or staged=true for the index against HEAD.
max_bytes (default 60000, at most 262144) trims the least relevant items first.`,
		Annotations: ro,
	}, recovered(t.blameContext))

	sdk.AddTool(s, &sdk.Tool{
		Name:        "list_collections",
		Title:       "List what can be searched",
		Description: `List the repositories this server serves and, for each, the commits that are indexed (views), its HEAD and whether dense retrieval is on. Pass a repository's name as the repo argument of other tools.`,
		Annotations: ro,
	}, recovered(t.listCollections))

	sdk.AddTool(s, &sdk.Tool{
		Name:        "index_status",
		Title:       "Index status",
		Description: `Report a repository's index: indexed commits with file and chunk counts, the last indexed commit and how many commits HEAD is ahead of it (behind_head; 0 = fresh), and dense retrieval (on/off, model, how many of HEAD's chunks have vectors).`,
		Annotations: ro,
	}, recovered(t.indexStatus))
	return s
}

type tools struct{ repos []Repo }

// recovered turns a panic in a tool into a tool error: one bad call must
// not take down the server an agent depends on.
func recovered[In, Out any](h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out Out, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = panicError(r, debug.Stack())
			}
		}()
		return h(ctx, req, in)
	}
}

// panicError is a recovered panic as one line for the agent; the stack
// goes to a file for the bug report, not into the agent's context. A
// panic inside the database library means a damaged index.
func panicError(r any, stack []byte) error {
	saved := ""
	path := filepath.Join(os.TempDir(), fmt.Sprintf("git-kb-crash-%d.log", os.Getpid()))
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintf(f, "%s panic: %v\n%s\n", time.Now().Format(time.RFC3339), r, stack)
		f.Close()
		saved = "; details in " + path
	}
	msg := strings.SplitN(fmt.Sprint(r), "\n", 2)[0]
	if bytes.Contains(stack, []byte("dgraph-io/badger")) {
		return fmt.Errorf("the index is damaged (%s)%s; run: git kb doctor --fix", msg, saved)
	}
	return fmt.Errorf("internal error (please report it): %s%s", msg, saved)
}

func (t *tools) repo(name string) (*Repo, error) {
	if name == "" {
		return &t.repos[0], nil
	}
	var names []string
	for i := range t.repos {
		if t.repos[i].Name == name {
			return &t.repos[i], nil
		}
		names = append(names, t.repos[i].Name)
	}
	return nil, fmt.Errorf("no repository named %q here; served: %s", name, strings.Join(names, ", "))
}

// orgRepo is the served repository published as name (org citations
// read <repo>@<commit>:...): r if it is, else, unless the caller chose r
// by name, another served repository that is; otherwise an error saying
// which repository to open.
func (t *tools) orgRepo(ctx context.Context, r *Repo, chosen bool, name string) (*Repo, error) {
	if r.Backend.OrgRepo(ctx) == name {
		return r, nil
	}
	var here []string
	for i := range t.repos {
		pub := t.repos[i].Backend.OrgRepo(ctx)
		if pub == name && !chosen {
			return &t.repos[i], nil
		}
		here = append(here, fmt.Sprintf("%s (published as %s)", t.repos[i].Name, pub))
	}
	if chosen {
		return nil, fmt.Errorf("the citation is in repository %s, and repo %s is published as %s: pass the repo that is, or open a clone of %s", name, r.Name, r.Backend.OrgRepo(ctx), name)
	}
	return nil, fmt.Errorf("the citation is in repository %s, which this server does not serve (it serves %s): open a clone of %s and serve it (git kb mcp there, or kb.mcp.repos)", name, strings.Join(here, ", "), name)
}

// SearchIn are hybrid_search's arguments.
type SearchIn struct {
	Query    string  `json:"query" jsonschema:"what to find: a question or keywords, in Chinese or English, identifiers as written in code. Operators: \"exact phrase\", -exclude, path:GLOB, -path:GLOB (drop a directory), lang:go, -lang:go, tag:x, owner:x, @path/to/file, @@Symbol"`
	TopK     int     `json:"top_k,omitempty" jsonschema:"number of matches, 1 to 50 (default 10); related results come after them and are not counted"`
	MinScore float64 `json:"min_score,omitempty" jsonschema:"drop results scoring below this; scores are relative to the mode (BM25 for lexical, fused rank scores for hybrid), so prefer top_k"`
	Path     string  `json:"path,omitempty" jsonschema:"only files matching these comma-separated patterns: a directory (docs/), a file, or a glob (*.go, docs/**/*.md)"`
	Rev      string  `json:"rev,omitempty" jsonschema:"commit, branch or tag to search (default HEAD); indexed first if it is not yet"`
	Mode     string  `json:"mode,omitempty" jsonschema:"lexical, dense or hybrid (default hybrid when an embedder is configured, else lexical)"`
	Related  bool    `json:"related,omitempty" jsonschema:"also list, after strong matches, the definitions of names they use and the files they import or that import them (match: related): at most 12 more results, beyond top_k; the matches stay those of the same search without related"`
	Repo     string  `json:"repo,omitempty" jsonschema:"repository name from list_collections (default: the first)"`
	Org      bool    `json:"org,omitempty" jsonschema:"search every repository published to the organisation's index (git kb publish) instead of this one; results name their repo and citations read <repo>@<commit>:<path>#L<a>-L<b>; repo:NAME in the query narrows it; hybrid when vectors of this repository's embedder are published, else lexical"`
}

// KeywordIn are keyword_search's arguments.
type KeywordIn struct {
	Query string `json:"query" jsonschema:"keywords: identifiers, config keys, error messages, Chinese terms; operators as in hybrid_search"`
	TopK  int    `json:"top_k,omitempty" jsonschema:"number of results, 1 to 50 (default 10)"`
	Path  string `json:"path,omitempty" jsonschema:"only files matching these comma-separated patterns: a directory (docs/), a file, or a glob (*.go, docs/**/*.md)"`
	Rev   string `json:"rev,omitempty" jsonschema:"commit, branch or tag to search (default HEAD)"`
	Repo  string `json:"repo,omitempty" jsonschema:"repository name from list_collections (default: the first)"`
}

func (t *tools) hybridSearch(ctx context.Context, _ *sdk.CallToolRequest, in SearchIn) (*sdk.CallToolResult, *search.Response, error) {
	switch in.Mode {
	case "", search.ModeLexical, search.ModeDense, search.ModeHybrid:
	default:
		return nil, nil, fmt.Errorf("mode %q: want lexical, dense or hybrid", in.Mode)
	}
	r, err := t.repo(in.Repo)
	if err != nil {
		return nil, nil, err
	}
	if in.Org {
		if in.Rev != "" || in.Related {
			return nil, nil, errors.New("org: true searches what each repository published: leave out rev and related")
		}
		k := in.TopK
		switch {
		case k == 0:
			k = defaultTopK
		case k < 0 || k > maxTopK:
			return nil, nil, fmt.Errorf("top_k %d: want 1 to %d", k, maxTopK)
		}
		if strings.TrimSpace(in.Query) == "" {
			return nil, nil, errors.New("query is empty: say what to look for")
		}
		resp, err := r.Backend.OrgSearch(ctx, in.Query, in.Path, in.Mode, k)
		if err != nil {
			return nil, nil, err
		}
		resp.Timings, resp.Terms = nil, nil
		return nil, minScore(resp, in.MinScore), nil
	}
	if in.Mode != "" && in.Mode != search.ModeLexical && !r.Backend.DenseOn() {
		return nil, nil, fmt.Errorf("mode %s needs an embedder, and %s has none configured: use mode lexical, or see index_status", in.Mode, r.Name)
	}
	resp, err := t.search(ctx, r, in.Query, in.TopK, in.Path, in.Rev, in.Mode, in.Related)
	if err != nil {
		return nil, nil, err
	}
	return nil, minScore(resp, in.MinScore), nil
}

// minScore drops the results scoring below min (0: none), and the
// related results of those dropped.
func minScore(resp *search.Response, min float64) *search.Response {
	if min <= 0 {
		return resp
	}
	kept := resp.Results[:0]
	keptPaths := map[string]bool{}
	for _, res := range resp.Results {
		if res.Related != nil && keptPaths[res.Related.From] || res.Related == nil && res.Score >= min {
			kept = append(kept, res)
			keptPaths[res.Path] = true
		}
	}
	resp.Results = kept
	return resp
}

func (t *tools) keywordSearch(ctx context.Context, _ *sdk.CallToolRequest, in KeywordIn) (*sdk.CallToolResult, *search.Response, error) {
	r, err := t.repo(in.Repo)
	if err != nil {
		return nil, nil, err
	}
	resp, err := t.search(ctx, r, in.Query, in.TopK, in.Path, in.Rev, search.ModeLexical, false)
	return nil, resp, err
}

func (t *tools) search(ctx context.Context, r *Repo, query string, k int, scope, rev, mode string, related bool) (*search.Response, error) {
	switch {
	case k == 0:
		k = defaultTopK
	case k < 0 || k > maxTopK:
		return nil, fmt.Errorf("top_k %d: want 1 to %d", k, maxTopK)
	}
	req, err := request(query, scope, "say what to look for")
	if err != nil {
		return nil, err
	}
	req.K, req.Mode, req.Related = k, mode, related
	resp, err := r.Backend.Search(ctx, req, rev)
	if err != nil {
		return nil, err
	}
	resp.Timings, resp.Terms = nil, nil
	return resp, nil
}

// request parses a tool's query (query language) and path scope.
func request(query, scope, hint string) (search.Request, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return search.Request{}, errors.New("query is empty: " + hint)
	}
	parsed, err := search.ParseQuery(query)
	if err != nil {
		return search.Request{}, err
	}
	req := search.Request{Query: query, Parsed: parsed}
	if strings.TrimSpace(scope) != "" {
		if req.Scope, err = search.PathScope(scope); err != nil {
			return search.Request{}, err
		}
	}
	return req, nil
}

// DocumentIn are get_document's arguments.
type DocumentIn struct {
	Path      string `json:"path" jsonschema:"a search result's citation (<commit>:<path>#L<a>-L<b>, or <repo>@<commit>:<path>#L<a>-L<b> from an org search), or a file path relative to the repository root (it may hold a colon: notes/12:30.md; write HEAD:a:b.md when a:b.md also reads as revision a's b.md)"`
	Rev       string `json:"rev,omitempty" jsonschema:"commit, branch or tag (default HEAD; a citation carries its own)"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to return, from 1 (default: the citation's, else 1)"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to return (default: the citation's, else the end of the file)"`
	Repo      string `json:"repo,omitempty" jsonschema:"repository name from list_collections (default: the first)"`
}

// Document is get_document's result.
type Document struct {
	Commit     string `json:"commit"`
	Path       string `json:"path"`
	Blob       string `json:"blob"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	TotalLines int    `json:"total_lines"`
	Citation   string `json:"citation"`
	// Text holds the lines, each prefixed with its number and a tab.
	Text string `json:"text"`
	// Truncated says the range was cut short; continue from EndLine+1.
	Truncated bool `json:"truncated,omitempty"`
	// Note says which file was read when path named one two ways
	// (a:b.md: branch a's b.md, or HEAD's a:b.md), and how to read the
	// other.
	Note string `json:"note,omitempty"`
}

// file is what get_document read for one reading of its path.
type file struct {
	path, commit, blob string
	data               []byte
}

func (t *tools) getDocument(ctx context.Context, _ *sdk.CallToolRequest, in DocumentIn) (*sdk.CallToolResult, *Document, error) {
	r, err := t.repo(in.Repo)
	if err != nil {
		return nil, nil, err
	}
	p, rev, start, end := strings.TrimSpace(in.Path), in.Rev, in.StartLine, in.EndLine
	if p == "" {
		return nil, nil, errors.New("path is empty: pass a file path or a citation")
	}
	if name, local, ok := search.ParseOrgCitation(p); ok {
		// An org-wide search's citation: served by the repository
		// published under that name, if this server serves it.
		if r, err = t.orgRepo(ctx, r, in.Repo != "", name); err != nil {
			return nil, nil, err
		}
		p = local
	}
	if isDrive(strings.ReplaceAll(p, `\`, "/")) {
		// C:\repo\x.md is a Windows path, not revision C's \repo\x.md:
		// the error names it whole.
		_, err := repoPath(p)
		return nil, nil, err
	}
	// A citation, or a path (which may hold a colon itself): the same
	// reading as git kb show's.
	got, err := search.ReadCited(p, rev, func(c search.Citation) (file, error) {
		clean, err := repoPath(c.Path)
		if err != nil {
			return file{}, err
		}
		if secrets.IsSecretFile(clean) {
			// The indexer skips these by name; an agent gets none of them.
			return file{}, fmt.Errorf("%s holds secrets by its kind (.env, keys, credentials): git kb does not index or serve such files", clean)
		}
		if r.Secrets.InPath(clean) {
			return file{}, fmt.Errorf("%s holds a secret in its path: git kb does not index or serve such files", r.Secrets.RedactText(clean, clean))
		}
		commit, blob, data, err := r.Backend.File(ctx, c.Rev, clean)
		return file{clean, commit, blob, data}, err
	})
	if err != nil {
		return nil, nil, err
	}
	if start == 0 && end == 0 {
		start, end = got.Start, got.End
	}
	clean, commit, blob, data := got.File.path, got.File.commit, got.File.blob, got.File.data
	text, _, binary := chunk.Decode(data)
	if binary {
		return nil, nil, fmt.Errorf("%s is a binary file (%d bytes) at %s", clean, len(data), short(commit))
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if start == 0 {
		start = 1
	}
	if end == 0 {
		end = len(lines)
	}
	if start < 1 || end < 0 {
		return nil, nil, fmt.Errorf("start_line %d, end_line %d: lines count from 1", start, end)
	}
	if start > len(lines) {
		return nil, nil, fmt.Errorf("lines %d-%d are outside %s, which has %d lines at %s", start, end, clean, len(lines), short(commit))
	}
	if end < start {
		return nil, nil, fmt.Errorf("lines %d-%d: the range ends before it starts; ask for %d-%d", start, end, end, start)
	}
	end = min(end, len(lines))
	redactWindow(r.Secrets, clean, lines, start, end)
	doc := &Document{Commit: commit, Path: clean, Blob: blob, StartLine: start, TotalLines: len(lines), Note: got.Note}
	var b strings.Builder
	for i := start; i <= end; i++ {
		line := lines[i-1]
		if i-start >= maxDocLines || b.Len()+len(line) > maxDocBytes {
			doc.Truncated = true
			break
		}
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\t')
		b.WriteString(line)
		b.WriteByte('\n')
		doc.EndLine = i
	}
	if doc.EndLine == 0 { // a first line longer than the byte limit
		return nil, nil, fmt.Errorf("line %d of %s is longer than %d bytes", start, clean, maxDocBytes)
	}
	doc.Text = b.String()
	doc.Citation = fmt.Sprintf("%s:%s#L%d-L%d", commit, clean, doc.StartLine, doc.EndLine)
	return nil, doc, nil
}

// keyContext is how far above the lines returned redaction looks, so that
// a key block whose BEGIN line is above the range is still recognised.
const keyContext = 1000

// redactWindow replaces secrets, in place, in the lines get_document can
// return from start (at most maxDocLines and maxDocBytes) plus keyContext
// lines above: the cost stays bounded however large the file, and a
// marker never moves a line.
func redactWindow(p *secrets.Policy, path string, lines []string, start, end int) {
	lo, n := start, 0
	for lo > 1 && start-lo < keyContext && n <= maxDocBytes {
		lo--
		n += len(lines[lo-1]) + 1
	}
	hi := start
	n = 0
	for ; hi <= end && hi-start < maxDocLines && n <= maxDocBytes; hi++ {
		n += len(lines[hi-1]) + 1
	}
	hi = min(hi, len(lines))
	copy(lines[lo-1:hi], p.RedactLines(path, lines[lo-1:hi]))
}

// repoPath checks that p names something inside the repository: relative,
// with no way out through "..". Whether it is tracked is the backend's
// question, asked of the commit's tree, never of the file system.
func repoPath(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path contains a NUL byte")
	}
	q := strings.ReplaceAll(p, `\`, "/")
	if path.IsAbs(q) || isDrive(q) {
		return "", fmt.Errorf("%q is an absolute path: only files tracked in the repository can be read; give a path relative to its root", p)
	}
	c := path.Clean(q)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%q is outside the repository: only files tracked in it can be read", p)
	}
	if c == "." {
		return "", errors.New("path names the repository root, not a file")
	}
	return c, nil
}

// isDrive says q (slashes forward) starts with a Windows drive, C:/. A
// colon alone is no drive: a:b.md and 12:30.md are files git tracks.
func isDrive(q string) bool {
	return len(q) >= 3 && q[1] == ':' && q[2] == '/' && ('a' <= q[0] && q[0] <= 'z' || 'A' <= q[0] && q[0] <= 'Z')
}

func short(commit string) string { return commit[:min(12, len(commit))] }

// PackIn are context_pack's arguments.
type PackIn struct {
	Query  string `json:"query" jsonschema:"what the context is for: a question, a task, keywords (operators as in hybrid_search)"`
	Budget int    `json:"budget,omitempty" jsonschema:"tokens the pack may use, 100 to 100000 (default 8000)"`
	Path   string `json:"path,omitempty" jsonschema:"only files matching these comma-separated patterns"`
	Rev    string `json:"rev,omitempty" jsonschema:"commit, branch or tag (default HEAD)"`
	Repo   string `json:"repo,omitempty" jsonschema:"repository name from list_collections (default: the first)"`
}

func (t *tools) contextPack(ctx context.Context, _ *sdk.CallToolRequest, in PackIn) (*sdk.CallToolResult, *pack.Pack, error) {
	r, err := t.repo(in.Repo)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case in.Budget == 0:
		in.Budget = 8000
	case in.Budget < 100 || in.Budget > 100000:
		return nil, nil, fmt.Errorf("budget %d: want 100 to 100000 tokens", in.Budget)
	}
	req, err := request(in.Query, in.Path, "say what the context is for")
	if err != nil {
		return nil, nil, err
	}
	p, err := r.Backend.ContextPack(ctx, req, in.Rev, in.Budget)
	return nil, p, err
}

// BlameIn are blame_context's arguments.
type BlameIn struct {
	Range    string `json:"range,omitempty" jsonschema:"A..B, A...B (from the merge base), or one commit (default HEAD)"`
	Staged   bool   `json:"staged,omitempty" jsonschema:"explain the staged changes against HEAD instead of a range"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"trim the least relevant items until the JSON result fits: 1 to 262144 (default 60000)"`
	Repo     string `json:"repo,omitempty" jsonschema:"repository name from list_collections (default: the first)"`
}

func (t *tools) blameContext(ctx context.Context, _ *sdk.CallToolRequest, in BlameIn) (*sdk.CallToolResult, *review.Report, error) {
	r, err := t.repo(in.Repo)
	if err != nil {
		return nil, nil, err
	}
	if in.Staged && in.Range != "" {
		return nil, nil, errors.New("staged compares the index with HEAD: give no range with it")
	}
	if in.MaxBytes < 0 || in.MaxBytes > maxBlameBytes {
		return nil, nil, fmt.Errorf("max_bytes %d: want 1 to %d (default 60000); for a larger change, ask for a shorter range", in.MaxBytes, maxBlameBytes)
	}
	if in.MaxBytes == 0 {
		in.MaxBytes = 60000
	}
	rep, err := r.Backend.BlameContext(ctx, in.Range, in.Staged)
	if err != nil {
		return nil, nil, err
	}
	fits, err := review.Fit(rep, in.MaxBytes, review.JSON)
	if err != nil {
		return nil, nil, err
	}
	if !fits {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the report does not fit in %d bytes even with every optional item dropped: give a shorter range, or a larger max_bytes", in.MaxBytes))
	}
	return nil, rep, nil
}

// CollectionsIn has no arguments.
type CollectionsIn struct{}

// Collections is list_collections' result.
type Collections struct {
	Repos []Collection `json:"repos"`
}

// Collection is one served repository.
type Collection struct {
	Name    string             `json:"name"`
	Dir     string             `json:"dir"`
	Default bool               `json:"default,omitempty"`
	Head    string             `json:"head,omitempty"`
	Fresh   bool               `json:"fresh"` // HEAD is indexed
	Views   []index.ReportView `json:"views"`
	Dense   index.ReportDense  `json:"dense"`
	Error   string             `json:"error,omitempty"`
}

func (t *tools) listCollections(ctx context.Context, _ *sdk.CallToolRequest, _ CollectionsIn) (*sdk.CallToolResult, *Collections, error) {
	out := &Collections{Repos: []Collection{}}
	for i, r := range t.repos {
		c := Collection{Name: r.Name, Dir: r.Dir, Default: i == 0, Views: []index.ReportView{}}
		if rep, err := r.Backend.Status(ctx); err != nil {
			c.Error = err.Error()
		} else {
			c.Head, c.Fresh, c.Views, c.Dense = rep.Head, rep.HeadIndex, rep.Views, rep.Dense
		}
		out.Repos = append(out.Repos, c)
	}
	return nil, out, nil
}

// StatusIn are index_status' arguments.
type StatusIn struct {
	Repo string `json:"repo,omitempty" jsonschema:"repository name from list_collections (default: the first)"`
}

func (t *tools) indexStatus(ctx context.Context, _ *sdk.CallToolRequest, in StatusIn) (*sdk.CallToolResult, *index.Report, error) {
	r, err := t.repo(in.Repo)
	if err != nil {
		return nil, nil, err
	}
	rep, err := r.Backend.Status(ctx)
	return nil, rep, err
}
