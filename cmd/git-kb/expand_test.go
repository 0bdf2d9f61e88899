package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestCrossLingualExpansion: a Chinese question finds English code, the
// expansions used are shown, a file with the user's own words stays first,
// and kb.expand false turns it off.
func TestCrossLingualExpansion(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"archive/reader.go": `package archive

// Next advances to the next entry in the archive and reads its header.
func (r *Reader) Next() (*Header, error) {
	hdr, err := r.readHeader()
	if err != nil {
		return nil, err
	}
	r.pos += hdr.Size
	return hdr, nil
}
`,
		"cache/lru.go": `package cache

// Get returns the cached value of key and marks it recently used.
func (c *LRU) Get(key string) (any, bool) {
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value, true
}
`,
		"docs/归档说明.md": "# 归档说明\n\n归档文件的头部记录了每个条目的大小和名字，读取时逐个解析。\n",
	})
	r := searchJSON(t, dir, "读取归档的头部")
	got := paths(r)
	if len(got) < 2 || got[0] != "docs/归档说明.md" || got[1] != "archive/reader.go" {
		t.Fatalf("读取归档的头部: %v; want the doc with the user's words first, then the English code", got)
	}
	shown := map[string]string{}
	for _, x := range r.Expansions {
		shown[x.From] = strings.Join(x.To, ",") + "/" + x.Source
	}
	if !strings.Contains(shown["归档"], "archive") || !strings.Contains(shown["头部"], "header") {
		t.Errorf("expansions shown: %v", shown)
	}
	for _, term := range r.Terms {
		if term == "archive" || term == "header" {
			t.Errorf("terms lists expanded word %q as the user's", term)
		}
	}
	_, errs, _ := kb(t, dir, "search", "-v", "读取归档的头部")
	if !strings.Contains(errs, "expanded 归档 -> archive") {
		t.Errorf("-v does not show the expansion:\n%s", errs)
	}
	// English to Chinese: the Chinese doc answers an English word.
	if got := paths(searchJSON(t, dir, "archive")); len(got) < 2 || !contains(got, "docs/归档说明.md") {
		t.Errorf("archive: %v, want the Chinese doc too", got)
	}
	gittest.Git(t, dir, "config", "kb.expand", "false")
	r = searchJSON(t, dir, "读取归档的头部")
	if contains(paths(r), "archive/reader.go") || len(r.Expansions) != 0 {
		t.Errorf("kb.expand false: %v, expansions %v", paths(r), r.Expansions)
	}
	gittest.Git(t, dir, "config", "--unset", "kb.expand")
	if r := searchJSON(t, dir, "--no-expand", "读取归档的头部"); contains(paths(r), "archive/reader.go") {
		t.Errorf("--no-expand: %v", paths(r))
	}
}

// TestConceptScoring: in a repository whose comments are Chinese and whose
// code is English, a Chinese question about code that says it only in
// English ranks that code above a bilingual file that merely shares the
// question's words; a word and its translation in one chunk count once.
// --ranking -concept shows the lever is what does it.
func TestConceptScoring(t *testing.T) {
	files := map[string]string{
		"admin/job/delete_unhealthy_instance.go": `package job

type deleteUnhealthyInstanceJob struct{ timeout int }

// execute deletes instances that stayed unhealthy longer than the timeout.
func (job *deleteUnhealthyInstanceJob) execute() {
	ids := job.store.GetUnhealthyInstances(job.timeout)
	job.store.DeleteInstances(ids)
}
`,
	}
	var api strings.Builder
	api.WriteString("package store\n\n// InstanceStore 实例存储接口\ntype InstanceStore interface {\n")
	for _, f := range []string{"Add", "Update", "Get", "List", "Count", "SetHealth", "BatchSetHealth"} {
		fmt.Fprintf(&api, "\t// %sInstance 设置实例的健康状态\n\t%sInstance(id string) error\n", f, f)
	}
	api.WriteString("}\n")
	files["store/instance_api.go"] = api.String()
	for i := range 12 {
		files[fmt.Sprintf("other/f%02d.go", i)] = fmt.Sprintf("package other\n\n// F%d 处理请求 %d\nfunc F%d() {}\n", i, i, i)
	}
	dir := gittest.New(t, files)
	const q = "删除不健康的实例"
	if got := paths(searchJSON(t, dir, q)); len(got) == 0 || got[0] != "admin/job/delete_unhealthy_instance.go" {
		t.Errorf("%s: %v, want the English job first", q, got)
	}
	if got := paths(searchJSON(t, dir, "--ranking", "-concept", q)); len(got) == 0 || got[0] != "store/instance_api.go" {
		t.Errorf("%s with -concept: %v, want the bilingual file first (the lever is what lifts the job)", q, got)
	}
}

