package index

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/store"
)

// genCorpus makes n files of about size bytes each: markdown and Go, words
// drawn from a large vocabulary (so postings outgrow a small budget), a
// few Chinese words among them.
func genCorpus(n, size int, seed uint64) map[string]string {
	rng := rand.New(rand.NewPCG(seed, 7))
	const letters = "abcdefghijklmnopqrstuvwxyz"
	vocab := make([]string, 60000)
	for i := range vocab {
		b := make([]byte, 3+rng.IntN(8))
		for j := range b {
			b[j] = letters[rng.IntN(len(letters))]
		}
		vocab[i] = string(b)
	}
	han := []string{"数据库", "连接池", "重试", "回滚", "索引", "配置", "部署"}
	files := map[string]string{}
	for f := range n {
		var sb strings.Builder
		if f%3 == 0 {
			fmt.Fprintf(&sb, "package p%d\n\n", f)
		} else {
			fmt.Fprintf(&sb, "# 文档 %d\n\n", f)
		}
		for sb.Len() < size {
			if f%3 == 0 {
				fmt.Fprintf(&sb, "// %s\nfunc %s%d() int { return %d }\n\n", vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], sb.Len(), rng.IntN(100))
				continue
			}
			for w := 0; w < 12; w++ {
				if w%5 == 4 {
					sb.WriteString(han[rng.IntN(len(han))])
				} else {
					sb.WriteString(vocab[rng.IntN(len(vocab))])
				}
				sb.WriteByte(' ')
			}
			sb.WriteString("\n")
			if rng.IntN(8) == 0 {
				fmt.Fprintf(&sb, "\n## %s\n\n", vocab[rng.IntN(len(vocab))])
			}
		}
		name := fmt.Sprintf("d%02d/f%04d.md", f%17, f)
		if f%3 == 0 {
			name = fmt.Sprintf("d%02d/f%04d.go", f%17, f)
		}
		files[name] = sb.String()
	}
	return files
}

// records dumps an index for comparison: every record but the refs (they
// hold when they were indexed), views decoded with their time zeroed.
func records(t *testing.T, repo *gitx.Repo) map[string]string {
	t.Helper()
	db, err := store.Open(context.Background(), DBDir(repo), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]string{}
	err = db.Scan(nil, func(k, v []byte) error {
		switch {
		case bytes.HasPrefix(k, []byte("r/")), bytes.HasPrefix(k, []byte("m/format")):
		case k[0] == 'v':
			var tree store.SHA
			copy(tree[:], k[2:])
			view, err := db.View(k[1], tree)
			if err != nil {
				return err
			}
			view.Created = time.Time{}
			out[string(k)] = fmt.Sprintf("%+v", *view)
		default:
			out[string(k)] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSpilledIndexSameAsInMemory: an index built under a budget small
// enough to spill many sorted runs holds exactly the records of one built
// in memory, so search statistics and results cannot differ.
func TestSpilledIndexSameAsInMemory(t *testing.T) {
	files := genCorpus(240, 3000, 1)
	ctx := context.Background()
	var got [2]map[string]string
	for i, budget := range []int64{1 << 40, 64 << 10} {
		repo, err := gitx.Open(gittest.New(t, files))
		if err != nil {
			t.Fatal(err)
		}
		st, err := Run(ctx, repo, Options{MemoryBudget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && st.SpillRuns != 0 || i == 1 && st.SpillRuns < 3 {
			t.Fatalf("budget %d: %d spilled runs", budget, st.SpillRuns)
		}
		if _, err := os.Stat(SpillDir(repo.KBDir())); !os.IsNotExist(err) {
			t.Fatalf("spill dir left behind: %v", err)
		}
		got[i] = records(t, repo)
	}
	if len(got[0]) < 1000 {
		t.Fatalf("only %d records", len(got[0]))
	}
	for k, v := range got[0] {
		if got[1][k] != v {
			t.Fatalf("record %q differs: in memory %d bytes, spilled %d bytes", k, len(v), len(got[1][k]))
		}
	}
	if len(got[0]) != len(got[1]) {
		t.Fatalf("%d records in memory, %d spilled", len(got[0]), len(got[1]))
	}
}

// liveHeap is the live heap after a full collection. Called from the only
// goroutine that allocates, so nothing allocated during the collection
// inflates it.
func liveHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestPostingBufferMemoryBudget: the inversion buffer of an indexing run
// holds postings several times its limit (12 MiB here against 1 MiB) in
// no more than about its limit of live heap, spilling the rest to sorted
// runs, and the merge gives back every term's postings exactly as the
// unbounded buffer holds them. Peak live heap is read from runtime/metrics.
func TestPostingBufferMemoryBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	vocab := make([]string, 100000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("t%x%d", rng.Uint32(), i)
	}
	const chunks, perChunk, limit = 25000, 40, 1 << 20
	chunkTerms := func(c int, r *rand.Rand) []termTF {
		seen := map[int]bool{}
		var ts []termTF
		for len(ts) < perChunk {
			// Zipf-like: a few terms in many chunks, most in few.
			i := int(float64(len(vocab)) * r.Float64() * r.Float64() * r.Float64())
			if !seen[i] {
				seen[i] = true
				ts = append(ts, termTF{vocab[i], [store.NumFields]uint16{uint16(1 + c%3), 0, 1, 0}})
			}
		}
		return ts
	}
	run := func(limit int64) (*postingBuffer, int64) {
		buf := newPostingBuffer(t.TempDir(), limit)
		r := rand.New(rand.NewPCG(9, 9))
		base := liveHeap()
		var peak int64
		for c := range chunks {
			if err := buf.add(uint32(c), chunkTerms(c, r)); err != nil {
				t.Fatal(err)
			}
			if c%1000 == 999 {
				peak = max(peak, liveHeap()-base)
			}
		}
		return buf, peak
	}
	all, unbounded := run(1 << 40)
	spilt, bounded := run(limit)
	t.Logf("unbounded: peak live heap +%.1f MiB; limit %d: +%.1f MiB, %d runs", float64(unbounded)/(1<<20), limit, float64(bounded)/(1<<20), len(spilt.runs))
	if unbounded < 8*limit {
		t.Fatalf("the postings need only %d bytes: not larger than the limit", unbounded)
	}
	if bounded > 2*limit || len(spilt.runs) < 8 {
		t.Fatalf("limit %d: live heap rose %d bytes, %d runs", limit, bounded, len(spilt.runs))
	}
	want := map[string][]store.Posting{}
	for term, i := range all.m {
		want[term] = all.lists[i]
	}
	n, err := spilt.merge(func(term string, ps []store.Posting) error {
		if !slices.Equal(ps, want[term]) {
			return fmt.Errorf("term %q: %d postings merged, %d in memory", term, len(ps), len(want[term]))
		}
		delete(want, term)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 0 {
		t.Fatalf("%d terms merged, %d missing", n, len(want))
	}
}
