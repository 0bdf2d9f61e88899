package org

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestObjectID(t *testing.T) {
	a := ObjectID("team/docs", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 0)
	if a != ObjectID("team/docs", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 0) {
		t.Fatal("not deterministic")
	}
	if len(a) != 36 || a[14] != '5' {
		t.Fatalf("%s is not a UUIDv5", a)
	}
	seen := map[string]bool{a: true}
	for _, b := range []string{
		ObjectID("team/other", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 0),
		ObjectID("team/docs", "0978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 0),
		ObjectID("team/docs", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 5, 0),
		ObjectID("team/docs", "f978cdeb754d07c70c2a6479a2ea1fd040aa2dc8", 4, 1),
	} {
		if seen[b] {
			t.Fatalf("two chunks share the id %s", b)
		}
		seen[b] = true
	}
}

func TestDialRefuses(t *testing.T) {
	for cfg, want := range map[Config]string{
		{}:                     "kb.org.url",
		{URL: "weaviate:8080"}: "want http://host:port",
		{URL: "http://h:8080", Collection: "lower"}: "collection name",
	} {
		if _, err := Dial(cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", cfg, err, want)
		}
	}
	// A password in the URL is refused without being echoed.
	if _, err := Dial(Config{URL: "http://bob:s3cret@weaviate:8080"}); err == nil || !strings.Contains(err.Error(), "GIT_KB_ORG_API_KEY") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("userinfo in kb.org.url: %v", err)
	}
	if _, err := Dial(Config{URL: "http://bob:s3cret@[::1"}); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("an unparsable URL with a password: %v", err)
	}
	if _, err := Dial(Config{URL: "http://127.0.0.1:1"}); err != nil {
		t.Errorf("Dial touched the network or refused a good URL: %v", err)
	}
}

func TestFilterWhere(t *testing.T) {
	if (Filter{}).where() != nil {
		t.Fatal("an empty filter filters")
	}
	w := Filter{Repos: []string{"a", "b"}, NotRepos: []string{"c"}, PathLike: []string{"docs/*"}, Langs: []string{"go"}, Tags: []string{"x"}}.where().String()
	for _, s := range []string{`operator: Or`, `valueText: "a"`, `operator: Not`, `operator: Like`, `valueText: "docs/*"`, `path: ["lang"]`, `operator: ContainsAny`} {
		if !strings.Contains(w, s) {
			t.Errorf("where %s lacks %s", w, s)
		}
	}
}

func TestBatchSize(t *testing.T) {
	small := make([]Chunk, 250)
	if n := batchSize(small); n != MaxBatch {
		t.Errorf("small chunks: %d per request, want %d", n, MaxBatch)
	}
	big := []Chunk{{Text: strings.Repeat("x", MaxBatchBytes)}, {Text: "y"}, {Text: "z"}}
	if n := batchSize(big); n != 1 {
		t.Errorf("a chunk as large as a request: %d per request, want 1", n)
	}
	if n := batchSize(big[1:]); n != 2 {
		t.Errorf("two small chunks: %d", n)
	}
}

// TestWriteSplitsOnTimeout: a batch the server cannot take in time is
// written again as two halves; a server that hangs is a timeout error
// after a bounded number of tries.
func TestWriteSplitsOnTimeout(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	hang := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Objects []struct {
				ID string `json:"id"`
			} `json:"objects"`
		}
		if r.URL.Path != "/v1/batch/objects" || json.NewDecoder(r.Body).Decode(&body) != nil {
			http.Error(w, "unexpected "+r.URL.Path, http.StatusBadRequest)
			return
		}
		mu.Lock()
		sizes = append(sizes, len(body.Objects))
		h := hang
		mu.Unlock()
		if h || len(body.Objects) > 50 {
			select { // a server too busy for a large batch
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		var out []map[string]any
		for _, o := range body.Objects {
			out = append(out, map[string]any{"id": o.ID, "result": map[string]any{}})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	c, err := Dial(Config{URL: srv.URL, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([]Chunk, 100)
	for i := range chunks {
		chunks[i] = Chunk{Repo: "r", Blob: "b", Path: "p", Ordinal: i, Text: "x"}
	}
	if err := c.Write(context.Background(), chunks); err != nil {
		t.Fatalf("write with a server that takes 50 at a time: %v", err)
	}
	// Under the lock: a timed-out request's handler may still be running.
	got := func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), sizes...)
	}
	if s := got(); fmt.Sprint(s) != "[100 50 50]" {
		t.Errorf("requests of %v objects, want [100 50 50]", s)
	}
	mu.Lock()
	hang, sizes = true, nil
	mu.Unlock()
	start := time.Now()
	err = c.Write(context.Background(), chunks)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "timed out after 300ms") {
		t.Fatalf("a hung server: %v", err)
	}
	if d, s := time.Since(start), got(); d > 3*time.Second || len(s) != 2 {
		t.Errorf("a hung server took %s and %v requests, want 2 (the batch, its first half)", d, s)
	}
}
