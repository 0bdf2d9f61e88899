package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/eval"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// evalQueries are labelled by reading the docs fixture; the last one has
// no answer in the repository, so it is a miss in every mode.
const evalQueries = `{"id": "e1", "query": "发布失败以后怎么回到上一个版本", "relevant": ["docs/runbook/rollback.md"], "lang": "zh", "kind": "paraphrase"}
{"id": "e2", "query": "连接池 retry_count 默认值", "relevant": ["docs/adr/0001-connection-pool.md", "internal/retry/retry.go"], "lang": "mixed", "kind": "keyword"}
{"id": "e3", "query": "RetryCount", "relevant": ["./internal/retry/retry.go"], "lang": "en", "kind": "symbol"}

{"id": "e4", "query": "量子纠缠 光谱仪", "relevant": ["README.md"], "lang": "zh", "kind": "paraphrase"}
`

// writeQueries puts a query file outside the repository (eval must not
// need one inside it) and returns its path.
func writeQueries(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEvalComparesModes runs three modes in one go on a real repository
// with the offline hash embedder and checks each run against what 'git kb
// search' answers for the same questions: the rankings must be the
// search's, and the figures eval.Score's for those rankings.
func TestEvalComparesModes(t *testing.T) {
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "kb.embed.provider", "hash")
	indexJSON(t, dir)
	before := gittest.Git(t, dir, "status", "--porcelain", "--ignored")
	qf := writeQueries(t, "q.jsonl", evalQueries)
	qs, err := eval.Load(qf)
	if err != nil {
		t.Fatal(err)
	}

	out, errs, code := kb(t, dir, "eval", "--json", "--compare", "lexical,hybrid,dense", qf)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	if rep.Queries != 4 || len(rep.Runs) != 3 || len(rep.Commit) != 40 || len(rep.Files) != 1 {
		t.Fatalf("report: queries %d runs %d commit %q files %v", rep.Queries, len(rep.Runs), rep.Commit, rep.Files)
	}
	for i, mode := range []string{"lexical", "hybrid", "dense"} {
		run := rep.Runs[i]
		if run.Name != mode || len(run.Rows) != 4 || run.Summary.Queries != 4 || run.Summary.Errors != 0 {
			t.Fatalf("run %d: name %q rows %d summary %+v", i, run.Name, len(run.Rows), run.Summary)
		}
		var mrr float64
		for j, row := range run.Rows {
			r := searchJSON(t, dir, "--mode", mode, "-n", "10", qs[j].Text)
			want := eval.Dedupe(paths(r))
			if strings.Join(row.Top, " ") != strings.Join(want, " ") {
				t.Errorf("%s %s: eval ranked %v, search %v", mode, row.ID, row.Top, want)
			}
			s, first := eval.Score(want, qs[j].Relevant)
			if row.FirstRank != first || row.Scores != s {
				t.Errorf("%s %s: first rank %d scores %+v, want %d %+v", mode, row.ID, row.FirstRank, row.Scores, first, s)
			}
			mrr += s.MRR10
		}
		if math.Abs(run.Summary.MRR10-mrr/4) > 1e-12 {
			t.Errorf("%s: MRR@10 %v, want %v", mode, run.Summary.MRR10, mrr/4)
		}
		if run.Summary.LatencyP50Ms <= 0 || run.Summary.LatencyP95Ms < run.Summary.LatencyP50Ms {
			t.Errorf("%s: latency p50 %v p95 %v", mode, run.Summary.LatencyP50Ms, run.Summary.LatencyP95Ms)
		}
		if g := run.Summary.Groups["lang=zh"]; g.N != 2 {
			t.Errorf("%s: lang=zh group %+v", mode, g)
		}
	}
	// The lexical search finds the rollback runbook and the symbol, and
	// nothing for the question with no answer.
	lex := rep.Runs[0].Rows
	if lex[0].FirstRank != 1 || lex[2].FirstRank != 1 || lex[3].FirstRank != 0 {
		t.Errorf("lexical first ranks: %d %d %d %d", lex[0].FirstRank, lex[1].FirstRank, lex[2].FirstRank, lex[3].FirstRank)
	}

	// The JSON shape CI reads: score.py's keys.
	var raw map[string]any
	json.Unmarshal([]byte(out), &raw)
	sum := raw["runs"].([]any)[0].(map[string]any)["summary"].(map[string]any)
	for _, k := range []string{"queries", "errors", "recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10", "hit@1", "hit@5", "hit@10", "latency_p50_ms", "latency_p95_ms", "groups"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("summary has no %q: %v", k, sum)
		}
	}
	row := raw["runs"].([]any)[0].(map[string]any)["per_query"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "query", "relevant", "first_rank", "mrr@10", "latency_ms", "top"} {
		if _, ok := row[k]; !ok {
			t.Errorf("per_query row has no %q: %v", k, row)
		}
	}
	if after := gittest.Git(t, dir, "status", "--porcelain", "--ignored"); after != before {
		t.Fatalf("eval changed the repository:\n%s\nvs\n%s", before, after)
	}
}