// TestNameMakesCandidate: a Chinese question about English code whose
// word is in no file reaches the code through its translation; when the
// translation is a common word (flag, in 534 chunks here), it only
// adds to chunks a rarer word found, except in a file whose name says
// it: flag/flag.go answers 命令行参数 (-> flag) though only help/usage.go
// has the rarer usage. --ranking -name shows it is the name that does it.
func TestNameMakesCandidate(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"tool/commands.go": flagEverywhere(),
		"flag/flag.go": `// Package flag parses the command line: -name, --name and -name=value.
package flag

// Parse reads the command line, one value after another.
func Parse() {}
`,
		"help/usage.go": "package help\n\n// PrintUsage writes the usage text.\nfunc PrintUsage() {}\n",
	})
	const q = "命令行参数 用法说明"
	got := paths(searchJSON(t, dir, q))
	if !slices.Contains(got, "flag/flag.go") || !slices.Contains(got, "help/usage.go") {
		t.Errorf("%s: %v, want flag/flag.go (its name says flag) beside help/usage.go", q, got)
	}
	if got := paths(searchJSON(t, dir, "--ranking", "-name", q)); slices.Contains(got, "flag/flag.go") {
		t.Errorf("%s with -name: %v; without the name, flag is too common to make flag.go a candidate, or this test shows nothing", q, got)
	}
}

// flagEverywhere is a Go file of 1,600 functions, three to a chunk: 534
// chunks say flag, a word too common to make a candidate by itself.
func flagEverywhere() string {
	var cmds strings.Builder
	cmds.WriteString("package tool\n\n")
	for i := range 1600 {
		fmt.Fprintf(&cmds, "// cmd%d reads the verbose flag.\nfunc cmd%d() bool { return verbose%d }\n\n", i, i, i)
	}
	return cmds.String()
}

// TestNameMakesCandidateWithFeedback: --prf scores the question a second
// time with a few words of the best chunks added (帮助, 文本 here, which
// flag/flag.md does not say); that query is the question's, spans
// included, so 命令行参数 (cut 命令行 + 命令 + 参数, none of them in any
// file) still stands for its translation flag, and flag.md stays.
func TestNameMakesCandidateWithFeedback(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"tool/commands.go": flagEverywhere(),
		"flag/flag.md":     "# flag\n\nParses -name=value.\n",
		"help/usage.md":    "# 用法说明\n\n打印帮助文本。\n",
		"help/usage2.md":   "# 用法说明示例\n\n帮助文本的格式。\n",
	})
	const q = "命令行参数 用法说明"
	if got := paths(searchJSON(t, dir, q)); !slices.Contains(got, "flag/flag.md") {
		t.Fatalf("%s: %v, want flag/flag.md (its name says flag), or this test shows nothing", q, got)
	}
	r := searchJSON(t, dir, "--prf", q)
	if len(r.Feedback) == 0 {
		t.Fatalf("%s with --prf: no feedback words, or this test shows nothing", q)
	}
	if got := paths(r); !slices.Contains(got, "flag/flag.md") {
		t.Errorf("%s with --prf (feedback %v): %v, want flag/flag.md as without", q, r.Feedback, got)
	}
}

// TestParaphraseExpansion: a colloquial question (节点起不来) finds the
// runbook that says it in the written words docs use (启动失败) through
// the paraphrase table, ahead of a page that shares only one of them;
// the expansion is shown with its source, and --no-expand turns it off.
func TestParaphraseExpansion(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"runbook/start-failure.md": "# 节点启动失败\n\n启动失败时先看日志里的报错。\n",
		"guide/start-options.md":   "# 启动参数\n\n启动时可以指定配置文件和端口。\n",
		"guide/nodes.md":           "# 节点列表\n\n每个节点的地址。\n",
	})
	const q = "节点起不来了"
	r := searchJSON(t, dir, q)
	got := paths(r)
	if len(got) < 2 || got[0] != "runbook/start-failure.md" {
		t.Fatalf("%s: %v, want the runbook (启动失败) first", q, got)
	}
	found := false
	for _, x := range r.Expansions {
		if x.From == "起不来" && x.Source == "paraphrase" && slices.Contains(x.To, "启动失败") {
			found = true
		}
	}
	if !found {
		t.Errorf("%s: expansions %+v, want 起不来 -> 启动失败 (paraphrase)", q, r.Expansions)
	}
	if got := paths(searchJSON(t, dir, "--no-expand", q)); slices.Contains(got, "guide/start-options.md") {
		t.Errorf("--no-expand %s: %v, want only the pages that say 节点", q, got)
	}
}
