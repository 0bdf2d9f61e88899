package segment

import (
	"reflect"
	"strings"
	"testing"
)

func TestVocabTerms(t *testing.T) {
	v, dropped, err := ParseVocab("# our words\n回滚\n慢查询 5000\n扩容\nTiDB\n滚\n\n")
	if err != nil {
		t.Fatal(err)
	}
	// 扩容 is in gse's dictionary, TiDB is not Han text, 滚 is one character.
	if want := []string{"扩容", "TiDB", "滚"}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
	if v.Len() != 2 || !v.Has("回滚") || !v.Has("慢查询") {
		t.Fatalf("vocabulary %q", v.Encode())
	}
	text := "发布失败后立即回滚到上一个版本，再排查慢查询"
	has := func(terms []string, w string) bool {
		for _, t := range terms {
			if t == w {
				return true
			}
		}
		return false
	}
	plain := Tiny().Terms(text)
	if has(plain, "回滚") {
		t.Fatalf("without the vocabulary 回滚 is not a word of gse's: %q", plain)
	}
	got := v.Tiny().Terms(text)
	// The whole words, and the pieces the built-in dictionary cuts them
	// into, so whatever matched without the vocabulary still matches.
	for _, w := range []string{"回滚", "回", "滚", "慢查询", "查询", "发布", "版本"} {
		if !has(got, w) {
			t.Errorf("with the vocabulary, %q lacks %q", got, w)
		}
	}
	// Spans cut as Terms does.
	var spanTerms []string
	for _, s := range v.Tiny().Spans(text) {
		spanTerms = append(spanTerms, s.Term)
		if !strings.Contains(text[s.Start:s.End], s.Term) && s.Term != strings.ToLower(text[s.Start:s.End]) {
			t.Errorf("span %q at %d-%d reads %q", s.Term, s.Start, s.End, text[s.Start:s.End])
		}
	}
	if !reflect.DeepEqual(spanTerms, got) {
		t.Errorf("Spans terms %q, Terms %q", spanTerms, got)
	}
	// For (one dictionary for several texts) cuts alike.
	if f := v.Tiny().For([]string{text, "回滚"}).Terms(text); !reflect.DeepEqual(f, got) {
		t.Errorf("For: %q, want %q", f, got)
	}
}

// TestVocabTinyEqualsFull: with a vocabulary, the tiny dictionary built per
// text still cuts exactly as the full one (the filler keeps the total).
func TestVocabTinyEqualsFull(t *testing.T) {
	v, _, err := ParseVocab("回滚\n慢查询\n扩缩容\n滚动升级 20\n")
	if err != nil {
		t.Fatal(err)
	}
	full := v.Full()
	for _, s := range []string{
		"发布失败后立即回滚到上一个版本",
		"业务高峰前先扩缩容，再滚动升级所有节点，滚动升级期间不要回滚",
		"慢查询日志里的慢查询语句需要逐条分析",
		"返回滚动条的位置",
	} {
		if a, b := v.Tiny().Terms(s), full.Terms(s); !reflect.DeepEqual(a, b) {
			t.Errorf("%s\n tiny %q\n full %q", s, a, b)
		}
	}
}

func TestParseVocabErrors(t *testing.T) {
	if _, _, err := ParseVocab("回滚\n慢查询 lots\n"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad frequency: %v", err)
	}
	v, _, _ := ParseVocab("回滚\n慢查询\n")
	w, _, _ := ParseVocab(v.Encode())
	if v.Fingerprint() == "" || w.Fingerprint() != v.Fingerprint() {
		t.Errorf("Encode re-reads to %q, want %q", w.Fingerprint(), v.Fingerprint())
	}
	e, _, _ := ParseVocab("# nothing\n")
	if e.Fingerprint() != "" || e.Tiny().Vocab() != nil {
		t.Errorf("an empty list should cut as no list")
	}
	if m := Merge(v, nil, e); m.Fingerprint() != v.Fingerprint() {
		t.Errorf("Merge with nothing changed the list")
	}
}