// TestEvalHumanOutput checks the side-by-side table, flag sets in
// --compare and the -v list of misses.
func TestEvalHumanOutput(t *testing.T) {
	dir := gittest.New(t, docs)
	qf := writeQueries(t, "ops.jsonl", evalQueries)
	out, errs, code := kb(t, dir, "eval", "-v", "--compare", "lexical; lexical --literal ;--fusion dbsf", qf)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	for _, want := range []string{"4 questions (ops.jsonl)", "Recall@1", "Recall@10", "MRR@10", "nDCG@10", "Hit@1", "Hit@10", "latency p50 ms", "latency p95 ms",
		"lexical --literal", "--fusion dbsf", "lang=zh", "kind=symbol",
		"misses (lexical --literal)", "e4  rank=-  量子纠缠 光谱仪", "want: README.md",
		"lexical --literal against lexical: ", "--fusion dbsf against lexical: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "e1  rank=") {
		t.Errorf("e1 is found first: it is no miss:\n%s", out)
	}
	// The three configurations sit side by side on one header line.
	header := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "lexical --literal") && strings.Contains(l, "--fusion dbsf") {
			header = l
		}
	}
	if header == "" {
		t.Errorf("no side-by-side header:\n%s", out)
	}
	// Without --compare: one run named after the mode that answered.
	out, _, code = kb(t, dir, "eval", qf)
	if code != 0 || !strings.Contains(out, "lexical") || strings.Contains(out, "misses") {
		t.Errorf("plain eval: exit %d\n%s", code, out)
	}
}

func TestEvalBadInput(t *testing.T) {
	dir := gittest.New(t, docs)
	good := writeQueries(t, "good.jsonl", evalQueries)
	bad := writeQueries(t, "bad.jsonl", evalQueries[:strings.Index(evalQueries, "\n")+1]+`{"id": "b2", "query": "x", "relevant": "README.md"}`+"\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval"}, exitUsage, "eval needs a query file"},
		{[]string{"eval", bad}, exitError, `bad.jsonl:2: "relevant" must be a list of one or more paths`},
		{[]string{"eval", writeQueries(t, "broken.jsonl", "{\"id\": \"x\",\n")}, exitError, "broken.jsonl:1: bad JSON"},
		{[]string{"eval", good, good}, exitError, `good.jsonl:1: id "e1" is already used at`},
		{[]string{"eval", filepath.Join(dir, "nope.jsonl")}, exitError, "nope.jsonl"},
		{[]string{"eval", "--compare", "fast", good}, exitUsage, `"fast" is not a mode`},
		{[]string{"eval", "--compare", "lexical --bogus", good}, exitUsage, `--compare "lexical --bogus"`},
		{[]string{"eval", "--compare", "lexical --fusion", good}, exitUsage, "flag needs an argument"},
		{[]string{"eval", "--compare", "lexical x", good}, exitUsage, `unexpected "x"`},
		{[]string{"eval", "--compare", "lexical;hybrid", good}, exitUsage, "needs an embedder"},
		{[]string{"eval", "--compare", "lexical --fusion nope", good}, exitUsage, "want rrf or dbsf"},
		{[]string{"eval", "--compare", "rerank", good}, exitUsage, "needs a chat model"},
		{[]string{"eval", "--compare", " , ", good}, exitUsage, "at least one configuration"},
	} {
		_, errs, code := kb(t, dir, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, c.code, c.want)
		}
		if strings.Count(strings.TrimSpace(errs), "\n") > 0 || strings.Contains(errs, "panic") {
			t.Errorf("%v: stderr is not one clear line: %q", c.args, errs)
		}
	}
	// Refused before anything was indexed.
	if _, err := os.Stat(filepath.Join(dir, ".git", "kb", "db")); err == nil {
		t.Error("a refused eval indexed the repository")
	}
}

