package expand

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-kb/git-kb/expand/internal/table"
)

func find(exps []Expansion, from string) *Expansion {
	for i := range exps {
		if exps[i].From == from {
			return &exps[i]
		}
	}
	return nil
}

func TestExpandChineseToEnglish(t *testing.T) {
	exps := Expand("复用临时对象的缓存池，失败了就回滚", nil)
	for from, want := range map[string]string{"对象": "object", "池": "pool", "回滚": "rollback", "缓存": "cache"} {
		e := find(exps, from)
		if e == nil || e.Source != SourceGlossary || e.To[0] != want {
			t.Errorf("%s: %+v, want %s first from the glossary (all: %+v)", from, e, want, exps)
		}
	}
	// The glossary wins where both have the word (头部: glossary header|head,
	// CC-CEDICT head); CC-CEDICT fills in where the glossary has none.
	exps = Expand("重新读取头部", nil)
	if e := find(exps, "头部"); e == nil || e.Source != SourceGlossary || !reflect.DeepEqual(e.To, []string{"header", "head"}) {
		t.Errorf("头部: %+v", e)
	}
	if e := find(exps, "重新"); e == nil || e.Source != SourceCEDICT || e.To[0] != "again" {
		t.Errorf("重新: %+v", e)
	}
	// A general word of CC-CEDICT does not cut into the glossary term after
	// it: 中指 (middle finger) would take 指定's first character, 上下 下游's.
	exps = Expand("在配置中指定上下游", nil)
	for _, w := range []string{"指定", "下游"} {
		if e := find(exps, w); e == nil || e.Source != SourceGlossary {
			t.Errorf("%s not matched from the glossary: %+v", w, exps)
		}
	}
	if e := find(exps, "中指"); e != nil {
		t.Errorf("中指 matched across 指定: %+v", exps)
	}
	// Longest match first: 随机数生成器 is one glossary word, not 随机数 + 生成器.
	if e := find(Expand("随机数生成器", nil), "随机数生成器"); e == nil {
		t.Errorf("随机数生成器 not matched whole: %+v", Expand("随机数生成器", nil))
	}
	// Glossary terms longer than CC-CEDICT's lookups still match whole.
	if e := find(Expand("超文本传输协议服务器", nil), "超文本传输协议"); e == nil || e.To[0] != "http" {
		t.Errorf("超文本传输协议 not matched whole: %+v", Expand("超文本传输协议服务器", nil))
	}
}

// TestExpandTraditional: a question in traditional characters gains the
// translations and written words its simplified form would (the tables
// are simplified), named by that form, which is what the analyzer's terms
// are; full-width letters are read as ASCII ones.
func TestExpandTraditional(t *testing.T) {
	exps := Expand("發佈失敗了就回滾，服務起不來", nil)
	if e := find(exps, "回滚"); e == nil || e.Source != SourceGlossary || e.To[0] != "rollback" {
		t.Errorf("回滾: %+v, want 回滚 -> rollback (all: %+v)", e, exps)
	}
	if e := find(exps, "起不来"); e == nil || e.Source != SourceParaphrase {
		t.Errorf("起不來: %+v, want the paraphrase of 起不来 (all: %+v)", e, exps)
	}
	if e := find(Expand("ｒｏｌｌｂａｃｋ 怎么做", nil), "rollback"); e == nil || e.To[0] != "回滚" {
		t.Errorf("full-width rollback: %+v", Expand("ｒｏｌｌｂａｃｋ 怎么做", nil))
	}
}

