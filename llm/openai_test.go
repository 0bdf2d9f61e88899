package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer speaks the OpenAI embeddings wire format. Its behaviour per
// request is decided by fail(n), n counting requests from 1.
type fakeServer struct {
	t      *testing.T
	dim    int
	calls  atomic.Int64
	inputs atomic.Int64
	fail   func(n int64, w http.ResponseWriter) bool
	mu     sync.Mutex
	auth   []string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.calls.Add(1)
	f.mu.Lock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"no such route","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	if f.fail != nil && f.fail(n, w) {
		return
	}
	var req struct {
		Input      []string `json:"input"`
		Model      string   `json:"model"`
		Dimensions int      `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.inputs.Add(int64(len(req.Input)))
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []datum
	// Answer in reverse order: clients must map by index, not position.
	for i := len(req.Input) - 1; i >= 0; i-- {
		v := make([]float32, f.dim)
		for j := range v {
			v[j] = float32(len(req.Input[i])%7+1) * float32(j+1)
		}
		data = append(data, datum{"embedding", i, v})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
}

func newFake(t *testing.T, dim int, fail func(int64, http.ResponseWriter) bool) (*fakeServer, string) {
	f := &fakeServer{t: t, dim: dim, fail: fail}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv.URL + "/v1"
}

func embedder(t *testing.T, url string, mod func(*EmbedConfig)) *OpenAIEmbedder {
	cfg := EmbedConfig{BaseURL: url, Model: "bge-m3", APIKey: "sk-test", BatchSize: 4, Concurrency: 2,
		RetryBase: time.Millisecond, Timeout: 2 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	e, err := NewOpenAIEmbedder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func texts(n int) []string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf("文本 %d %s", i, strings.Repeat("x", i)))
	}
	return s
}

func TestEmbedSuccess(t *testing.T) {
	f, url := newFake(t, 8, nil)
	e := embedder(t, url, nil)
	in := texts(10)
	vecs, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 10 {
		t.Fatalf("got %d vectors", len(vecs))
	}
	for i, v := range vecs {
		if len(v) != 8 {
			t.Fatalf("vector %d has %d dims", i, len(v))
		}
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Errorf("vector %d not unit length: %v", i, s)
		}
		// The fake scales by len(input)%7+1; after normalisation every
		// vector is the same direction, so check the mapping by index via
		// a second, single-text call.
	}
	if got := f.calls.Load(); got != 3 { // 10 texts in batches of 4
		t.Errorf("%d requests, want 3", got)
	}
	if f.inputs.Load() != 10 {
		t.Errorf("%d inputs sent", f.inputs.Load())
	}
	for _, a := range f.auth {
		if a != "Bearer sk-test" {
			t.Errorf("Authorization %q", a)
		}
	}
	if e.Dim() != 8 || e.ID() != "openai/bge-m3/native" {
		t.Errorf("dim %d id %s", e.Dim(), e.ID())
	}
}

func TestEmbedOrderByIndex(t *testing.T) {
	// A server whose vectors differ per input: direction depends on the text.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		var data []map[string]any
		for i := len(req.Input) - 1; i >= 0; i-- {
			v := []float32{0, 0, 0}
			v[len(req.Input[i])%3] = 1
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	defer srv.Close()
	e := embedder(t, srv.URL+"/v1", nil)
	in := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vecs, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if v[len(in[i])%3] != 1 {
			t.Errorf("input %d (%q) got vector %v", i, in[i], v)
		}
	}
}

func TestEmbedRetriesRateLimit(t *testing.T) {
	f, url := newFake(t, 4, func(n int64, w http.ResponseWriter) bool {
		if n == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`))
			return true
		}
		if n == 2 { // proxies answer 429 with a plain body
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte("too many requests"))
			return true
		}
		return false
	})
	e := embedder(t, url, func(c *EmbedConfig) { c.Concurrency = 1 })
	vecs, err := e.Embed(context.Background(), texts(3))
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 || f.calls.Load() != 3 {
		t.Fatalf("%d vectors after %d calls", len(vecs), f.calls.Load())
	}
}

func TestEmbedHonoursRetryAfter(t *testing.T) {
	_, url := newFake(t, 4, func(n int64, w http.ResponseWriter) bool {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return true
		}
		return false
	})
	e := embedder(t, url, nil)
	start := time.Now()
	if _, err := e.Embed(context.Background(), texts(1)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("retried after %v, before the server's Retry-After of 1s", d)
	}
}

