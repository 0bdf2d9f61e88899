package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingTransport counts the requests that go out.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestFailFastUnreachable: at query time a refused connection is not
// retried; indexing (FailFast off) keeps retrying. (Unknown hosts are
// checked by type only: a lookup would leave the machine.)
func TestFailFastUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	closed := srv.URL + "/v1"
	srv.Close()
	for _, c := range []struct {
		url      string
		failFast bool
		want     int64
	}{{closed, true, 1}, {closed, false, 3}} {
		ct := &countingTransport{}
		e := embedder(t, c.url, func(cfg *EmbedConfig) {
			cfg.MaxRetries, cfg.RetryBase, cfg.FailFast = 2, time.Millisecond, c.failFast
			cfg.HTTPClient = &http.Client{Transport: ct}
		})
		_, err := e.Embed(context.Background(), texts(1))
		if err == nil || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("%s: err = %v, want connection refused", c.url, err)
		}
		if got := ct.n.Load(); got != c.want {
			t.Errorf("%s failFast=%v: %d requests, want %d", c.url, c.failFast, got, c.want)
		}
	}
	if Unreachable(errors.New("HTTP 500")) || Unreachable(context.DeadlineExceeded) {
		t.Error("Unreachable says yes to errors that are not about the address")
	}
	if !Unreachable(&net.DNSError{Err: "no such host", Name: "x"}) {
		t.Error("a DNS failure is unreachable")
	}
}

// TestBreaker: a failure opens it for the cooldown, for another process
// too (the state is a file); success or another key closes it.
func TestBreaker(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "kb", "breaker.json")
	b := &Breaker{Path: path, Key: "http://h/v1 m", Cooldown: time.Minute, Now: func() time.Time { return now }}
	if err := b.Check(); err != nil {
		t.Fatalf("closed breaker: %v", err)
	}
	b.Fail(errors.New("connection refused"))
	now = now.Add(10 * time.Second)
	other := &Breaker{Path: path, Key: b.Key, Cooldown: time.Minute, Now: b.Now} // the next process
	err := other.Check()
	var oe *OpenError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "10s ago") || !strings.Contains(err.Error(), "50s") {
		t.Fatalf("open breaker: %v", err)
	}
	if err := (&Breaker{Path: path, Key: "http://other/v1 m", Cooldown: time.Minute, Now: b.Now}).Check(); err != nil {
		t.Errorf("another endpoint is not skipped: %v", err)
	}
	if err := (&Breaker{Path: path, Key: b.Key, Cooldown: 5 * time.Second, Now: b.Now}).Check(); err != nil {
		t.Errorf("a shorter configured cooldown applies at once: %v", err)
	}
	now = now.Add(time.Minute)
	if err := other.Check(); err != nil {
		t.Errorf("after the cooldown: %v", err)
	}
	b.Fail(errors.New("timeout"))
	b.Ok()
	if err := b.Check(); err != nil {
		t.Errorf("after a success: %v", err)
	}
	var nilB *Breaker
	nilB.Fail(errors.New("x"))
	if nilB.Check() != nil {
		t.Error("a nil breaker never opens")
	}
}
