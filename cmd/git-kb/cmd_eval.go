package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/eval"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/search"
	"github.com/urfave/cli/v2"
)

func evalCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "eval",
		Usage:     "measure search quality on your own labelled questions",
		ArgsUsage: "QUERIES.jsonl [MORE.jsonl...]",
		Description: `Runs each question of the query files through the search of this
repository (in-process, the same search as 'git kb search') and reports,
at file level, how well the files that answer it are ranked:

  Recall@k   share of the relevant files found in the top k
  Hit@k      1 if any relevant file is in the top k (Hit@1: the first
             result is right)
  MRR@10     1 / rank of the first relevant file (0 beyond 10)
  nDCG@10    rank-discounted gain, binary relevance
  p50, p95   search latency per question, in-process

overall and per lang and kind. The figures are those of the team scorer
score.py (testdata/eval/score.py) for the same results: several chunks of
one file count once, at the first one's rank.

Query files: one JSON object a line,
  {"id": "ops-001", "query": "发布失败后如何回滚",
   "relevant": ["docs/runbook/rollback.md"], "lang": "zh", "kind": "howto"}
relevant: 1-3 paths from the repository root that really answer it (open
them when you label); lang (zh, en, mixed) and kind (keyword, paraphrase,
howto, troubleshoot, symbol) are optional and only group the figures.
A bad line stops the run with FILE:LINE and what is wrong; a relevant
path this commit lacks or did not index is named on stderr (it can
never rank).

Comparing. --compare runs several configurations in one go and prints
them side by side. A configuration is a mode (lexical, dense, hybrid, or
rerank: the default mode reranked by kb.rerank.mode, else llm) followed by
any of the search flags below; separate them with commas, or with
semicolons when they carry flags:
  --compare lexical,hybrid,dense
  --compare 'hybrid;hybrid --fusion dbsf;rerank'
dense, hybrid and rerank need an embedder or judge configured, as for
'git kb search'. An answer that comes back degraded (the endpoint failed,
no vectors yet) counts as an error with no results, so a mode is never
measured on another mode's answers (a quoted phrase no file holds as
written is no such answer: its words are ranked and scored). Each question
is asked of every configuration in turn, a different one first each time,
so what one search leaves warm speeds all alike and the latencies compare.
Under the table, the questions whose first relevant file moved, against the
first configuration (15 each; -v lists all):
  lexical --ranking -focus against lexical: 2 questions moved (0 up, 2 down; first relevant rank)
    docs-d-002  6 -> 10  同一条 GROUP BY 查询每次返回的行顺序都不一样，是不是 bug

Examples:
  git kb eval questions.jsonl
  git kb eval -v ops.jsonl oncall.jsonl           # list the misses, top 5
  git kb eval --compare lexical,hybrid ops.jsonl
  git kb eval --json ops.jsonl > eval.json        # for CI`,
		Flags: append([]cli.Flag{
			revFlag, jsonFlag, quietFlag,
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list each question whose first result is not relevant, with the top 5 paths"},
			&cli.StringFlag{Name: "compare", Usage: "configurations to run side by side: `MODES` like lexical,hybrid or 'lexical;lexical --fusion dbsf'"},
			&cli.BoolFlag{Name: "no-index", Usage: "fail instead of indexing a commit that is not indexed yet"},
		}, searchRequestFlags()...),
		Action: func(c *cli.Context) error {
			files := c.Args().Slice()
			if len(files) == 0 {
				return usagef("eval needs a query file, e.g. git kb eval questions.jsonl (see git kb eval --help for the format)")
			}
			qs, err := eval.Load(files...)
			if err != nil {
				return err
			}
			var specs []evalSpec
			if cmp := c.String("compare"); cmp != "" {
				if specs, err = parseCompare(cmp); err != nil {
					return err
				}
			} else {
				specs = []evalSpec{{flags: c}}
			}
			// Bad flags are refused before the index is opened.
			for _, sp := range specs {
				if _, err := searchRequest(sp.flags, "probe"); err != nil {
					return sp.wrap(err)
				}
			}
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			kb, err := openKB(c.Context, e, repo, c.Bool("quiet"))
			if err != nil {
				return err
			}
			quiet := c.Bool("quiet")
			runners := make([]*evalRunner, len(specs))
			for i, sp := range specs {
				if runners[i], err = newEvalRunner(c.Context, e, kb, sp); err != nil {
					return err
				}
			}
			v, err := kb.OpenView(c.Context, c.String("rev"), c.Bool("no-index"))
			if err != nil {
				return err
			}
			defer v.Close()
			note := notifier(e, quiet)
			warnUnrankable(c.Context, note, repo, v, qs)
			out := evalReport{Commit: hex.EncodeToString(v.Commit[:]), Files: files, Queries: len(qs)}
			names := make([]string, len(runners))
			searches := make([]eval.SearchFunc, len(runners))
			for i, r := range runners {
				names[i] = r.name
				searches[i] = func(ctx context.Context, q eval.Query) ([]string, error) {
					return r.search(ctx, v, q.Text)
				}
			}
			if len(runners) > 1 {
				note("eval: %d questions, each asked of %d configurations in turn...", len(qs), len(runners))
			} else {
				note("eval: %d questions...", len(qs))
			}
			if out.Runs, err = eval.Compare(c.Context, names, qs, searches); err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e.Stdout, out)
			}
			printEval(e.Stdout, out, c.Bool("verbose"))
			return nil
		},
	}
}

