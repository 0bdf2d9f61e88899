package search

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// Two pages that say the same words, once with the question's words side
// by side and once apart, score alike by BM25F; with the proximity lever
// the one that says them together ranks first, and --explain shows what
// it added and for which words. Without it the order is the tie's (the
// first file first), so the lever is what reorders them.
func TestProximityOrdersAdjacentFirst(t *testing.T) {
	for _, tc := range []struct {
		name, query         string
		together, scattered string
		pair                string
	}{
		// TiDB's docs, configure-memory-usage.md, in English.
		{"english", "memory limit",
			"Set the memory limit of the tidb-server instance. The quota applies to each query.",
			"Set the memory quota of the tidb-server instance. The limit applies to each query.",
			"memory~limit"},
		// identify-slow-queries.md: 慢查询日志 is cut 慢 + 查询 + 日志, in
		// the question and in the pages alike; a page that writes it whole
		// holds the three side by side.
		{"chinese", "慢查询日志",
			"开启慢查询日志。记录执行计划。",
			"慢：开启执行计划。查询：记录日志。",
			"查询~日志"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			an := segment.Tiny()
			a, b := an.Terms(tc.together), an.Terms(tc.scattered)
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Fatalf("the fixture's pages must hold the same terms: %v, %v", a, b)
			}
			files := []store.AnalyzedFile{
				overlayFile("scattered.md", "", "Scattered", tc.scattered, 1),
				overlayFile("together.md", "", "Together", tc.together, 2),
				// A page on another topic, for document frequencies.
				overlayFile("gc.md", "", "GC", "TiDB uses MVCC; GC cleans up old versions of data. 垃圾回收清理旧版本的数据。", 3),
			}
			search := func(levers map[string]bool) []Result {
				t.Helper()
				req := Request{Query: tc.query, K: 5, Mode: ModeLexical, View: &store.View{}, Levers: levers,
					Explain: true, Overlay: &Overlay{Files: files}}
				s := &Searcher{ReadBlob: func(store.SHA) ([]byte, error) { return nil, context.Canceled }}
				resp, err := s.Search(t.Context(), req)
				if err != nil {
					t.Fatal(err)
				}
				return resp.Results
			}
			off := search(nil)
			if len(off) < 2 || off[0].Path != "scattered.md" || off[0].Score != off[1].Score {
				t.Fatalf("%q without proximity: %+v, want the two pages tied, the first one first", tc.query, off)
			}
			if x := off[0].Explain; x.Proximity != 0 || x.ProximityPairs != nil {
				t.Errorf("proximity explained with the lever off: %+v", x)
			}
			on := search(map[string]bool{LeverProximity: true})
			if len(on) < 2 || on[0].Path != "together.md" || on[1].Path != "scattered.md" {
				t.Fatalf("%q with proximity: %v, want together.md first", tc.query, on)
			}
			x := on[0].Explain
			if x.Proximity <= 0 || len(x.ProximityPairs) == 0 || !slices.Contains(x.ProximityPairs, tc.pair) {
				t.Errorf("--explain of together.md: proximity %v pairs %v, want a gain and the pair %s", x.Proximity, x.ProximityPairs, tc.pair)
			}
			if math.Abs(x.BestChunk+x.Support+x.File-on[0].Score) > 1e-3 || on[0].Score <= on[1].Score {
				t.Errorf("parts %+v do not make the score %v", x, on[0].Score)
			}
		})
	}
}

// proxScore is chunkScore for query over text, the query analyzed and
// expanded as Search does.
func proxScore(t *testing.T, query, text string) (float64, []string, *proxConcepts) {
	t.Helper()
	req := Request{Query: query}
	q, err := analyze(req, segment.Tiny())
	if err != nil {
		t.Fatal(err)
	}
	expandQuery(req, q)
	pc := newProxConcepts(q)
	var terms []string
	for _, qt := range q.terms {
		terms = append(terms, qt.term)
	}
	sc, pairs := pc.chunkScore(segment.Tiny(), text, terms)
	return sc, pairs, pc
}

