package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/store"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// kb runs git-kb in-process in dir and returns stdout, stderr and exit code.
func kb(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"git-kb"}, args...), env{Stdout: &out, Stderr: &errb, Dir: dir})
	return out.String(), errb.String(), code
}

// kbJSON runs a command that prints JSON and decodes it into v.
func kbJSON(t *testing.T, dir string, v any, args ...string) {
	t.Helper()
	out, errs, code := kb(t, dir, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v output: %v\n%s", args, err, out)
	}
}

func indexJSON(t *testing.T, dir string, args ...string) index.Stats {
	t.Helper()
	var st index.Stats
	kbJSON(t, dir, &st, append([]string{"index", "--json"}, args...)...)
	return st
}

func searchJSON(t *testing.T, dir string, args ...string) search.Response {
	t.Helper()
	var r search.Response
	kbJSON(t, dir, &r, append([]string{"search", "--json", "-q"}, args...)...)
	return r
}

func paths(r search.Response) []string {
	var ps []string
	for _, x := range r.Results {
		ps = append(ps, x.Path)
	}
	return ps
}

var docs = map[string]string{
	"docs/runbook/rollback.md": `---
title: 发布回滚手册
owner: sre-team
tags: [release, rollback]
---

# 发布回滚手册

## 何时回滚

线上发布失败、错误率升高时，值班同学应当立即回滚到上一个稳定版本。

## 回滚步骤

1. 执行 deploy rollback 命令，把流量切回旧版本。
2. 观察监控面板十分钟，确认错误率恢复。
`,
	"docs/adr/0001-connection-pool.md": `# ADR 0001：数据库连接池

数据库连接池打满时，先检查慢查询，再调大 maxOpenConns 参数。

连接池的 retry_count 配置决定重试次数，默认是 3。
`,
	"internal/retry/retry.go": `package retry

// RetryCount is how many times a request is retried.
const RetryCount = 3

// Do calls fn until it succeeds or retryCount attempts fail.
func Do(fn func() error, retryCount int) error {
	var err error
	for i := 0; i < retryCount; i++ {
		if err = fn(); err == nil {
			return nil
		}
	}
	return err
}
`,
	"README.md": "# Demo service\n\nA small service used in tests.\n",
}

func TestSearchChineseFindsChineseDoc(t *testing.T) {
	dir := gittest.New(t, docs)
	r := searchJSON(t, dir, "发布失败后如何回滚")
	if len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
		t.Fatalf("want rollback runbook first, got %v", paths(r))
	}
	head := gittest.Git(t, dir, "rev-parse", "HEAD")
	got := r.Results[0]
	if r.Commit != head || r.Mode != "lexical" {
		t.Errorf("commit/mode = %s/%s, want %s/lexical", r.Commit, r.Mode, head)
	}
	if !strings.HasPrefix(got.Citation, head+":docs/runbook/rollback.md#L") || got.StartLine < 1 || got.EndLine < got.StartLine {
		t.Errorf("bad citation/lines: %+v", got)
	}
	if got.Title != "发布回滚手册" || !strings.Contains(got.Heading, "发布回滚手册") {
		t.Errorf("title/heading = %q / %q", got.Title, got.Heading)
	}
	if len(got.Blob) != 40 || got.ChunkID == "" || got.Snippet == "" {
		t.Errorf("missing blob/chunk_id/snippet: %+v", got)
	}
}

