// Package rerank reorders search results with a second, slower judge of
// relevance: a chat model scoring each candidate 0-10 (llm), or a
// cross-encoder rerank API (endpoint: POST {baseURL}/rerank, as served by
// TEI, Jina and Cohere-style servers). Scores are blended with the
// fusion rank, so a strong exact match is not buried by a judge's whim,
// and both are kept on each result.
//
// LLM scores are cached on disk keyed by the query's normalised keywords
// and the chunk's text hash: a repeated or reworded-but-same-words query
// costs no calls.
package rerank

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/search"
)

// Candidate is a result as the judge sees it.
type Candidate struct {
	Key  string // identity of the text judged (the chunk's text hash)
	View string // heading or signature plus the first lines
}

// Scorer scores candidates for a query, 0-10, in order.
type Scorer interface {
	Score(ctx context.Context, query string, cands []Candidate) ([]float64, error)
	Calls() int // requests made so far (for reports and tests)
}

// Options tune Apply.
type Options struct {
	// MinScore drops results the judge scored below it (0: keep all);
	// results it gave no score are kept.
	MinScore float64
	// Weight of the judge in the blend (default 0.7); the rest is the
	// fusion rank.
	Weight float64
}

// Apply scores results with s and reorders them by the blend of the
// judge's score and their rank before. It fills RerankScore and PreRank.
//
// When the judge gave no score for some candidates (an *UnscoredError),
// Apply still returns the results, with that error: an unscored result
// keeps its first-stage place (and no RerankScore; MinScore does not drop
// it), the scored ones are reordered among the other places. Any other
// error returns no results.
func Apply(ctx context.Context, s Scorer, query string, results []search.Result, cands []Candidate, o Options) ([]search.Result, error) {
	if len(results) == 0 {
		return results, nil
	}
	if o.Weight <= 0 || o.Weight > 1 {
		o.Weight = 0.7
	}
	scores, err := s.Score(ctx, query, cands)
	var unscored *UnscoredError
	if err != nil && !errors.As(err, &unscored) {
		return nil, err
	}
	n := float64(len(results))
	type scored struct {
		r     search.Result
		blend float64
	}
	var judged []scored
	for i, r := range results {
		sc := scores[i]
		r.PreRank = r.Rank
		if Unscored(sc) || o.MinScore > 0 && sc < o.MinScore {
			continue
		}
		v := sc
		r.RerankScore = &v
		rankScore := 1 - float64(i)/n // 1 for the first, falling linearly
		judged = append(judged, scored{r, o.Weight*sc/10 + (1-o.Weight)*rankScore})
	}
	sort.SliceStable(judged, func(i, j int) bool { return judged[i].blend > judged[j].blend })
	// The judged fill the places of the judged, in blend order; the
	// unscored stay where they were; those under MinScore leave.
	var res []search.Result
	for i, r := range results {
		switch {
		case Unscored(scores[i]):
			r.PreRank = r.Rank
			res = append(res, r)
		case o.MinScore > 0 && scores[i] < o.MinScore:
		default:
			res = append(res, judged[0].r)
			judged = judged[1:]
		}
	}
	for i := range res {
		res[i].Rank = i + 1
	}
	return res, err
}

// Unscored reports whether a score from Scorer is "no score": the judge's
// reply was not one (NaN).
func Unscored(v float64) bool { return math.IsNaN(v) }

// UnscoredError says the judge gave no score for some candidates: its
// replies were not what the prompt asks for. Score returns the scores
// with it, NaN where there is none.
type UnscoredError struct {
	Model string // the judge's model
	N, Of int    // candidates without a score, candidates asked about
	Reply string // the first reply that was not a score
}

func (e *UnscoredError) Error() string {
	return fmt.Sprintf("the judge %s gave no score for %d of %d passages (it answered %s, not a number 0-10); they keep their first-stage rank",
		e.Model, e.N, e.Of, quoteShort(e.Reply, 80))
}

// quoteShort quotes s on one line, cut to max runes with "...".
func quoteShort(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "..."
	}
	return strconv.Quote(s)
}

// Keywords normalises a query for the cache: lower-cased words, sorted,
// deduplicated, so word order and repeats do not cost new calls.
func Keywords(terms []string) string {
	seen := map[string]bool{}
	var ks []string
	for _, t := range terms {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" && !seen[t] {
			seen[t] = true
			ks = append(ks, t)
		}
	}
	sort.Strings(ks)
	return strings.Join(ks, " ")
}

// LLM asks a chat model for a 0-10 score per candidate, Concurrency at a
// time, through a cache.
type LLM struct {
	Chat        *llm.Chat
	Concurrency int    // calls in flight (default 4)
	CacheDir    string // "" disables the cache
	Keywords    string // the query's normalised keywords (cache key)
	mu          sync.Mutex
	calls       int
}

func (l *LLM) Calls() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}

