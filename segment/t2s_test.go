package segment

import (
	"slices"
	"strings"
	"testing"
)

// TestFoldTraditional: traditional characters are analyzed as simplified
// ones, so a question in one script meets a document in the other;
// simplified text, and what the table leaves alone, stay as they are.
func TestFoldTraditional(t *testing.T) {
	for in, want := range map[string]string{
		"慢查詢日誌在哪裡看":           "慢查询日志在哪里看",
		"發佈後如何回滾？":            "发布后如何回滚?",
		"資料庫連線池打滿":            "资料库连线池打满", // the characters, not Taiwan's words (資料庫 is 数据库 in the mainland)
		"慢查询日志在哪里看":           "慢查询日志在哪里看",
		"乾隆 著作 TiKV 的 Region": "乾隆 著作 TiKV 的 Region", // written in simplified words too: kept
		"ＴｉＤＢ 叢集":             "TiDB 丛集",             // width folded as well
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	// Every pair keeps its UTF-8 length: byte offsets into the original
	// hold for the folded text (highlights point into the original).
	for line := range strings.Lines(zht2s) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		tr, sm, _ := strings.Cut(strings.TrimSpace(line), "\t")
		if len(tr) != len(sm) || Normalize(tr) != sm {
			t.Errorf("pair %q -> %q: folds to %q", tr, sm, Normalize(tr))
		}
	}
}

// TestTraditionalTerms: a traditional question is cut into the terms of
// its simplified form, and its spans still point into the original text.
func TestTraditionalTerms(t *testing.T) {
	trad, simp := "發佈失敗後怎麼回滾版本", "发布失败后怎么回滚版本"
	if got, want := Tiny().Terms(trad), Tiny().Terms(simp); !slices.Equal(got, want) {
		t.Fatalf("Terms(%q) = %v, want %v (as %q)", trad, got, want, simp)
	}
	for _, sp := range Tiny().Spans(trad) {
		if Normalize(trad[sp.Start:sp.End]) != sp.Term && !strings.Contains(Normalize(trad[sp.Start:sp.End]), sp.Term) {
			t.Errorf("span %d-%d %q does not hold term %q", sp.Start, sp.End, trad[sp.Start:sp.End], sp.Term)
		}
	}
}

func BenchmarkNormalize(b *testing.B) {
	for _, tc := range []struct{ name, text string }{
		{"simplified", strings.Repeat("线上数据库连接池打满时，先检查慢查询，再调大 maxOpenConns 参数。", 50)},
		{"traditional", strings.Repeat("線上資料庫連線池打滿時，先檢查慢查詢，再調大 maxOpenConns 參數。", 50)},
		{"ascii", strings.Repeat("func (c *Conn) Close() error { return c.fd.Close() } // close the connection\n", 50)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			for b.Loop() {
				Normalize(tc.text)
			}
		})
	}
}