// unrankableShown is how many unrankable relevant paths eval names.
const unrankableShown = 10

// warnUnrankable names the relevant paths the view cannot rank: not in
// the commit's tree (a typo, a file renamed since it was labelled), or
// in it but not indexed (binary, vendored, too large, kb.exclude). Such a
// path is a miss in every configuration whatever the search does (and so
// is its question, if it has no other relevant path), so the label is
// worth a look before the figures are believed.
func warnUnrankable(ctx context.Context, note func(string, ...any), repo *gitx.Repo, v *engine.View, qs []eval.Query) {
	indexed := map[string]bool{}
	for _, e := range v.View.Entries {
		if e.N > 0 {
			indexed[e.Path] = true
		}
	}
	at := hex.EncodeToString(v.Commit[:])
	var tree map[string]bool // read at the first path not indexed
	n := 0
	for _, q := range qs {
		misses := "the path misses in every configuration"
		if !slices.ContainsFunc(q.Relevant, func(p string) bool { return indexed[p] }) {
			misses = "the question misses in every configuration"
		}
		for _, p := range q.Relevant {
			if indexed[p] {
				continue
			}
			if n++; n > unrankableShown {
				continue
			}
			if tree == nil {
				tree = map[string]bool{}
				if _, t, err := repo.Resolve(ctx, at); err == nil {
					entries, _ := repo.ListTree(ctx, t)
					for _, e := range entries {
						tree[e.Path] = true
					}
				}
			}
			why := "is no file at"
			if tree[p] {
				why = "is not indexed (binary, vendored, too large or excluded) at"
			}
			note("eval: %s (%s): relevant path %s %s %s: %s", q.Where, q.ID, p, why, at[:12], misses)
		}
	}
	if n > unrankableShown {
		note("eval: ... %d more relevant paths that cannot rank", n-unrankableShown)
	}
}

// evalSpec is one configuration of --compare: search flags and a name.
type evalSpec struct {
	name  string       // as written in --compare; "" for the command's own flags
	flags *cli.Context // where searchRequest and --rerank read the flags
	// rerank is the "rerank" shorthand: kb.rerank.mode, else llm.
	rerank bool
}

func (sp evalSpec) wrap(err error) error {
	if sp.name == "" {
		return err
	}
	return usagef("--compare %q: %v", sp.name, err)
}

// parseCompare reads --compare: configurations separated by commas, or by
// semicolons when any carries flags. Each is parsed with the very flags of
// 'git kb search' (searchRequestFlags).
func parseCompare(s string) ([]evalSpec, error) {
	sep := ","
	if strings.Contains(s, ";") {
		sep = ";"
	}
	var specs []evalSpec
	for _, part := range strings.Split(s, sep) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		sp := evalSpec{name: part}
		args := strings.Fields(part)
		if !strings.HasPrefix(args[0], "-") {
			switch args[0] {
			case search.ModeLexical, search.ModeDense, search.ModeHybrid:
				args = append([]string{"--mode", args[0]}, args[1:]...)
			case "rerank":
				sp.rerank, args = true, args[1:]
			default:
				return nil, usagef("--compare %q: %q is not a mode (lexical, dense, hybrid, rerank) or a flag", part, args[0])
			}
		}
		set := flag.NewFlagSet(part, flag.ContinueOnError)
		set.SetOutput(io.Discard)
		for _, f := range searchRequestFlags() {
			if err := f.Apply(set); err != nil {
				return nil, err
			}
		}
		if err := set.Parse(args); err != nil {
			return nil, usagef("--compare %q: %v", part, err)
		}
		if set.NArg() > 0 {
			return nil, usagef("--compare %q: unexpected %q (a configuration is a mode and search flags, e.g. 'lexical --fusion dbsf'; separate configurations with ; when they carry flags)", part, set.Arg(0))
		}
		sp.flags = cli.NewContext(nil, set, nil)
		specs = append(specs, sp)
	}
	if len(specs) == 0 {
		return nil, usagef("--compare needs at least one configuration, e.g. lexical,hybrid")
	}
	return specs, nil
}

