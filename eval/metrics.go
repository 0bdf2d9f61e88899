package eval

import (
	"math"
	"sort"
)

// Scores are one query's metrics, or their mean over a set of queries.
// The JSON keys are score.py's, so the two outputs can be compared key by
// key.
type Scores struct {
	Recall1  float64 `json:"recall@1"`
	Recall3  float64 `json:"recall@3"`
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	Hit1     float64 `json:"hit@1"`
	Hit3     float64 `json:"hit@3"`
	Hit5     float64 `json:"hit@5"`
	Hit10    float64 `json:"hit@10"`
	MRR10    float64 `json:"mrr@10"`
	NDCG10   float64 `json:"ndcg@10"`
}

func (s *Scores) add(o Scores) {
	s.Recall1 += o.Recall1
	s.Recall3 += o.Recall3
	s.Recall5 += o.Recall5
	s.Recall10 += o.Recall10
	s.Hit1 += o.Hit1
	s.Hit3 += o.Hit3
	s.Hit5 += o.Hit5
	s.Hit10 += o.Hit10
	s.MRR10 += o.MRR10
	s.NDCG10 += o.NDCG10
}

// Dedupe keeps each path's first occurrence, in rank order: several
// chunks of one file are one hit at the rank of the first (score.py's
// dedupe_paths).
func Dedupe(paths []string) []string {
	seen := make(map[string]bool, len(paths))
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		p = NormPath(p)
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Score is one query's metrics for a de-duplicated ranking, and the rank
// of its first relevant file (0: none). Recall is standard recall (a
// query with three relevant files scores at most 1/3 at k=1); nDCG uses
// binary gains with min(|relevant|, 10) hits at the top as the ideal.
func Score(ranked, relevant []string) (Scores, int) {
	rel := make(map[string]bool, len(relevant))
	for _, p := range relevant {
		rel[NormPath(p)] = true
	}
	first := 0
	for i, p := range ranked {
		if rel[p] {
			first = i + 1
			break
		}
	}
	hits := func(k int) float64 {
		n := 0
		for _, p := range ranked[:min(k, len(ranked))] {
			if rel[p] {
				n++
			}
		}
		return float64(n)
	}
	recall := func(k int) float64 {
		if len(rel) == 0 {
			return 0
		}
		return hits(k) / float64(len(rel))
	}
	hit := func(k int) float64 {
		if hits(k) > 0 {
			return 1
		}
		return 0
	}
	s := Scores{
		Recall1: recall(1), Recall3: recall(3), Recall5: recall(5), Recall10: recall(10),
		Hit1: hit(1), Hit3: hit(3), Hit5: hit(5), Hit10: hit(10),
	}
	if first > 0 && first <= 10 {
		s.MRR10 = 1 / float64(first)
	}
	var dcg, idcg float64
	for i, p := range ranked[:min(10, len(ranked))] {
		if rel[p] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 1; i <= min(len(rel), 10); i++ {
		idcg += 1 / math.Log2(float64(i+1))
	}
	if idcg > 0 {
		s.NDCG10 = dcg / idcg
	}
	return s, first
}

// median is statistics.median: the mean of the two middle values for an
// even count.
func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// percentile is score.py's pct: the value at rank ceil(q*n), nearest-rank.
func percentile(v []float64, q float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(len(s)-1, i))]
}