// TestExpandAgreesWithAnalyzer: Chinese words are looked up where the
// analyzer (the one that cut the query's terms) cuts them. Each case is a
// question's phrase, the words expanded (from, source, first word added)
// and words that must not be (a dictionary word across the analyzer's cut).
func TestExpandAgreesWithAnalyzer(t *testing.T) {
	type want struct{ from, source, to string }
	for _, tt := range []struct {
		text   string
		want   []want
		absent []string
	}{
		// gse cuts 翻译成 whole and 翻译 + 成 inside: CC-CEDICT's 译成
		// (translate into) is not the analyzer's word.
		{"错误码怎么翻译成中文", []want{{"翻译", SourceCEDICT, "translate"}}, []string{"译成"}},
		// 写入/时: not 入时 (fashionable).
		{"写入时报错", []want{{"写入", SourceGlossary, "write"}, {"报错", SourceGlossary, "error"}}, []string{"入时"}},
		// 中/的: a CC-CEDICT word holds no stop word (中的: hit the target).
		{"读取配置文件中的超时参数", []want{{"配置文件", SourceGlossary, "config"}, {"超时", SourceGlossary, "timeout"}}, []string{"中的"}},
		// 不够/用: 够用 would break 不够.
		{"栈空间不够用时扩容", []want{{"不够", SourceCEDICT, "insufficient"}, {"扩容", SourceGlossary, "grow"}}, []string{"够用"}},
		// gse's mis-cuts (数据/库拉/取, 客户/端公/钥) hold glossary words
		// that cover more of the question than the analyzer's words do.
		{"从数据库拉取用户列表", []want{{"数据库", SourceGlossary, "db"}, {"拉取", SourceGlossary, "pull"}}, []string{"数据"}},
		{"客户端公钥放在哪里", []want{{"客户端", SourceGlossary, "client"}, {"公钥", SourceGlossary, "pubkey"}}, []string{"客户"}},
		// 会/话: gse splits 会话 into a stop word and a character.
		{"会话断开后临时表消失", []want{{"会话", SourceGlossary, "session"}, {"临时表", SourceGlossary, "temporary"}}, nil},
		// ... but a glossary word never cuts a word out of the question:
		// 运行/时间 covers 4 characters, 运行时 (runtime) 3.
		{"运行时间太长的任务怎么取消", []want{{"运行", SourceGlossary, "run"}, {"时间", SourceGlossary, "time"}}, []string{"运行时"}},
		// CC-CEDICT may join whole words of the analyzer (下/一次).
		{"下一次垃圾回收什么时候触发", []want{{"下一次", SourceCEDICT, "next"}, {"垃圾回收", SourceGlossary, "gc"}}, []string{"一次"}},
		// Stop words are not expanded: the analyzer drops them.
		{"如何判断是否有哪些权限", []want{{"权限", SourceGlossary, "perm"}}, []string{"如何", "是否", "哪些"}},
	} {
		exps := Expand(tt.text, nil)
		for _, w := range tt.want {
			if e := find(exps, w.from); e == nil || e.Source != w.source || e.To[0] != w.to {
				t.Errorf("%s: %s = %+v, want %s first from %s (all: %+v)", tt.text, w.from, e, w.to, w.source, exps)
			}
		}
		for _, a := range tt.absent {
			if e := find(exps, a); e != nil {
				t.Errorf("%s: %s expanded: %+v", tt.text, a, exps)
			}
		}
	}
}

func TestExpandEnglishToChinese(t *testing.T) {
	exps := Expand("how to rollback a failed release", nil)
	e := find(exps, "rollback")
	if e == nil || e.Source != SourceGlossary || e.To[0] != "回滚" || len(e.To) > table.MaxReverse {
		t.Fatalf("rollback: %+v", e)
	}
	// Identifiers are split as the indexer splits them.
	if got := latinWords("retryCount max_conn X"); !reflect.DeepEqual(got, []string{"retry", "count", "max", "conn"}) {
		t.Errorf("latinWords: %v", got)
	}
	// ...unless a table has the identifier whole: its entry says what it
	// is, its parts' entries are other things (group: 分组, 用户组).
	if got := latinWords("sync.WaitGroup 的 Wait, IndexLookUp 算子"); !reflect.DeepEqual(got, []string{"sync", "waitgroup", "wait", "indexlookup"}) {
		t.Errorf("latinWords: %v", got)
	}
	exps = Expand("sync.WaitGroup 的 Wait 如何阻塞", nil)
	if e := find(exps, "waitgroup"); e == nil || e.Source != SourceGlossary || e.To[0] != "等待组" {
		t.Errorf("waitgroup: %+v", e)
	}
	if e := find(exps, "group"); e != nil {
		t.Errorf("WaitGroup's group expanded: %+v", e)
	}
	// CC-CEDICT's headwords for an English word are its commonest, not
	// the first in its pinyin order (喜吟吟 "grinning" for happy).
	if e := find(Expand("Happy Eyeballs dialing", nil), "happy"); e == nil || e.Source != SourceCEDICT || e.To[0] != "高兴" {
		t.Errorf("happy: %+v", e)
	}
	// Stop words the analyzer drops get no translations: "how" and
	// "my" (MySQL's part, CC-CEDICT's 小的) would stand beside no term
	// of the question, and only add noise in Chinese text.
	for _, w := range []string{"how", "to", "a", "my"} {
		if e := find(Expand("how to connect to MySQL from a Go app", nil), w); e != nil {
			t.Errorf("stop word expanded: %+v", e)
		}
	}
	// A product name is one word: the translations of its parts are not
	// what it means (db -> 数据库, flash -> 闪存).
	exps = Expand("上游 MySQL 的 binlog 怎么同步到 TiDB 和 TiFlash", nil)
	for _, w := range []string{"sql", "mysql", "db", "tidb", "flash", "tiflash"} {
		if e := find(exps, w); e != nil {
			t.Errorf("a name's part expanded: %+v", e)
		}
	}
	if e := find(exps, "binlog"); e == nil || e.To[0] != "二进制日志" {
		t.Errorf("binlog: %+v", e)
	}
	if got := latinWords("PostgreSQL retryCount maxMemory mTLS"); !reflect.DeepEqual(got, []string{"retry", "count", "max", "memory", "tls"}) {
		t.Errorf("latinWords: %v", got)
	}
	// CC-CEDICT is not asked for two-letter words (tb: 肺结核, go: 进入);
	// the glossary's abbreviations still expand.
	exps = Expand("go test 写满 2 TB 的盘, PR 怎么合并", nil)
	for _, w := range []string{"go", "tb"} {
		if e := find(exps, w); e != nil {
			t.Errorf("two-letter word expanded: %+v", e)
		}
	}
	if e := find(exps, "pr"); e == nil || e.Source != SourceGlossary {
		t.Errorf("pr: %+v", e)
	}
	if len(Expand("", nil)) != 0 || len(Expand("，。！", nil)) != 0 {
		t.Errorf("empty text expanded")
	}
}

