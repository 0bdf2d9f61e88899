package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
)

func TestQueryLanguage(t *testing.T) {
	files := map[string]string{}
	for k, v := range docs {
		files[k] = v
	}
	files["docs/runbook/db.md"] = "---\ntitle: 数据库手册\nowner: dba-team\ntags: [database]\n---\n\n# 数据库手册\n\n连接池打满时先回滚最近的配置变更。\n"
	files["notes/test.md"] = "# 测试记录\n\n回滚测试：在测试环境演练回滚。\n"
	dir := gittest.New(t, files)

	ps := func(args ...string) string { return strings.Join(paths(searchJSON(t, dir, args...)), ",") }
	if got := ps("回滚"); !strings.Contains(got, "notes/test.md") || !strings.Contains(got, "docs/runbook/rollback.md") {
		t.Fatalf("plain: %s", got)
	}
	if got := ps("回滚 -测试"); strings.Contains(got, "notes/test.md") || !strings.Contains(got, "rollback.md") {
		t.Errorf("exclusion: %s", got)
	}
	if got := ps(`"回滚到上一个稳定版本"`); got != "docs/runbook/rollback.md" {
		t.Errorf("phrase: %s", got)
	}
	// Chinese quotation marks quote a phrase too, glued to the question.
	if got := ps(`什么时候要“回滚到上一个稳定版本”？`); got != "docs/runbook/rollback.md" {
		t.Errorf("“phrase”: %s", got)
	}
	if got := ps(`回滚 -「测试」`); strings.Contains(got, "notes/test.md") || !strings.Contains(got, "rollback.md") {
		t.Errorf("-「phrase」: %s", got)
	}
	// A phrase no file holds in that order (a quoted route, a message
	// spaced otherwise) ranks its words instead, and says so.
	if r := searchJSON(t, dir, `"版本 稳定" 回滚`); !strings.Contains(r.Degraded, `no file holds "版本 稳定" as written`) ||
		!strings.Contains(strings.Join(paths(r), ","), "docs/runbook/rollback.md") {
		t.Errorf("a phrase no file holds: degraded %q, %v", r.Degraded, paths(r))
	}
	if r := searchJSON(t, dir, `"版本 稳定" 回滚 tag:no-such-tag`); r.Degraded != "" || len(r.Results) != 0 {
		t.Errorf("other filters left nothing: no results and no phrase notice, got %q %v", r.Degraded, paths(r))
	}
	if r := searchJSON(t, dir, `"回滚到上一个稳定版本"`); r.Degraded != "" {
		t.Errorf("a phrase a file holds: degraded %q", r.Degraded)
	}
	// A command-line flag in a Chinese question is a word of it, not an
	// exclusion; -"x" excludes it.
	if got := ps("重试 -retry 的实现"); !strings.Contains(got, "internal/retry/retry.go") {
		t.Errorf("a flag in a Chinese question: %s", got)
	}
	if got := ps(`重试 -"retry"`); strings.Contains(got, "internal/retry/retry.go") {
		t.Errorf(`-"retry" did not exclude: %s`, got)
	}
	if got := ps("回滚 path:docs/runbook/"); strings.Contains(got, "notes/") || got == "" {
		t.Errorf("path: %s", got)
	}
	if got := ps("retry lang:go"); got != "internal/retry/retry.go" {
		t.Errorf("lang: %s", got)
	}
	if got := ps("回滚 -path:docs/runbook/"); strings.Contains(got, "docs/runbook/") || !strings.Contains(got, "notes/test.md") {
		t.Errorf("-path: %s", got)
	}
	if got := ps("回滚 -lang:markdown"); strings.Contains(got, ".md") {
		t.Errorf("-lang: %s", got)
	}
	if got := ps("回滚 tag:rollback"); got != "docs/runbook/rollback.md" {
		t.Errorf("tag: %s", got)
	}
	if got := ps("回滚 owner:dba-team"); got != "docs/runbook/db.md" {
		t.Errorf("owner: %s", got)
	}
	if got := ps("回滚 @notes/test.md"); got != "notes/test.md" {
		t.Errorf("@file: %s", got)
	}
	r := searchJSON(t, dir, "重试 @@Do")
	if len(r.Results) == 0 || r.Results[0].Path != "internal/retry/retry.go" || !contains(r.Results[0].Symbols, "Do") {
		t.Errorf("@@Do: %+v", r.Results)
	}
	// --literal: operators are words.
	if r := searchJSON(t, dir, "--literal", "回滚 -测试"); !strings.Contains(strings.Join(paths(r), ","), "notes/test.md") {
		t.Errorf("--literal still excluded: %v", paths(r))
	}
	// A malformed query is a usage error pointing at the bad part.
	_, errs, code := kb(t, dir, "search", `回滚 "未闭合`)
	if code != 2 || !strings.Contains(errs, "unterminated quote") || !strings.Contains(errs, "^") {
		t.Errorf("malformed: exit %d %q", code, errs)
	}

	// --since: only files changed since a date (gittest commits are all
	// dated 2026-01-02).
	gittest.Commit(t, dir, "later", map[string]string{"notes/later.md": "# 后来\n\n回滚之后的复盘。\n"})
	if got := ps("--since", "2026-01-01", "回滚"); !strings.Contains(got, "notes/later.md") {
		t.Errorf("--since 2026-01-01: %s", got)
	}
	if got := ps("--since", "2030-01-01", "回滚"); got != "" {
		t.Errorf("--since in the future: %s", got)
	}
}

