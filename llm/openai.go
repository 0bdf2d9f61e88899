package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/git-kb/git-kb/secrets"
)

// EmbedConfig configures an OpenAI-compatible embeddings endpoint
// (OpenAI, Ollama, vLLM, LM Studio, TEI, ...).
type EmbedConfig struct {
	BaseURL string // including /v1, e.g. http://localhost:11434/v1
	Model   string
	APIKey  string // sent as a bearer token; never logged
	// Dimensions asks the model for shorter vectors (models that support
	// truncation) and is checked against every response. 0: the model's own.
	Dimensions  int
	BatchSize   int           // texts per request (default 32)
	Concurrency int           // requests in flight (default 2)
	Throttle    time.Duration // minimum gap between request starts
	Timeout     time.Duration // per request (default 60s)
	MaxRetries  int           // on 429, 5xx and timeouts (default 5)
	// RetryBase is the first backoff (default 500ms); it doubles per retry,
	// with full jitter, capped at 30s.
	RetryBase time.Duration
	// FailFast is for query time: no retry when nothing answers at the
	// address (connection refused, unknown host), where retrying only
	// delays the lexical answer. Indexing leaves it off and keeps its
	// patient retries.
	FailFast   bool
	HTTPClient *http.Client
}

// OpenAIEmbedder embeds through an OpenAI-compatible /embeddings endpoint.
type OpenAIEmbedder struct {
	cfg    EmbedConfig
	client *openai.Client
	dim    atomic.Int64

	throttleMu sync.Mutex
	nextStart  time.Time
}

// NewOpenAIEmbedder checks cfg and builds a client.
func NewOpenAIEmbedder(cfg EmbedConfig) (*OpenAIEmbedder, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("embedding endpoint: kb.embed.baseURL is not set")
	}
	if u, err := url.Parse(cfg.BaseURL); err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("embedding endpoint: kb.embed.baseURL %q is not an http(s) URL", secrets.RedactURL(cfg.BaseURL))
	}
	if cfg.Model == "" {
		return nil, errors.New("embedding endpoint: kb.embed.model is not set")
	}
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("embedding endpoint: kb.embed.dimensions must be positive, not %d", cfg.Dimensions)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 32
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 2
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	} else if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 5
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = 500 * time.Millisecond
	}
	e := &OpenAIEmbedder{cfg: cfg, client: newClient(cfg.BaseURL, cfg.APIKey, cfg.HTTPClient)}
	e.dim.Store(int64(cfg.Dimensions))
	return e, nil
}

// ID implements Embedder. The endpoint URL is left out on purpose: the same
// model served by another host gives the same vectors.
func (e *OpenAIEmbedder) ID() string {
	d := "native"
	if e.cfg.Dimensions > 0 {
		d = strconv.Itoa(e.cfg.Dimensions)
	}
	return "openai/" + e.cfg.Model + "/" + d
}

// Dim implements Embedder.
func (e *OpenAIEmbedder) Dim() int { return int(e.dim.Load()) }

// Local implements Embedder.
func (e *OpenAIEmbedder) Local() bool { return false }

// BatchHint is how many texts one Embed call should carry to keep every
// connection busy: a batch per request in flight.
func (e *OpenAIEmbedder) BatchHint() int { return e.cfg.BatchSize * e.cfg.Concurrency }

// Embed implements Embedder: texts go out in batches, several in flight,
// each retried on transient failures.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return nil, fmt.Errorf("embed: input %d is empty; endpoints reject empty strings", i)
		}
	}
	out := make([][]float32, len(texts))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	sem := make(chan struct{}, e.cfg.Concurrency)
	for lo := 0; lo < len(texts); lo += e.cfg.BatchSize {
		hi := min(lo+e.cfg.BatchSize, len(texts))
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			defer func() { <-sem }()
			vecs, err := e.batch(ctx, texts[lo:hi])
			if err != nil {
				errOnce.Do(func() { firstErr = err; cancel() })
				return
			}
			copy(out[lo:hi], vecs)
		}(lo, hi)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// batch makes one request, retrying transient failures.
