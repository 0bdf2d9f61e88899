package search

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	cases := []struct {
		in   string
		want Query
	}{
		{`连接池 打满`, Query{Text: "连接池 打满"}},
		{`"连接池 打满" 怎么办`, Query{Text: "连接池 打满 怎么办", Phrases: []string{"连接池 打满"}}},
		{`回滚 -测试 -"灰度 发布"`, Query{Text: "回滚", Excludes: []string{"测试", "灰度 发布"}}},
		{`retry path:docs/**/*.md lang:Go`, Query{Text: "retry", Paths: []string{"docs/**/*.md"}, Langs: []string{"go"}}},
		{`值班 tag:Release owner:"sre team"`, Query{Text: "值班", Tags: []string{"release"}, Owners: []string{"sre team"}}},
		{`超时 @docs/runbook.md @@RetryCount`, Query{Text: "超时 RetryCount", Files: []string{"docs/runbook.md"}, Symbols: []string{"RetryCount"}}},
		// -path: and -lang: drop files; a negated word that is not an operator drops chunks.
		{`限流 -path:test/** -lang:YAML -path:"docs/old dir" -key:x`, Query{Text: "限流", NotPaths: []string{"test/**", "docs/old dir"}, NotLangs: []string{"yaml"}, Excludes: []string{"key:x"}}},
		// Colons and dashes that are not operators stay text.
		{`std::vector http://x a-b key:value 2024-01-02`, Query{Text: "std::vector http://x a-b key:value 2024-01-02"}},
		{`x - y`, Query{Text: "x - y"}},
		// A command-line flag in a Chinese question is a word of it; with
		// two dashes in any question; -"x" still excludes it.
		{`go test -fuzz 的变异器 -count=1 -测试`, Query{Text: "go test -fuzz 的变异器 -count=1", Excludes: []string{"测试"}}},
		{`git log --follow 跟踪改名 -"merge"`, Query{Text: "git log --follow 跟踪改名", Excludes: []string{"merge"}}},
		{`retry --race -mock`, Query{Text: "retry --race", Excludes: []string{"mock"}}},
		// Chinese quotation marks (what a Chinese IME types) quote a
		// phrase as "" do, glued to the text around them or not; one
		// never closed is a character of the text.
		{`报错“Information schema is changed”怎么办`, Query{Text: "报错 Information schema is changed 怎么办", Phrases: []string{"Information schema is changed"}}},
		{`什么是「悲观事务」 -“乐观 事务”`, Query{Text: "什么是 悲观事务", Phrases: []string{"悲观事务"}, Excludes: []string{"乐观 事务"}}},
		{`他说“回滚 就好`, Query{Text: "他说“回滚 就好"}},
		{`“ ”回滚`, Query{Text: "回滚"}},
	}
	for _, c := range cases {
		got, err := ParseQuery(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		c.want.Raw = c.in
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.in, *got, c.want)
		}
	}
	bad := []struct{ in, msg, caret string }{
		{`连接池 "超时`, "unterminated quote", "         ^"},
		{`x path:`, "path: needs a value", "         ^"},
		{`x path:/etc`, "relative to the repository root", "         ^"},
		{`x -path:`, "-path: needs a value", "          ^"},
		{`x -path:/etc`, "relative to the repository root", "          ^"},
		{`x -lang:`, "-lang: needs a value", "          ^"},
		{`x @@`, "@@ needs a symbol", "    ^"},
		{`x @../y`, "relative to the repository root", "    ^"},
		{`x ""`, "empty phrase", "    ^"},
		{`-only -excluded`, "nothing to search for", "  ^"},
		{`path:docs/`, "nothing to search for", "  ^"},
	}
	for _, b := range bad {
		_, err := ParseQuery(b.in)
		if err == nil {
			t.Errorf("%q accepted", b.in)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if !strings.Contains(lines[0], b.msg) || len(lines) != 3 || lines[2] != b.caret {
			t.Errorf("%q: error %q, want %q with caret %q", b.in, err.Error(), b.msg, b.caret)
		}
	}
}
