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

// Only a line that is markup throughout is left out: text between two
// shortcodes or comments is the line's content (Kubernetes' docs write
// {{< glossary_tooltip ... >}} inline), while shortcodes side by side,
// nested ones included, are still markup. A section that is all markup
// keeps it rather than showing nothing.
func TestSnippetMarkupEdges(t *testing.T) {
	for _, l := range []string{
		`{{< glossary_tooltip term_id="node" >}} 上运行的 {{< glossary_tooltip term_id="pod" >}}`,
		`<!-- a --> 回滚步骤 <!-- b -->`,
		`{{% note %}} 注意 {{% /note %}}`,
	} {
		if markup(l) {
			t.Errorf("%q is taken for markup: the text between is lost from snippets", l)
		}
	}
	for _, l := range []string{
		`{{< tabs >}}{{< tab "sql" >}}`,
		`{{< tab name="{{< x >}}" >}}`,
		`<!-- a --><!-- b -->`,
		`{{< a >}} <!-- b -->`,
	} {
		if !markup(l) {
			t.Errorf("%q is not taken for markup", l)
		}
	}
	allMarkup := []string{"{{< copyable \"sql\" >}}", "", "```sql", "```", "<!-- 慢查询 -->"}
	if got := snippet(allMarkup, 1, len(allMarkup), []string{"慢查询"}); !strings.Contains(got, "慢查询") {
		t.Errorf("a section of markup alone: snippet %q, want its lines rather than nothing", got)
	}
	unterminated := []string{"```sql", "select * from slow_query", "<!-- 未结束的注释", "慢查询"}
	if got := snippet(unterminated, 1, len(unterminated), []string{"slow_query"}); !strings.Contains(got, "select * from slow_query") || !strings.Contains(got, "未结束的注释") {
		t.Errorf("an unterminated fence and comment: snippet %q, want the code and the comment's text", got)
	}
}
