package search

import (
	"strings"
	"testing"
)

// A snippet leaves out lines that are a docs generator's markup alone
// (from TiDB's docs: a Hugo shortcode before a fenced SQL example), and
// keeps the code inside the fence.
func TestSnippetLeavesOutMarkup(t *testing.T) {
	lines := []string{
		"### 搜索 Top N 的慢查询",
		"",
		"{{< copyable \"sql\" >}}",
		"",
		"```sql",
		"select query_time, query from information_schema.slow_query",
		"```",
		"<!-- 这是注释 -->",
		"查询 Top 2 的用户慢查询。",
	}
	got := snippet(lines, 1, len(lines), []string{"慢查询", "slow_query"})
	for _, noise := range []string{"{{<", "```", "<!--"} {
		if strings.Contains(got, noise) {
			t.Errorf("snippet holds %q: %s", noise, got)
		}
	}
	for _, want := range []string{"select query_time", "查询 Top 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("snippet lacks %q: %s", want, got)
		}
	}
	for _, l := range []string{"{{< copyable \"sql\" >}}", "{{% note %}}", "```", "```go", "~~~", "<!-- x -->"} {
		if !markup(l) {
			t.Errorf("%q is not taken for markup", l)
		}
	}
	for _, l := range []string{"```go fmt.Println(1)```", "use {{< ref >}} here", "a <!-- b", "SELECT 1;"} {
		if markup(l) {
			t.Errorf("%q is taken for markup", l)
		}
	}
}