// TestExpandEnglishInflections: an inflected English word gains the
// Chinese of its base form, which is what the tables hold (the analyzer
// folds plurals, so ports is searched as port): the glossary's base form
// before CC-CEDICT's inflected one (events: 事件, not 事变 "incident";
// moved: 移动, not 感触 "touched"), a word a table has as it is keeps its
// own entry, and a word that only looks inflected is no inflection
// (string is no form of str).
func TestExpandEnglishInflections(t *testing.T) {
	exps := Expand("TiFlash listening ports, syncing events, merged shards, the query cancels, queries timed out, regions moved", nil)
	for from, want := range map[string]string{
		"listening": "监听", "ports": "端口", "syncing": "同步", "events": "事件", "merged": "合并",
		"shards": "分片", "cancels": "取消", "queries": "查询", "moved": "移动", "regions": "区域",
	} {
		if e := find(exps, from); e == nil || e.Source != SourceGlossary || e.To[0] != want {
			t.Errorf("%s: %+v, want %s from the glossary", from, e, want)
		}
	}
	for w, want := range map[string][]string{
		"ports": {"port"}, "queries": {"query"}, "indexes": {"indexe", "index"},
		"merged": {"merge", "merg"}, "stopped": {"stoppe", "stopp", "stop"},
		"caching": {"cach", "cache"}, "thing": nil, "status": nil, "port": nil,
	} {
		if got := baseForms(w); !reflect.DeepEqual(got, want) {
			t.Errorf("baseForms(%s) = %v, want %v", w, got, want)
		}
	}
	// An entry for the word as it is wins over its base form's (changes:
	// 变动, change: 变更), and string is no form of str (the glossary's
	// str is 字符串): CC-CEDICT's string it stays.
	if v, src, _ := lookupEn("changes"); v != "变动" || src != SourceGlossary {
		t.Errorf("changes -> %s (%s), want 变动 from the glossary", v, src)
	}
	if _, src, _ := lookupEn("string"); src != SourceCEDICT {
		t.Errorf("string read as str: %s", src)
	}
}

// TestExpandModals: modal verbs and the auxiliary have gain no Chinese
// (may was 不得 "must not", have 没有 "not have": CC-CEDICT senses with a
// negation); the words beside them still do.
func TestExpandModals(t *testing.T) {
	exps := Expand("limit how long a single SELECT may run before TiDB cancels it; regions must have moved", nil)
	for _, w := range []string{"may", "must", "have"} {
		if e := find(exps, w); e != nil {
			t.Errorf("%s expanded: %+v", w, e)
		}
	}
	for from, want := range map[string]string{"limit": "限制", "cancels": "取消", "moved": "移动"} {
		if e := find(exps, from); e == nil || e.To[0] != want {
			t.Errorf("%s: %+v, want %s", from, e, want)
		}
	}
}

