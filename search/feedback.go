package search

import (
	"context"
	"sort"
	"time"
)

// Pseudo-relevance feedback (RM3, Lavrenko & Croft 2001; Abdul-Jaleel et
// al. 2004): the best chunks of a first ranking are taken as relevant,
// the words they share are added to the query, lighter than the user's,
// and the view is scored again. It helps a question worded unlike its
// answer when the first ranking finds some of the answer's neighbours.
const (
	feedbackDocs   = 5   // chunks taken as relevant
	feedbackTerms  = 8   // words added
	feedbackWeight = 0.3 // of a user's word, for the strongest added word
	feedbackMinDF  = 2   // an added word appears in at least this many of the chunks
)

// feedbackFrom marks the terms feedback added.
const feedbackFrom = "(feedback)"

// feedback returns q with RM3 terms from the top hits added, or q itself
// when there is nothing to learn from.
func (s *Searcher) feedback(ctx context.Context, req Request, q *query, hits []hit) (*query, error) {
	top := hits[:min(len(hits), feedbackDocs)]
	if len(top) < feedbackMinDF {
		return q, nil
	}
	own := map[string]bool{}
	for _, t := range q.terms {
		own[t.term] = true
	}
	total := 0.0
	for _, h := range top {
		total += h.score
	}
	weight := map[string]float64{}
	docs := map[string]int{}
	an := s.analyzer()
	for _, h := range top {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := entryOf(req.View, h.chunk)
		if e == nil {
			continue
		}
		text, err := s.chunkText(e, h.chunk)
		if err != nil {
			return nil, err
		}
		terms := an.Terms(text)
		if len(terms) == 0 {
			continue
		}
		tf := map[string]int{}
		for _, t := range terms {
			tf[t]++
		}
		pd := h.score / total // P(d|q), from the first ranking's scores
		for t, n := range tf {
			if own[t] || len([]rune(t)) < 2 {
				continue
			}
			weight[t] += pd * float64(n) / float64(len(terms))
			docs[t]++
		}
	}
	type cand struct {
		t string
		w float64
	}
	var cs []cand
	for t, w := range weight {
		if docs[t] >= feedbackMinDF {
			cs = append(cs, cand{t, w})
		}
	}
	if len(cs) == 0 {
		return q, nil
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].w > cs[j].w || cs[i].w == cs[j].w && cs[i].t < cs[j].t })
	cs = cs[:min(len(cs), feedbackTerms)]
	// The question's query with words added: its scope, expansions,
	// analyzer and spans (a word cut into several terms still stands
	// for them, see expandQuery) are those of the first round.
	out := new(query)
	*out = *q
	out.terms = append([]queryTerm(nil), q.terms...)
	for _, c := range cs {
		out.terms = append(out.terms, queryTerm{term: c.t, weight: feedbackWeight * c.w / cs[0].w, from: feedbackFrom})
	}
	return out, nil
}

// rescoreWithFeedback runs candidates and score again for the fed-back query.
// The words added are put in resp.Feedback.
func (s *Searcher) rescoreWithFeedback(ctx context.Context, req Request, resp *Response, q *query, hits []hit, stats *lexicalStats, lap func(string, time.Time)) ([]hit, *lexicalStats, error) {
	t0 := time.Now()
	sortHits(hits)
	fq, err := s.feedback(ctx, req, q, hits)
	if err != nil || fq == q {
		return hits, stats, err
	}
	for _, t := range fq.terms[len(q.terms):] {
		resp.Feedback = append(resp.Feedback, t.term)
	}
	lap("feedback", t0)
	cands, err := s.lexicalCandidates(ctx, req, fq, lap)
	if err != nil {
		return nil, nil, err
	}
	t0 = time.Now()
	defer lap("score", t0)
	return s.score(req, cands)
}
