package search

import (
	"context"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// overlayPage is a file of an overlay with one chunk per section.
func overlayPage(path string, sections []string, blob byte) store.AnalyzedFile {
	f := store.AnalyzedFile{Path: path, Meta: &store.BlobMeta{Lang: "markdown"}}
	if !strings.HasSuffix(path, ".md") {
		f.Meta.Lang = "go"
	}
	for i, text := range sections {
		tf := map[string][store.NumFields]uint16{}
		n := 0
		for _, t := range segment.Tiny().Terms(text) {
			x := tf[t]
			x[store.FieldBody]++
			tf[t] = x
			n++
		}
		f.Lines = append(f.Lines, text)
		f.Meta.Chunks = append(f.Meta.Chunks, store.ChunkMeta{Start: i + 1, End: i + 1})
		f.Chunks = append(f.Chunks, tf)
		f.BodyLen = append(f.BodyLen, uint32(n))
		f.FieldLen[store.FieldBody] += uint64(n)
	}
	f.Blob[0] = blob
	return f
}

// focusOrder searches the overlay and returns the paths, best first, and
// the focus factor of each result that has one.
func focusOrder(t *testing.T, files []store.AnalyzedFile, query string, on bool) ([]string, map[string]float64) {
	return focusOrderIn(t, &Overlay{Files: files}, query, on)
}

func focusOrderIn(t *testing.T, ov *Overlay, query string, on bool) ([]string, map[string]float64) {
	return priorOrder(t, ov, query, LeverFocus, on, "focus")
}

// priorOrder searches the overlay with lever on or off and returns the
// paths, best first, and the factor of the prior named prior of each
// result that has one.
func priorOrder(t *testing.T, ov *Overlay, query, lever string, on bool, prior string) ([]string, map[string]float64) {
	t.Helper()
	parsed, err := ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Query: query, Parsed: parsed, K: 5, Mode: ModeLexical, View: &store.View{}, Levers: map[string]bool{lever: on},
		Overlay: ov}
	s := &Searcher{ReadBlob: func(store.SHA) ([]byte, error) { return nil, context.Canceled }}
	resp, err := s.Search(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	factors := map[string]float64{}
	for _, r := range resp.Results {
		paths = append(paths, r.Path)
		for _, p := range r.Priors {
			if p.Name == prior {
				factors[r.Path] = p.Factor
			}
		}
	}
	return paths, factors
}

// A page about the question throughout passes a handbook whose one
// section says the question's words more often: without focus the
// handbook's stronger best section wins.
func TestFocusPrefersThePageAboutTheQuestion(t *testing.T) {
	handbook := []string{"回滚 事务 超时 回滚 事务 超时 回滚 事务 锁 等待 回滚 超时"}
	for _, other := range []string{"部署 集群 拓扑", "监控 告警 面板", "备份 恢复 快照", "扩容 节点 下线", "升级 版本 兼容",
		"权限 用户 角色", "日志 级别 轮转", "网络 端口 防火墙", "磁盘 容量 规划", "参数 配置 文件", "时区 字符集 排序"} {
		handbook = append(handbook, other)
	}
	files := []store.AnalyzedFile{
		overlayPage("docs/handbook.md", handbook, 1),
		overlayPage("docs/rollback.md", []string{"事务 回滚 超时 的 原理 与 实现 细节 说明", "回滚 的 流程 与 步骤 说明 介绍 背景", "超时 的 设置 与 参数 说明 介绍 背景"}, 2),
	}
	const q = "事务 回滚 超时"
	paths, factors := focusOrder(t, files, q, true)
	if len(paths) != 2 || paths[0] != "docs/rollback.md" {
		t.Fatalf("with focus: %v, want docs/rollback.md first", paths)
	}
	if f, ok := factors["docs/handbook.md"]; !ok || f < 0.6 || f > 0.62 {
		t.Errorf("handbook's focus factor %v (present %v), want (1/12)^0.2 = 0.608", f, ok)
	}
	if _, ok := factors["docs/rollback.md"]; ok {
		t.Errorf("a page all of whose sections match is scaled: %v", factors)
	}
	paths, factors = focusOrder(t, files, q, false)
	if len(paths) != 2 || paths[0] != "docs/handbook.md" {
		t.Fatalf("with -focus: %v, want docs/handbook.md first (else the test shows nothing)", paths)
	}
	if len(factors) != 0 {
		t.Errorf("-focus still scales: %v", factors)
	}
}

// Code is not scaled: the declaration that answers is one of many in
// its file.
func TestFocusLeavesCodeAlone(t *testing.T) {
	decls := []string{"func rollbackTxn 回滚 事务 超时"}
	for range 9 {
		decls = append(decls, "func other 部署 集群")
	}
	_, factors := focusOrder(t, []store.AnalyzedFile{overlayPage("txn/rollback.go", decls, 3)}, "事务 回滚 超时", true)
	if len(factors) != 0 {
		t.Errorf("a Go file is scaled by focus: %v", factors)
	}
}

// An org search's overlay holds the chunks its index returned, not all of
// a file's: focus, which counts a file's sections, is left out.
func TestFocusLeavesPartialOverlaysAlone(t *testing.T) {
	sections := []string{"回滚 事务 超时"}
	for range 9 {
		sections = append(sections, "部署 集群 拓扑")
	}
	ov := &Overlay{Files: []store.AnalyzedFile{overlayPage("docs/handbook.md", sections, 4)}}
	if _, factors := focusOrderIn(t, ov, "事务 回滚 超时", true); len(factors) != 1 {
		t.Fatalf("a whole page of 10 sections, 1 matching: focus factors %v, want one", factors)
	}
	ov.Partial = true
	if _, factors := focusOrderIn(t, ov, "事务 回滚 超时", true); len(factors) != 0 {
		t.Errorf("a partial overlay is scaled by focus: %v", factors)
	}
}