// TestExpandEnglishPhrases: the glossary's English phrases map back to
// their Chinese term and are found in a question as consecutive words,
// the last one in any inflection; a phrase's words are not translated
// one by one (block: 阻塞, sign: 签发 are other senses), and a phrase
// with one word the analyzer keeps is that word's concept (group by:
// the word group).
func TestExpandEnglishPhrases(t *testing.T) {
	exps := Expand("size the block cache; READ COMMITTED vs repeatable read; window functions and GROUP BY; sign in to the dashboard; the disk will run out of space", nil)
	for from, want := range map[string]string{
		"block cache": "块缓存", "read committed": "读已提交", "repeatable read": "可重复读",
		"window functions": "窗口函数", "group": "分组", "sign": "登录", "dashboard": "看板", "run out": "耗尽",
	} {
		if e := find(exps, from); e == nil || e.Source != SourceGlossary || e.To[0] != want {
			t.Errorf("%s: %+v, want %s (all: %+v)", from, e, want, exps)
		}
	}
	for _, w := range []string{"block", "cache", "window", "group by", "sign in", "out"} {
		if e := find(exps, w); e != nil {
			t.Errorf("%s translated on its own: %+v", w, e)
		}
	}
	if n, _ := phraseAt([]string{"out", "of"}); n != 0 {
		t.Errorf("out of: a phrase of function words matched")
	}
	_, en := table.Glossary("垃圾回收\tgc|garbage collection\n回收\treclaim|collection\n", nil)
	if got := en["garbage collection"]; !reflect.DeepEqual(got, []string{"垃圾回收"}) {
		t.Errorf("garbage collection -> %v", got)
	}
}

// wantFirstFromGlossary: each word of want is expanded from the glossary
// with its value as the first word added.
func wantFirstFromGlossary(t *testing.T, text string, want map[string]string) {
	t.Helper()
	exps := Expand(text, nil)
	for from, w := range want {
		if e := find(exps, from); e == nil || e.Source != SourceGlossary || e.To[0] != w {
			t.Errorf("%s: %+v, want %s (all: %+v)", from, e, w, exps)
		}
	}
}

// TestGlossaryDatabaseTerms: database administration and replication
// terms gain the words MySQL-style docs and configs use for them, and
// those words map back (relaylog -> 中继日志, semisync -> 半同步复制).
// A phrase that is only the word-by-word translation of its term's parts
// is not listed (write latency, batch update): the parts translate it, and
// as one concept it took each part's own translations from the question.
func TestGlossaryDatabaseTerms(t *testing.T) {
	wantFirstFromGlossary(t, "从库延迟很高，中继日志堆积，半同步复制退化成异步", map[string]string{
		"从库延迟": "seconds behind master", "中继日志": "relaylog", "半同步复制": "semisync",
	})
	wantFirstFromGlossary(t, "enable semisync and check relaylog_info and GTID", map[string]string{
		"semisync": "半同步复制", "relaylog": "中继日志", "gtid": "全局事务标识",
	})
	en := table.Parse(glossaryEn)
	for _, p := range []string{"write latency", "batch update", "data directory", "cluster status"} {
		if got, ok := en[p]; ok {
			t.Errorf("%s -> %v, a word-by-word phrase listed", p, got)
		}
	}
}

// TestGlossarySQLCompoundsKeepThePlainSense: a compound listed for the
// SQL statement docs name it by (删除用户 DROP USER, 创建索引 ADD INDEX)
// is found whole, so its parts are not translated on their own; it keeps
// the plain words too, or a question about code (deleteUser,
// createIndex, changePassword) would lose the verb code writes.
func TestGlossarySQLCompoundsKeepThePlainSense(t *testing.T) {
	for text, want := range map[string][]string{
		"删除用户":  {"drop user", "delete user"},
		"删除数据库": {"drop database", "delete database"},
		"创建索引":  {"add index", "create index"},
		"删除索引":  {"drop index", "delete index"},
		"删除分区":  {"drop partition", "delete partition"},
		"修改密码":  {"set password", "change password"},
	} {
		e := find(Expand(text, nil), text)
		if e == nil || e.Source != SourceGlossary {
			t.Errorf("%s: %+v, want it from the glossary", text, e)
			continue
		}
		for _, w := range want {
			if !slices.Contains(e.To, w) {
				t.Errorf("%s -> %v, want %q among them", text, e.To, w)
			}
		}
	}
}