// A word and the shorter words the analyzer cuts from it (数据库 -> 数据),
// or the parts of an identifier, are one concept: they never make a pair.
func TestProximitySubwordsNeverPair(t *testing.T) {
	_, _, pc := proxScore(t, "数据库", "")
	if pc.of["数据库"] != pc.of["数据"] {
		t.Fatalf("数据库 and its 数据: concepts %v, want one", pc.of)
	}
	if sc, pairs, _ := proxScore(t, "数据库", "数据库里的数据，备份数据库。"); sc != 0 || pairs != nil {
		t.Errorf("数据库 alone: gain %v pairs %v, want none", sc, pairs)
	}
	if sc, pairs, _ := proxScore(t, "retryCount", "retry the request: count each retry, then retryCount is reset"); sc != 0 || pairs != nil {
		t.Errorf("retryCount alone: gain %v pairs %v, want none", sc, pairs)
	}
	near, pairs, _ := proxScore(t, "数据库 备份", "定期备份数据库。")
	far, _, _ := proxScore(t, "数据库 备份", "定期备份集群的配置文件和日志，之后再检查数据库。")
	if near <= far || !slices.Equal(pairs, []string{"数据库~备份"}) {
		t.Errorf("备份数据库: gain %v pairs %v, 备份 ... 数据库: %v; want the adjacent words to gain more, as one pair", near, pairs, far)
	}
}

// A translation counts as its word's concept: English code that names
// the two words of a Chinese question side by side (deleteOrder) gains as
// the Chinese would, and a word beside its own translation gains nothing.
// (删除订单: the glossary lists no compound for it, as it does for
// 删除用户, DROP USER, whose translations are one concept of their own.)
func TestProximityTranslations(t *testing.T) {
	_, _, pc := proxScore(t, "删除订单", "")
	if pc.of["delete"] != pc.of["删除"] || pc.of["order"] != pc.of["订单"] || pc.of["删除"] == pc.of["订单"] {
		t.Fatalf("concepts %v, want delete with 删除 and order with 订单", pc.of)
	}
	sc, pairs, _ := proxScore(t, "删除订单", "func (s *Server) deleteOrder(ctx context.Context, id string) error {")
	if sc <= 0 || !slices.Equal(pairs, []string{"删除~订单"}) {
		t.Errorf("deleteOrder for 删除订单: gain %v pairs %v, want the pair 删除~订单", sc, pairs)
	}
	if sc, pairs, _ := proxScore(t, "删除订单", "// 删除 (delete) 一个实例"); sc != 0 || pairs != nil {
		t.Errorf("删除 beside delete: gain %v pairs %v, want none", sc, pairs)
	}
	// A word the analyzer cuts into several terms that the glossary knows
	// whole: its terms side by side pair (the word the cut missed), its
	// translation pairs with none of them.
	sc, pairs, _ = proxScore(t, "慢查询日志", "slow query log: 慢查询日志")
	if sc <= 0 || slices.ContainsFunc(pairs, func(p string) bool {
		return p == "慢~慢查询日志" || p == "查询~慢查询日志" || p == "日志~慢查询日志"
	}) {
		t.Errorf("慢查询日志 beside its translation: gain %v pairs %v, want its terms' pairs only", sc, pairs)
	}
}

// Distance counts a Latin word (an identifier is one) as one and a
// Chinese character as half.
func TestHalfWords(t *testing.T) {
	text := "retry_count 的 数据库"
	pos := halfWords(text)
	for _, tc := range []struct {
		at   string
		want int32
	}{{"count", 2}, {"的", 2}, {"数据库", 3}} {
		i := strings.Index(text, tc.at)
		if pos[i] != tc.want {
			t.Errorf("half words before %q: %d, want %d", tc.at, pos[i], tc.want)
		}
	}
	if pos[len(text)] != 6 {
		t.Errorf("half words in %q: %d, want 6", text, pos[len(text)])
	}
}

// BenchmarkProximityChunk is proximity's work on one docs-sized chunk
// (~1.5 KB, Chinese with identifiers): the dictionary of its Chinese
// runs that hold a query word, their cut, the distances.
func BenchmarkProximityChunk(b *testing.B) {
	text := strings.Repeat("TiDB 会将执行时间超过阈值（由 `tidb_slow_log_threshold` 设置，默认 300 毫秒）的语句输出到慢查询日志中，"+
		"用于定位慢查询语句，分析和解决 SQL 执行的性能问题。慢查询日志默认开启，可以通过修改配置项 `enable-slow-log` 来关闭。\n", 4)
	req := Request{Query: "慢查询日志的阈值怎么设置"}
	q, err := analyze(req, segment.Tiny())
	if err != nil {
		b.Fatal(err)
	}
	expandQuery(req, q)
	pc := newProxConcepts(q)
	var terms []string
	for _, qt := range q.terms {
		terms = append(terms, qt.term)
	}
	b.ReportAllocs()
	for b.Loop() {
		an := segment.Tiny().ForMatch([]string{text}, terms)
		if sc, _ := pc.chunkScore(an, text, terms); sc <= 0 {
			b.Fatal("no gain")
		}
	}
}