func (e *OpenAIEmbedder) batch(ctx context.Context, texts []string) ([][]float32, error) {
	req := openai.EmbeddingRequest{Input: texts, Model: openai.EmbeddingModel(e.cfg.Model), Dimensions: e.cfg.Dimensions}
	for attempt := 0; ; attempt++ {
		if err := e.throttle(ctx); err != nil {
			return nil, err
		}
		hint := new(time.Duration)
		actx, cancel := context.WithTimeout(context.WithValue(ctx, retryAfterKey{}, hint), e.cfg.Timeout)
		res, err := e.client.CreateEmbeddings(actx, req)
		cancel()
		if err == nil {
			return e.check(texts, res)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		retry, msg := classify(err, "kb.embed")
		if !retry || e.cfg.FailFast && Unreachable(err) {
			return nil, fmt.Errorf("embedding endpoint %s: %s", secrets.RedactURL(e.cfg.BaseURL), msg)
		}
		if attempt >= e.cfg.MaxRetries {
			return nil, fmt.Errorf("embedding endpoint %s: %s (gave up after %d attempts)", secrets.RedactURL(e.cfg.BaseURL), msg, attempt+1)
		}
		wait := backoff(e.cfg.RetryBase, attempt)
		if *hint > wait {
			wait = min(*hint, time.Minute)
		}
		select {
		case <-ctx.Done():
			// Say what went wrong before the caller's deadline came.
			return nil, fmt.Errorf("embedding endpoint %s: %s (%w while waiting to retry)", secrets.RedactURL(e.cfg.BaseURL), msg, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// check maps results by their index, checks lengths and normalises.
func (e *OpenAIEmbedder) check(texts []string, res openai.EmbeddingResponse) ([][]float32, error) {
	if len(res.Data) != len(texts) {
		return nil, fmt.Errorf("embedding endpoint %s returned %d vectors for %d inputs", secrets.RedactURL(e.cfg.BaseURL), len(res.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range res.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("embedding endpoint %s returned a bad or repeated index %d", secrets.RedactURL(e.cfg.BaseURL), d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embedding endpoint %s returned an empty vector for input %d", secrets.RedactURL(e.cfg.BaseURL), d.Index)
		}
		out[d.Index] = d.Embedding
	}
	for _, v := range out {
		if e.cfg.Dimensions > 0 && len(v) != e.cfg.Dimensions {
			return nil, &DimensionError{Model: e.cfg.Model, Got: len(v), Want: e.cfg.Dimensions, Source: "kb.embed.dimensions"}
		}
		if !e.dim.CompareAndSwap(0, int64(len(v))) {
			if want := int(e.dim.Load()); want != len(v) {
				return nil, &DimensionError{Model: e.cfg.Model, Got: len(v), Want: want, Source: "the length of its earlier vectors"}
			}
		}
		Normalize(v)
	}
	return out, nil
}

// SetDim tells the embedder the dimension already stored for its ID, so a
// model that changed behind the same name is caught on the first call.
func (e *OpenAIEmbedder) SetDim(d int) {
	if e.cfg.Dimensions == 0 && d > 0 {
		e.dim.CompareAndSwap(0, int64(d))
	}
}

func (e *OpenAIEmbedder) throttle(ctx context.Context) error {
	if e.cfg.Throttle <= 0 {
		return nil
	}
	e.throttleMu.Lock()
	now := time.Now()
	start := now
	if e.nextStart.After(now) {
		start = e.nextStart
	}
	e.nextStart = start.Add(e.cfg.Throttle)
	e.throttleMu.Unlock()
	if d := start.Sub(now); d > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
	}
	return nil
}

// classify says whether an error is worth retrying, and describes it.
func classify(err error, section string) (retry bool, msg string) {
	var api *openai.APIError
	var req *openai.RequestError
	var ne net.Error
	switch {
	case errors.As(err, &api):
		return retryable(api.HTTPStatusCode), fmt.Sprintf("HTTP %d: %s%s", api.HTTPStatusCode, api.Message, hint(api.HTTPStatusCode, section))
	case errors.As(err, &req):
		body := strings.TrimSpace(string(req.Body))
		if len(body) > 200 {
			body = body[:200] + "..."
		}
		return retryable(req.HTTPStatusCode), fmt.Sprintf("HTTP %d: %s%s", req.HTTPStatusCode, body, hint(req.HTTPStatusCode, section))
	case errors.Is(err, context.DeadlineExceeded):
		return true, "request timed out"
	case errors.As(err, &ne):
		return true, err.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return true, ue.Error()
	}
	return false, err.Error()
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

func hint(status int, section string) string {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return " (check the API key in GIT_KB_API_KEY or OPENAI_API_KEY)"
	case http.StatusNotFound:
		return " (check " + section + ".baseURL: it should end in /v1; and " + section + ".model)"
	}
	return ""
}

// backoff is exponential with full jitter: uniform in [0, base·2^attempt],
// at most 30s, at least base/2 so a retry never hammers.
func backoff(base time.Duration, attempt int) time.Duration {
	ceil := base << min(attempt, 16)
	if ceil > 30*time.Second || ceil <= 0 {
		ceil = 30 * time.Second
	}
	return base/2 + time.Duration(rand.Int64N(int64(ceil)))
}

// newClient is a go-openai client for an OpenAI-compatible endpoint, with
// Retry-After recorded for the retry loops.
func newClient(baseURL, apiKey string, hc *http.Client) *openai.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	hc2 := *hc
	hc2.Transport = retryAfterTransport{base}
	if apiKey == "" {
		apiKey = "none" // local servers ignore it, but go-openai always sends one
	}
	oc := openai.DefaultConfig(apiKey)
	oc.BaseURL = strings.TrimRight(baseURL, "/")
	oc.HTTPClient = &hc2
	return openai.NewClientWithConfig(oc)
}

type retryAfterKey struct{}

// retryAfterTransport records a Retry-After header, which go-openai does not
// expose, into the request's context.
type retryAfterTransport struct{ base http.RoundTripper }

func (t retryAfterTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(r)
	if err == nil && (res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable) {
		if p, ok := r.Context().Value(retryAfterKey{}).(*time.Duration); ok {
			*p = parseRetryAfter(res.Header.Get("Retry-After"), time.Now())
		}
	}
	return res, err
}

func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
