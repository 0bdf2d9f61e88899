package main

import (
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestPseudoRelevanceFeedback: --prf finds a doc that shares the best
// matches' vocabulary but none of the query's words, ranked below them.
func TestPseudoRelevanceFeedback(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"docs/upgrade.md":  "# 升级\n\n不停机升级集群：逐个节点滚动升级，先升级 PD，再升级 TiKV，最后升级 TiDB。\n",
		"docs/upgrade2.md": "# 升级注意事项\n\n升级前备份数据。滚动升级时每个节点依次重启，PD 与 TiKV 的版本要一致。\n",
		"docs/rolling.md":  "# 滚动重启\n\n滚动重启时 PD 和 TiKV 的节点依次下线再上线，业务不中断。\n",
		"docs/backup.md":   "# 备份\n\n使用 BR 工具做全量备份与恢复。\n",
	})
	plain := paths(searchJSON(t, dir, "升级"))
	if contains(plain, "docs/rolling.md") {
		t.Fatalf("without feedback the doc without the word is found: %v", plain)
	}
	r := searchJSON(t, dir, "--prf", "升级")
	if len(r.Feedback) == 0 {
		t.Errorf("--prf: no feedback words listed")
	}
	fed := paths(r)
	if len(fed) < 3 || !contains(fed[:2], "docs/upgrade.md") || !contains(fed[:2], "docs/upgrade2.md") || fed[2] != "docs/rolling.md" {
		t.Errorf("--prf: %v, want both upgrade docs, then docs/rolling.md", fed)
	}
	if contains(fed, "docs/backup.md") && fed[len(fed)-1] != "docs/backup.md" {
		t.Errorf("--prf: %v", fed)
	}
}
