package index

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// oneLine is n bytes of one line without a newline: base64 of random
// bytes, or minified-JavaScript-like code.
func oneLine(kind string, n int) []byte {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	if kind == "base64" {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(rng.IntN(256))
		}
		return []byte(base64.StdEncoding.EncodeToString(raw)[:n])
	}
	var b strings.Builder
	ids := []string{"e", "t", "n", "fn", "obj", "val", "retryCount", "handler"}
	for b.Len() < n {
		id := ids[rng.IntN(len(ids))]
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "function %s%d(a,b){", id, rng.IntN(1000))
		case 1:
			fmt.Fprintf(&b, "return %s.push(%d)};", id, rng.IntN(100000))
		case 2:
			fmt.Fprintf(&b, "var %s=%s[%d]||{};", id, ids[rng.IntN(len(ids))], rng.IntN(50))
		default:
			fmt.Fprintf(&b, `if(%s.length>%d){%s.add("連線池")}`, id, rng.IntN(99), id)
		}
	}
	return []byte(b.String()[:n])
}

// TestOneLineFile: a file that is one long line is cut into chunks that
// all cite that line; base64 in it yields next to no terms (a distinct
// term per ~10 bytes before, millions for a big file), while a minified
// line keeps its words.
func TestOneLineFile(t *testing.T) {
	pol := secrets.NewPolicy(nil)
	tm := &timer{m: map[string]time.Duration{}}
	for _, tt := range []struct {
		kind, path           string
		minUnique, maxUnique uint32
	}{
		{"base64", "blob.b64", 0, 1000}, // the path's and the last piece's (under MaxDataRun)
		{"minjs", "app.bundle.js", 1000, 1 << 20},
	} {
		data := oneLine(tt.kind, 1<<20)
		r := analyze(segment.Tiny(), tm, pol, tt.path, store.SHA{}, data)
		if r.meta == nil || len(r.meta.Chunks) < (1<<20)/3000 {
			t.Fatalf("%s: %+v: want a chunk per ~2 KB", tt.path, r.header)
		}
		for _, c := range r.meta.Chunks {
			if c.Start != 1 || c.End != 1 {
				t.Fatalf("%s: chunk cites lines %d-%d, want 1-1", tt.path, c.Start, c.End)
			}
		}
		if u := r.header.UniqueTerm; u < tt.minUnique || u > tt.maxUnique {
			t.Errorf("%s: %d distinct terms, want %d to %d", tt.path, u, tt.minUnique, tt.maxUnique)
		}
	}
}

// BenchmarkAnalyzeOneLine: analyzing a one-line file (decode, secrets,
// chunks, terms) costs time and memory in proportion to its size: ns/op
// and B/op grow with MB, MB/s stays flat. The whole run (the 70 MB files
// of docs/MEASURED.md) also writes what is analyzed; what grew faster
// than the input were base64's millions of distinct terms.
func BenchmarkAnalyzeOneLine(b *testing.B) {
	pol := secrets.NewPolicy(nil)
	tm := &timer{m: map[string]time.Duration{}}
	an := segment.Tiny()
	for _, kind := range []string{"base64", "minjs"} {
		for _, mb := range []int{1, 4, 16} {
			data := oneLine(kind, mb<<20)
			b.Run(fmt.Sprintf("%s/MB=%d", kind, mb), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				var r *analyzed
				for b.Loop() {
					r = analyze(an, tm, pol, "f."+kind, store.SHA{}, data)
				}
				b.ReportMetric(float64(r.header.UniqueTerm)/float64(mb), "terms/MB")
			})
		}
	}
}