// evalRunner runs one configuration's searches against an open view.
type evalRunner struct {
	kb    *engine.Engine
	e     env
	name  string
	flags *cli.Context
	judge string // rerank mode, "off" for none
}

// evalRunner checks that the repository can serve sp (an embedder for
// dense and hybrid, a judge for rerank) and names it.
func newEvalRunner(ctx context.Context, e env, k *engine.Engine, sp evalSpec) (*evalRunner, error) {
	req, err := searchRequest(sp.flags, "probe")
	if err != nil {
		return nil, sp.wrap(err)
	}
	if err := k.CheckMode(req.Mode); err != nil {
		return nil, sp.wrap(err)
	}
	judge, err := k.RerankMode(sp.flags.String("rerank"))
	if err != nil {
		return nil, sp.wrap(err)
	}
	if sp.rerank && judge == "off" {
		judge = "llm"
	}
	if judge != "off" {
		if _, err := k.Scorer(judge, "probe"); err != nil {
			return nil, sp.wrap(err)
		}
	}
	name := sp.name
	if name == "" {
		name = k.ModeName(req.Mode)
		if judge != "off" {
			name += " --rerank " + judge
		}
	}
	return &evalRunner{kb: k, e: e, name: name, flags: sp.flags, judge: judge}, nil
}

// search is one question: the paths of the top 10 files, best first.
func (r *evalRunner) search(ctx context.Context, v *engine.View, query string) ([]string, error) {
	req, err := searchRequest(r.flags, query)
	if err != nil {
		return nil, err
	}
	req.K = 10
	if r.judge != "off" {
		req.K = engine.RerankDepth
	}
	resp, err := v.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	if r.judge != "off" {
		s, err := r.kb.Scorer(r.judge, query)
		if err != nil {
			return nil, err
		}
		r.kb.ApplyRerank(ctx, resp, s, r.judge, query, 10, 0)
	}
	// A note that another answer stood in (the endpoint failed, no
	// vectors yet, the judge failed) makes the question an error, so a
	// mode is never credited with another's answers. A phrase no file
	// holds as written is not that: its words are ranked by this very
	// configuration, as 'git kb search' answers it.
	if d := resp.DegradedBesides(search.NotePhrase); d != "" {
		return nil, errors.New("degraded: " + d)
	}
	var paths []string
	for _, res := range resp.Results {
		if res.Related == nil {
			paths = append(paths, res.Path)
		}
	}
	return paths, nil
}

// evalReport is the --json output.
type evalReport struct {
	Commit  string      `json:"commit"`
	Files   []string    `json:"files"`
	Queries int         `json:"queries"`
	Runs    []*eval.Run `json:"runs"`
}