// TestGlossaryOpsTerms: terms of art of distributed systems, operations,
// data pipelines and security whose English their Chinese parts do not
// give (惊群 is no "startle group", 拨测 no "dial test") gain it, and it
// maps back (mttr -> 平均修复时间, stonith -> 隔离节点). Compounds whose
// parts each give a word of their English (虚拟节点 virtual node, 告警风暴
// alert storm) are not listed: their parts already translate them.
func TestGlossaryOpsTerms(t *testing.T) {
	wantFirstFromGlossary(t, "惊群效应导致故障，拨测发现平均修复时间太长，同步副本集缩小", map[string]string{
		"惊群效应": "thundering herd", "拨测": "synthetic", "平均修复时间": "mttr", "同步副本集": "isr",
	})
	wantFirstFromGlossary(t, "mttr went up after the stonith; run a pentest on the bastion", map[string]string{
		"mttr": "平均修复时间", "stonith": "隔离节点", "pentest": "渗透测试", "bastion": "跳板机",
	})
	zh := table.Parse(glossaryZh)
	for _, w := range []string{"虚拟节点", "告警风暴", "数据管道", "镜像扫描"} {
		if got, ok := zh[w]; ok {
			t.Errorf("%s -> %v, a word-by-word compound listed", w, got)
		}
	}
	// The new words do not take an older term's English: a phrase that
	// holds one is still cut into the older words (存储类型, not 存储类 + 型).
	if e := find(Expand("存储类型和备份集群", nil), "存储类"); e != nil {
		t.Errorf("存储类 matched inside 存储类型: %+v", e)
	}
}

// TestGlossarySQLTermsOfArt: the second database batch. Terms of art
// of SQL types, collations, locking, plans, statistics and sessions whose
// English their Chinese parts do not give (临键锁 is no "adjacent key
// lock", 驱动表 no "driver table", 校对规则 no "proofread rule") gain it,
// and it maps back. English words an older term names keep it (secondary
// index is 二级索引, unnest 子查询展开, div 除法, out of range 越界), and
// compounds whose parts give their English (强制索引 force index, 信息模式
// information schema, 写偏斜 write skew) are not listed.
func TestGlossarySQLTermsOfArt(t *testing.T) {
	wantFirstFromGlossary(t, "临键锁和排他锁，驱动表选错了，校对规则不对，表情符号乱码", map[string]string{
		"临键锁": "next key lock", "排他锁": "exclusive lock", "驱动表": "driving table",
		"校对规则": "collation", "表情符号": "emoji",
	})
	wantFirstFromGlossary(t, "raise max_allowed_packet, check lower_case_table_names and the zerofill tinyint", map[string]string{
		"max allowed packet": "最大包大小", "lower case table names": "表名大小写",
		"zerofill": "零填充", "tinyint": "微整数",
	})
	en := table.Parse(glossaryEn)
	for w, want := range map[string]string{
		"secondary index": "二级索引", "unnest": "子查询展开", "div": "除法",
		"out of range": "越界", "rollup": "降采样", "collation": "排序规则",
	} {
		if got := en[w]; len(got) == 0 || got[0] != want {
			t.Errorf("%s -> %v, want %s", w, got, want)
		}
	}
	zh := table.Parse(glossaryZh)
	for _, w := range []string{"强制索引", "信息模式", "写偏斜", "物理算子"} {
		if got, ok := zh[w]; ok {
			t.Errorf("%s -> %v, a word-by-word compound listed", w, got)
		}
	}
}

// TestTablesInStep: the embedded glossary tables are what go generate
// makes of glossary.tsv now (run `go generate ./expand` after editing it).
func TestTablesInStep(t *testing.T) {
	src, err := os.ReadFile("glossary.tsv")
	if err != nil {
		t.Fatal(err)
	}
	zh, en := table.Glossary(string(src), table.Parse(cedictZh))
	header := "Generated by expand/internal/genglossary from glossary.tsv. DO NOT EDIT."
	if table.Format(header, zh) != glossaryZh || table.Format(header, en) != glossaryEn {
		t.Fatal("glossary_zh.tsv / glossary_en.tsv are out of date: run go generate ./expand")
	}
	if len(zh) < 800 {
		t.Errorf("glossary has %d entries", len(zh))
	}
	for k := range zh {
		if n := utf8.RuneCountInString(k); n > maxZhMatch {
			t.Errorf("glossary term %s has %d characters, more than maxZhMatch (%d): it never matches", k, n, maxZhMatch)
		}
	}
}

