package index

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/store"
)

// realFiles are this repository's own sources and README: real text of a
// real small repository, Go and Markdown with Chinese.
func realFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, dir := range []string{"../chunk", "../segment", "../store", "../gitx"} {
		ms, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			files[strings.TrimPrefix(m, "../")] = string(b)
		}
	}
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	files["README.md"] = string(b)
	// Files the view leaves out, each for its own reason, so that the
	// skip counts are carried from view to view too: by name, by size,
	// by content (a NUL byte), empty.
	files["assets/logo.png"] = "\x89PNG not really"
	files["vendor/lib/lib.go"] = "package lib\n"
	files["data/dump.txt"] = "rows\x00\x01\x02\n"
	files["empty.md"] = ""
	for p, text := range files {
		if len(text) > testMaxSize {
			t.Fatalf("%s is %d bytes, over testMaxSize (%d): raise it and big.txt with it", p, len(text), testMaxSize)
		}
	}
	files["big.txt"] = strings.Repeat("大文件 big file line\n", testMaxSize/20)
	return files
}

// testMaxSize leaves big.txt out (and every real file in: README.md is
// one, and grows).
const testMaxSize = 1 << 20

// sameView fails t unless the view of rev built in repo holds the same
// facts (at least 1000 of them) as the one rebuilt in fresh; label and
// how name the case and the way repo's view was built.
func sameView(t *testing.T, repo, fresh *gitx.Repo, rev, label, how string) {
	t.Helper()
	got, want := viewContent(t, repo, rev), viewContent(t, fresh, rev)
	if len(want) < 1000 {
		t.Fatalf("only %d facts in the view of %s", len(want), rev)
	}
	for k, w := range want {
		if got[k] != w {
			t.Fatalf("%s: %q is %q %s, %q rebuilt", label, k, got[k], how, w)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d facts %s, %d rebuilt", label, len(got), how, len(want))
	}
}

// viewContent is what search sees of a commit's view, independent of
// segment ids and chunk ordinals: the view's totals and files, and per
// live chunk (named blob:i) its body length and every term's frequencies.
func viewContent(t *testing.T, repo *gitx.Repo, rev string) map[string]string {
	t.Helper()
	ctx := context.Background()
	_, tree, err := repo.Resolve(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, DBDir(repo), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, err := db.View(PipelineVersion, tree)
	if err != nil {
		t.Fatalf("view of %s: %v", rev, err)
	}
	out := map[string]string{"view": fmt.Sprintf("chunks %d fieldlen %v files %d indexed %d bytes %d skipped %v",
		v.Chunks, v.FieldLen, v.Stats.Files, v.Stats.Indexed, v.Stats.Bytes, v.Stats.Skipped)}
	for _, e := range v.Entries {
		out["file "+e.Path] = fmt.Sprintf("%x n %d vocab %d", e.Blob, e.N, e.Vocab)
	}
	name := map[uint32]string{} // live chunk ordinal -> blob:i
	for _, e := range v.ChunkEntries(nil) {
		for i := range e.N {
			name[e.First+i] = fmt.Sprintf("%s:%d", hex.EncodeToString(e.Blob[:6]), i)
		}
	}
	segs := v.Segments()
	infos, err := db.Segments()
	if err != nil {
		t.Fatal(err)
	}
	for seg := range segs {
		ls, err := db.Lengths(PipelineVersion, seg)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range ls {
			if n, ok := name[infos[seg].First+uint32(i)]; ok {
				out["len "+n] = fmt.Sprint(l)
			}
		}
	}
	err = db.Scan([]byte{'p', PipelineVersion}, func(k, val []byte) error {
		term := string(k[2 : len(k)-5])
		seg := uint32(k[len(k)-4])<<24 | uint32(k[len(k)-3])<<16 | uint32(k[len(k)-2])<<8 | uint32(k[len(k)-1])
		if !segs[seg] {
			return nil
		}
		ps, err := store.DecodePostings(nil, val)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if n, ok := name[p.Chunk]; ok {
				out["post "+term+" "+n] = fmt.Sprint(p.TF)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIncrementalViewEqualsRebuild: on random sequences of commits over a
// real small repository (edits, deletions, additions, reverts to a blob
// indexed before), a view built commit by commit, each run reading only
// the changed blobs (and spilling under a small budget) and building its
// view from the parent's by the files that differ, holds for search
// exactly what a full index of the same commit in a fresh clone holds; so
// does an earlier commit searched with --rev.
//
// Not covered: one blob at two paths (a copy, or a rename). Its path-field
// terms are those of the path it was first analyzed under, so an index
// that met it under another path first differs in that field (content
// addressing keys the blob, not the path).
func TestIncrementalViewEqualsRebuild(t *testing.T) {
	base, orig := realFiles(t), realFiles(t)
	names := make([]string, 0, len(base))
	for n := range base {
		names = append(names, n)
	}
	sort.Strings(names)
	ctx := context.Background()
	for seed := range uint64(2) {
		rng := rand.New(rand.NewPCG(seed, 11))
		dir := gittest.New(t, base)
		repo, err := gitx.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		live := append([]string(nil), names...)
		var commits []string
		readAhead := 0
		for c := range 6 {
			st, err := Run(ctx, repo, Options{MemoryBudget: 256 << 10, MaxFileSize: testMaxSize})
			if err != nil {
				t.Fatal(err)
			}
			if st.ReadAhead {
				readAhead++
			}
			if c > 0 && !st.AlreadyIndexed && (st.Base == "" || st.ChangedFiles == 0 || st.ChangedFiles > 8) {
				t.Fatalf("commit %d was not indexed from its parent's view: base %q, %d files changed", c, st.Base, st.ChangedFiles)
			}
			change := map[string]string{}
			var gone []string
			for range 1 + rng.IntN(4) {
				f := live[rng.IntN(len(live))]
				switch rng.IntN(4) {
				case 0: // edit: a line from another file appended
					src := base[names[rng.IntN(len(names))]]
					lines := strings.Split(src, "\n")
					change[f] = base[f] + "\n" + lines[rng.IntN(len(lines))] + fmt.Sprintf(" 第%d次修改\n", c)
					base[f] = change[f]
				case 1: // a revert: the file's first version, a blob indexed before
					if o, ok := orig[f]; ok {
						change[f] = o
					}
				case 2: // new file
					change[fmt.Sprintf("notes/n%d-%d.md", seed, c)] = fmt.Sprintf("# 笔记 %d\n\n连接池 超时 重试 %s\n", c, f)
				case 3: // delete
					if len(live) > 10 {
						gone = append(gone, f)
					}
				}
			}
			for k, v := range change {
				base[k] = v
			}
			gittest.Commit(t, dir, fmt.Sprintf("change %d", c), change)
			for _, g := range gone {
				_, changed := change[g]
				if _, live := base[g]; live && !changed { // chosen twice: removed once
					gittest.Remove(t, dir, "remove "+g, g)
					delete(base, g)
				}
			}
			live = live[:0]
			for n := range base {
				live = append(live, n)
			}
			sort.Strings(live)
			commits = append(commits, gittest.Git(t, dir, "rev-parse", "HEAD"))
		}
		if st, err := Run(ctx, repo, Options{MemoryBudget: 256 << 10, MaxFileSize: testMaxSize}); err != nil {
			t.Fatal(err)
		} else if st.ReadAhead {
			readAhead++
		}
		if readAhead == 0 {
			t.Fatalf("seed %d: no commit was read ahead of the database (afterlast.go)", seed)
		}
		clone := filepath.Join(t.TempDir(), "clone")
		gittest.Git(t, filepath.Dir(clone), "clone", "-q", dir, clone)
		fresh, err := gitx.Open(clone)
		if err != nil {
			t.Fatal(err)
		}
		for _, rev := range []string{commits[len(commits)-1], commits[2]} {
			if _, err := Run(ctx, fresh, Options{Rev: rev, MaxFileSize: testMaxSize}); err != nil {
				t.Fatal(err)
			}
			sameView(t, repo, fresh, rev, fmt.Sprintf("seed %d, %s", seed, rev[:8]), "built incrementally")
		}
	}
}

// TestNoBaseAcrossPolicies: a view built under another secrets policy
// (kb.secrets.allow) or another kb.maxFileSize is not the base of a new
// commit's view: its files' chunks were redacted (or chosen) otherwise.
func TestNoBaseAcrossPolicies(t *testing.T) {
	ctx := context.Background()
	dir := gittest.New(t, map[string]string{"a.md": "# A\n\n连接池 超时\n", "b.md": "# B\n\n重试 回滚\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := func() *Stats {
		t.Helper()
		st, err := Run(ctx, repo, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	run()
	c1 := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Commit(t, dir, "c2", map[string]string{"a.md": "# A\n\n连接池 超时 重试\n"})
	if st := run(); st.Base != c1 {
		t.Fatalf("c2 was not built from c1: base %q", st.Base)
	}
	gittest.Git(t, dir, "config", "--add", "kb.secrets.allow", "aws-access-key")
	gittest.Commit(t, dir, "c3", map[string]string{"b.md": "# B\n\n重试 回滚 告警\n"})
	if st := run(); st.Base != "" {
		t.Fatalf("c3, under a new secrets policy, was built from %s", st.Base)
	}
	gittest.Commit(t, dir, "c4", map[string]string{"c.md": "# C\n\n备份\n"})
	if st := run(); st.Base == "" {
		t.Fatalf("c4 was not built from c3")
	}
	// A branch off c2, indexed under the old policy: built from the last
	// indexed view (the policy matches), not from its parent's.
	c2 := gittest.Git(t, dir, "rev-parse", "HEAD~2")
	gittest.Git(t, dir, "checkout", "-q", "-b", "old", c2)
	gittest.Commit(t, dir, "c2b", map[string]string{"e.md": "# E\n\n缩容\n"})
	if st := run(); st.Base == "" || st.Base == c2 || st.Base == c1 {
		t.Fatalf("c2b was built from %q, want c3 or c4, indexed last (c2's view is of another policy)", st.Base)
	}
	gittest.Git(t, dir, "config", "kb.maxFileSize", "100k")
	gittest.Commit(t, dir, "c5", map[string]string{"d.md": "# D\n\n扩容\n"})
	if st := run(); st.Base != "" {
		t.Fatalf("c5, under a new kb.maxFileSize, was built from %s", st.Base)
	}
}
