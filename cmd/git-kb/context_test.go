package main

import (
	"encoding/json"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/pack"
)

func TestContextPack(t *testing.T) {
	files := map[string]string{}
	for k, v := range docs {
		files[k] = v
	}
	// A long runbook: too big to go whole into a small budget.
	var long strings.Builder
	long.WriteString("# 连接池长手册\n\n")
	for i := range 200 {
		long.WriteString("## 第 " + string(rune('A'+i%26)) + " 节\n\n连接池打满时，检查慢查询与 maxOpenConns 配置，必要时回滚。\n\n")
	}
	files["docs/long.md"] = long.String()
	files["docs/copy.md"] = docs["docs/adr/0001-connection-pool.md"] // the same blob twice
	dir := gittest.New(t, files)
	bpe, err := pack.CL100K()
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []string{"300", "1500", "8000"} {
		out, errs, code := kb(t, dir, "context", "-q", "--budget", budget, "连接池打满 maxOpenConns")
		if code != 0 {
			t.Fatalf("budget %s: exit %d %s", budget, code, errs)
		}
		if n := bpe.Count(out); n > mustAtoi(budget) || !strings.Contains(out, "## ") {
			t.Errorf("budget %s: %d tokens\n%s", budget, n, out)
		}
		if strings.Count(out, "数据库连接池打满时") > 1 {
			t.Errorf("budget %s: the same content twice", budget)
		}
	}
	var p pack.Pack
	out, _, code := kb(t, dir, "context", "-q", "--format", "json", "--budget", "2000", "连接池打满")
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || len(p.Blocks) == 0 || p.Tokens > 2000 || bpe.Count(out) != p.Tokens {
		t.Fatalf("json: exit %d, %+v", code, p)
	}
	for _, b := range p.Blocks {
		if !strings.HasPrefix(b.Citation, p.Commit+":") || (b.Kind != "document" && b.Kind != "section") {
			t.Errorf("block %+v", b)
		}
	}
	out, _, code = kb(t, dir, "context", "-q", "--format", "xml", "--budget", "2000", "回滚 <步骤>")
	var x struct {
		Docs []struct {
			Citation string `xml:"citation,attr"`
		} `xml:"document"`
	}
	if code != 0 || xml.Unmarshal([]byte(out), &x) != nil || len(x.Docs) == 0 {
		t.Errorf("xml: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"context"}, {"context", "--budget", "10", "x"}, {"context", "--format", "yaml", "x"}, {"context", "--ratios", "1,1,1", "x"}, {"context", `"x`}} {
		if _, _, code := kb(t, dir, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