// TestParaphraseInStep: paraphrase_zh.tsv is what go generate makes of
// paraphrase.tsv; its keys can match (at most maxZhMatch characters) and
// its values are Chinese, at most maxExpandedWords... three of them.
func TestParaphraseInStep(t *testing.T) {
	src, err := os.ReadFile("paraphrase.tsv")
	if err != nil {
		t.Fatal(err)
	}
	zh, _ := table.Glossary(string(src), nil)
	if table.Format("Generated by expand/internal/genglossary from paraphrase.tsv. DO NOT EDIT.", zh) != paraphraseZh {
		t.Fatal("paraphrase_zh.tsv is out of date: run go generate ./expand")
	}
	for k, vs := range zh {
		if n := utf8.RuneCountInString(k); n > maxZhMatch {
			t.Errorf("paraphrase %s has %d characters, more than maxZhMatch (%d)", k, n, maxZhMatch)
		}
		if len(vs) > 3 {
			t.Errorf("paraphrase %s lists %d words; search uses the first three", k, len(vs))
		}
		for _, v := range vs {
			if v == k {
				t.Errorf("paraphrase %s lists itself", k)
			}
		}
	}
}

// TestTablesListEachKeyOnce: go generate keeps the first line of a
// repeated key and skips a line without a tab, both silently, so a
// batch appended to glossary.tsv or paraphrase.tsv that repeats an
// older key, or lost its tab, would drop words unseen.
func TestTablesListEachKeyOnce(t *testing.T) {
	for _, name := range []string{"glossary.tsv", "paraphrase.tsv"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for i, line := range strings.Split(string(src), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			k, _, ok := strings.Cut(line, "\t")
			if !ok {
				t.Errorf("%s:%d: no tab between the key and its words: %q", name, i+1, line)
				continue
			}
			k = strings.TrimSpace(k)
			if first, dup := seen[k]; dup {
				t.Errorf("%s:%d: %s is listed already at line %d; go generate keeps only the first", name, i+1, k, first)
				continue
			}
			seen[k] = i + 1
		}
	}
}

// TestExpandParaphrase: a colloquial word gains the written words docs
// use (起不来 -> 启动失败), a word the glossary also has gains both its
// English and its written synonyms, and the translations stay what they
// were without the table (栈不够用: 不够 -> enough from CC-CEDICT, and
// 不够用 -> 不足 beside it).
func TestExpandParaphrase(t *testing.T) {
	exps := Expand("服务器起不来怎么办", nil)
	var para, gloss *Expansion
	for i, e := range exps {
		switch {
		case e.From == "起不来" && e.Source == SourceParaphrase:
			para = &exps[i]
		case e.From == "服务器" && e.Source == SourceGlossary:
			gloss = &exps[i]
		}
	}
	if para == nil || para.To[0] != "启动失败" {
		t.Errorf("起不来: %+v, want 启动失败 first (paraphrase)", exps)
	}
	if gloss == nil || gloss.To[0] != "server" {
		t.Errorf("服务器: %+v, want server (glossary)", exps)
	}
	if e := find(exps, "服务器"); e == nil {
		t.Errorf("服务器 not expanded: %+v", exps)
	}
	n := 0
	for _, e := range exps {
		if e.From == "服务器" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("服务器 gains %d expansions, want the glossary's and the paraphrase table's: %+v", n, exps)
	}
	for _, e := range Expand("为什么服务器起不来，怎么办", nil) {
		if e.Source == SourceParaphrase && (e.From == "为什么" || e.From == "怎么办") {
			t.Errorf("a question word gained %+v: question words ask, they say nothing the answer says", e)
		}
	}
	exps = Expand("栈不够用时扩容", nil)
	if e := find(exps, "不够"); e == nil || e.Source != SourceCEDICT || e.To[0] != "insufficient" {
		t.Errorf("不够: %+v, want insufficient (cedict) as without paraphrases", exps)
	}
	if e := find(exps, "不够用"); e == nil || e.Source != SourceParaphrase {
		t.Errorf("不够用: %+v, want a paraphrase", exps)
	}
}

