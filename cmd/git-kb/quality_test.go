package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// Quality floors on the development query sets (issues 13, 19): a change
// that makes offline search worse on them fails here. The floors sit a
// little below what was measured when they were last raised (shared and
// testdata/eval sets together: docs MRR@10 0.787, Hit@10 0.940 (with the
// paraphrase table and the reference prior); Go code 0.715, 0.889;
// polaris 0.597, 0.836), to allow for small reorderings, not for a
// regression.
var qualityFloors = map[string]struct{ mrr, hit10 float64 }{
	"docs":    {0.76, 0.91},
	"code":    {0.68, 0.86},
	"polaris": {0.56, 0.80},
	// docs-more2 (stop 35: 60 questions on pages no other set uses,
	// weakest on symptoms) measured 0.670 / 0.883 when it was written.
	"docs-more2": {0.64, 0.85},
	// polaris with the team synonyms file written from its code
	// (testdata/synonyms/polaris.txt) measured 0.668 / 0.909 (without
	// it 0.645 / 0.855): its Hit@10 floor is above what no file reaches.
	"polaris-team": {0.64, 0.88},
}

// evalSets returns the query files of a set: the shared dev set (beside
// the corpora) and the repository's own testdata/eval ones.
func evalSets(t *testing.T, bundleDir, set string) []string {
	var files []string
	for _, p := range []string{
		filepath.Join(bundleDir, "..", "eval", set+"-dev.jsonl"),
		filepath.Join("..", "..", "testdata", "eval", set+"-more.jsonl"),
	} {
		if _, err := os.Stat(p); err == nil {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		t.Skipf("no %s query sets found", set)
	}
	return files
}

func checkFloor(t *testing.T, dir, set string, queries []string) {
	t.Helper()
	var out struct {
		Runs []struct {
			Summary struct {
				Queries int     `json:"queries"`
				MRR     float64 `json:"mrr@10"`
				Hit10   float64 `json:"hit@10"`
			} `json:"summary"`
		} `json:"runs"`
	}
	kbJSON(t, dir, &out, append([]string{"eval", "--json"}, queries...)...)
	if len(out.Runs) != 1 || out.Runs[0].Summary.Queries == 0 {
		t.Fatalf("eval: %+v", out)
	}
	s, floor := out.Runs[0].Summary, qualityFloors[set]
	t.Logf("%s: %d questions, MRR@10 %.3f, Hit@10 %.3f", set, s.Queries, s.MRR, s.Hit10)
	if s.MRR < floor.mrr || s.Hit10 < floor.hit10 {
		t.Errorf("%s: MRR@10 %.3f, Hit@10 %.3f: below the floor %.2f / %.2f", set, s.MRR, s.Hit10, floor.mrr, floor.hit10)
	}
}

func TestQualityFloorDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes and queries the docs corpus (about 30 s)")
	}
	dir := checkBundleFloor(t, "tidb-docs-cn.bundle", "docs")
	// The same questions in traditional characters hold the same floor:
	// both scripts are analyzed alike.
	checkFloor(t, dir, "docs", []string{hantSet("docs")})
	checkFloor(t, dir, "docs-more2", []string{filepath.Join("..", "..", "testdata", "eval", "docs-more2.jsonl")})
}

// hantSet is a testdata/eval set's questions in traditional characters
// (testdata/eval/hant.py).
func hantSet(set string) string {
	return filepath.Join("..", "..", "testdata", "eval", set+"-hant.jsonl")
}

// checkBundleFloor clones a corpus bundle, indexes it and checks the
// floor of its query sets; it returns the indexed clone.
func checkBundleFloor(t *testing.T, bundleName, set string) string {
	bundle := gittest.CorpusBundle(t, bundleName)
	queries := evalSets(t, filepath.Dir(bundle), set)
	dir := gittest.Clone(t, bundle)
	indexJSON(t, dir)
	checkFloor(t, dir, set, queries)
	return dir
}

func TestQualityFloorGoSource(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes Go's source (about 2 min)")
	}
	// The labels are paths of go1.26.8's tree; files move between releases.
	if runtime.Version() != "go1.26.8" {
		t.Skipf("code queries are labelled against go1.26.8's source; this is %s", runtime.Version())
	}
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "net", "http", "server.go")); err != nil {
		t.Skipf("Go's source is not at %s", src)
	}
	bundle := gittest.CorpusBundle(t, "tidb-docs-cn.bundle") // locates the shared eval sets
	queries := evalSets(t, filepath.Dir(bundle), "code")
	dir := filepath.Join(t.TempDir(), "gosrc")
	if out, err := exec.Command("cp", "-r", src, dir).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v %s", src, err, out)
	}
	gittest.Git(t, dir, "init", "-q")
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "Go source")
	indexJSON(t, dir)
	checkFloor(t, dir, "code", queries)
	checkFloor(t, dir, "code", []string{hantSet("code")})
}

func TestQualityFloorPolaris(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes and queries the polaris corpus (about 20 s)")
	}
	dir := checkBundleFloor(t, "polaris.bundle", "polaris")
	team, err := filepath.Abs(filepath.Join("..", "..", "testdata", "synonyms", "polaris.txt"))
	if err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "config", "kb.synonyms", team)
	checkFloor(t, dir, "polaris-team", evalSets(t, filepath.Dir(gittest.CorpusBundle(t, "polaris.bundle")), "polaris"))
}
