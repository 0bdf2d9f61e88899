// Package engine is one repository's knowledge-base session, the layer
// every front end calls: the command line (flags -> request -> engine ->
// output) and the MCP server (schema -> request -> engine -> result).
//
// An Engine holds what a session needs, built once from the repository's
// settings: the repository, the settings, the embedder and the query side
// of dense retrieval, the secrets policy. Its operations (Search with
// rerank, Status, ...) open the index read-only for the length of a call,
// index a commit first if it has not been, and answer from the last
// complete view while the indexer is busy or failing, saying so: the rules
// a front end would otherwise copy.
//
// Front ends only translate: the engine never prints. Notices and progress
// go through Options' hooks, and a mistake in a request is a *UsageError,
// which the command line maps to exit code 2.
package engine

import (
	"sync"
	"sync/atomic"

	"context"
	"fmt"
	"github.com/git-kb/git-kb/segment"
	"os"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/settings"
)

// LockWait bounds how long an operation waits for another git-kb process.
const LockWait = 2 * time.Minute

// Options are the front end's hooks. The zero value is a silent session
// reading the process environment.
type Options struct {
	// Getenv reads the environment (API keys, GIT_KB_* overrides); nil:
	// os.Getenv.
	Getenv func(string) string
	// Version is the git-kb version recorded in an index it creates.
	Version string
	// Note shows a one-line notice: a commit being indexed before its
	// first search, a wait for the indexer, a stale view standing in.
	// nil: none.
	Note func(format string, a ...any)
	// Progress starts a progress display for indexing or embedding and
	// returns its update and done functions; nil: none.
	Progress func() (update func(index.Event), done func())
	// Exiting says the process ends once its one operation is answered
	// (a CLI command, not a server): a read-only view is then left to
	// the exit instead of closed. Nothing needs the close of a read-only
	// open, and it was on the critical path of every cold search: Badger
	// signalling and waiting for its goroutines and unmapping its tables,
	// then a wait for git cat-file to exit (~8 ms of a loaded machine's
	// Go-source search, issue 16). The exit releases all of it; the
	// directory lock too.
	Exiting bool
	// Server says the process serves many calls, some at once (the MCP
	// server): an index run then changes nothing process-wide, such as
	// the core count a small run narrows to.
	Server bool
	// Wait bounds IndexCommit's and EmbedAfterIndex's wait for another
	// git-kb run's lock: 0 is LockWait, less than 0 is no wait at all.
	Wait time.Duration
}

// lockWait is o's wait for another run's lock.
func (o Options) lockWait() time.Duration {
	switch {
	case o.Wait == 0:
		return LockWait
	case o.Wait < 0:
		return 0
	}
	return o.Wait
}

func (o Options) note(format string, a ...any) {
	if o.Note != nil {
		o.Note(format, a...)
	}
}

func (o Options) progress() (func(index.Event), func()) {
	if o.Progress == nil {
		return func(index.Event) {}, func() {}
	}
	return o.Progress()
}

func (o Options) getenv(k string) string {
	if o.Getenv == nil {
		return os.Getenv(k)
	}
	return o.Getenv(k)
}

// Engine is a repository with its kb settings read: what a CLI command
// builds once, and what the MCP server keeps for its lifetime (so the
// embedder's query cache and the decoded vectors stay warm). Its
// operations are not safe for concurrent use: go-git's object reads are
// not; a server serialises its calls.
type Engine struct {
	Repo     *gitx.Repo
	Settings *settings.Settings
	Embed    *EmbedConfig
	// Dense is the query side of dense retrieval; nil when it is off
	// (Embed.Off says why).
	Dense *search.Dense
	// Secrets redacts blob text read back for output that may leave the
	// terminal (snippets, context packs, prompts, MCP); kb.secrets.allow.
	Secrets *secrets.Policy

	opt Options
	// vocabs are the analyzers of the word lists views record, by
	// fingerprint (analyzerFor).
	vocabMu sync.Mutex
	vocabs  map[string]*segment.Analyzer
	// blobReads counts the blobs BlobLines read from git: a pack or a
	// judge cuts from the search's text where it can (a test counts).
	blobReads atomic.Int64
	// synonyms is kb.synonyms, parsed (Synonyms).
	synonyms synonymsCache
}

// Open reads repo's settings in one git call and builds what they
// configure. A refused setting is an error naming the key.
func Open(ctx context.Context, repo *gitx.Repo, o Options) (*Engine, error) {
	set, err := settings.Load(ctx, repo, o.getenv)
	if err != nil {
		return nil, err
	}
	cfg := EmbedConfigOf(set)
	dense, err := denseFor(cfg, repo)
	if err != nil {
		return nil, err
	}
	return &Engine{Repo: repo, Settings: set, Embed: cfg, Dense: dense, Secrets: secrets.NewPolicy(set.SecretsAllow), opt: o}, nil
}

// UsageError is a request the engine refuses as asked (a mode the
// repository cannot serve, flags that contradict each other): the caller's
// mistake, not the repository's. The command line exits 2 on it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef is a *UsageError.
func Usagef(format string, a ...any) error { return &UsageError{fmt.Sprintf(format, a...)} }

// CheckMode refuses a retrieval mode this repository cannot serve.
func (k *Engine) CheckMode(mode string) error {
	if k.Dense == nil && (mode == search.ModeDense || mode == search.ModeHybrid) {
		return Usagef("--mode %s needs an embedder: %s", mode, k.Embed.Off)
	}
	return nil
}

// ModeName is the mode a request runs in: mode, else what "" picks.
func (k *Engine) ModeName(mode string) string {
	switch {
	case mode != "":
		return mode
	case k.Dense != nil:
		return search.ModeHybrid
	}
	return search.ModeLexical
}