// TestExpandParaphraseEveryday: the table's everyday speech (time and
// history, the web UI, writing queries, copying, hiding and renaming,
// spreading work) gains the written words docs use, and a key never
// takes the start of an older key in a phrase people type: 每天跑批
// keeps 跑批, 看内存泄露 keeps 内存泄露, 一段时间内存爆 keeps 内存爆.
func TestExpandParaphraseEveryday(t *testing.T) {
	for _, c := range []struct{ text, from, want string }{
		{"过去一段时间的慢查询", "过去一段时间", "历史"},
		{"网页上点一下就行吗", "点一下", "点击"},
		{"写条sql把重复的捞出来", "捞出来", "查询"},
		{"照着线上复制一份配置", "复制一份", "复制"},
		{"列藏起来别人就看不到", "藏起来", "隐藏"},
		{"上线后改表名", "改表名", "重命名表"},
		{"把压力分摊到每个节点", "分摊", "分散"},
		{"翻了一倍", "翻了一倍", "翻倍"},
		{"每天跑批", "跑批", "批处理"},
		{"怎么看内存泄露", "内存泄露", "内存泄漏"},
		{"过一段时间内存爆了", "内存爆", "内存溢出"},
		{"当时间不同步时", "时间不同步", "时钟同步"},
		{"针对数据量大的表", "数据量大", "大量数据"},
	} {
		var got *Expansion
		exps := Expand(c.text, nil)
		for i, e := range exps {
			if e.Source == SourceParaphrase && e.From == c.from {
				got = &exps[i]
			}
		}
		if got == nil || got.To[0] != c.want {
			t.Errorf("%s: %s gains %+v, want %s first (paraphrase)", c.text, c.from, got, c.want)
		}
	}
}

// TestLookup: bisection finds every key of every table, and nothing else.
func TestLookup(t *testing.T) {
	for name, tab := range map[string]string{"glossary_zh": glossaryZh, "glossary_en": glossaryEn, "cedict_zh": cedictZh, "cedict_en": cedictEn} {
		lines := strings.Split(strings.TrimSuffix(tab, "\n"), "\n")
		if !strings.HasPrefix(lines[0], "# ") {
			t.Fatalf("%s: no header", name)
		}
		for i, line := range lines[1:] {
			if i%7 != 0 && name[:6] == "cedict" {
				continue // a sample of the big tables is enough
			}
			k, v, _ := strings.Cut(line, "\t")
			if got, ok := lookup(tab, k); !ok || got != v {
				t.Fatalf("%s: lookup(%q) = %q, %v; want %q", name, k, got, ok, v)
			}
			if _, ok := lookup(tab, k+"\x01"); ok {
				t.Fatalf("%s: found %q", name, k+"\x01")
			}
		}
		for _, k := range []string{"", "#", "zzzzzz", "\xff"} {
			if _, ok := lookup(tab, k); ok {
				t.Errorf("%s: found %q", name, k)
			}
		}
	}
}

// TestGlossaryReverse: an English word maps to the one Chinese term it
// translates whole, the earliest-listed, the shorter among equals, then
// in file order. Entries as glossary.tsv and CC-CEDICT have them.
func TestGlossaryReverse(t *testing.T) {
	_, en := table.Glossary("字符串驻留\tintern|string\n驻留\tintern\n字符序列\tstring\n字符串\tstring|str\n串\tstring\n", nil)
	if got, want := en["string"], []string{"串"}; !reflect.DeepEqual(got, want) {
		t.Errorf("string -> %v, want %v", got, want)
	}
	if got, want := en["intern"], []string{"驻留"}; !reflect.DeepEqual(got, want) {
		t.Errorf("intern -> %v, want %v", got, want)
	}
	glossary := `时间戳预言机	tso|oracle|timestamp
时间戳分配	tso|timestamp
时间戳	timestamp|ts|unix time
编码方式	encoding|charset
编码	encode|encoding|enc|codec
分组密码	cipher|block|block cipher
比较并交换	cas|compareandswap|compare and swap
应用程序接口	api
接口	interface|iface|api
`
	cedict := map[string][]string{"编码": {"code", "encode"}, "密码": {"cipher", "secret", "code", "password"}}
	_, en = table.Glossary(glossary, cedict)
	for w, want := range map[string][]string{
		"timestamp": {"时间戳"},   // not the compounds holding 时间戳
		"tso":       {"时间戳分配"}, // an abbreviation names the whole (the shorter)
		"cas":       {"比较并交换"},
		"charset":   {"编码方式"},
		"api":       {"应用程序接口"}, // its only English, listed first
		"encoding":  {"编码"},     // not 编码方式
		"cipher":    nil,        // CC-CEDICT's 密码 holds it
		"block":     {"分组密码"},
	} {
		if got := en[w]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s -> %v, want %v", w, got, want)
		}
	}
	// Without CC-CEDICT, cipher's 密码 is no known part.
	if _, en := table.Glossary(glossary, nil); !reflect.DeepEqual(en["cipher"], []string{"分组密码"}) {
		t.Errorf("cipher without CC-CEDICT -> %v", en["cipher"])
	}
}

