package main

import (
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/search"
)

var shop = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"internal/retry/retry.go": `// Package retry retries flaky calls.
package retry

// RetryCount is how many times Do tries.
const RetryCount = 3

// Do calls fn until it succeeds, at most RetryCount times.
func Do(fn func() error) error {
	var err error
	for i := 0; i < RetryCount; i++ {
		if err = fn(); err == nil {
			return nil
		}
	}
	return err
}
`,
	"payment/charge.go": `package payment

import (
	"fmt"

	"example.com/shop/internal/retry"
)

// Charge 扣款：支付网关超时会重试，失败后退款。
func Charge(orderID string, cents int) error {
	err := retry.Do(func() error { return gateway(orderID, cents) })
	if err != nil {
		return fmt.Errorf("扣款失败，已退款: %w", refundFee(orderID))
	}
	return nil
}

func gateway(orderID string, cents int) error { return nil }
`,
	"payment/refund.go": `package payment

// refundFee 退还手续费。
func refundFee(orderID string) error { return nil }
`,
	"cmd/server/main.go": `package main

import "example.com/shop/payment"

func main() { _ = payment.Charge("o-1", 100) }
`,
	"web/api.ts":              "import { request } from './client';\n\n// 查询订单状态\nexport function orderStatus(id: string) {\n  return request('/orders/' + id);\n}\n",
	"web/client.ts":           "export function request(path: string) {\n  return fetch(path);\n}\n",
	"docs/runbook/payment.md": "# 支付故障手册\n\n支付网关超时时，按[重试策略](../adr/retry.md#策略)处理，不要手工补单。\n",
	"docs/adr/retry.md":       "# ADR：重试策略\n\n网关调用最多重试三次。\n",
	"docs/oncall.md":          "# 值班须知\n\n常见问题见 [支付](/docs/runbook/payment.md)。\n",
}

// related returns the related results keyed by path.
func related(r search.Response) map[string]*search.Relation {
	out := map[string]*search.Relation{}
	for _, x := range r.Results {
		if x.Match == "related" {
			out[x.Path] = x.Related
		} else if x.Related != nil {
			panic("a matched result carries a relation")
		}
	}
	return out
}

func TestSearchRelated(t *testing.T) {
	dir := gittest.New(t, shop)
	head := gittest.Git(t, dir, "rev-parse", "HEAD")

	plain := searchJSON(t, dir, "-n", "1", "Charge 扣款 已退款")
	r := searchJSON(t, dir, "-n", "1", "--related", "Charge 扣款 已退款")
	if len(plain.Results) == 0 || plain.Results[0].Path != "payment/charge.go" {
		t.Fatalf("want payment/charge.go first, got %v", paths(plain))
	}
	// The matches are the same with and without --related; related ones follow.
	for i, p := range plain.Results {
		if r.Results[i].Path != p.Path || r.Results[i].Match != "" {
			t.Fatalf("--related changed the matches: %v vs %v", paths(plain), paths(r))
		}
	}
	rel := related(r)
	want := map[string]search.Relation{
		"internal/retry/retry.go": {Kind: search.RelDefines, From: "payment/charge.go", Name: "retry.Do"},
		"payment/refund.go":       {Kind: search.RelDefines, From: "payment/charge.go", Name: "refundFee"},
		"cmd/server/main.go":      {Kind: search.RelImportedBy, From: "payment/charge.go", Via: "example.com/shop/payment"},
	}
	for p, w := range want {
		if got := rel[p]; got == nil || *got != w {
			t.Errorf("related %s = %+v, want %+v (all: %v)", p, got, w, paths(r))
		}
	}
	for _, x := range r.Results {
		if x.Path == "internal/retry/retry.go" && x.Match == "related" {
			if !contains(x.Symbols, "Do") || !strings.HasPrefix(x.Citation, head+":internal/retry/retry.go#L") {
				t.Errorf("the definition should be Do's chunk, cited at HEAD: %+v", x)
			}
		}
	}
	if _, dup := rel["payment/charge.go"]; dup {
		t.Error("a matched file listed again as related")
	}

	// Markdown links both ways.
	r = searchJSON(t, dir, "-n", "1", "--related", "支付故障手册")
	rel = related(r)
	if got := rel["docs/adr/retry.md"]; got == nil || got.Kind != search.RelImports || got.Via != "../adr/retry.md" {
		t.Errorf("linked ADR: %+v (results %v)", got, paths(r))
	}
	if got := rel["docs/oncall.md"]; got == nil || got.Kind != search.RelImportedBy || got.Via != "/docs/runbook/payment.md" {
		t.Errorf("linking page: %+v (results %v)", got, paths(r))
	}

	// A relative TypeScript import and the definition it calls.
	r = searchJSON(t, dir, "-n", "1", "--related", "orderStatus 查询订单状态")
	if got := related(r)["web/client.ts"]; got == nil || got.Kind != search.RelDefines || got.Name != "request" {
		t.Errorf("ts: %+v (results %v)", got, paths(r))
	}

	// A weak result set gets nothing, and says why.
	r = searchJSON(t, dir, "--related", "支付 xyzzy plugh frobnicate quux")
	if len(related(r)) != 0 || r.RelatedNote == "" {
		t.Errorf("weak set: related %v, note %q", related(r), r.RelatedNote)
	}

	// Human output marks them apart from the matches.
	out, _, code := kb(t, dir, "search", "-q", "-n", "1", "--related", "支付故障手册")
	if code != 0 || !strings.Contains(out, "Related to the top matches:") || !strings.Contains(out, "linked from docs/runbook/payment.md") {
		t.Errorf("human output:\n%s", out)
	}
}

func TestMCPSearchRelated(t *testing.T) {
	dir := gittest.New(t, shop)
	s := mcpSession(t, dir)
	var r search.Response
	if msg := callTool(t, s, "hybrid_search", map[string]any{"query": "支付故障手册", "top_k": 1, "related": true, "min_score": 0.01}, &r); msg != "" {
		t.Fatal(msg)
	}
	rel := related(r)
	if rel["docs/adr/retry.md"] == nil || rel["docs/oncall.md"] == nil {
		t.Errorf("hybrid_search related: %v", paths(r))
	}
}
