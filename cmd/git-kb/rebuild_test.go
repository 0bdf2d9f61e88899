package main

import (
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/search"
)

// damageIndex truncates the newest table of the index: what a bad sector
// or a crash of the machine leaves.
func damageIndex(t testing.TB, dir string) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, ".git", "kb", "db", "*.sst"))
	if len(names) == 0 {
		t.Fatal("no table in the index")
	}
	fi, _ := os.Stat(names[len(names)-1])
	if err := os.Truncate(names[len(names)-1], fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}

func fakeEmbedder(t testing.TB, dir string) *embeddingsServer {
	srv := &embeddingsServer{}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	gittest.Git(t, dir, "config", "kb.embed.baseURL", hs.URL+"/v1")
	gittest.Git(t, dir, "config", "kb.embed.model", "fake-embed")
	return srv
}

// A damaged index is named by search and doctor, and doctor --fix
// rebuilds it from git with every vector from the embedding cache.
func TestDoctorFixRebuildsWithoutEmbedding(t *testing.T) {
	dir := gittest.New(t, genDocs(60, 3, "docs"))
	srv := fakeEmbedder(t, dir)
	st := indexJSON(t, dir)
	if st.Embed == nil || st.Embed.Embedded != st.Chunks {
		t.Fatalf("first index: %+v", st.Embed)
	}
	want := searchJSON(t, dir, "连接池 超时")
	damageIndex(t, dir)

	_, errs, code := kb(t, dir, "search", "连接池 超时")
	if code != 1 || !strings.Contains(errs, "the index is damaged") || !strings.Contains(errs, "git kb doctor --fix") {
		t.Fatalf("search on a damaged index: exit %d: %s", code, errs)
	}
	out, _, code := kb(t, dir, "doctor")
	if code != 1 || !strings.Contains(out, ".sst") {
		t.Fatalf("doctor on a damaged index: exit %d:\n%s", code, out)
	}
	calls := srv.calls.Load()
	out, errs, code = kb(t, dir, "doctor", "--fix")
	if code != 0 {
		t.Fatalf("doctor --fix: exit %d\n%s%s", code, out, errs)
	}
	if n := srv.calls.Load() - calls; n != 0 {
		t.Errorf("the rebuild made %d embedding calls, want 0 (the cache is intact)", n)
	}
	moved, _ := filepath.Glob(filepath.Join(dir, ".git", "kb", "damaged", "db-*"))
	if len(moved) != 1 || !strings.Contains(errs, moved[0]) {
		t.Errorf("the damaged index is not kept for a bug report: %v; %s", moved, errs)
	}
	got := searchJSON(t, dir, "连接池 超时")
	if got.Mode != search.ModeHybrid || resultKey(got) != resultKey(want) {
		t.Errorf("after the rebuild: mode %s, results differ:\n%s\n%s", got.Mode, resultKey(got), resultKey(want))
	}
	if _, _, code := kb(t, dir, "doctor"); code != 0 {
		t.Errorf("doctor after --fix: exit %d", code)
	}
	// gc keeps the moved index for DamagedKeep, then drops it.
	kb(t, dir, "gc", "-q")
	if _, err := os.Stat(moved[0]); err != nil {
		t.Errorf("gc dropped a fresh damaged index: %v", err)
	}
	old := time.Now().Add(-15 * 24 * time.Hour)
	os.Chtimes(moved[0], old, old)
	kb(t, dir, "gc", "-q")
	if _, err := os.Stat(moved[0]); !os.IsNotExist(err) {
		t.Errorf("gc kept a damaged index older than 14 days: %v", err)
	}
}

// BenchmarkRebuild compares `doctor --fix` on a damaged index (embedding
// cache intact) with a fresh lexical index of the same commit, on the
// tidb-docs-cn corpus; it reports the time ratio and the embedding calls
// the rebuild made.
//
//	go test ./cmd/git-kb -run XXX -bench Rebuild -benchtime 3x
func BenchmarkRebuild(b *testing.B) {
	dir := gittest.Clone(b, gittest.CorpusBundle(b, "tidb-docs-cn.bundle"))
	srv := fakeEmbedder(b, dir)
	if _, errs, code := kb(&testing.T{}, dir, "index", "-q"); code != 0 {
		b.Fatalf("index: %s", errs)
	}
	var fresh, rebuild time.Duration
	var calls int64
	for range b.N {
		// Fresh: an index from nothing (what rm -rf .git/kb/db costs).
		tmp := filepath.Join(b.TempDir(), "kb")
		os.Rename(filepath.Join(dir, ".git", "kb"), tmp)
		t0 := time.Now()
		if _, errs, code := kb(&testing.T{}, dir, "index", "-q", "--embed", "off"); code != 0 {
			b.Fatalf("fresh index: %s", errs)
		}
		fresh += time.Since(t0)
		os.RemoveAll(filepath.Join(dir, ".git", "kb"))
		os.Rename(tmp, filepath.Join(dir, ".git", "kb"))

		damageIndex(b, dir)
		c0 := srv.calls.Load()
		t0 = time.Now()
		if out, errs, code := kb(&testing.T{}, dir, "doctor", "--fix", "-q"); code != 0 {
			b.Fatalf("doctor --fix: %s%s", out, errs)
		}
		rebuild += time.Since(t0)
		calls += srv.calls.Load() - c0
	}
	b.ReportMetric(rebuild.Seconds()/fresh.Seconds(), "rebuild/fresh")
	b.ReportMetric(fresh.Seconds()/float64(b.N), "fresh-s")
	b.ReportMetric(rebuild.Seconds()/float64(b.N), "rebuild-s")
	b.ReportMetric(float64(calls)/float64(b.N), "embed-calls")
}