// TestGlossaryCommonWords: a common English word maps back to its main
// technical sense, not to an entry that lists it first for a compound or
// a special use (connect once went to 隧道代理, ip to 网络层, binary to
// 二分, lookup to 用户查询), and a word no term translates maps nowhere
// (sql, json, true). The fix belongs in glossary.tsv (see GLOSSARY.md).
func TestGlossaryCommonWords(t *testing.T) {
	en := table.Parse(glossaryEn)
	for w, want := range map[string]string{
		"connect": "连接", "ip": "网际协议", "binary": "二进制", "lookup": "查找",
		"error": "错误", "server": "服务", "list": "列表", "name": "名称",
		"order": "顺序", "status": "状态", "replica": "副本", "gc": "垃圾回收",
		"master": "主库", "location": "位置", "issue": "工单",
	} {
		if got := en[w]; len(got) == 0 || got[0] != want {
			t.Errorf("%s -> %v, want %s", w, got, want)
		}
	}
	// oracle is a product before it is TiDB's timestamp oracle (时间戳预言机
	// lists the phrase).
	for _, w := range []string{"sql", "json", "true", "up", "pd", "oracle"} {
		if got, ok := en[w]; ok {
			t.Errorf("%s -> %v, want no translation", w, got)
		}
	}
}

// TestSeek: seek finds what lookup finds, and says whether a longer key
// starts with the one asked for, checked against the table's own lines.
func TestSeek(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(glossaryZh, "\n"), "\n")[1:]
	keys := map[string]bool{}
	for _, line := range lines {
		k, _, _ := strings.Cut(line, "\t")
		keys[k] = true
	}
	prefixed := func(p string) bool {
		for k := range keys {
			if len(k) > len(p) && strings.HasPrefix(k, p) {
				return true
			}
		}
		return false
	}
	for i, line := range lines {
		if i%5 != 0 {
			continue
		}
		k, v, _ := strings.Cut(line, "\t")
		rs := []rune(k)
		for n := 1; n <= len(rs); n++ {
			p := string(rs[:n])
			got, ok, more := seek(glossaryZh, p)
			want, wantOK := lookup(glossaryZh, p)
			if ok != wantOK || got != want || more != prefixed(p) {
				t.Fatalf("seek(%q) = %q, %v, %v; want %q, %v, %v", p, got, ok, more, want, wantOK, prefixed(p))
			}
		}
		if got, ok, _ := seek(glossaryZh, k); !ok || got != v {
			t.Fatalf("seek(%q) = %q, %v; want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"\xff", "\U0010ffff"} {
		if _, ok, more := seek(glossaryZh, k); ok || more {
			t.Errorf("seek(%q) found something", k)
		}
	}
}

func BenchmarkExpand(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Expand("goroutine 的栈空间不够用时如何扩容并拷贝旧栈 copystack", nil)
	}
}

// TestNumbers: a duration or count in Chinese numerals gains its digit
// form and, for a duration, Go's spelling; words that merely hold a
// numeral character are left alone.
func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		text string
		want map[string]string // from -> the expansion's words joined with |
	}{
		{"旧数据只保留十分钟", map[string]string{"十分钟": "10 分钟|10m0s"}},
		{"超过三十五秒就超时", map[string]string{"三十五秒": "35 秒|35s"}},
		{"两小时后", map[string]string{"两小时": "2 小时|2h0m0s"}},
		{"三副本里坏了两节点", map[string]string{"三副本": "3 副本", "两节点": "2 节点"}},
		{"这一点十分重要", nil},
		{"一下子就好了", nil},
		// The tail of a longer numeral is not a number of its own: 一百二十秒
		// is 120 seconds, not 20; 一百零五分钟 105 minutes; 一点五小时 1.5
		// hours; 几十秒 some tens of seconds.
		{"超时一百二十秒", nil},
		{"等了一百零五分钟", nil},
		{"三千五百秒", nil},
		{"一点五小时", nil},
		{"几十秒", nil},
		{"〇五分钟", nil},
		{"一亿亿", nil},
		{"两千万分钟", nil},
		{"〇", nil},
	} {
		got := map[string]string{}
		for _, m := range numbers([]rune(tc.text)) {
			got[m.word] = m.value
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.text, got, tc.want)
			continue
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s -> %q, want %q", tc.text, k, got[k], v)
			}
		}
	}
	if e := find(Expand("数据只保留十分钟", nil), "十分钟"); e == nil || e.Source != SourceParaphrase || e.To[0] != "10 分钟" {
		t.Errorf("Expand: 十分钟 -> %+v, want 10 分钟 (paraphrase)", e)
	}
}