func TestSearchMixedIdentifierQuery(t *testing.T) {
	dir := gittest.New(t, docs)
	r := searchJSON(t, dir, "连接池 retry_count 配置")
	if len(r.Results) == 0 || r.Results[0].Path != "docs/adr/0001-connection-pool.md" {
		t.Fatalf("want ADR first, got %v", paths(r))
	}
	// camelCase in code is split, so the words find the identifier.
	r = searchJSON(t, dir, "retry count")
	if len(r.Results) == 0 || !contains(paths(r), "internal/retry/retry.go") {
		t.Fatalf("want retry.go among %v", paths(r))
	}
	for _, res := range r.Results {
		if res.Path == "internal/retry/retry.go" && len(res.Symbols) == 0 {
			t.Errorf("Go chunk has no symbols: %+v", res)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func TestIndexIsIncremental(t *testing.T) {
	dir := gittest.New(t, docs)
	st := indexJSON(t, dir)
	if st.BlobsNew != len(docs) || st.AlreadyIndexed {
		t.Fatalf("first index: %+v", st)
	}
	st = indexJSON(t, dir)
	if !st.AlreadyIndexed || st.BlobsNew != 0 {
		t.Fatalf("re-index of the same commit did work: %+v", st)
	}
	gittest.Commit(t, dir, "edit one doc", map[string]string{"README.md": "# Demo service\n\n新增：灰度发布说明。\n"})
	st = indexJSON(t, dir)
	if st.BlobsNew != 1 || st.BlobsReused != len(docs)-1 {
		t.Fatalf("after a one-file commit: new=%d reused=%d, want 1/%d", st.BlobsNew, st.BlobsReused, len(docs)-1)
	}
	// A revert brings back a tree already indexed: nothing to read.
	gittest.Git(t, dir, "revert", "--no-edit", "HEAD")
	st = indexJSON(t, dir)
	if st.BlobsNew != 0 || !st.AlreadyIndexed {
		t.Fatalf("revert to an indexed tree: %+v", st)
	}
}

func TestSearchOldRevisionCitesOldCommit(t *testing.T) {
	dir := gittest.New(t, map[string]string{"guide.md": "# 指南\n\n旧版本使用 etcd 存储元数据。\n"})
	old := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Commit(t, dir, "v2", map[string]string{"guide.md": "# 指南\n\n新版本改用 PostgreSQL 存储元数据。\n"})

	r := searchJSON(t, dir, "--rev", old, "etcd")
	if len(r.Results) != 1 || r.Commit != old || !strings.HasPrefix(r.Results[0].Citation, old+":guide.md#L") {
		t.Fatalf("old revision search: %+v", r)
	}
	if r := searchJSON(t, dir, "etcd"); len(r.Results) != 0 {
		t.Fatalf("HEAD no longer mentions etcd but got %v", paths(r))
	}
	// show reads the cited lines from the old commit even though HEAD changed.
	out, errs, code := kb(t, dir, "show", r.Results[0].Citation)
	if code != 0 || !strings.Contains(out, "etcd") {
		t.Fatalf("show %s: code %d out %q err %q", r.Results[0].Citation, code, out, errs)
	}
}

func TestShowRoundTripsCitation(t *testing.T) {
	dir := gittest.New(t, docs)
	r := searchJSON(t, dir, "maxOpenConns")
	if len(r.Results) == 0 {
		t.Fatal("no results")
	}
	res := r.Results[0]
	out, _, code := kb(t, dir, "show", res.Citation)
	if code != 0 {
		t.Fatalf("show exit %d", code)
	}
	want := strings.Split(docs[res.Path], "\n")[res.StartLine-1 : res.EndLine]
	if got := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("show printed\n%q\nwant\n%q", got, want)
	}
	// The file deleted at HEAD is still readable at the cited commit.
	gittest.Remove(t, dir, "drop adr", res.Path)
	if out2, _, code := kb(t, dir, "show", res.Citation); code != 0 || out2 != out {
		t.Fatalf("show after delete: code %d, %q", code, out2)
	}
	if _, errs, code := kb(t, dir, "show", "two words:x"); code != exitUsage || !strings.Contains(errs, "citation") {
		t.Fatalf("bad citation: code %d %q", code, errs)
	}
	// A path as a person types it is HEAD's.
	if out, errs, code := kb(t, dir, "show", "docs/runbook/rollback.md#L2-L3"); code != 0 || out != "title: 发布回滚手册\nowner: sre-team\n" {
		t.Fatalf("show of a path: code %d, %q %q", code, out, errs)
	}
	if _, errs, code := kb(t, dir, "show", "not-a-file.md"); code != exitError || !strings.Contains(errs, "not in commit") {
		t.Fatalf("show of a missing path: code %d %q", code, errs)
	}
	if _, errs, code := kb(t, dir, "show", "rollback.md#L1-L3"); code != exitError || !strings.Contains(errs, "did you mean docs/runbook/rollback.md?") {
		t.Fatalf("show of a file name: code %d %q", code, errs)
	}
	// A file of that name at the repository's top is one too.
	if _, errs, code := kb(t, dir, "show", "docs/README.md"); code != exitError || !strings.Contains(errs, "did you mean README.md?") {
		t.Fatalf("show of a top-level file under a directory: code %d %q", code, errs)
	}
	if _, errs, code := kb(t, dir, "show", "docs/runbook/rollback.md#L5-L3"); code != exitUsage || !strings.Contains(errs, "write #L3-L5") {
		t.Fatalf("reversed range: code %d %q", code, errs)
	}
}

func TestBadInputFiles(t *testing.T) {
	gbk, err := simplifiedchinese.GBK.NewEncoder().String("# 故障处理\n\n磁盘空间不足时清理日志目录。\n")
	if err != nil {
		t.Fatal(err)
	}
	dir := gittest.New(t, map[string]string{
		"legacy/gbk.txt":     gbk,
		"bin/blob.dat2":      "\x00\x01\x02binary\x00data 磁盘",
		"notes/invalid.txt":  "valid start \xff\xfe broken bytes 磁盘 middle \xc3",
		"vendor/lib/x.go":    "package x // 磁盘",
		".env":               "SECRET=磁盘",
		"assets/logo.png":    "\x89PNG",
		"docs/huge.md":       strings.Repeat("磁盘", 1<<20),
		"docs/ignored/a.md":  "磁盘 ignored",
		".kbignore":          "docs/ignored/\n",
		"docs/empty.md":      "",
		"docs/onlybinary.md": "\x00",
	})
	st := indexJSON(t, dir)
	for reason, want := range map[string]int{"binary": 3, "vendored": 1, "secret": 1, "too-large": 1, "kbignore": 1, "empty": 1} {
		if st.Skipped[reason] != want {
			t.Errorf("skipped[%s] = %d, want %d (all: %v)", reason, st.Skipped[reason], want, st.Skipped)
		}
	}
	r := searchJSON(t, dir, "磁盘")
	got := paths(r)
	if !contains(got, "legacy/gbk.txt") || !contains(got, "notes/invalid.txt") || len(got) != 2 {
		t.Fatalf("want the GBK and invalid-UTF-8 files only, got %v", got)
	}
	for _, res := range r.Results {
		if res.Path == "legacy/gbk.txt" && !strings.Contains(res.Snippet, "磁盘空间不足") {
			t.Errorf("GBK snippet not decoded: %q", res.Snippet)
		}
	}
	if out, _, code := kb(t, dir, "show", r.Commit+":legacy/gbk.txt#L3"); code != 0 || !strings.Contains(out, "磁盘空间不足") {
		t.Errorf("show GBK: %d %q", code, out)
	}
}

func TestEmptyRepoAndUnbornBranch(t *testing.T) {
	dir := gittest.Init(t)
	_, errs, code := kb(t, dir, "search", "anything")
	if code != exitError || !strings.Contains(errs, "no commits yet") {
		t.Fatalf("empty repo: code %d, %q", code, errs)
	}
	// A repo with history, switched to an unborn orphan branch.
	dir = gittest.New(t, docs)
	gittest.Git(t, dir, "checkout", "-q", "--orphan", "fresh")
	_, errs, code = kb(t, dir, "index")
	if code != exitError || !strings.Contains(errs, "no commits yet") {
		t.Fatalf("unborn branch: code %d, %q", code, errs)
	}
	// Other revisions still work from there.
	if r := searchJSON(t, dir, "--rev", "main", "回滚"); len(r.Results) == 0 {
		t.Fatal("search --rev main from an unborn branch found nothing")
	}
}

func TestNotARepo(t *testing.T) {
	_, errs, code := kb(t, t.TempDir(), "search", "x")
	if code != exitError || !strings.Contains(errs, "not a git repository") {
		t.Fatalf("code %d, %q", code, errs)
	}
}

func TestDetachedHeadAndSubdirectory(t *testing.T) {
	dir := gittest.New(t, docs)
	first := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Commit(t, dir, "second", map[string]string{"docs/new.md": "# 新文档\n\n扩容步骤。\n"})
	gittest.Git(t, dir, "checkout", "-q", "--detach", first)
	r := searchJSON(t, filepath.Join(dir, "docs"), "回滚")
	if r.Commit != first || len(r.Results) == 0 {
		t.Fatalf("detached HEAD from a subdirectory: %+v", r)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := gittest.New(t, docs)
	for _, args := range [][]string{{"search"}, {"search", "-n", "0", "x"}, {"index", "extra"}, {"search", "--bogus", "x"}} {
		if _, _, code := kb(t, dir, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	if _, errs, code := kb(t, dir, "search", "--rev", "no-such-branch", "x"); code != exitError || !strings.Contains(errs, "unknown revision") {
		t.Errorf("unknown rev: %d %q", code, errs)
	}
}

// TestAtPathNamesNothing: an @path that names no indexed file or
// directory is refused (exit 2) with what the user may have meant, not
// answered "no results"; a right one still searches.
func TestAtPathNamesNothing(t *testing.T) {
	files := map[string]string{"logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"}
	for p, c := range docs {
		files[p] = c
	}
	dir := gittest.New(t, files)
	for _, tc := range []struct{ query, want string }{
		{"@rollback.md 回滚", "did you mean @docs/runbook/rollback.md?"},
		{"@runbook 回滚", "did you mean @docs/runbook/?"},
		{"@docs/README.md 回滚", "did you mean @README.md?"},
		{"@no/such.md 回滚", "names no indexed file or directory"},
		{"@logo.png 回滚", "binary files"},
	} {
		if _, errs, code := kb(t, dir, "search", tc.query); code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.query, code, errs, exitUsage, tc.want)
		}
	}
	if r := searchJSON(t, dir, "@docs/runbook/ 回滚"); len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
		t.Errorf("@docs/runbook/: %+v", r.Results)
	}
	// An @word that is no path (a MySQL user variable) is a word.
	if r := searchJSON(t, dir, "执行 SET @uid 之后 回滚"); len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
		t.Errorf("SET @uid: %+v", r.Results)
	}
}

// TestFilterMatchesNothing: a path: glob or a lang: that no indexed
// file passes is refused (exit 2) saying so, and for lang: which
// languages the commit has (lang:zh is a file's language, not the text's);
// a filter that matches, and two that each match but not together, still
// answer (the latter with no results).
func TestFilterMatchesNothing(t *testing.T) {
	files := map[string]string{"cmd/retry.go": "package cmd\n\n// Retry 回滚之前重试三次。\nfunc Retry() {}\n"}
	for p, c := range docs {
		files[p] = c
	}
	dir := gittest.New(t, files)
	indexJSON(t, dir)
	for _, tc := range []struct{ query, want string }{
		{"lang:zh 回滚", "lang:zh matches no indexed file at "},
		{"lang:python lang:rust 回滚", "this commit has markdown ("},
		{"path:nothing/ 回滚", "path:nothing/ matches no indexed file"},
		{"path:*.rs path:src/ 回滚", "path:*.rs path:src/ matches no indexed file"},
	} {
		_, errs, code := kb(t, dir, "search", tc.query)
		if code != exitUsage || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and one line with %q", tc.query, code, errs, exitUsage, tc.want)
		}
	}
	if _, errs, _ := kb(t, dir, "search", "lang:zh 回滚"); !strings.Contains(errs, "markdown (3 files), go (2 files)") {
		t.Errorf("lang:zh: the commit's languages not listed: %q", errs)
	}
	if r := searchJSON(t, dir, "lang:golang 回滚"); len(r.Results) == 0 || r.Results[0].Path != "cmd/retry.go" {
		t.Errorf("lang:golang: %+v", r.Results)
	}
	if r := searchJSON(t, dir, "path:docs/ lang:go 回滚"); len(r.Results) != 0 {
		t.Errorf("path:docs/ lang:go: want no results, got %+v", r.Results)
	}
}

