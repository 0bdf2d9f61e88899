package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/git-kb/git-kb/secrets"
)

// Endpoint calls a cross-encoder rerank API: POST {BaseURL}/rerank with
// the query and the documents. It sends both field spellings in use
// ("documents" for Jina/Cohere-style servers, "texts" for TEI) and reads
// either response shape ({"results":[{"index","relevance_score"}]} or
// [{"index","score"}]).
type Endpoint struct {
	BaseURL, Model, APIKey string
	Timeout                time.Duration
	HTTPClient             *http.Client
	mu                     sync.Mutex
	calls                  int
}

func (e *Endpoint) Calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

type rerankItem struct {
	Index          int      `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

func (e *Endpoint) Score(ctx context.Context, query string, cands []Candidate) ([]float64, error) {
	docs := make([]string, len(cands))
	for i, c := range cands {
		docs[i] = c.View
	}
	body, _ := json.Marshal(map[string]any{"model": e.Model, "query": query, "documents": docs, "texts": docs, "top_n": len(docs), "return_documents": false})
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(e.BaseURL, "/")+"/rerank", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	hc := e.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	e.mu.Lock()
	e.calls++
	e.mu.Unlock()
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rerank endpoint %s: %w", secrets.RedactURL(e.BaseURL), err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(raw))
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return nil, fmt.Errorf("rerank endpoint %s: HTTP %d: %s", secrets.RedactURL(e.BaseURL), res.StatusCode, msg)
	}
	var items []rerankItem
	if err := json.Unmarshal(raw, &items); err != nil {
		var wrapped struct {
			Results []rerankItem `json:"results"`
		}
		if err := json.Unmarshal(raw, &wrapped); err != nil {
			return nil, fmt.Errorf("rerank endpoint %s: unreadable response: %v", secrets.RedactURL(e.BaseURL), err)
		}
		items = wrapped.Results
	}
	scores := make([]float64, len(cands))
	got := 0
	for _, it := range items {
		v := it.RelevanceScore
		if v == nil {
			v = it.Score
		}
		if v == nil || it.Index < 0 || it.Index >= len(cands) {
			continue
		}
		s := *v
		if s < 0 || s > 1 { // a logit: squash to a probability
			s = 1 / (1 + math.Exp(-s))
		}
		scores[it.Index] = 10 * s
		got++
	}
	if got != len(cands) {
		return nil, fmt.Errorf("rerank endpoint %s: scored %d of %d documents", secrets.RedactURL(e.BaseURL), got, len(cands))
	}
	return scores, nil
}
