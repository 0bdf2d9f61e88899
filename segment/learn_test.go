package segment

import (
	"strings"
	"testing"
)

// runbook is a small ops text written as a team writes them: 回滚 and 慢查询
// (which gse's dictionary lacks) recur in varied contexts; 扩容 (which it
// has) recurs too; 情况下 is a phrase around a word; 灰度发 always comes
// before 布.
const runbook = `发布失败时立即回滚到上一个版本。回滚之前先确认数据库没有未完成的迁移。
灰度发布期间如果错误率上升，值班同学负责回滚。升级出错也要回滚，然后再分析原因。
回滚完成后检查监控，确认流量恢复正常。多次回滚仍然失败，联系负责人。
慢查询会拖慢整个集群，先在面板里找出慢查询，再看执行计划。
定期清理慢查询日志。索引缺失是慢查询最常见的原因，其次是统计信息过期。
业务高峰前扩容，扩容以后观察负载。磁盘不足的情况下扩容存储节点，计算不足的情况下扩容计算节点。
灰度发布的范围先小后大。每次灰度发布都记录版本号。网络抖动的情况下暂停灰度发布。
配置写错导致告警，修改配置后重新加载。依赖缺失导致启动失败，补齐依赖后重启。
测试环境没有问题，生产环境出错，多半是配置不同。磁盘写满时清理日志，必要时扩容。
`

func TestLearner(t *testing.T) {
	l := &Learner{}
	l.Add(runbook)
	got := map[string]float64{}
	for _, w := range l.Words(LearnOptions{MinCount: 4, MinPMI: 2}) {
		got[w.Word] = w.Freq
	}
	for _, w := range []string{"回滚", "慢查询"} {
		if got[w] == 0 {
			t.Errorf("%s not learned; learned %v", w, got)
		}
	}
	if got["回滚"] != float64(strings.Count(runbook, "回滚")) {
		t.Errorf("回滚 counted %v times, the text has %d", got["回滚"], strings.Count(runbook, "回滚"))
	}
	for _, w := range []string{
		"扩容",   // in gse's dictionary
		"情况下",  // a phrase: ends with a locative
		"灰度发",  // always followed by 布: no right-boundary variety
		"度发布",  // always preceded by 灰
		"回滚到",  // 到 ends a phrase
		"慢查询日", // rare
	} {
		if got[w] != 0 {
			t.Errorf("%s learned (%v)", w, got)
		}
	}
	// A cap keeps the most frequent.
	if ws := l.Words(LearnOptions{MinCount: 4, MinPMI: 2, Max: 1}); len(ws) != 1 || ws[0].Word != "回滚" {
		t.Errorf("Max 1: %v", ws)
	}
	// The limit stops collecting.
	small := &Learner{Limit: 10}
	small.Add(runbook)
	small.Add(runbook)
	if small.Runes() > 10+len([]rune(runbook)) || small.Runes() == 0 {
		t.Errorf("limit 10 collected %d runes", small.Runes())
	}
}
