package engine

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/store"
	"github.com/gofrs/flock"
)

var files = map[string]string{
	"docs/runbook/rollback.md":         "# 发布回滚手册\n\n## 何时回滚\n\n线上发布失败、错误率升高时，值班同学应当立即回滚到上一个稳定版本。\n\n## 回滚步骤\n\n1. 执行 deploy rollback 命令，把流量切回旧版本。\n",
	"docs/adr/0001-connection-pool.md": "# ADR 0001：数据库连接池\n\n数据库连接池打满时，先检查慢查询，再调大 maxOpenConns 参数。\n\n连接池的 retry_count 配置决定重试次数，默认是 3。\n",
	"internal/retry/retry.go":          "package retry\n\n// RetryCount is how many times a request is retried.\nconst RetryCount = 3\n",
	"README.md":                        "# Demo service\n\nA small service used in tests.\n",
}

// open makes a repository of files and its engine, collecting notices.
func open(t *testing.T, config ...string) (*Engine, string, *[]string) {
	t.Helper()
	dir := gittest.New(t, files)
	for i := 0; i+1 < len(config); i += 2 {
		gittest.Git(t, dir, "config", config[i], config[i+1])
	}
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	k, err := Open(context.Background(), repo, Options{Getenv: func(string) string { return "" }, Version: "test",
		Note: func(f string, a ...any) { notes = append(notes, f) }})
	if err != nil {
		t.Fatal(err)
	}
	return k, dir, &notes
}

func paths(r *search.Response) []string {
	var ps []string
	for _, x := range r.Results {
		ps = append(ps, x.Path)
	}
	return ps
}

func TestSearchIndexesTheCommitFirst(t *testing.T) {
	ctx := context.Background()
	k, dir, notes := open(t)
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	if _, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "回滚", K: 5}, NoIndex: true}); err == nil || !strings.Contains(err.Error(), "is not indexed") {
		t.Fatalf("NoIndex on an unindexed commit: %v", err)
	}
	r, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "发布失败后如何回滚", K: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Commit != head || r.Mode != search.ModeLexical || len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
		t.Fatalf("search: commit %s mode %s %v", r.Commit, r.Mode, paths(r))
	}
	if len(*notes) != 1 || !strings.HasPrefix((*notes)[0], "indexing ") {
		t.Errorf("notices: %q", *notes)
	}
	// Indexed now: NoIndex answers, and nothing is indexed again.
	if r, err = k.Search(ctx, SearchRequest{Request: search.Request{Query: "连接池 retry_count", K: 5}, NoIndex: true}); err != nil || r.Results[0].Path != "docs/adr/0001-connection-pool.md" {
		t.Fatalf("second search: %v %v", err, r)
	}
	if len(*notes) != 1 {
		t.Errorf("notices after the second search: %q", *notes)
	}
	st, err := k.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Exists || !st.HeadIndex || st.Head != head || len(st.Views) != 1 || st.Dense.On || st.Dense.Off == "" {
		t.Errorf("status: %+v", st)
	}
}

func TestStatusWithoutIndex(t *testing.T) {
	k, _, _ := open(t)
	st, err := k.Status(context.Background())
	if err != nil || st.Exists || st.HeadIndex {
		t.Fatalf("status of an unindexed repository: %v %+v", err, st)
	}
	if _, err := os.Stat(filepath.Join(k.Repo.KBDir(), "db")); !os.IsNotExist(err) {
		t.Errorf("status created an index: %v", err)
	}
}

func TestRefusedRequestsAreUsageErrors(t *testing.T) {
	ctx := context.Background()
	k, _, _ := open(t)
	for name, req := range map[string]SearchRequest{
		"dense without an embedder":  {Request: search.Request{Query: "回滚", K: 3, Mode: search.ModeDense}},
		"worktree with another rev":  {Request: search.Request{Query: "回滚", K: 3}, Rev: "HEAD~0", Worktree: true},
		"unknown rerank mode":        {Request: search.Request{Query: "回滚", K: 3}, Rerank: "magic"},
		"llm rerank without a model": {Request: search.Request{Query: "回滚", K: 3}, Rerank: "llm"},
		"min score without rerank":   {Request: search.Request{Query: "回滚", K: 3}, MinScore: 3},
		"min score with rerank off":  {Request: search.Request{Query: "回滚", K: 3}, Rerank: "off", MinScore: 3},
		"min score above the scale":  {Request: search.Request{Query: "回滚", K: 3}, Rerank: "llm", MinScore: 11},
		"min score below the scale":  {Request: search.Request{Query: "回滚", K: 3}, Rerank: "llm", MinScore: -1},
		"min score NaN, no scale":    {Request: search.Request{Query: "回滚", K: 3}, Rerank: "llm", MinScore: math.NaN()},
	} {
		_, err := k.Search(ctx, req)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%s: %v, want a *UsageError", name, err)
		}
		if strings.Contains(name, "scale") && !strings.Contains(fmt.Sprint(err), "outside the judge's scale of 0 to 10") {
			t.Errorf("%s: %v, want it to name the judge's scale", name, err)
		}
	}
	if _, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "回滚", K: 3}, Rev: "no-such-branch"}); err == nil {
		t.Error("an unknown revision answered")
	}
}