// A relevant path that cannot rank (a typo, a file the indexer skips) is
// named on stderr with its line, so a label's mistake is not read as the
// search's; the figures and the JSON are the same as without the warning.
func TestEvalNamesUnrankablePaths(t *testing.T) {
	files := map[string]string{"logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00binary"}
	for p, text := range docs {
		files[p] = text
	}
	dir := gittest.New(t, files)
	qf := writeQueries(t, "typo.jsonl", evalQueries+
		`{"id": "t1", "query": "回滚", "relevant": ["docs/runbook/rolback.md", "docs/runbook/rollback.md"]}`+"\n"+
		`{"id": "t2", "query": "logo", "relevant": ["logo.png"]}`+"\n")
	out, errs, code := kb(t, dir, "eval", "--json", qf)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"typo.jsonl:6 (t1): relevant path docs/runbook/rolback.md is no file at ",
		"typo.jsonl:7 (t2): relevant path logo.png is not indexed",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	// t1's other path can rank: only t2 misses whatever the search does.
	for _, line := range strings.Split(errs, "\n") {
		if strings.Contains(line, "rolback.md") && !strings.HasSuffix(line, ": the path misses in every configuration") ||
			strings.Contains(line, "logo.png") && !strings.HasSuffix(line, ": the question misses in every configuration") {
			t.Errorf("what misses: %s", line)
		}
	}
	if strings.Contains(errs, "rollback.md is") || strings.Contains(errs, "README.md is") {
		t.Errorf("an indexed path is named:\n%s", errs)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Queries != 6 {
		t.Fatalf("eval --json: %v, %d queries\n%s", err, rep.Queries, out)
	}
	if _, errs, _ := kb(t, dir, "eval", "-q", qf); strings.Contains(errs, "relevant path") {
		t.Errorf("-q still warns: %s", errs)
	}
}

// A quoted phrase that no file holds as written is ranked by its words,
// and search answers that ranking with a note ("degraded"): the answer is
// the search's own, not another mode's, so eval scores it as 'git kb
// search' ranks it rather than counting an error with no results.
func TestEvalScoresPhraseFallback(t *testing.T) {
	dir := gittest.New(t, docs)
	q := `"回滚 xyzzy 手册" 发布 回滚`
	qf := writeQueries(t, "phrase.jsonl", `{"id": "p1", "query": "\"回滚 xyzzy 手册\" 发布 回滚", "relevant": ["docs/runbook/rollback.md"]}`+"\n")
	r := searchJSON(t, dir, "-n", "10", q)
	if !strings.Contains(r.Degraded, "as written") || len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
		t.Fatalf("search %s: degraded %q, results %v", q, r.Degraded, paths(r))
	}
	out, errs, code := kb(t, dir, "eval", "--json", qf)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	run := rep.Runs[0]
	if run.Summary.Errors != 0 || len(run.Rows) != 1 || run.Rows[0].FirstRank != 1 {
		t.Fatalf("eval counted the phrase's note as a failure: summary %+v rows %+v", run.Summary, run.Rows)
	}
}
