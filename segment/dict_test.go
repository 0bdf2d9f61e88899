package segment

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDictIndex checks the embedded index (zhdict.idx, written by gendict)
// against the table it indexes, and that lookups through it find what a
// search of the whole table finds.
func TestDictIndex(t *testing.T) {
	tb := loadTable()
	if len(zhdictIndex) != 4*(indexHi-indexLo+1) {
		t.Fatalf("zhdict.idx has %d bytes, want %d: run go generate ./segment", len(zhdictIndex), 4*(indexHi-indexLo+1))
	}
	// Each character's start, computed here from the table itself.
	next, off := rune(indexLo), 0
	check := func(r rune, off int) {
		if got := indexAt(4 * int(r-indexLo)); got != off {
			t.Fatalf("zhdict.idx says the words of %U start at %d, the table at %d: run go generate ./segment", r, got, off)
		}
	}
	for rest := tb.body; rest != ""; {
		line := rest[:strings.IndexByte(rest, '\n')+1]
		first, _ := utf8.DecodeRuneInString(line)
		for ; next <= first && next <= indexHi; next++ {
			check(next, off)
		}
		off += len(line)
		rest = rest[len(line):]
	}
	for ; next <= indexHi; next++ {
		check(next, off)
	}

	// Lookups: every word of a sample, the words with a character added
	// or cut off, characters with no words, characters the index does not
	// cover, and keys past the end of the table.
	keys := []string{"", "一", "丁", "\u3400", "\u9fff", "\ua000", "\U00020c37", "\U0002b7f9", "\U0002b7f9\U0002b7f9", "\U0010ffff", "a", "中国", "中国人", "龘龘龘"}
	i := 0
	tb.eachWord(func(word, _ string) {
		if i++; i%97 != 0 {
			return
		}
		_, sz := utf8.DecodeLastRuneInString(word)
		keys = append(keys, word, word+"丁", word+"\U0002b7f9", word[:len(word)-sz])
	})
	for _, key := range keys {
		want, wantF := "", ""
		if at := tb.search(key, 0, len(tb.body)); at < len(tb.body) {
			want, wantF, _ = tb.lineAt(at)
		}
		if got, gotF := tb.lowerBound(key); got != want || gotF != wantF {
			t.Fatalf("lowerBound(%q) = %q %q, a search of the whole table %q %q", key, got, gotF, want, wantF)
		}
	}
	if len(keys) < 3000 {
		t.Fatalf("only %d keys checked", len(keys))
	}

	// wordsIn, which searches on from the last key's place, finds the
	// words every key looked up in the whole table finds.
	for _, run := range []string{"统计信息过期了怎么手动重新收集", "中华人民共和国国务院", "一一一一", "𠰷中国𫟹人", "龘"} {
		got := map[string]string{}
		tb.wordsIn(run, got)
		want := map[string]string{}
		for i := 0; i < len(run); {
			_, size := utf8.DecodeRuneInString(run[i:])
			for end := i + size; end <= len(run); {
				if at := tb.search(run[i:end], 0, len(tb.body)); at < len(tb.body) {
					if w, f, _ := tb.lineAt(at); w == run[i:end] {
						want[w] = f
					}
				}
				_, sz := utf8.DecodeRuneInString(run[end:])
				if sz == 0 {
					break
				}
				end += sz
			}
			i += size
		}
		if len(got) != len(want) {
			t.Fatalf("wordsIn(%q) = %v, want %v", run, got, want)
		}
		for w, f := range want {
			if got[w] != f {
				t.Fatalf("wordsIn(%q) = %v, want %v", run, got, want)
			}
		}
	}
}
