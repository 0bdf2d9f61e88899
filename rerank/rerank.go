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
	// MinScore drops results the judge scored below it (0: keep all).
	MinScore float64
	// Weight of the judge in the blend (default 0.7); the rest is the
	// fusion rank.
	Weight float64
}

// Apply scores results with s and reorders them by the blend of the
// judge's score and their rank before. It fills RerankScore and PreRank.
func Apply(ctx context.Context, s Scorer, query string, results []search.Result, cands []Candidate, o Options) ([]search.Result, error) {
	if len(results) == 0 {
		return results, nil
	}
	if o.Weight <= 0 || o.Weight > 1 {
		o.Weight = 0.7
	}
	scores, err := s.Score(ctx, query, cands)
	if err != nil {
		return nil, err
	}
	n := float64(len(results))
	type scored struct {
		r     search.Result
		blend float64
	}
	var out []scored
	for i, r := range results {
		sc := scores[i]
		if o.MinScore > 0 && sc < o.MinScore {
			continue
		}
		r.PreRank = r.Rank
		v := sc
		r.RerankScore = &v
		rankScore := 1 - float64(i)/n // 1 for the first, falling linearly
		out = append(out, scored{r, o.Weight*sc/10 + (1-o.Weight)*rankScore})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].blend > out[j].blend })
	res := make([]search.Result, len(out))
	for i, x := range out {
		x.r.Rank = i + 1
		res[i] = x.r
	}
	return res, nil
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

var numberRE = regexp.MustCompile(`\d+(\.\d+)?`)

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
				m := numberRE.FindString(reply)
				var v float64
				if v, err = strconv.ParseFloat(m, 64); err == nil {
					scores[i] = min(10, max(0, v))
					return
				}
				err = fmt.Errorf("the judge answered %q, not a score", reply)
			}
			errMu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			errMu.Unlock()
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	for _, i := range todo {
		cache[cands[i].Key] = scores[i]
	}
	l.saveCache(cache)
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