// TestSymbolNotDeclared: @@Symbol that no chunk declares ranks the
// query's words alone, and the answer says so ("degraded", a line on
// stderr), as a phrase no file holds does, rather than passing word
// matches off as the declaration; one that is declared says nothing.
func TestSymbolNotDeclared(t *testing.T) {
	dir := gittest.New(t, docs)
	r := searchJSON(t, dir, "重试 @@RetryLimit")
	if len(r.Results) == 0 || !strings.Contains(r.Degraded, "no indexed file declares @@RetryLimit") {
		t.Errorf("@@RetryLimit: degraded %q, results %v", r.Degraded, paths(r))
	}
	if r := searchJSON(t, dir, "重试 @@RetryCount"); len(r.Results) == 0 || r.Results[0].Path != "internal/retry/retry.go" || r.Degraded != "" {
		t.Errorf("@@RetryCount: degraded %q, results %v", r.Degraded, paths(r))
	}
	_, errs, code := kb(t, dir, "search", "重试 @@RetryLimit")
	if code != exitOK || !strings.Contains(errs, "no indexed file declares @@RetryLimit: these results hold its words") {
		t.Errorf("text: exit %d, stderr %q", code, errs)
	}
}

// TestSinceNothingRecent: a --since date later than every commit (or a
// phrase git reads as now) matches no file; the search says why on
// stderr, with the date as git read it and the newest commit's, instead
// of a bare "no results".
func TestSinceNothingRecent(t *testing.T) {
	dir := gittest.New(t, docs) // gittest commits are dated 2026-01-02
	for _, c := range []struct{ since, want string }{
		{"2030-01-01", `--since "2030-01-01": no commit of HEAD is that recent (git reads the date as 2030-01-01`},
		{"the day after tomorrow-ish", `--since "the day after tomorrow-ish": no commit of HEAD is that recent (git reads the date as ` + time.Now().UTC().Format("2006-01-02")},
	} {
		out, errs, code := kb(t, dir, "search", "--since", c.since, "回滚")
		if code != exitOK || !strings.Contains(out, "no results") || !strings.Contains(errs, c.want) || !strings.Contains(errs, "the newest commit is from 2026-01-02") {
			t.Errorf("--since %q: exit %d, stdout %q, stderr %q; want %q", c.since, code, out, errs, c.want)
		}
	}
	// A date that some commit passes says nothing more.
	if _, errs, code := kb(t, dir, "search", "--since", "2025-12-01", "回滚"); code != exitOK || strings.Contains(errs, "--since") {
		t.Errorf("--since 2025-12-01: exit %d, stderr %q", code, errs)
	}
}

// TestTraditionalChinese: docs in traditional characters are found by a
// question in simplified ones and the other way round, and highlights
// mark the words as the document writes them.
func TestTraditionalChinese(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"docs/rollback.md": "# 發佈回滾手冊\n\n線上發佈失敗時，值班同學應立即回滾到上一個穩定版本。\n\n連線池打滿時先檢查慢查詢日誌。\n",
		"docs/scale.md":    "# 扩容手册\n\n集群扩容前先检查磁盘水位，再逐台加入节点。\n",
		"docs/other.md":    "# 其他\n\n与发布无关的说明。\n",
	})
	r := searchJSON(t, dir, "慢查询日志")
	if len(r.Results) == 0 || r.Results[0].Path != "docs/rollback.md" {
		t.Fatalf("a simplified question over a traditional doc: %v", paths(r))
	}
	if hl := r.Results[0].Highlights; !slices.Contains(hl, "查詢") || !slices.Contains(hl, "日誌") {
		t.Errorf("highlights %q: want the document's own 查詢 and 日誌", hl)
	}
	if r := searchJSON(t, dir, "擴容前檢查什麼"); len(r.Results) == 0 || r.Results[0].Path != "docs/scale.md" {
		t.Errorf("a traditional question over a simplified doc: %v", paths(r))
	}
	// Phrases and exclusions compare text folded alike.
	if r := searchJSON(t, dir, `"慢查询日志"`); r.Degraded != "" || strings.Join(paths(r), ",") != "docs/rollback.md" {
		t.Errorf(`"慢查询日志" over 慢查詢日誌: degraded %q, %v`, r.Degraded, paths(r))
	}
	if r := searchJSON(t, dir, `发布 -"上一个稳定"`); slices.Contains(paths(r), "docs/rollback.md") {
		t.Errorf(`-"上一个稳定" kept the page that says 上一個穩定: %v`, paths(r))
	}
}

// TestFusionWeaviateWithoutOrg: the help names --fusion weaviate (for
// --org); without --org it was refused as "want rrf or dbsf", as if the
// help were wrong. The refusal says where it belongs.
func TestFusionWeaviateWithoutOrg(t *testing.T) {
	dir := gittest.New(t, docs)
	qf := writeQueries(t, "q.jsonl", evalQueries)
	for _, args := range [][]string{{"search", "--fusion", "weaviate", "回滚"}, {"eval", "--compare", "lexical --fusion weaviate", qf}} {
		_, errs, code := kb(t, dir, args...)
		if code != exitUsage || !strings.Contains(errs, "--fusion weaviate is Weaviate's own fusion, for git kb search --org only") {
			t.Errorf("%q: exit %d %q", args, code, errs)
		}
	}
}