func TestStatusAndRepoUntouched(t *testing.T) {
	dir := gittest.New(t, docs)
	before := gittest.Git(t, dir, "status", "--porcelain", "--ignored")
	out, _, code := kb(t, dir, "status")
	if code != 0 || !strings.Contains(out, "no index yet") {
		t.Fatalf("status before index: %d %q", code, out)
	}
	indexJSON(t, dir)
	out, _, code = kb(t, dir, "status", "--json")
	if code != 0 {
		t.Fatalf("status: %d", code)
	}
	var rep index.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Exists || !rep.HeadIndex || len(rep.Views) != 1 || rep.Views[0].Chunks == 0 || rep.SizeBytes == 0 || rep.Format != store.FormatVersion {
		t.Fatalf("status: %+v", rep)
	}
	// One view is one commit, not "1 indexed commits"; the help says
	// what each line means (it had no description at all).
	if out, _, code := kb(t, dir, "status"); code != 0 || !strings.Contains(out, "views:    1 indexed commit\n") {
		t.Errorf("status: %d\n%s", code, out)
	}
	if out, _, code := kb(t, dir, "status", "--help"); code != 0 || !strings.Contains(out, "DESCRIPTION:") || !strings.Contains(out, "behind_head") {
		t.Errorf("status --help: %d\n%s", code, out)
	}
	if after := gittest.Git(t, dir, "status", "--porcelain", "--ignored"); after != before {
		t.Fatalf("git status changed:\n%s\nvs\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "kb", "db")); err != nil {
		t.Fatalf("index not under .git/kb: %v", err)
	}
}
