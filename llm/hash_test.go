package llm

import (
	"context"
	"strings"
	"testing"
)

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestHashEmbedder(t *testing.T) {
	h := &HashEmbedder{Dims: 256, Terms: strings.Fields}
	vecs, err := h.Embed(context.Background(), []string{
		"数据库 连接池 打满",
		"数据库 连接池 配置",
		"前端 页面 样式",
		"",
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := dot(vecs[0], vecs[0]); s < 0.999 || s > 1.001 {
		t.Errorf("not unit: %v", s)
	}
	near, far := dot(vecs[0], vecs[1]), dot(vecs[0], vecs[2])
	if near <= far {
		t.Errorf("shared words should be closer: %v vs %v", near, far)
	}
	if dot(vecs[3], vecs[3]) != 0 {
		t.Errorf("empty text should give the zero vector")
	}
	again, _ := h.Embed(context.Background(), []string{"数据库 连接池 打满"})
	if dot(again[0], vecs[0]) < 0.9999 {
		t.Error("not deterministic")
	}
	// Bigrams connect words the analyzer sees as unrelated tokens.
	a, _ := h.Embed(context.Background(), []string{"回滚"})
	b, _ := h.Embed(context.Background(), []string{"回滚操作"})
	if dot(a[0], b[0]) <= 0 {
		t.Errorf("bigram feature missing: %v", dot(a[0], b[0]))
	}
	if h.ID() != "hash-v2/256" || !h.Local() {
		t.Error(h.ID())
	}
}

// TestHashEmbedderFolds: with the analyzer's folding, a text in
// traditional characters embeds as its simplified form does (the terms
// were folded already; the bigrams now are too).
func TestHashEmbedderFolds(t *testing.T) {
	fold := strings.NewReplacer("查詢", "查询", "日誌", "日志").Replace
	terms := func(s string) []string { return strings.Fields(fold(s)) }
	h := &HashEmbedder{Dims: 256, Terms: terms, Fold: fold}
	v, err := h.Embed(context.Background(), []string{"慢查詢日誌", "慢查询日志"})
	if err != nil {
		t.Fatal(err)
	}
	if d := dot(v[0], v[1]); d < 0.9999 {
		t.Errorf("folded texts embed apart: %v", d)
	}
	h.Fold = nil
	if v, _ = h.Embed(context.Background(), []string{"慢查詢日誌", "慢查询日志"}); dot(v[0], v[1]) > 0.9999 {
		t.Errorf("without Fold the bigrams should differ")
	}
}