func TestEmbedServerErrorGivesUp(t *testing.T) {
	f, url := newFake(t, 4, func(n int64, w http.ResponseWriter) bool {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"message":"model crashed","type":"server_error"}}`))
		return true
	})
	e := embedder(t, url, func(c *EmbedConfig) { c.MaxRetries = 3 })
	_, err := e.Embed(context.Background(), texts(1))
	if err == nil || !strings.Contains(err.Error(), "HTTP 500") || !strings.Contains(err.Error(), "model crashed") || !strings.Contains(err.Error(), "4 attempts") {
		t.Fatalf("err = %v", err)
	}
	if f.calls.Load() != 4 {
		t.Errorf("%d calls, want 1 + 3 retries", f.calls.Load())
	}
}

func TestEmbedClientErrorIsNotRetried(t *testing.T) {
	f, url := newFake(t, 4, func(n int64, w http.ResponseWriter) bool {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
		return true
	})
	e := embedder(t, url, nil)
	_, err := e.Embed(context.Background(), texts(1))
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "GIT_KB_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "sk-test") {
		t.Errorf("error leaks the API key: %v", err)
	}
	if f.calls.Load() != 1 {
		t.Errorf("%d calls: a 401 must not be retried", f.calls.Load())
	}
}

func TestEmbedTimeout(t *testing.T) {
	f, url := newFake(t, 4, func(n int64, w http.ResponseWriter) bool {
		if n <= 2 {
			time.Sleep(300 * time.Millisecond)
		}
		return false
	})
	e := embedder(t, url, func(c *EmbedConfig) { c.Timeout = 100 * time.Millisecond; c.MaxRetries = 1 })
	_, err := e.Embed(context.Background(), texts(1))
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err = %v", err)
	}
	if f.calls.Load() != 2 {
		t.Errorf("%d calls", f.calls.Load())
	}
	// With more retries the third attempt is answered in time.
	e = embedder(t, url, func(c *EmbedConfig) { c.Timeout = 100 * time.Millisecond; c.MaxRetries = 3 })
	if _, err := e.Embed(context.Background(), texts(1)); err != nil {
		t.Fatal(err)
	}
}

func TestEmbedWrongDimension(t *testing.T) {
	_, url := newFake(t, 6, nil)
	e := embedder(t, url, func(c *EmbedConfig) { c.Dimensions = 4 })
	_, err := e.Embed(context.Background(), texts(2))
	var de *DimensionError
	if !errors.As(err, &de) || de.Got != 6 || de.Want != 4 || !strings.Contains(err.Error(), "6") || !strings.Contains(err.Error(), "4") {
		t.Fatalf("err = %v", err)
	}
	// A model that changes its dimension behind the same name.
	e = embedder(t, url, nil)
	e.SetDim(1024)
	if _, err := e.Embed(context.Background(), texts(1)); !errors.As(err, &de) || de.Got != 6 || de.Want != 1024 {
		t.Fatalf("err = %v", err)
	}
}

func TestEmbedEmptyInput(t *testing.T) {
	f, url := newFake(t, 4, nil)
	e := embedder(t, url, nil)
	vecs, err := e.Embed(context.Background(), nil)
	if err != nil || len(vecs) != 0 || f.calls.Load() != 0 {
		t.Fatalf("nil input: %v %v, %d calls", vecs, err, f.calls.Load())
	}
	if _, err := e.Embed(context.Background(), []string{"ok", "  "}); err == nil || !strings.Contains(err.Error(), "input 1 is empty") {
		t.Fatalf("blank input: %v", err)
	}
	// A server that answers with no data at all.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"object":"list","data":[]}`))
	}))
	defer srv.Close()
	e = embedder(t, srv.URL+"/v1", nil)
	if _, err := e.Embed(context.Background(), texts(2)); err == nil || !strings.Contains(err.Error(), "0 vectors for 2 inputs") {
		t.Fatalf("empty response: %v", err)
	}
}

func TestEmbedThrottle(t *testing.T) {
	_, url := newFake(t, 4, nil)
	e := embedder(t, url, func(c *EmbedConfig) { c.Throttle = 50 * time.Millisecond; c.BatchSize = 1 })
	start := time.Now()
	if _, err := e.Embed(context.Background(), texts(4)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("4 throttled calls took %v, want at least 3 gaps of 50ms", d)
	}
}

func TestEmbedConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/v1"
	srv.Close()
	e := embedder(t, url, func(c *EmbedConfig) { c.MaxRetries = 1 })
	_, err := e.Embed(context.Background(), texts(1))
	if err == nil || !strings.Contains(err.Error(), "gave up after 2 attempts") {
		t.Fatalf("err = %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []EmbedConfig{{Model: "m"}, {BaseURL: "localhost:11434", Model: "m"}, {BaseURL: "http://h/v1"}, {BaseURL: "http://h/v1", Model: "m", Dimensions: -1}} {
		if _, err := NewOpenAIEmbedder(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d := parseRetryAfter("3", now); d != 3*time.Second {
		t.Error(d)
	}
	if d := parseRetryAfter(now.Add(5*time.Second).Format(http.TimeFormat), now); d != 5*time.Second {
		t.Error(d)
	}
	if d := parseRetryAfter("soon", now); d != 0 {
		t.Error(d)
	}
}
