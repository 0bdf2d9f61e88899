//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/search"
)

// TestSearchFIFOObject: a named pipe in place of a loose object (indexed
// before) does not hang search, context or show, whose open of it would
// wait for a writer forever: the search answers, its Degraded names the
// file and why, as for a damaged object; show says what is wrong.
func TestSearchFIFOObject(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"docs/pool.md":  "# 连接池\n\n连接池 超时 之后先重试，再回滚。\n",
		"docs/retry.md": "# 重试\n\n超时 的请求按指数退避重试。\n",
	})
	indexJSON(t, dir, "--embed", "off")
	blob := gittest.Git(t, dir, "rev-parse", "HEAD:docs/pool.md")
	loose := filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])
	if err := os.Remove(loose); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(loose, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	run := func(args ...string) (string, string, int) {
		t.Helper()
		type res struct {
			out, errs string
			code      int
		}
		c := make(chan res, 1)
		go func() { o, e, code := kb(t, dir, args...); c <- res{o, e, code} }()
		select {
		case r := <-c:
			return r.out, r.errs, r.code
		case <-time.After(60 * time.Second):
			t.Fatalf("%v blocked on the FIFO", args)
		}
		return "", "", 0
	}
	out, errs, code := run("search", "--json", "-q", "连接池 超时")
	var r search.Response
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Results) == 0 {
		t.Fatalf("search: exit %d: %s\n%s", code, errs, out)
	}
	if r.Results[0].Path != "docs/pool.md" || r.Results[0].Snippet != "" ||
		!strings.Contains(r.Degraded, "cannot read docs/pool.md") || !strings.Contains(r.Degraded, "named pipe") {
		t.Fatalf("first %s, snippet %q, degraded %q", r.Results[0].Path, r.Results[0].Snippet, r.Degraded)
	}
	if _, errs, code = run("context", "连接池 超时"); code != 0 || strings.Count(errs, "docs/pool.md") != 1 {
		t.Fatalf("context: exit %d, stderr %q", code, errs)
	}
	if _, errs, code = run("show", "docs/pool.md"); code != exitError || !strings.Contains(errs, "named pipe") {
		t.Fatalf("show: exit %d, stderr %q", code, errs)
	}
}