// The hash embedder needs no model: with it, the default mode is hybrid
// and dense search answers.
func TestDenseWithTheHashEmbedder(t *testing.T) {
	ctx := context.Background()
	k, _, _ := open(t, "kb.embed.provider", "hash")
	if k.Dense == nil || k.ModeName("") != search.ModeHybrid {
		t.Fatalf("dense off with the hash embedder: %s", k.Embed.Off)
	}
	r, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "回滚步骤", K: 3}})
	if err != nil || len(r.Results) == 0 {
		t.Fatalf("hybrid search: %v %v", err, r)
	}
	if r.Mode != search.ModeHybrid && r.Degraded == "" {
		t.Errorf("mode %s without a reason", r.Mode)
	}
}

// A cross-encoder endpoint reorders the results; when it fails, the
// fusion order stands and Degraded says why.
func TestSearchRerankEndpoint(t *testing.T) {
	ctx := context.Background()
	fail := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Documents []string `json:"documents"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var out []map[string]any
		for i, d := range req.Documents {
			score := -3.0
			if strings.Contains(d, "RetryCount") {
				score = 4.0
			}
			out = append(out, map[string]any{"index": i, "score": score})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	k, _, _ := open(t, "kb.rerank.baseURL", srv.URL)
	q := search.Request{Query: "连接池 retry", K: 2}
	plain, err := k.Search(ctx, SearchRequest{Request: q})
	if err != nil || plain.Rerank != "" || plain.Results[0].Path == "internal/retry/retry.go" {
		t.Fatalf("without rerank: %v %s %v", err, plain.Rerank, paths(plain))
	}
	r, err := k.Search(ctx, SearchRequest{Request: q, Rerank: "endpoint"})
	if err != nil || r.Rerank != "endpoint" || len(r.Results) != 2 || r.Results[0].Path != "internal/retry/retry.go" || r.Results[0].PreRank == 0 {
		t.Fatalf("reranked: %v %s %v", err, r.Rerank, paths(r))
	}
	fail = true
	d, err := k.Search(ctx, SearchRequest{Request: q, Rerank: "endpoint"})
	if err != nil || d.Rerank != "" || !strings.Contains(d.Degraded, "rerank failed") || strings.Join(paths(d), " ") != strings.Join(paths(plain), " ") {
		t.Errorf("failing judge: %v %q %v, want %v", err, d.Degraded, paths(d), paths(plain))
	}
}

func TestSearchWorktreeOverlay(t *testing.T) {
	ctx := context.Background()
	k, dir, notes := open(t)
	req := SearchRequest{Request: search.Request{Query: "灰度发布 检查项", K: 3}, Worktree: true}
	if _, err := k.Search(ctx, req); err != nil {
		t.Fatal(err)
	}
	if last := (*notes)[len(*notes)-1]; !strings.Contains(last, "no uncommitted changes") {
		t.Errorf("notices: %q", *notes)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "canary.md"), []byte("# 灰度发布\n\n灰度发布前的检查项：监控、回滚预案。\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := k.Search(ctx, req)
	if err != nil || len(r.Results) == 0 || !strings.HasPrefix(r.Results[0].Citation, "worktree:docs/canary.md#") {
		t.Fatalf("worktree search: %v %+v", err, r)
	}
	// The index and the repository are untouched: a plain search does not
	// see the file.
	plain, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "灰度发布 检查项", K: 3}})
	if err != nil || len(plain.Results) > 0 && plain.Results[0].Path == "docs/canary.md" {
		t.Errorf("committed search sees the uncommitted file: %v %v", err, paths(plain))
	}
	if st := gittest.Git(t, dir, "status", "--porcelain"); st != "?? docs/canary.md" {
		t.Errorf("git status: %q", st)
	}
}

// While another process indexes the commit asked for, the last indexed
// commit answers, marked stale.
func TestOpenViewStandsInWhileIndexing(t *testing.T) {
	ctx := context.Background()
	k, dir, notes := open(t)
	first := gittest.Git(t, dir, "rev-parse", "HEAD")
	if _, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "回滚", K: 3}}); err != nil {
		t.Fatal(err)
	}
	gittest.Commit(t, dir, "more", map[string]string{"docs/new.md": "# 新文档\n\n扩容步骤。\n"})
	if _, err := k.OpenView(ctx, "HEAD", true); err == nil {
		t.Fatal("the new commit is indexed already")
	}
	// What index.Running looks for: the indexer's lock file, locked.
	lock := flock.New(filepath.Join(k.Repo.KBDir(), "index.lock"))
	if ok, err := lock.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	defer lock.Unlock()
	v, err := k.OpenView(ctx, "HEAD", false)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Stale == nil || hex.EncodeToString(v.Commit[:]) != first || !strings.Contains(v.Stale.Reason, "being indexed") {
		t.Fatalf("stand-in: stale %+v commit %s (want %s); notices %q", v.Stale, v.Commit, first, *notes)
	}
}

// jsonPack is k's JSON context pack of 2,000 bytes for q.
func jsonPack(t *testing.T, k *Engine, q string) *pack.Pack {
	t.Helper()
	parsed, err := search.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.ContextPack(context.Background(), ContextRequest{Request: search.Request{Query: q, Parsed: parsed}, Budget: 2000, Ratios: pack.DefaultRatios, Format: pack.JSON})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestContextPack(t *testing.T) {
	k, dir, _ := open(t)
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	p := jsonPack(t, k, "发布失败后如何回滚")
	if p.Commit != head || len(p.Blocks) == 0 || p.Blocks[0].Path != "docs/runbook/rollback.md" || !strings.Contains(p.Blocks[0].Text, "deploy rollback") {
		t.Fatalf("pack: %+v", p)
	}
	if p.Tokens > 2000 {
		t.Errorf("pack of %d tokens for a budget of 2000", p.Tokens)
	}
	// The blocks are cut from the text the search read for its snippets:
	// not one blob read again, and each block is the file's lines.
	if n := k.blobReads.Load(); n != 0 {
		t.Errorf("the pack read %d blobs again through go-git", n)
	}
	for _, b := range p.Blocks {
		lines := strings.Split(strings.TrimSuffix(files[b.Path], "\n"), "\n")
		if want := strings.Join(lines[b.Start-1:b.End], "\n"); b.Text != want {
			t.Errorf("block %s: %q, want %q", b.Citation, b.Text, want)
		}
	}
}

func TestBlameContext(t *testing.T) {
	ctx := context.Background()
	k, dir, _ := open(t)
	gittest.Commit(t, dir, "raise the retry count (#42)", map[string]string{"internal/retry/retry.go": "package retry\n\n// RetryCount is how many times a request is retried.\nconst RetryCount = 5\n"})
	rep, err := k.BlameContext(ctx, BlameRequest{Context: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 1 || rep.Files[0].Path != "internal/retry/retry.go" {
		t.Fatalf("report: %+v", rep)
	}
	if _, err := k.BlameContext(ctx, BlameRequest{Change: "HEAD..HEAD"}); err == nil || !strings.Contains(err.Error(), "same commit") {
		t.Errorf("an empty range: %v", err)
	}
}

// Shared serves concurrent calls (the MCP server's), one at a time.
func TestSharedIsSafeForConcurrentCalls(t *testing.T) {
	ctx := context.Background()
	k, dir, _ := open(t)
	s := NewShared(k)
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	errs := make(chan error, 8)
	for i := 0; i < 4; i++ {
		go func() {
			r, err := s.Search(ctx, search.Request{Query: "回滚", K: 3}, "")
			if err == nil && (r.Commit != head || len(r.Results) == 0) {
				err = errors.New("no answer from HEAD")
			}
			errs <- err
		}()
		go func() {
			commit, blob, data, err := s.File(ctx, "HEAD", "README.md")
			if err == nil && (commit != head || len(blob) != 40 || string(data) != files["README.md"]) {
				err = errors.New("File read something else")
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if _, _, _, err := s.File(ctx, "HEAD", "no/such.md"); err == nil || !strings.Contains(err.Error(), "not a file tracked") {
		t.Errorf("an untracked path: %v", err)
	}
	if st, err := s.Status(ctx); err != nil || !st.HeadIndex || s.DenseOn() {
		t.Errorf("status: %v %+v", err, st)
	}
}

// TestQueryCutWithTheViewsWords: a search cuts its query with the word
// list the view it reads was indexed with (kb.dict), also for --rev of an
// older view after the list changed.
func TestQueryCutWithTheViewsWords(t *testing.T) {
	ctx := context.Background()
	k, dir, _ := open(t)
	gittest.WriteFile(t, dir, "team.dict", []byte("回滚\n"))
	gittest.Git(t, dir, "config", "kb.dict", "team.dict")
	first := gittest.Commit(t, dir, "words", map[string]string{"team.dict": "回滚\n"})
	terms := func(rev string) []string {
		t.Helper()
		r, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "立即回滚到上一个版本", K: 3}, Rev: rev})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
			t.Fatalf("rev %q: %v", rev, paths(r))
		}
		return r.Terms
	}
	has := func(ts []string, w string) bool {
		for _, x := range ts {
			if x == w {
				return true
			}
		}
		return false
	}
	if ts := terms(""); !has(ts, "回滚") || !has(ts, "回") {
		t.Fatalf("with 回滚 listed the query is cut %q", ts)
	}
	// Another list for the next commit; the first commit's view keeps its own.
	gittest.WriteFile(t, dir, "team.dict", []byte("版本号\n"))
	gittest.Commit(t, dir, "other words", map[string]string{"team.dict": "版本号\n"})
	if ts := terms(""); has(ts, "回滚") {
		t.Fatalf("the new list lacks 回滚, yet the query is cut %q", ts)
	}
	if ts := terms(first); !has(ts, "回滚") {
		t.Fatalf("--rev of the older view should cut with its list: %q", ts)
	}
}

// TestNoAnswerFromAViewOfAnotherPolicy: once kb.secrets.allow no longer
// allows a rule, a view made while it did (HEAD's, or an old branch's) is
// not answered from: its postings would still match the values. The
// commit is indexed again under the current policy, and with NoIndex the
// error says why.
func TestNoAnswerFromAViewOfAnotherPolicy(t *testing.T) {
	ctx := context.Background()
	// An AWS access key id (AKIA + 16 base-32 characters), made here so
	// no real-looking key sits in the source.
	keyID := "AKIA" + strings.Repeat("Q7", 8)
	_, dir, _ := open(t, "kb.secrets.allow", "aws-access-key")
	gittest.Git(t, dir, "checkout", "-q", "-b", "old")
	gittest.Commit(t, dir, "notes", map[string]string{"notes.md": "# Notes\n\nOur access key id is " + keyID + " (rotated in May).\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	engine := func() (*Engine, *[]string) {
		var notes []string
		k, err := Open(ctx, repo, Options{Getenv: func(string) string { return "" }, Version: "test",
			Note: func(f string, a ...any) { notes = append(notes, f) }})
		if err != nil {
			t.Fatal(err)
		}
		return k, &notes
	}
	k, _ := engine()
	r, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: keyID, K: 5}})
	if err != nil || len(r.Results) == 0 || r.Results[0].Path != "notes.md" {
		t.Fatalf("with the rule allowed, the id should be found: %v %v", err, r)
	}

	gittest.Git(t, dir, "config", "--unset-all", "kb.secrets.allow")
	k, notes := engine()
	if _, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: keyID, K: 5}, NoIndex: true}); err == nil || !strings.Contains(err.Error(), "another kb.secrets.allow") {
		t.Fatalf("NoIndex on a view of another policy: %v", err)
	}
	r, err = k.Search(ctx, SearchRequest{Request: search.Request{Query: keyID, K: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(paths(r), "notes.md") {
		t.Errorf("the id is still found after the rule was no longer allowed: %v", paths(r))
	}
	if len(*notes) == 0 || !strings.Contains(strings.Join(*notes, "\n"), "another kb.secrets.allow") {
		t.Errorf("notices: %q", *notes)
	}
	// main, indexed under the new policy, and the old branch again.
	gittest.Git(t, dir, "checkout", "-q", "main")
	if _, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "回滚", K: 5}}); err != nil {
		t.Fatal(err)
	}
	r, err = k.Search(ctx, SearchRequest{Request: search.Request{Query: keyID, K: 5}, Rev: "old", NoIndex: true})
	if err != nil || slices.Contains(paths(r), "notes.md") {
		t.Fatalf("--rev old after re-indexing: %v %v", err, r)
	}
}

// With Options.Exiting a view's Close leaves it open for the process's
// exit (a CLI search); without, Close closes it.
func TestExitingLeavesTheViewToTheExit(t *testing.T) {
	ctx := context.Background()
	k, _, _ := open(t)
	if _, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "回滚", K: 3}}); err != nil {
		t.Fatal(err)
	}
	for _, exiting := range []bool{true, false} {
		k.opt.Exiting = exiting
		v, err := k.OpenView(ctx, "HEAD", true)
		if err != nil {
			t.Fatal(err)
		}
		v.Close()
		_, err = v.DB.Ref(v.Commit)
		if exiting && err != nil {
			t.Errorf("Exiting: the view's index was closed: %v", err)
		}
		if !exiting && err == nil {
			t.Errorf("not Exiting: the view's index is still open after Close")
		}
		if exiting {
			v.exiting = false
			v.Close()
		}
	}
}

// TestSpawnOnlyGitKB: a background run is started only from git-kb
// itself. From this test binary it would be the binary again, running
// its whole suite detached (the arguments below keep that run empty,
// should the guard ever go).
func TestSpawnOnlyGitKB(t *testing.T) {
	dir := gittest.New(t, files)
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(repo.KBDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	err = spawnDetached(repo, "gc.log", "a test", "-test.run=^$")
	if err == nil || !strings.Contains(err.Error(), "not the git-kb binary") {
		t.Errorf("spawn from a test binary: %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(repo.KBDir(), "gc.log")); !os.IsNotExist(err) {
		t.Errorf("gc.log written for a run never started: %v", err)
	}
}

// TestFriendlyOnce: an error is explained once, though a command
// explains its own error and main explains whatever it is given (git kb
// gc on a read-only .git/kb said "cannot write the index: the file system
// is read-only (cannot write the index: the file system is read-only
// (lock ...))"), and what it wraps is still found.
func TestFriendlyOnce(t *testing.T) {
	for _, err := range []error{
		&os.PathError{Op: "open", Path: "/r/.git/kb/embed.lock", Err: syscall.EROFS},
		store.ErrLocked,
		&store.SpaceError{Dir: "/r/.git/kb/db", Free: 1 << 20, Need: 8 << 20},
		&store.DamagedError{Dir: "/r/.git/kb/db", File: "000001.sst", What: "checksum mismatch"},
		&os.PathError{Op: "read", Path: "/r/.git/kb/db/000001.vlog", Err: syscall.EIO},
	} {
		once := Friendly(err)
		if twice := Friendly(fmt.Errorf("gc: %w", once)); twice.Error() != "gc: "+once.Error() {
			t.Errorf("explained twice:\n%v\nonce:\n%v", twice, once)
		}
		if once.Error() == err.Error() {
			t.Errorf("%v: not explained", err)
		}
	}
	if err := Friendly(store.ErrLocked); !errors.Is(err, store.ErrLocked) {
		t.Errorf("%v does not wrap store.ErrLocked", err)
	}
	if err := Friendly(&store.SpaceError{Dir: "d", Free: 1, Need: 2}); !errors.As(err, new(*store.SpaceError)) {
		t.Errorf("%v does not wrap the *SpaceError", err)
	}
	plain := errors.New("something else")
	if Friendly(plain) != plain {
		t.Errorf("an error with nothing to add changed: %v", Friendly(plain))
	}
}

// TestFriendlyFullDiskNamesTheFile: a full disk met writing outside the
// index (a hook's script, by git kb hooks install) names the file that
// could not be written. It said "the disk holding the index in  is full
// (0 B free)": no directory, the index that was not being written, and
// the free space of the working directory's disk.
func TestFriendlyFullDiskNamesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "hooks", "post-checkout.git-kb-tmp")
	msg := Friendly(&os.PathError{Op: "open", Path: p, Err: syscall.ENOSPC}).Error()
	if !strings.Contains(msg, p) || strings.Contains(msg, "index") || strings.Contains(msg, "  ") {
		t.Errorf("a full disk writing %s: %q", p, msg)
	}
	if !errors.Is(Friendly(&os.PathError{Op: "open", Path: p, Err: syscall.ENOSPC}), syscall.ENOSPC) {
		t.Error("the explained error is not ENOSPC")
	}
}

// TestFriendlyGitNotOnPath: with no git on PATH, a command says so in
// words a user acts on, not as the git command line it tried to run
// ("run git config -z --show-origin --show-scope --get-regexp ^kb\.:
// exec: "git": executable file not found in $PATH").
func TestFriendlyGitNotOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := exec.Command("git", "version").Output()
	if err == nil {
		t.Fatal("git found on an empty PATH")
	}
	msg := Friendly(fmt.Errorf("run git config -z --get-regexp ^kb\\.: %w", err)).Error()
	if !strings.Contains(msg, "git is not on PATH") || strings.Contains(msg, "config -z") || strings.Contains(msg, "\n") {
		t.Errorf("git not on PATH: %q", msg)
	}
}