const judgePrompt = `Rate how well the passage answers or is directly relevant to the query, from 0 (unrelated) to 10 (exactly what is asked).
Reply with the number only.`

// scoreRE is the reply the prompt asks for: a number, 0 to 10.
var scoreRE = regexp.MustCompile(`^(10(\.0+)?|\d(\.\d+)?)$`)

// Decorations chat models put around the one number they were asked for,
// which leave it the only thing said: a reasoning model's <think> block
// before it, a label before it ("Score: 7", "评分：7"), a scale after it
// ("7/10", "7 out of 10"), Markdown emphasis and a full stop.
var (
	thinkRE = regexp.MustCompile(`(?s)^(<think>)?.*?</think>`) // some servers drop the opening tag
	labelRE = regexp.MustCompile(`(?i)^(score|rating|relevance|评分|分数|得分|相关性|相关度)\s*[:：=]?\s*`)
	scaleRE = regexp.MustCompile(`(?i)\s*(/\s*10|out of 10|分)$`)
)

// parseScore reads the judge's reply as judgePrompt asks for it: the
// number only. Whitespace, a code fence, a <think> block and the
// decorations above are tolerated (chat models add them); anything else
// is no score. The first number in a chatty reply ("Passage [1] is
// somewhat relevant") is not its score.
func parseScore(reply string) (float64, bool) {
	s := strings.TrimSpace(thinkRE.ReplaceAllString(strings.TrimSpace(reply), ""))
	if t, ok := strings.CutPrefix(s, "```"); ok {
		if t, ok = strings.CutSuffix(t, "```"); !ok {
			return 0, false
		}
		// The opening fence may carry a language tag: ```text
		if first, rest, multi := strings.Cut(t, "\n"); multi && !scoreRE.MatchString(strings.TrimSpace(first)) {
			t = rest
		}
		s = strings.TrimSpace(t)
	}
	s = strings.TrimSpace(strings.Trim(s, "`*_"))
	s = labelRE.ReplaceAllString(s, "")
	s = strings.TrimRight(s, ".。")
	s = scaleRE.ReplaceAllString(s, "")
	s = strings.TrimSpace(strings.Trim(s, "`*_"))
	if !scoreRE.MatchString(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

func (l *LLM) Score(ctx context.Context, query string, cands []Candidate) ([]float64, error) {
	scores := make([]float64, len(cands))
	cache := l.loadCache()
	var todo []int
	for i, c := range cands {
		if v, ok := cache[c.Key]; ok {
			scores[i] = v
		} else {
			todo = append(todo, i)
		}
	}
	workers := l.Concurrency
	if workers <= 0 {
		workers = 4
	}
	var wg sync.WaitGroup
	var firstErr error
	var unscored *UnscoredError
	var errMu sync.Mutex
	sem := make(chan struct{}, workers)
	for _, i := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			l.mu.Lock()
			l.calls++
			l.mu.Unlock()
			reply, err := l.Chat.Complete(ctx, []llm.Message{
				{Role: "system", Content: judgePrompt},
				{Role: "user", Content: "Query: " + query + "\n\nPassage:\n" + cands[i].View},
			})
			if err == nil {
				if v, ok := parseScore(reply); ok {
					scores[i] = v
					return
				}
				scores[i] = math.NaN()
			}
			errMu.Lock()
			defer errMu.Unlock()
			switch {
			case err != nil:
				if firstErr == nil {
					firstErr = err
				}
			case unscored == nil:
				unscored = &UnscoredError{Model: l.Chat.Model(), N: 1, Of: len(cands), Reply: reply}
			default:
				unscored.N++
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	// Only scores are cached: a reply that was none is asked again.
	for _, i := range todo {
		if !Unscored(scores[i]) {
			cache[cands[i].Key] = scores[i]
		}
	}
	l.saveCache(cache)
	if unscored != nil {
		return scores, unscored
	}
	return scores, nil
}

func (l *LLM) cachePath() string {
	if l.CacheDir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(l.Chat.Model() + "\x00" + l.Keywords))
	return filepath.Join(l.CacheDir, hex.EncodeToString(sum[:12])+".json")
}

func (l *LLM) loadCache() map[string]float64 {
	m := map[string]float64{}
	if p := l.cachePath(); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			json.Unmarshal(b, &m)
		}
	}
	return m
}

// saveCache writes atomically; losing a race with another process costs
// calls later, never a wrong score.
func (l *LLM) saveCache(m map[string]float64) {
	p := l.cachePath()
	if p == "" || os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	b, _ := json.Marshal(m)
	tmp := fmt.Sprintf("%s.%d.tmp", p, os.Getpid())
	if os.WriteFile(tmp, b, 0o644) == nil {
		os.Rename(tmp, p)
	}
}

// ErrNoScorer is returned when a mode is asked for without its settings.
var ErrNoScorer = errors.New("rerank is not configured")
