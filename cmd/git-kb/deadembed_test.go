package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/search"
)

// hangingServer accepts embedding requests and never answers them (until
// the client gives up), as a wedged model server does.
type hangingServer struct{ calls atomic.Int64 }

func (h *hangingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.calls.Add(1)
	io.Copy(io.Discard, r.Body) // the server notices the client leaving only once the body is read
	<-r.Context().Done()
}

// deadEndpointRepo is a repository indexed with vectors from a working
// endpoint, whose kb.embed.baseURL is then pointed at url (same model, so
// the vectors still apply and only the query embedding fails).
func deadEndpointRepo(t *testing.T, url string) string {
	t.Helper()
	ok := httptest.NewServer(&embeddingsServer{})
	defer ok.Close()
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "kb.embed.baseURL", ok.URL+"/v1")
	gittest.Git(t, dir, "config", "kb.embed.model", "fake-embed")
	if st := indexJSON(t, dir); st.Embed == nil || st.Embed.Embedded == 0 {
		t.Fatalf("no vectors: %+v", st.Embed)
	}
	gittest.Git(t, dir, "config", "kb.embed.baseURL", url)
	return dir
}

// TestDeadEmbeddingEndpoint: with the endpoint refusing connections or
// hanging, search answers lexically, says why in "degraded", records a
// breaker under .git/kb that the next process honours, and tries again
// after the cooldown. (Latencies are measured by bench/dead_endpoint.sh.)
func TestDeadEmbeddingEndpoint(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL + "/v1"
		srv.Close()
		dir := deadEndpointRepo(t, url)
		r := searchJSON(t, dir, "--mode", "hybrid", "数据库连接池打满")
		if r.Mode != search.ModeLexical || !strings.Contains(r.Degraded, "connection refused") || strings.Contains(r.Degraded, "attempts") || len(r.Results) == 0 {
			t.Fatalf("refused: mode %s degraded %q, %d results", r.Mode, r.Degraded, len(r.Results))
		}
		if _, err := os.Stat(filepath.Join(dir, ".git", "kb", engine.BreakerFile)); err != nil {
			t.Fatalf("no breaker recorded under .git/kb: %v", err)
		}
		r = searchJSON(t, dir, "--mode", "hybrid", "发布失败如何回滚")
		if r.Mode != search.ModeLexical || !strings.Contains(r.Degraded, "skipped") || !strings.Contains(r.Degraded, "kb.embed.cooldown") || !strings.Contains(r.Degraded, "connection refused") {
			t.Fatalf("second search: degraded %q, want the breaker's reason", r.Degraded)
		}
	})
	t.Run("hanging", func(t *testing.T) {
		h := &hangingServer{}
		srv := httptest.NewServer(h)
		defer srv.Close()
		dir := deadEndpointRepo(t, srv.URL+"/v1")
		gittest.Git(t, dir, "config", "kb.embed.queryTimeoutMs", "200")
		r := searchJSON(t, dir, "数据库连接池打满")
		if r.Mode != search.ModeLexical || !strings.Contains(r.Degraded, "within 200ms") || len(r.Results) == 0 {
			t.Fatalf("hanging: mode %s degraded %q", r.Mode, r.Degraded)
		}
		calls := h.calls.Load()
		r = searchJSON(t, dir, "发布失败如何回滚")
		if !strings.Contains(r.Degraded, "skipped") || h.calls.Load() != calls {
			t.Fatalf("breaker open: degraded %q, %d more calls", r.Degraded, h.calls.Load()-calls)
		}
		// Cooldown 0: every query tries the endpoint again.
		gittest.Git(t, dir, "config", "kb.embed.cooldown", "0")
		r = searchJSON(t, dir, "重试次数")
		if !strings.Contains(r.Degraded, "within 200ms") || h.calls.Load() == calls {
			t.Fatalf("cooldown 0: degraded %q", r.Degraded)
		}
	})
	t.Run("recovers", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL + "/v1"
		srv.Close()
		dir := deadEndpointRepo(t, url)
		searchJSON(t, dir, "数据库连接池打满") // opens the breaker
		ok := httptest.NewServer(&embeddingsServer{})
		defer ok.Close()
		gittest.Git(t, dir, "config", "kb.embed.baseURL", ok.URL+"/v1") // another endpoint: its own breaker
		r := searchJSON(t, dir, "发布失败如何回滚")
		if r.Mode != search.ModeHybrid || r.Degraded != "" {
			t.Fatalf("working endpoint: mode %s degraded %q", r.Mode, r.Degraded)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git", "kb", engine.BreakerFile)); !os.IsNotExist(err) {
			t.Errorf("a success leaves the breaker file: %v", err)
		}
	})
	t.Run("config", func(t *testing.T) {
		dir := gittest.New(t, docs)
		for _, kv := range [][2]string{{"kb.embed.cooldown", "soon"}, {"kb.embed.queryTimeoutMs", "-5"}} {
			gittest.Git(t, dir, "config", kv[0], kv[1])
			if _, errs, code := kb(t, dir, "search", "x"); code != exitError || !strings.Contains(strings.ToLower(errs), strings.ToLower(kv[0])) {
				t.Errorf("%s = %s: exit %d %q", kv[0], kv[1], code, errs)
			}
			gittest.Git(t, dir, "config", "--unset", kv[0])
		}
	})
}
