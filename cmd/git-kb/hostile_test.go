package main

import (
	"context"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// hostileInputs are what a careless script or a hostile user passes: each
// must give a result or one clear error line, exit 0, 1 or 2, never a
// panic or a stack trace.
func hostileInputs() map[string]string {
	gbk, _ := simplifiedchinese.GBK.NewEncoder().String("发布失败如何回滚")
	return map[string]string{
		"empty":          "",
		"spaces":         "   \t ",
		"newlines":       "\n\n",
		"huge-han":       strings.Repeat("回滚连接池", 20000), // 300 KB
		"huge-token":     strings.Repeat("a", 1<<20),     // 1 MiB, one word
		"control":        "\x00\x01\x1b[31m回滚\x7f\b",
		"quote-open":     `"回滚`,
		"quote-single":   `'回滚`,
		"quote-path":     `path:"docs 回滚`,
		"exclude-only":   "-回滚",
		"dashdash":       "--",
		"operators-bare": "@ @@ path: lang: tag: owner:",
		"traversal":      "../../../../etc/passwd",
		"absolute":       "/etc/passwd",
		"citation-trav":  "HEAD:../../etc/passwd#L1-L2",
		"invalid-utf8":   "\xff\xfe回滚\xc3",
		"gbk":            gbk,
		"rev-option":     "--output=/tmp/kb-hostile",
		"glob-bomb":      "path:" + strings.Repeat("**/", 200) + "*.md 回滚",
		"regex-meta":     `.*+?[(|\`,
	}
}

// TestHostileInputs runs every hostile input through every place a
// command takes free text or a revision.
func TestHostileInputs(t *testing.T) {
	dir := gittest.New(t, docs)
	indexJSON(t, dir)
	slots := map[string]func(in string) []string{
		"search":         func(in string) []string { return []string{"search", "-q", "--", in} },
		"search-json":    func(in string) []string { return []string{"search", "--json", "-q", "--", in} },
		"search-rev":     func(in string) []string { return []string{"search", "-q", "--rev", in, "回滚"} },
		"search-n":       func(in string) []string { return []string{"search", "-q", "-n", in, "回滚"} },
		"context":        func(in string) []string { return []string{"context", "-q", "--", in} },
		"context-budget": func(in string) []string { return []string{"context", "-q", "--budget", in, "回滚"} },
		"ask":            func(in string) []string { return []string{"ask", "-q", "--no-stream", "--", in} },
		"show":           func(in string) []string { return []string{"show", "--", in} },
		"index-rev":      func(in string) []string { return []string{"index", "-q", "--rev", in} },
		"blame-context":  func(in string) []string { return []string{"blame-context", "-q", "--", in} },
		"help":           func(in string) []string { return []string{"help", in} },
		"gc-keep":        func(in string) []string { return []string{"gc", "--dry-run", "--keep-recent", in} },
	}
	before := gittest.Git(t, dir, "status", "--porcelain", "--ignored")
	inputs := hostileInputs()
	total, clean := 0, 0
	for slot, args := range slots {
		for name, in := range inputs {
			total++
			a := args(in)
			out, errs, code := kb(t, dir, a...)
			ok := true
			if code != exitOK && code != exitError && code != exitUsage {
				ok = false
			}
			if strings.Contains(errs, "goroutine ") || strings.Contains(errs, "panic") {
				ok = false
			}
			if code != exitOK {
				// A query error adds the query and a caret under the bad part.
				msg := strings.TrimRight(errs, "\n")
				if !strings.HasPrefix(msg, "git kb: ") || strings.Count(msg, "\n") > 3 {
					ok = false
				}
				for _, l := range strings.Split(msg, "\n") {
					if len([]rune(l)) > maxErrLine+10 || strings.ContainsAny(l, "\x00\x1b\x7f") {
						ok = false
					}
				}
			}
			if ok {
				clean++
			} else {
				t.Errorf("%s/%s: exit %d\nstderr: %.600q\nstdout: %.200q", slot, name, code, errs, out)
			}
		}
	}
	if after := gittest.Git(t, dir, "status", "--porcelain", "--ignored"); after != before {
		t.Errorf("the repository changed:\n%s\n->\n%s", before, after)
	}
	t.Logf("CLI: %d hostile inputs, %d handled cleanly", total, clean)
}

// TestHostileMCPCalls sends wrong types and hostile values to every MCP
// tool: each gets a result or an error, and the server keeps serving.
func TestHostileMCPCalls(t *testing.T) {
	dir := gittest.New(t, docs)
	s := mcpSession(t, dir)
	huge := strings.Repeat("回滚", 100000)
	calls := []struct {
		tool string
		args map[string]any
	}{}
	for _, tool := range []string{"hybrid_search", "keyword_search", "context_pack"} {
		for _, q := range []any{"", 5, []string{"a"}, nil, map[string]any{"x": 1}, huge, "\x00\x1b[31m", `"unbalanced`, "../../etc/passwd", true} {
			calls = append(calls, struct {
				tool string
				args map[string]any
			}{tool, map[string]any{"query": q}})
		}
		for _, extra := range []map[string]any{{"top_k": "ten"}, {"top_k": -1}, {"top_k": 1e12}, {"budget": -5}, {"budget": 1e12}, {"path": 7}, {"path": "../../**"}, {"rev": "--output=/tmp/x"}, {"rev": 3.5}, {"repo": "nope"}, {"mode": "quantum"}, {"min_score": "high"}} {
			args := map[string]any{"query": "回滚"}
			for k, v := range extra {
				args[k] = v
			}
			calls = append(calls, struct {
				tool string
				args map[string]any
			}{tool, args})
		}
	}
	for _, args := range []map[string]any{{}, {"path": ""}, {"path": 5}, {"path": "../../etc/passwd"}, {"path": "/etc/passwd"}, {"path": "HEAD:../../etc/passwd"}, {"path": ".git/config"}, {"path": "README.md", "start_line": -5, "end_line": -1}, {"path": "README.md", "start_line": 1e12}, {"path": "README.md", "start_line": "one"}, {"path": "README.md", "rev": "--help"}, {"path": huge}} {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{"get_document", args})
	}
	for _, args := range []map[string]any{{"range": 5}, {"range": "--output=/tmp/x"}, {"range": "HEAD~99..HEAD"}, {"range": "../.."}, {"max_bytes": -1}, {"max_bytes": "big"}, {"staged": "yes"}, {"repo": []int{1}}} {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{"blame_context", args})
	}
	for _, tool := range []string{"index_status", "list_collections"} {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{tool, map[string]any{"unexpected": []any{1, "x"}}})
	}
	clean := 0
	for _, c := range calls {
		res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		switch {
		case err != nil && (strings.Contains(err.Error(), "panic") || strings.Contains(err.Error(), "goroutine ")):
			t.Errorf("%s(%.100v): %v", c.tool, c.args, err)
		case err != nil && strings.Contains(err.Error(), "closed"):
			t.Fatalf("%s(%.100v) killed the server: %v", c.tool, c.args, err)
		case err == nil && res.IsError && len(res.Content) == 0:
			t.Errorf("%s(%.100v): an error without a message", c.tool, c.args)
		case err == nil && res.IsError:
			text := res.Content[0].(*sdk.TextContent).Text
			if strings.Contains(text, "goroutine ") || strings.Contains(text, "/etc/passwd:") && strings.Contains(text, "root:") {
				t.Errorf("%s(%.100v): %s", c.tool, c.args, text)
			} else {
				clean++
			}
		case err == nil && c.tool == "get_document" && strings.Contains(c.args["path"].(string)+"", "passwd"):
			t.Errorf("get_document served %v", c.args)
		default:
			clean++ // a result, or a JSON-RPC invalid-params error
		}
	}
	// Still serving.
	if msg := callTool(t, s, "keyword_search", map[string]any{"query": "回滚"}, nil); msg != "" {
		t.Errorf("after the hostile calls: %s", msg)
	}
	t.Logf("MCP: %d hostile calls, %d handled cleanly", len(calls), clean)
}