// printEval prints the runs side by side: overall figures, then Hit@1,
// Hit@10 and MRR@10 per lang and kind, then (verbose) the misses.
func printEval(w io.Writer, r evalReport, verbose bool) {
	names := make([]string, len(r.Files))
	for i, f := range r.Files {
		names[i] = filepath.Base(f)
	}
	fmt.Fprintf(w, "%d questions (%s) on %s\n\n", r.Queries, strings.Join(names, ", "), r.Commit[:12])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(s eval.Summary) string) {
		fmt.Fprintf(tw, "%-14s\t", label) // padded: left-aligned labels in a right-aligned table
		for _, run := range r.Runs {
			fmt.Fprintf(tw, "%s\t", cell(run.Summary))
		}
		fmt.Fprintln(tw)
	}
	f3 := func(get func(s eval.Summary) float64) func(eval.Summary) string {
		return func(s eval.Summary) string { return fmt.Sprintf("%.3f", get(s)) }
	}
	fmt.Fprintf(tw, "%-14s\t", "")
	for _, run := range r.Runs {
		fmt.Fprintf(tw, "%s\t", run.Name)
	}
	fmt.Fprintln(tw)
	row("Recall@1", f3(func(s eval.Summary) float64 { return s.Recall1 }))
	row("Recall@5", f3(func(s eval.Summary) float64 { return s.Recall5 }))
	row("Recall@10", f3(func(s eval.Summary) float64 { return s.Recall10 }))
	row("MRR@10", f3(func(s eval.Summary) float64 { return s.MRR10 }))
	row("nDCG@10", f3(func(s eval.Summary) float64 { return s.NDCG10 }))
	row("Hit@1", f3(func(s eval.Summary) float64 { return s.Hit1 }))
	row("Hit@5", f3(func(s eval.Summary) float64 { return s.Hit5 }))
	row("Hit@10", f3(func(s eval.Summary) float64 { return s.Hit10 }))
	row("latency p50 ms", func(s eval.Summary) string { return fmt.Sprintf("%.1f", s.LatencyP50Ms) })
	row("latency p95 ms", func(s eval.Summary) string { return fmt.Sprintf("%.1f", s.LatencyP95Ms) })
	row("errors", func(s eval.Summary) string { return fmt.Sprint(s.Errors) })
	tw.Flush()

	fmt.Fprintf(w, "\nHit@1 / Hit@10 / MRR@10 per lang and kind:\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-18s\tn\t", "")
	for _, run := range r.Runs {
		fmt.Fprintf(tw, "%s\t", run.Name)
	}
	fmt.Fprintln(tw)
	for _, g := range r.Runs[0].Summary.GroupNames() {
		fmt.Fprintf(tw, "%-18s\t%d\t", g, r.Runs[0].Summary.Groups[g].N)
		for _, run := range r.Runs {
			s := run.Summary.Groups[g]
			fmt.Fprintf(tw, "%.3f / %.3f / %.3f\t", s.Hit1, s.Hit10, s.MRR10)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	printMoved(w, r.Runs, verbose)
	if !verbose {
		return
	}
	for _, run := range r.Runs {
		fmt.Fprintf(w, "\nmisses (%s): first result not relevant\n", run.Name)
		for _, q := range run.Rows {
			if q.FirstRank == 1 {
				continue
			}
			rank := "-"
			if q.FirstRank > 0 {
				rank = fmt.Sprint(q.FirstRank)
			}
			fmt.Fprintf(w, "%s  rank=%s  %s\n", q.ID, rank, q.Query)
			if q.Error != "" {
				fmt.Fprintf(w, "    error: %s\n", q.Error)
			}
			rel := map[string]bool{}
			for _, p := range q.Relevant {
				rel[p] = true
			}
			for i, p := range q.Top[:min(5, len(q.Top))] {
				mark := ""
				if rel[p] {
					mark = "  *"
				}
				fmt.Fprintf(w, "    %d. %s%s\n", i+1, p, mark)
			}
			fmt.Fprintf(w, "    want: %s\n", strings.Join(q.Relevant, ", "))
		}
	}
}

// movedShown is how many moved questions a comparison lists without -v.
const movedShown = 15

// printMoved lists, for each configuration after the first, the questions
// whose first relevant file it ranks otherwise than the first does: a
// change of MRR@10 is a few questions moving, and these are they.
func printMoved(w io.Writer, runs []*eval.Run, all bool) {
	rank := func(r int) string {
		if r == 0 {
			return "-"
		}
		return fmt.Sprint(r)
	}
	for _, run := range runs[min(1, len(runs)):] {
		moved := eval.MovedBetween(runs[0], run)
		up := 0
		for _, m := range moved {
			if m.To != 0 && (m.From == 0 || m.To < m.From) {
				up++
			}
		}
		fmt.Fprintf(w, "\n%s against %s: %d questions moved (%d up, %d down; first relevant rank)\n", run.Name, runs[0].Name, len(moved), up, len(moved)-up)
		for i, m := range moved {
			if i == movedShown && !all {
				fmt.Fprintf(w, "  ... %d more (-v lists them all)\n", len(moved)-i)
				break
			}
			fmt.Fprintf(w, "  %s  %s -> %s  %s\n", m.ID, rank(m.From), rank(m.To), m.Query)
		}
	}
}
