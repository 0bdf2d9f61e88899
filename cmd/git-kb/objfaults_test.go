package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/search"
)

// TestSearchDamagedPack: git objects damaged after indexing (a bit
// flipped in a pack, a pack truncated by a full disk, a garbled pack
// index) cost a search its snippets at most, never the answer: exit 0,
// every result cited, the snippet read by git where git still can (a
// loose copy of the object), else none and Degraded saying which file
// and why. And no search leaves a file of .git/objects open.
func TestSearchDamagedPack(t *testing.T) {
	pool := "# 连接池\n\n连接池 超时 之后先重试，再回滚。\n\n连接池的大小由 max_conns 决定。\n"
	base := gittest.New(t, map[string]string{
		"docs/pool.md":  pool,
		"docs/retry.md": "# 重试\n\n超时 的请求按指数退避重试。\n",
		"docs/other.md": "# 其他\n\n与本题无关的内容。\n",
	})
	blob := gittest.Git(t, base, "rev-parse", "HEAD:docs/pool.md")
	loose := filepath.Join(base, ".git", "objects", blob[:2], blob[2:])
	looseCopy, err := os.ReadFile(loose)
	if err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, base, "gc", "-q")
	if _, err := os.Stat(loose); !os.IsNotExist(err) {
		t.Fatalf("the blob is still loose after gc: %v", err)
	}
	// HEAD's commit and tree loose, the documents' blobs packed.
	gittest.Commit(t, base, "readme", map[string]string{"README.md": "# 说明\n"})
	indexJSON(t, base, "--embed", "off")
	want := searchJSON(t, base, "连接池 超时")
	if len(want.Results) == 0 || want.Results[0].Path != "docs/pool.md" || !strings.Contains(want.Results[0].Snippet, "重试") || want.Degraded != "" {
		t.Fatalf("the undamaged repository: %+v", want)
	}

	packOf := func(dir string) (idx, pack string) {
		idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
		if len(idxs) != 1 {
			t.Fatalf("%d packs", len(idxs))
		}
		return idxs[0], strings.TrimSuffix(idxs[0], ".idx") + ".pack"
	}
	// entryOf is where the blob's entry lies in the pack: from its
	// offset to the next object's.
	entryOf := func(dir string) (int64, int64) {
		idx, pack := packOf(dir)
		f, err := os.Open(idx)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var offs []int64
		var at int64 = -1
		for _, l := range strings.Split(gitIn(t, dir, f, "show-index"), "\n") {
			if fs := strings.Fields(l); len(fs) >= 2 {
				off, _ := strconv.ParseInt(fs[0], 10, 64)
				offs = append(offs, off)
				if fs[1] == blob {
					at = off
				}
			}
		}
		fi, err := os.Stat(pack)
		if err != nil || at < 0 {
			t.Fatalf("blob %s not in the pack: %v", blob, err)
		}
		offs = append(offs, fi.Size()-20)
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		return at, offs[sort.Search(len(offs), func(i int) bool { return offs[i] > at })]
	}
	flip := func(path string, at int64) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[at] ^= 0x55
		os.Chmod(path, 0o644)
		if err := os.WriteFile(path, b, 0o444); err != nil {
			t.Fatal(err)
		}
	}

	for _, c := range []struct {
		name    string
		damage  func(dir string)
		snippet bool // git still reads the blob
	}{
		{"pack bit flipped, a loose copy intact", func(dir string) {
			start, end := entryOf(dir)
			_, pack := packOf(dir)
			flip(pack, (start+end)/2)
			os.MkdirAll(filepath.Dir(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])), 0o755)
			if err := os.WriteFile(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:]), looseCopy, 0o444); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"pack bit flipped", func(dir string) {
			start, end := entryOf(dir)
			_, pack := packOf(dir)
			flip(pack, (start+end)/2)
		}, false},
		{"pack truncated (disk full)", func(dir string) {
			_, pack := packOf(dir)
			start, _ := entryOf(dir)
			if err := os.Truncate(pack, start+3); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"pack index garbled", func(dir string) {
			idx, _ := packOf(dir)
			b, err := os.ReadFile(idx)
			if err != nil {
				t.Fatal(err)
			}
			os.Chmod(idx, 0o644)
			if err := os.WriteFile(idx, append(b[:8+255*4], bytes.Repeat([]byte{0xA5}, len(b)-8-255*4)...), 0o444); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyRepo(t, base)
			c.damage(dir)
			out, errs, code := kb(t, dir, "search", "--json", "-q", "连接池 超时")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got search.Response
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(got.Results) != len(want.Results) || got.Results[0].Citation != want.Results[0].Citation {
				t.Fatalf("results changed: %+v", got.Results)
			}
			if c.snippet {
				if got.Results[0].Snippet != want.Results[0].Snippet || got.Degraded != "" {
					t.Fatalf("snippet %q, degraded %q; want git's %q", got.Results[0].Snippet, got.Degraded, want.Results[0].Snippet)
				}
			} else if got.Results[0].Snippet != "" || !strings.Contains(got.Degraded, "cannot read docs/pool.md") {
				t.Fatalf("snippet %q, degraded %q", got.Results[0].Snippet, got.Degraded)
			}
			t.Logf("degraded: %s", got.Degraded)
			// What else reads the text of the files found: a phrase
			// filter, feedback, related files.
			for _, args := range [][]string{{`"连接池 超时"`}, {"--prf", "连接池 超时"}, {"--related", "连接池 超时"}} {
				out, errs, code := kb(t, dir, append([]string{"search", "--json", "-q"}, args...)...)
				var r search.Response
				if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Results) == 0 {
					t.Fatalf("search %q: exit %d: %s\n%s", args, code, errs, out)
				}
				if !c.snippet && !strings.Contains(r.Degraded, "cannot read docs/pool.md") {
					t.Fatalf("search %q: degraded %q", args, r.Degraded)
				}
			}
			// An excluded phrase cannot be checked in a file that cannot
			// be read either: the file is left out, as for a phrase, not
			// listed though it may hold what the query excludes.
			out, errs, code = kb(t, dir, "search", "--json", "-q", "--", `超时 -"连接池 超时"`)
			var ex search.Response
			if code != 0 || json.Unmarshal([]byte(out), &ex) != nil {
				t.Fatalf("search with an excluded phrase: exit %d: %s\n%s", code, errs, out)
			}
			for _, r := range ex.Results {
				if r.Path == "docs/pool.md" {
					t.Fatalf("search with an excluded phrase lists docs/pool.md, which holds it; degraded %q", ex.Degraded)
				}
			}
			// A context pack (and ask, which packs one) holds what can be
			// read and names what not, rather than failing.
			out, errs, code = kb(t, dir, "context", "--format", "json", "连接池 超时")
			var p pack.Pack
			if code != 0 || json.Unmarshal([]byte(out), &p) != nil || p.Blocks == nil {
				t.Fatalf("context: exit %d: %s\n%s", code, errs, out)
			}
			packed := false
			for _, b := range p.Blocks {
				packed = packed || b.Path == "docs/pool.md"
			}
			if c.snippet != packed || c.snippet != (len(p.Unread) == 0) ||
				!c.snippet && (!strings.HasPrefix(p.Unread[0], "docs/pool.md: ") || !strings.Contains(errs, "left out of the pack, unreadable: docs/pool.md")) {
				t.Fatalf("context: docs/pool.md packed %v, unread %q, stderr %q", packed, p.Unread, errs)
			}
			if n := strings.Count(errs, "docs/pool.md"); !c.snippet && n != 1 {
				t.Fatalf("context names docs/pool.md %d times, want once: %q", n, errs)
			}
			if open := openUnder(t, filepath.Join(dir, ".git", "objects")); len(open) > 0 {
				t.Fatalf("files left open after the search: %v", open)
			}
		})
	}
}

// gitIn runs git in dir with stdin.
func gitIn(t *testing.T, dir string, stdin io.Reader, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, gittest.Env(), stdin
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

// openUnder lists this process's open files under dir (Linux's /proc).
func openUnder(t *testing.T, dir string) []string {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Logf("no /proc/self/fd: open files not checked")
		return nil
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	var open []string
	for _, fd := range fds {
		if p, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(p, dir+string(filepath.Separator)) {
			open = append(open, p)
		}
	}
	return open
}
