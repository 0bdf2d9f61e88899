package eval

import (
	"context"
	"sort"
	"strings"
	"time"
)

// SearchFunc answers one query with ranked paths (repository-relative,
// best first; repeats allowed: they are de-duplicated here).
type SearchFunc func(ctx context.Context, q Query) ([]string, error)

// Row is one query's outcome in one run.
type Row struct {
	ID        string   `json:"id"`
	Query     string   `json:"query"`
	Lang      string   `json:"lang,omitempty"`
	Kind      string   `json:"kind,omitempty"`
	Relevant  []string `json:"relevant"`
	FirstRank int      `json:"first_rank"` // 0: no relevant file ranked
	Scores
	LatencyMs float64  `json:"latency_ms"`
	Error     string   `json:"error,omitempty"`
	Top       []string `json:"top"` // the first 10 paths
}

// Group is the mean over the queries of one lang or kind.
type Group struct {
	N int `json:"n"`
	Scores
}

// Summary is the mean over all queries of a run.
type Summary struct {
	Queries int `json:"queries"`
	Errors  int `json:"errors"`
	Scores
	LatencyP50Ms float64 `json:"latency_p50_ms"`
	LatencyP95Ms float64 `json:"latency_p95_ms"`
	// Groups are keyed "lang=zh", "kind=paraphrase", ... as in score.py.
	Groups map[string]Group `json:"groups"`
}

// Run is one configuration of the search over a query set.
type Run struct {
	Name    string  `json:"name"`
	Summary Summary `json:"summary"`
	Rows    []Row   `json:"per_query"`
}

// Evaluate runs every query through search, in order, timing each call.
// A failing query counts as an empty ranking and an error, as in
// score.py; a cancelled ctx stops the run and returns its error.
func Evaluate(ctx context.Context, name string, queries []Query, search SearchFunc) (*Run, error) {
	runs, err := Compare(ctx, []string{name}, queries, []SearchFunc{search})
	if err != nil {
		return nil, err
	}
	return runs[0], nil
}

// Compare runs every query through each configuration's search (names[i]
// is searches[i]'s), a question at a time: question j is asked of the
// configurations in turn starting with the (j mod n)-th, so no
// configuration always goes first. What a search leaves warm (a query's
// dictionary, the pages of the index it read) then speeds each
// configuration alike, and the latencies compare. Run one configuration
// after the other, and the first paid for the rest: --compare
// 'lexical;lexical' on the docs corpus's docs-dev read the first's p50
// 1.06-1.40x the second's in three runs; taking turns, 0.85-1.09x.
// Errors count as in Evaluate.
func Compare(ctx context.Context, names []string, queries []Query, searches []SearchFunc) ([]*Run, error) {
	runs := make([]*Run, len(searches))
	for i := range searches {
		runs[i] = &Run{Name: names[i], Rows: make([]Row, 0, len(queries))}
	}
	rows := make([]Row, len(searches))
	for j, q := range queries {
		for k := range searches {
			i := (j + k) % len(searches)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			paths, err := searches[i](ctx, q)
			lat := time.Since(t0)
			row := Row{ID: q.ID, Query: q.Text, Lang: q.Lang, Kind: q.Kind, Relevant: q.Relevant,
				LatencyMs: float64(lat.Microseconds()) / 1000}
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				row.Error = err.Error()
				paths = nil
			}
			ranked := Dedupe(paths)
			row.Scores, row.FirstRank = Score(ranked, q.Relevant)
			row.Top = ranked[:min(10, len(ranked))]
			rows[i] = row
		}
		for i := range searches {
			runs[i].Rows = append(runs[i].Rows, rows[i])
		}
	}
	for _, run := range runs {
		run.Summary = Summarize(run.Rows)
	}
	return runs, nil
}

// Moved is a question whose first relevant file ranks otherwise in two
// runs of the same questions (0: not in the ranking).
type Moved struct {
	ID, Query string
	From, To  int
}

// MovedBetween lists the questions of b whose first relevant rank differs
// from a's, in a's order: what a change of configuration did, question by
// question. a and b must be runs of the same questions (Compare's).
func MovedBetween(a, b *Run) []Moved {
	var out []Moved
	for i, ra := range a.Rows {
		if i < len(b.Rows) && b.Rows[i].ID == ra.ID && b.Rows[i].FirstRank != ra.FirstRank {
			out = append(out, Moved{ID: ra.ID, Query: ra.Query, From: ra.FirstRank, To: b.Rows[i].FirstRank})
		}
	}
	return out
}

// Summarize averages rows overall and per lang and kind.
func Summarize(rows []Row) Summary {
	s := Summary{Queries: len(rows), Groups: map[string]Group{}}
	lat := make([]float64, 0, len(rows))
	for _, r := range rows {
		if r.Error != "" {
			s.Errors++
		}
		lat = append(lat, r.LatencyMs)
	}
	s.Scores = mean(rows)
	if len(lat) > 0 {
		s.LatencyP50Ms, s.LatencyP95Ms = median(lat), percentile(lat, 0.95)
	}
	for _, field := range []string{"lang", "kind"} {
		by := map[string][]Row{}
		for _, r := range rows {
			v := r.Lang
			if field == "kind" {
				v = r.Kind
			}
			if v != "" {
				by[v] = append(by[v], r)
			}
		}
		for v, sub := range by {
			s.Groups[field+"="+v] = Group{N: len(sub), Scores: mean(sub)}
		}
	}
	return s
}

// mean sums then divides, as score.py's avg does, so the figures agree
// to the last digit printed.
func mean(rows []Row) Scores {
	var s Scores
	for _, r := range rows {
		s.add(r.Scores)
	}
	if n := float64(len(rows)); n > 0 {
		s.Recall1 /= n
		s.Recall3 /= n
		s.Recall5 /= n
		s.Recall10 /= n
		s.Hit1 /= n
		s.Hit3 /= n
		s.Hit5 /= n
		s.Hit10 /= n
		s.MRR10 /= n
		s.NDCG10 /= n
	}
	return s
}

// GroupNames lists a summary's groups in a stable order: langs, then kinds,
// each alphabetical.
func (s Summary) GroupNames() []string {
	names := make([]string, 0, len(s.Groups))
	for k := range s.Groups {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		li, lj := strings.HasPrefix(names[i], "lang="), strings.HasPrefix(names[j], "lang=")
		if li != lj {
			return li
		}
		return names[i] < names[j]
	})
	return names
}
