package segment

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSpansCutAsTerms: Spans yields exactly Terms' terms, in order, and
// each span's text is what produced its term.
func TestSpansCutAsTerms(t *testing.T) {
	texts := []string{
		"TiKV 磁盘快满了应该怎么处理",
		"duration max-sub-compactions tidb TiKV_config retryCount HTTPServer v7.5.0",
		"中华人民共和国的数据库连接池打满时，先检查慢查询。",
		"ＡＢＣ１２３ 全角ＲｅｔｒｙＣｏｕｎｔ，和　空格",
		"files indexes policies the and of",
		"git.PlainOpen ER-1105 end. trailing-",
		"bad \xff\xfe utf8 混合 text",
		"",
	}
	for _, an := range []*Analyzer{Tiny(), Full()} {
		for _, text := range texts {
			spans := an.Spans(text)
			var got []string
			for _, s := range spans {
				got = append(got, s.Term)
				if s.Start < 0 || s.End > len(text) || s.Start > s.End {
					t.Fatalf("%q: span %+v out of range", text, s)
				}
				piece := strings.ToLower(Normalize(text[s.Start:s.End]))
				if piece != s.Term && stem(piece) != s.Term && !strings.Contains(piece, s.Term) {
					t.Errorf("%q: span %+v covers %q", text, s, piece)
				}
			}
			if want := an.Terms(text); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("%q:\nspans %q\nterms %q", text, got, want)
			}
		}
	}
}

// TestMarksWholeTokens: highlighting marks what the analyzer cut, never a
// term inside a word it is a substring of (issue 15: dura**ti**on).
func TestMarksWholeTokens(t *testing.T) {
	an := Tiny()
	terms := an.Terms("TiKV 磁盘快满了应该怎么处理")
	cases := []struct{ text, want string }{
		{"duration max-sub-compactions tidb", "duration max-sub-compactions tidb"},
		{"TiKV 的磁盘满了", "[TiKV] 的[磁盘]满了"},
		{"when the Ti node stops", "when the [Ti] node stops"},
		{"处理 tikv-server 问题", "[处理] [tikv]-server 问题"},
	}
	for _, c := range cases {
		if got := an.Mark(c.text, terms, "[", "]"); got != c.want {
			t.Errorf("Mark(%q, %q) = %q, want %q", c.text, terms, got, c.want)
		}
	}
	// An out-of-vocabulary word the query kept whole spans several words.
	if got := an.Mark("先回滚再说", []string{"回滚"}, "[", "]"); got != "先[回滚]再说" {
		t.Errorf("run of words: %q", got)
	}
	if got := an.Mark("retryCount and files", []string{"retry", "file"}, "[", "]"); got != "[retry]Count and [files]" {
		t.Errorf("parts and stems: %q", got)
	}
}

// TestMarksChineseAcrossCuts: 立即回滚到 is cut 立即|回|滚到, yet 回滚 is
// written there and is marked.
func TestMarksChineseAcrossCuts(t *testing.T) {
	if got := Tiny().Mark("应当立即回滚到上一个版本", []string{"回滚"}, "[", "]"); got != "应当立即[回滚]到上一个版本" {
		t.Errorf("got %q", got)
	}
}

// TestForCutsAsTiny: an analyzer built For a batch of texts (one
// dictionary for all, as search's highlighting uses it) cuts and marks
// each of them, and a text outside the batch, exactly as Tiny does.
func TestForCutsAsTiny(t *testing.T) {
	sents := corpusSentences(t, 600)
	outside := "线上数据库连接池打满时，先检查慢查询，再调大 maxOpenConns 参数。"
	for i := 0; i+10 <= len(sents); i += 10 {
		batch := sents[i : i+10]
		an := Tiny().For(batch)
		if an.pre == nil {
			t.Fatalf("no dictionary built for %q", batch)
		}
		_, rs := wordSpans(batch[0])
		var runs []string
		for _, r := range rs {
			runs = append(runs, Normalize(batch[0][r.start:r.end]))
		}
		if an.segmenter(runs) != an.pre {
			t.Fatalf("%q: not cut by the batch's dictionary", batch[0])
		}
		terms := Tiny().Terms(sents[(i+10)%len(sents)] + " " + batch[3])
		for _, s := range append(batch, outside) {
			if got, want := an.Spans(s), Tiny().Spans(s); !reflect.DeepEqual(got, want) {
				t.Fatalf("spans of %q:\n got %v\nwant %v", s, got, want)
			}
			if got, want := an.Terms(s), Tiny().Terms(s); !reflect.DeepEqual(got, want) {
				t.Fatalf("terms of %q:\n got %q\nwant %q", s, got, want)
			}
			if got, want := an.Match(s, terms), Tiny().Match(s, terms); !reflect.DeepEqual(got, want) {
				t.Fatalf("match of %q:\n got %v\nwant %v", s, got, want)
			}
		}
	}
}