// TestRebuildOfASoundIndexKeepsNoCopy: git kb index --rebuild of an
// index that passes its checks leaves no copy of it behind (it used to
// sit in .git/kb/damaged for 14 days, taking the index's size on disk);
// one that fails them is still kept there for a bug report.
func TestRebuildOfASoundIndexKeepsNoCopy(t *testing.T) {
	dir := gittest.New(t, genDocs(60, 3, "docs"))
	indexJSON(t, dir)
	want := searchJSON(t, dir, "连接池 超时")
	kbDir := filepath.Join(dir, ".git", "kb")
	left := func() []string {
		a, _ := filepath.Glob(filepath.Join(kbDir, "damaged", "*"))
		b, _ := filepath.Glob(filepath.Join(kbDir, "replaced", "*"))
		return append(a, b...)
	}

	_, errs, code := kb(t, dir, "index", "--rebuild")
	if code != 0 || strings.Contains(errs, "moved the") {
		t.Fatalf("index --rebuild: exit %d: %s", code, errs)
	}
	if l := left(); len(l) != 0 {
		t.Errorf("a rebuild of a sound index left a copy of it: %q", l)
	}
	if got := searchJSON(t, dir, "--no-index", "连接池 超时"); resultKey(got) != resultKey(want) {
		t.Errorf("after the rebuild, results differ:\n%s\n%s", resultKey(got), resultKey(want))
	}

	damageIndex(t, dir)
	_, errs, code = kb(t, dir, "index", "--rebuild")
	moved, _ := filepath.Glob(filepath.Join(kbDir, "damaged", "db-*"))
	if code != 0 || len(moved) != 1 || !strings.Contains(errs, "moved the damaged index to "+moved[0]) {
		t.Errorf("index --rebuild of a damaged index: exit %d, kept %q: %s", code, moved, errs)
	}
	if got := searchJSON(t, dir, "--no-index", "连接池 超时"); resultKey(got) != resultKey(want) {
		t.Errorf("after rebuilding a damaged index, results differ:\n%s\n%s", resultKey(got), resultKey(want))
	}
}

// TestKillNineDuringRebuild kills git kb index --rebuild of a sound index
// at random points. After each kill a search answers as a clean index
// does, doctor is clean, and gc leaves no copy of the old index behind.
func TestKillNineDuringRebuild(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a real rebuild 8 times")
	}
	dir := gittest.New(t, genDocs(400, 17, "docs"))
	kbBin(t, dir, "index", "--quiet", "--embed", "off")
	t0 := time.Now()
	kbBin(t, dir, "index", "--rebuild", "--quiet", "--embed", "off")
	took := time.Since(t0)
	want := map[string]string{}
	for _, q := range crashQueries {
		r, errs, code := searchBin(t, dir, "--no-index", q)
		if code != 0 {
			t.Fatalf("search %q: exit %d %s", q, code, errs)
		}
		want[q] = resultKey(r)
	}
	kbDir := filepath.Join(dir, ".git", "kb")
	rng := rand.New(rand.NewPCG(36, 36))
	killedMidway := 0
	for i := range 8 {
		delay, err := killIndexer(t, dir, rng, took, "--rebuild")
		if err != nil {
			killedMidway++
		}
		for _, q := range crashQueries {
			if r, errs, code := searchBin(t, dir, q); code != 0 || resultKey(r) != want[q] {
				t.Errorf("kill %d after %v: search %q: exit %d %s, results differ from a clean index: %v", i, delay, q, code, errs, code == 0)
			}
		}
		kbBin(t, dir, "doctor") // fails the test on exit 1
		kbBin(t, dir, "gc", "-q")
		for _, d := range []string{"damaged", "replaced"} {
			if l, _ := filepath.Glob(filepath.Join(kbDir, d, "*")); len(l) != 0 {
				t.Errorf("kill %d after %v: gc left %q", i, delay, l)
			}
		}
	}
	t.Logf("rebuild took %v; %d of 8 kills landed mid-run", took, killedMidway)
	if killedMidway == 0 {
		t.Error("no kill landed during a rebuild")
	}
}
