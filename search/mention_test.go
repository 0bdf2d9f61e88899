package search

import (
	"reflect"
	"slices"
	"testing"

	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// TestQuestionNames: the Latin-script words of a Chinese question, as the
// analyzer spells them (else own, the analyzer's terms, drops them); not
// a quoted value, a quantity with its unit, a stop word, nor any word of
// a question without Chinese.
func TestQuestionNames(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"TiCDC 的 OpenAPI 谁都能调，想加上认证", []string{"ticdc", "openapi"}},
		{"不登机器，能不能在 mysql 客户端里直接把 tidb-server 停掉", []string{"mysql", "tidb-server"}},
		{"字符串比较不区分大小写，'abc' 和 'ABC' 算相等，要选什么排序规则", nil},
		{"有几 TB 的数据要导入，最快的方式是直接生成 SST 文件吗", []string{"sst"}},
		{"導入幾 TB 的數據，100GB 以後還要 2 h", nil},
		{"同一条 GROUP BY 查询每次返回的行顺序都不一样", []string{"group"}},
		{"“Region is unavailable” 是什么错误", nil},
		{"报错 8004，事务太大是什么原因", []string{"8004"}},
		{"2379 端口不通，一次删除 10000 行要 30 秒", []string{"2379"}},
		{"How do I pause a changefeed for a while?", nil},
		// As the analyzer spells them: full-width folded, a plural
		// folded, a whole identifier or version, never a part of one.
		{"ＴｉＤＢ 的 ＧＣ 报错 ８００４", []string{"tidb", "gc", "8004"}},
		{"Kubernetes 上 Regions 分布不均", []string{"kubernete", "region"}},
		{"_tidb_rowid 是什么，2PC 怎么提交", []string{"_tidb_rowid", "2pc"}},
		{"升级到 8.5.700 之后 v8.5.7 的 tidb-server 起不来", []string{"v8.5.7", "tidb-server"}},
		{"導入１００GB 數據", nil},
		// A quantity's number starts a word, and its unit is a word.
		{"k8s 上跑 e2e 测试，要 3 小时", []string{"k8s", "e2e"}},
		{"报错 8004 时怎么办，8004 日志里说什么", []string{"8004"}},
		{"导入 500 万行数据花了 1000 分钟", nil},
		{"8004 号错误是什么意思", []string{"8004"}},
		{"CPU 使用率 100% 时 TiKV 变慢，写入 10w 行、１００％ 的磁盘", []string{"cpu", "tikv"}},
		// An apostrophe opens no quote, and its clitic is no name.
		{"TiDB's GC 和 TiKV's compaction 有什么关系", []string{"tidb", "gc", "tikv", "compaction"}},
		{"TiDB’s GC 为什么慢", []string{"tidb", "gc"}},
		// A code span in backticks names code; a quote inside it is
		// still a value.
		{"`tidb_gc_life_time` 设成多少合适", []string{"tidb_gc_life_time"}},
		{"执行 `SELECT 'abc'` 报错 1105", []string{"select", "1105"}},
	} {
		own := map[string]bool{}
		for _, w := range segment.Tiny().Terms(c.q) {
			own[w] = true
		}
		if got := questionNames(c.q, own); !reflect.DeepEqual(got, c.want) {
			t.Errorf("questionNames(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

// TestMention: asked about TiCDC's replication lag, DM's page on lag says
// the question's Chinese words more often and ranks first on them; the
// TiCDC page, which names TiCDC, ranks first with the lever. Code that
// never says TiCDC is scaled when it is written in Chinese (its comments
// say the question's words), not when it is written in English.
func TestMention(t *testing.T) {
	const dm, cdc = "dm/dm-handle-performance-issues.md", "ticdc/troubleshoot-ticdc.md"
	const zhCode, enCode = "syncer/lag.go", "replication/lag.go"
	ov := &Overlay{Files: []store.AnalyzedFile{
		overlayPage(dm, []string{
			"同步延迟越来越大时怎么排查：先判断同步延迟是在拉取 binlog 阶段还是在写入下游阶段，同步延迟越来越大通常是下游写入慢。",
		}, 1),
		overlayPage(cdc, []string{
			"TiCDC 同步任务的延迟越来越大时，先查看 changefeed 的 checkpoint 是否推进，再检查下游是否变慢。",
		}, 2),
		// TiCDC is common in these docs: pages that say it and little else.
		overlayPage("ticdc/ticdc-overview.md", []string{"TiCDC 是一款 TiDB 增量数据同步工具，通过拉取上游 TiKV 的数据变更日志。"}, 5),
		overlayPage("ticdc/ticdc-deploy.md", []string{"使用 TiUP 部署包含 TiCDC 组件的 TiDB 集群。"}, 6),
		overlayPage("ticdc/ticdc-faq.md", []string{"TiCDC 支持哪些下游？TiCDC 支持 MySQL、Kafka 和存储服务。"}, 7),
		overlayPage(zhCode, []string{
			"// reportLag 在同步延迟越来越大时记录告警，排查下游写入 func reportLag(d time.Duration) { log.Warn(d) }",
		}, 3),
		overlayPage(enCode, []string{
			"// reportLag warns when the replication lag keeps growing: troubleshoot the downstream writes. func reportLag(d time.Duration) { log.Warn(d) }",
		}, 4),
	}}
	q := "TiCDC 同步延迟越来越大怎么排查"
	paths, _ := priorOrder(t, ov, q, LeverMention, false, "mention")
	if at(paths, dm) < 0 || at(paths, cdc) < at(paths, dm) {
		t.Fatalf("without the lever: %v, want DM's page above TiCDC's (else this test shows nothing)", paths)
	}
	paths, factors := priorOrder(t, ov, q, LeverMention, true, "mention")
	if at(paths, cdc) < 0 || at(paths, dm) < at(paths, cdc) {
		t.Errorf("with the lever: %v, want TiCDC's page above DM's", paths)
	}
	if got, want := factors[dm], 1-mentionWeight; got != want {
		t.Errorf("DM's page is scaled %v, want %v (it lacks the one name)", got, want)
	}
	if f, ok := factors[cdc]; ok {
		t.Errorf("TiCDC's page, which says the name, is scaled %v", f)
	}
	if got, want := factors[zhCode], 1-mentionWeight; got != want {
		t.Errorf("the Go file commented in Chinese is scaled %v, want %v", got, want)
	}
	if at(paths, enCode) < 0 {
		t.Fatalf("%v: the Go file written in English is not found (else this shows nothing)", paths)
	}
	if f, ok := factors[enCode]; ok {
		t.Errorf("the Go file written in English is scaled %v", f)
	}
	// A quoted value names no thing, however the parser hands it on (a
	// phrase's quotes off): DM's page, which holds it, lacks TiCDC, the
	// one name, whole.
	for _, q := range []string{`TiCDC 的 "binlog" 同步延迟越来越大怎么排查`, "TiCDC 的“binlog”同步延迟越来越大怎么排查"} {
		if _, factors := priorOrder(t, ov, q, LeverMention, true, "mention"); factors[dm] != 1-mentionWeight {
			t.Errorf("%s: DM's page is scaled %v, want %v", q, factors[dm], 1-mentionWeight)
		}
	}
	// No name given: nothing scaled.
	if _, factors := priorOrder(t, ov, "同步延迟越来越大怎么排查", LeverMention, true, "mention"); len(factors) != 0 {
		t.Errorf("a question without a Latin name scaled %v", factors)
	}
}

// at is p's index in paths, -1 when absent.
func at(paths []string, p string) int {
	return slices.Index(paths, p)
}