// TestWords: Words is the cut Terms comes from: its words spell the run,
// stop words included, each with the analyzer's cut of it into shorter
// words, and a vocabulary word is one word.
func TestWords(t *testing.T) {
	run := "怎么把错误信息翻译成中文"
	ws := Tiny().Words(run)
	var texts []string
	parts := map[string][]string{}
	for _, w := range ws {
		texts = append(texts, w.Text)
		for _, p := range w.Parts {
			parts[w.Text] = append(parts[w.Text], p.Text)
		}
	}
	if strings.Join(texts, "") != run {
		t.Fatalf("Words(%s) = %q, does not spell the run", run, texts)
	}
	if !slices.Contains(texts, "怎么") || !slices.Contains(texts, "翻译成") {
		t.Errorf("Words(%s) = %q, want the stop word 怎么 and 翻译成 among them", run, texts)
	}
	if got := parts["翻译成"]; !reflect.DeepEqual(got, []string{"翻译", "成"}) {
		t.Errorf("parts of 翻译成: %q, want 翻译 成", got)
	}
	v, _, err := ParseVocab("回滚\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Tiny().Words("立即回滚"); len(got) != 2 || got[1].Text != "回滚" {
		t.Errorf("with 回滚 in the vocabulary, Words(立即回滚) = %+v", got)
	}
}

// TestForMatchMatchesAsBefore: Match, which cuts only the Chinese runs
// holding one of the terms, with the dictionary ForMatch built for them,
// finds what cutting every run finds (match with skip false, with a
// dictionary for all of them), on real sentences with terms from other
// sentences, from the same one, Latin terms, single characters and none.
func TestForMatchMatchesAsBefore(t *testing.T) {
	sents := corpusSentences(t, 600)
	marked := 0
	for i := 0; i+10 <= len(sents); i += 10 {
		batch := sents[i : i+10]
		termSets := [][]string{
			Tiny().Terms(sents[(i+10)%len(sents)] + " " + batch[3]),
			Tiny().Terms(batch[0]),
			{"tidb", "TiKV", "数据", "据库", "查"},
			{"", "的"},
		}
		for _, terms := range termSets {
			fm, all := Tiny().ForMatch(batch, terms), Tiny().For(batch)
			for _, s := range batch {
				got, want := fm.Match(s, terms), all.match(s, terms, false)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("match of %q for %q:\n got %v\nwant %v", s, terms, got, want)
				}
				marked += len(got.Words)
			}
		}
	}
	if marked < 100 {
		t.Fatalf("only %d words marked: the test compares too little", marked)
	}
}

// MatchSpans finds each term where Match marks it, one span per match
// with the term it matched: an identifier's part as cut (never "ti" in
// "duration"), a Chinese term across the cut of its neighbours.
func TestMatchSpans(t *testing.T) {
	a := Tiny()
	text := "立即回滚到 v2: duration of retryCount, 回滚"
	got := a.MatchSpans(text, []string{"回滚", "retry", "ti", "count"})
	var where []string
	for _, s := range got {
		where = append(where, s.Term+"="+text[s.Start:s.End])
	}
	want := []string{"回滚=回滚", "retry=retry", "count=Count", "回滚=回滚"}
	if !slices.Equal(where, want) {
		t.Errorf("MatchSpans: %v, want %v", where, want)
	}
	if got[0].Start != strings.Index(text, "回滚") || got[3].Start != strings.LastIndex(text, "回滚") {
		t.Errorf("MatchSpans offsets: %+v", got)
	}
}
