package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureResults reads testdata/results.jsonl: ranked paths and latency by id.
func fixtureResults(t *testing.T) (map[string][]string, map[string]float64) {
	t.Helper()
	f, err := os.Open("testdata/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	paths, lat := map[string][]string{}, map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			ID      string `json:"id"`
			Results []struct {
				Path string `json:"path"`
			} `json:"results"`
			LatencyMs float64 `json:"latency_ms"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		paths[r.ID] = []string{}
		for _, x := range r.Results {
			paths[r.ID] = append(paths[r.ID], x.Path)
		}
		lat[r.ID] = r.LatencyMs
	}
	return paths, lat
}

func fixtureRun(t *testing.T) (*Run, map[string]float64) {
	t.Helper()
	qs, err := Load("testdata/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	paths, lat := fixtureResults(t)
	run, err := Evaluate(context.Background(), "fixture", qs, func(_ context.Context, q Query) ([]string, error) {
		p, ok := paths[q.ID]
		if !ok {
			return []string{"x.md"}, errors.New("missing from results file") // an error's results do not count
		}
		return p, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return run, lat
}

// TestScoreByHand checks the metrics against values worked out by hand
// from the fixture: q1 rank 1; q2 rank 2 with both files in the top 3
// (after "./" and duplicates are folded); q3 rank 5 with 2 of 3 files in
// the top 10; q4 nothing; q5 an error; q6 rank 10 (duplicates do not take
// places, so the 11th path is out).
func TestScoreByHand(t *testing.T) {
	run, _ := fixtureRun(t)
	first := map[string]int{}
	for _, r := range run.Rows {
		first[r.ID] = r.FirstRank
	}
	wantFirst := map[string]int{"q1": 1, "q2": 2, "q3": 5, "q4": 0, "q5": 0, "q6": 10}
	for id, w := range wantFirst {
		if first[id] != w {
			t.Errorf("%s: first rank %d, want %d", id, first[id], w)
		}
	}
	s := run.Summary
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("MRR@10", s.MRR10, (1+0.5+0.2+0.1)/6)
	near("Hit@1", s.Hit1, 1.0/6)
	near("Hit@10", s.Hit10, 4.0/6)
	near("Recall@3", s.Recall3, (1+1+0.0)/6)
	near("Recall@10", s.Recall10, (1+1+2.0/3+0.5)/6)
	// q3: hits at 5 and 7 of 3 relevant; ideal: 3 hits at the top.
	near("q3 nDCG@10", run.Rows[2].NDCG10, (1/math.Log2(6)+1/math.Log2(8))/(1+1/math.Log2(3)+1/math.Log2(4)))
	if s.Errors != 1 || run.Rows[4].Error == "" || len(run.Rows[4].Top) != 0 {
		t.Errorf("q5's error: errors=%d row=%+v", s.Errors, run.Rows[4])
	}
	if g := s.Groups["lang=zh"]; g.N != 2 || g.Hit1 != 0.5 {
		t.Errorf("lang=zh: %+v", g)
	}
	if _, ok := s.Groups["lang="]; ok {
		t.Error("q6 has no lang: it must not make a lang= group")
	}
	if got := strings.Join(s.GroupNames(), " "); got != "lang=en lang=mixed lang=zh kind=howto kind=keyword kind=paraphrase kind=symbol" {
		t.Errorf("group order: %s", got)
	}
}

// TestMatchesScorePy runs the team's scorer (testdata/eval/score.py) on
// the same queries and results and compares every summary figure and
// every group: git kb eval and score.py must agree.
func TestMatchesScorePy(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: cannot cross-check with score.py")
	}
	out := filepath.Join(t.TempDir(), "score.json")
	cmd := exec.Command(python, "../testdata/eval/score.py", "testdata/queries.jsonl", "--results", "testdata/results.jsonl", "-q", "--json", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("score.py: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var py struct {
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(b, &py); err != nil {
		t.Fatal(err)
	}
	run, lat := fixtureRun(t)
	ours := map[string]any{}
	j, _ := json.Marshal(run.Summary)
	json.Unmarshal(j, &ours)
	for _, key := range []string{"queries", "errors", "recall@1", "recall@3", "recall@5", "recall@10", "hit@1", "hit@3", "hit@5", "hit@10", "mrr@10", "ndcg@10"} {
		if !sameNumber(ours[key], py.Summary[key]) {
			t.Errorf("%s: eval %v, score.py %v", key, ours[key], py.Summary[key])
		}
	}
	pg := py.Summary["groups"].(map[string]any)
	og := ours["groups"].(map[string]any)
	if len(pg) != len(og) {
		t.Errorf("groups: eval %d, score.py %d", len(og), len(pg))
	}
	for name, v := range pg {
		for key, want := range v.(map[string]any) {
			got := og[name].(map[string]any)[key]
			if !sameNumber(got, want) {
				t.Errorf("%s %s: eval %v, score.py %v", name, key, got, want)
			}
		}
	}
	// Latency: score.py has one only for the queries in the results file.
	var l []float64
	for _, v := range lat {
		l = append(l, v)
	}
	if !sameNumber(median(l), py.Summary["latency_median_ms"]) || !sameNumber(percentile(l, 0.95), py.Summary["latency_p95_ms"]) {
		t.Errorf("latency p50/p95 %v/%v, score.py %v/%v", median(l), percentile(l, 0.95), py.Summary["latency_median_ms"], py.Summary["latency_p95_ms"])
	}
}

func sameNumber(a, b any) bool {
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	return ok1 && ok2 && math.Abs(x-y) < 1e-12
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	good := `{"id": "a", "query": "q", "relevant": ["a.md"]}`
	cases := []struct{ name, body, want string }{
		{"json", good + "\n{\"id\": \"b\", \"query\": \"q\",\n", "bad.jsonl:2: bad JSON"},
		{"noquery", "\n\n" + `{"id": "a", "relevant": ["a.md"]}`, `bad.jsonl:3: missing "query"`},
		{"emptyquery", `{"id": "a", "query": "  ", "relevant": ["a.md"]}`, `bad.jsonl:1: "query" is empty`},
		{"noid", `{"query": "q", "relevant": ["a.md"]}`, `bad.jsonl:1: missing "id"`},
		{"numid", `{"id": 7, "query": "q", "relevant": ["a.md"]}`, `bad.jsonl:1: "id" must be a string, not 7`},
		{"norel", `{"id": "a", "query": "q"}`, `bad.jsonl:1: missing "relevant"`},
		{"strrel", `{"id": "a", "query": "q", "relevant": "a.md"}`, `bad.jsonl:1: "relevant" must be a list of one or more paths, not "a.md"`},
		{"emptyrel", `{"id": "a", "query": "q", "relevant": []}`, `bad.jsonl:1: "relevant" must be a list`},
		{"emptypath", `{"id": "a", "query": "q", "relevant": ["./"]}`, `bad.jsonl:1: "relevant" has an empty path`},
		{"array", `["a", "q"]`, "bad.jsonl:1: bad JSON"},
		{"dup", good + "\n" + good, `bad.jsonl:2: id "a" is already used at `},
		{"empty", "\n \n", "no queries"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.jsonl")
			if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "absent.jsonl")); err == nil || !strings.Contains(err.Error(), "absent.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestEvaluateStopsOnCancel(t *testing.T) {
	qs, err := Load("testdata/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = Evaluate(ctx, "x", qs, func(ctx context.Context, q Query) ([]string, error) {
		n++
		cancel()
		return nil, ctx.Err()
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Fatalf("err %v after %d queries, want context.Canceled after 1", err, n)
	}
}

// Compare asks each question of every configuration, starting with a
// different one for each question, and scores each run as Evaluate
// would score it alone.
func TestCompareTakesTurns(t *testing.T) {
	qs, err := Load("testdata/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 3 {
		t.Fatalf("testdata/queries.jsonl has %d questions, want 3 or more", len(qs))
	}
	var order []string
	search := func(name string, ranked func(q Query) []string) SearchFunc {
		return func(ctx context.Context, q Query) ([]string, error) {
			order = append(order, name)
			return ranked(q), nil
		}
	}
	right := func(q Query) []string { return q.Relevant }
	wrongFirst := func(q Query) []string { return append([]string{"nothing.md"}, q.Relevant...) }
	runs, err := Compare(context.Background(), []string{"a", "b", "c"}, qs,
		[]SearchFunc{search("a", right), search("b", wrongFirst), search("c", right)})
	if err != nil {
		t.Fatal(err)
	}
	for j := range qs {
		want := []string{"a", "b", "c", "a", "b"}[j%3 : j%3+3]
		if got := order[3*j : 3*j+3]; strings.Join(got, "") != strings.Join(want, "") {
			t.Errorf("question %d asked in order %v, want %v", j, got, want)
		}
	}
	alone, err := Evaluate(context.Background(), "b", qs, func(ctx context.Context, q Query) ([]string, error) { return wrongFirst(q), nil })
	if err != nil {
		t.Fatal(err)
	}
	if runs[1].Name != "b" || runs[1].Summary.MRR10 != alone.Summary.MRR10 || runs[1].Summary.Hit1 != alone.Summary.Hit1 {
		t.Errorf("b compared: %+v, alone: %+v", runs[1].Summary.Scores, alone.Summary.Scores)
	}
	if runs[0].Summary.Hit1 != 1 || runs[1].Summary.Hit1 != 0 {
		t.Errorf("Hit@1: a %v, b %v; want 1 and 0", runs[0].Summary.Hit1, runs[1].Summary.Hit1)
	}
	moved := MovedBetween(runs[0], runs[1])
	if len(moved) != len(qs) {
		t.Fatalf("moved a -> b: %d questions, want all %d", len(moved), len(qs))
	}
	if m := moved[0]; m.ID != qs[0].ID || m.From != 1 || m.To != 2 {
		t.Errorf("first moved: %+v, want %s 1 -> 2", m, qs[0].ID)
	}
	if m := MovedBetween(runs[0], runs[2]); len(m) != 0 {
		t.Errorf("a and c rank alike, yet moved: %+v", m)
	}
}

// A query file saved by a Windows editor loads: a UTF-8 byte-order mark
// before the first line and CRLF line ends are not part of the JSON.
func TestLoadBOMAndCRLF(t *testing.T) {
	p := filepath.Join(t.TempDir(), "win.jsonl")
	body := "\ufeff" + `{"id": "a", "query": "回滚", "relevant": ["a.md"]}` + "\r\n\r\n" + `{"id": "b", "query": "扩容", "relevant": ["b.md"], "lang": "zh"}` + "\r\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	qs, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].ID != "a" || qs[1].Lang != "zh" || qs[1].Where != p+":3" {
		t.Errorf("loaded %+v", qs)
	}
}
