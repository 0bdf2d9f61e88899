package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestReverseCommonest: an English word's headwords are the commonest by
// the frequency list, not the first in CC-CEDICT's (pinyin) order; a
// headword the list lacks counts as never seen. Entries as CC-CEDICT
// writes them.
func TestReverseCommonest(t *testing.T) {
	var entries [][]json.RawMessage
	for _, e := range [][4]string{
		{"喜吟吟", "喜吟吟", "xi3 yin2 yin2", "happy; joyful"},
		{"喜孜孜", "喜孜孜", "xi3 zi1 zi1", "pleased; happy"},
		{"高興", "高兴", "gao1 xing4", "happy; glad; willing (to do sth)"},
		{"幸福", "幸福", "xing4 fu2", "happiness; happy; blessed"},
	} {
		var row []json.RawMessage
		for _, f := range e {
			b, _ := json.Marshal(f)
			row = append(row, b)
		}
		entries = append(entries, row)
	}
	freq := readFreq("#total\t3.3e+07\t16\n喜孜孜\t47\n幸福\t4005\n高兴\t5387\n")
	zh, en := build(entries, freq)
	if got, want := en["happy"], []string{"高兴", "幸福"}; !reflect.DeepEqual(got, want) {
		t.Errorf("happy -> %v, want %v", got, want)
	}
	if got, want := zh["高兴"], []string{"happy", "glad", "willing"}; !reflect.DeepEqual(got, want) {
		t.Errorf("高兴 -> %v, want %v", got, want)
	}
	// Without a list, CC-CEDICT's order stands.
	if _, en := build(entries, nil); !reflect.DeepEqual(en["happy"], []string{"喜吟吟", "喜孜孜"}) {
		t.Errorf("no list: happy -> %v", en["happy"])
	}
}

// TestBuildT2S: a traditional character folds to the simplified one its
// headwords write most often, unless simplified headwords use it too (乾
// of 乾隆) or the UTF-8 lengths differ; characters alike in both scripts
// are not listed.
func TestBuildT2S(t *testing.T) {
	var entries [][]json.RawMessage
	for _, e := range [][2]string{
		{"後來", "后来"}, {"以後", "以后"}, {"皇后", "皇后"},
		{"乾燥", "干燥"}, {"乾隆", "乾隆"},
		{"發現", "发现"}, {"頭髮", "头发"},
		{"𠀋", "丈"}, // a 4-byte character to a 3-byte one: offsets would move
	} {
		a, _ := json.Marshal(e[0])
		b, _ := json.Marshal(e[1])
		entries = append(entries, []json.RawMessage{a, b})
	}
	got := map[rune]rune{}
	for _, p := range buildT2S(entries) {
		got[p.trad] = p.simp
	}
	want := map[rune]rune{'後': '后', '來': '来', '發': '发', '髮': '发', '現': '现', '頭': '头'}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("buildT2S = %q, want %q", got, want)
	}
	if s := formatT2S(buildT2S(entries)); !strings.HasPrefix(s, "# ") || !strings.Contains(s, "\n後\t后\n") {
		t.Errorf("formatT2S:\n%s", s)
	}
}

// TestNegatedAndClitics: a sense with a negated auxiliary or a word of
// negation gives no words (cut at its apostrophe "hasn't" was hasn,
// "doesn't exist" meant exist, "not the same" same), unless it is that
// word alone (cannot); a clitic is no word of its own (one o'clock is not a clock), and
// "-ing" is a suffix, not a word. Entries as CC-CEDICT writes them.
func TestNegatedAndClitics(t *testing.T) {
	var entries [][]json.RawMessage
	for _, e := range []struct {
		trad, simp, pinyin string
		senses             any
	}{
		{"沒有", "没有", "mei2 you3", []string{"haven't", "hasn't", "doesn't exist", "to not have", "to not be"}},
		{"正在", "正在", "zheng4 zai4", "to be in the process of (doing sth); to be currently ...-ing"},
		{"一點", "一点", "yi1 dian3", []string{"a bit; a little bit", "one o'clock"}},
		{"時鐘", "时钟", "shi2 zhong1", []string{"clock"}},
		{"不同", "不同", "bu4 tong2", []string{"different", "distinct", "not the same", "not alike"}},
		{"不能", "不能", "bu4 neng2", []string{"cannot", "must not", "should not"}},
		// CC-CEDICT writes a few with a typographic apostrophe.
		{"管他", "管他", "guan3 ta1", []string{"no matter if", "regardless of", "don’t worry about (it, him etc)", "doesn’t matter"}},
	} {
		var row []json.RawMessage
		for _, f := range []any{e.trad, e.simp, e.pinyin, e.senses} {
			b, _ := json.Marshal(f)
			row = append(row, b)
		}
		entries = append(entries, row)
	}
	zh, en := build(entries, nil)
	// "to not have": not is a negation as n't is; the sense denies have.
	if got := zh["没有"]; len(got) > 0 {
		t.Errorf("没有 -> %v, want nothing", got)
	}
	if got, want := zh["不同"], []string{"different", "distinct"}; !reflect.DeepEqual(got, want) {
		t.Errorf("不同 -> %v, want %v", got, want)
	}
	if got, want := zh["管他"], []string{"regardless"}; !reflect.DeepEqual(got, want) {
		t.Errorf("管他 -> %v, want %v", got, want)
	}
	// cannot alone is a translation; must not denies must.
	if got, want := zh["不能"], []string{"cannot"}; !reflect.DeepEqual(got, want) {
		t.Errorf("不能 -> %v, want %v", got, want)
	}
	if got, want := zh["正在"], []string{"process", "currently"}; !reflect.DeepEqual(got, want) {
		t.Errorf("正在 -> %v, want %v", got, want)
	}
	if got, want := zh["一点"], []string{"bit", "little"}; !reflect.DeepEqual(got, want) {
		t.Errorf("一点 -> %v, want %v", got, want)
	}
	if got, want := en["clock"], []string{"时钟"}; !reflect.DeepEqual(got, want) {
		t.Errorf("clock -> %v, want %v", got, want)
	}
	for _, w := range []string{"hasn", "haven", "doesn", "don", "exist", "ing", "have", "same", "alike", "must", "should", "worry"} {
		if len(en[w]) > 0 {
			t.Errorf("%s -> %v, want nothing", w, en[w])
		}
	}
}
