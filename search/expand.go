package search

import (
	"math"

	"github.com/git-kb/git-kb/expand"
)

// Expansion weights: an added word counts for at most this share of one
// the user wrote, split over the words one of theirs gains (1/sqrt(n):
// a word with four translations is not four times the evidence). The
// glossary's words are an engineer's; CC-CEDICT's are a general
// dictionary's, so they count less. The paraphrase table's written words
// for a colloquial one (起不来 -> 启动失败) are ours like the glossary's.
var expandWeight = map[string]float64{
	expand.SourceGlossary:   0.5,
	expand.SourceCEDICT:     0.25,
	expand.SourceParaphrase: 0.5,
	expand.SourceTeam:       0.5,
}

// conceptWeight is an added word's weight when the concept lever is on:
// a word and its translations then count once, as the best of them (see
// conceptScores), so a translation can stand in for the user's word but
// never add to it, and a word's several translations need no split.
//
// A paraphrase's written word (起不来 -> 启动失败) says what the user's
// word means in the same language, so it stands in for it at full
// weight; scored as one concept with the word, it never adds to it.
// Measured on the docs sets (MRR@10 / Hit@10): 0.6 .774/.914, 0.8
// .785/.922, 1.0 .787/.940, 1.2 .780/.940; Go and polaris alike.
var conceptWeight = map[string]float64{
	expand.SourceGlossary:   0.8,
	expand.SourceCEDICT:     0.4,
	expand.SourceParaphrase: 1,
	// The team's synonyms (kb.synonyms) are looser than a paraphrase:
	// a team's lists mix a word with its identifiers, abbreviations and
	// related names (北极星, polaris, polarismesh). With a file of 245
	// entries written from polaris's code (testdata/synonyms), MRR@10
	// polaris-dev / polaris-more: none .677 / .627; 0.4 .683 / .647;
	// 0.5 .685 / .658; 0.6 .683 / .644; 0.8 .662 / .632; 1.0 .640 /
	// .633 (Hit@10 .900 / .829 without, .950 / .886-.914 with, at every
	// weight). At 0.5, 7 of the 55 questions move up and one down (1st
	// -> 5th: 下线's isolate and DeregisterInstance outweigh its event).
	expand.SourceTeam: 0.5,
}

// conceptTie is the share of a concept's other matching translations
// added to its best one (DisMax's tie-breaker): a phrase translated into
// two words ("background job") gains a little for the second.
var conceptTie = 0.3

// maxExpandedDF: an added word found in more than this share of the
// view's chunks only adds to chunks a rarer word found (see score).
// Below minCommonDF chunks a word is cheap to score wherever it is.
var (
	maxExpandedDF = 0.01
	minCommonDF   = 500
)

// isCommon reports whether t is an added word found in so many of the n
// chunks (df) that it only adds to chunks a rarer word found.
func isCommon(t queryTerm, df, n float64) bool {
	return t.from != "" && df > float64(minCommonDF) && df > maxExpandedDF*n
}

// maxExpandedWords is how many of a word's translations are used, the
// first (most specific) ones.
var maxExpandedWords = 3

// expandNeedPower shapes how fast expansions fade as the user's own
// words are covered by some chunk (score: need = (1-coverage)^power).
var expandNeedPower = 1.0

// expandNeedFloor keeps expansions most of their weight however well the
// user's words are covered: in a repository whose comments are Chinese and
// whose code is English, a chunk can hold every Chinese word of a question
// and still not be the implementation the translations point to. Measured
// with git kb eval on all dev sets (shared + testdata/eval, 243 questions),
// MRR@10 docs / polaris / code: floor 0.3 .709/.440/.666, 0.5 .710/.444/.666,
// 0.7 .711/.449/.666, 1.0 (no fading) .700/.477/.663. 0.7 is the highest
// floor that loses no set against a lower one.
var expandNeedFloor = 0.7

// expandQuery adds to q the cross-lingual words of the query's text, each
// lighter than the user's own words and never replacing one of them.
func expandQuery(req Request, q *query) {
	text := req.Query
	if req.Parsed != nil {
		text = req.Parsed.Text
	}
	exps := expand.Expand(text, q.an)
	exps = append(exps, req.Synonyms.Expand(text)...)
	if len(exps) == 0 {
		return
	}
	own := map[string]bool{}
	for _, t := range q.terms {
		own[t.term] = true
	}
	at := map[string]int{}
	an := q.an
	for i := range exps {
		e := &exps[i]
		if !own[e.From] {
			var terms []string
			for _, t := range an.Terms(e.From) {
				if own[t] {
					terms = append(terms, t)
				}
			}
			if len(terms) > 0 {
				if q.spans == nil {
					q.spans = map[string][]string{}
				}
				q.spans[e.From] = terms
			}
		}
		if e.Source != expand.SourceCEDICT {
			// CC-CEDICT's words are cut from its senses (主要 "main,
			// principal": main; 主线 "main line"): what a word means,
			// not what it asks for.
			if q.allTo == nil {
				q.allTo = map[string][]string{}
			}
			q.allTo[e.From] = append(q.allTo[e.From], e.To...)
		}
		if e.Source != expand.SourceTeam { // the team listed each of its words on purpose
			e.To = e.To[:min(len(e.To), maxExpandedWords)]
		}
		w := expandWeight[e.Source] / math.Sqrt(float64(len(e.To)))
		if req.on(LeverConcept) {
			w = conceptWeight[e.Source]
		}
		for _, to := range e.To {
			for _, t := range an.Terms(to) {
				if own[t] {
					continue
				}
				if i, ok := at[t]; ok {
					q.terms[i].weight = max(q.terms[i].weight, w)
					continue
				}
				at[t] = len(q.terms)
				q.terms = append(q.terms, queryTerm{term: t, weight: w, from: e.From})
			}
		}
	}
	q.expansions = exps
}

// expansionsUsed are q's expansions, each with only the words that were
// found in the view: what --json and -v show.
func (c *lexicalCandidates) expansionsUsed(q *query) []expand.Expansion {
	if len(q.expansions) == 0 {
		return nil
	}
	found := map[string]bool{}
	for _, tp := range c.lists {
		if tp.term.from != "" {
			found[tp.term.from+"\x00"+tp.term.term] = true
		}
	}
	an := q.an
	var out []expand.Expansion
	for _, e := range q.expansions {
		var to []string
		for _, w := range e.To {
			for _, t := range an.Terms(w) {
				if found[e.From+"\x00"+t] {
					to = append(to, w)
					break
				}
			}
		}
		if len(to) > 0 {
			out = append(out, expand.Expansion{From: e.From, To: to, Source: e.Source})
		}
	}
	return out
}
