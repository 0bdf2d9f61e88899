package main

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/search"
)

func TestHybridWithHashEmbedder(t *testing.T) {
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "kb.embed.provider", "hash")
	st := indexJSON(t, dir)
	if st.Embed == nil || st.Embed.Embedded != st.Chunks || st.Embed.Dim != 512 {
		t.Fatalf("first index should embed every chunk: %+v", st.Embed)
	}
	r := searchJSON(t, dir, "连接池打满怎么办")
	if r.Mode != search.ModeHybrid || r.Degraded != "" || r.Fusion != "rrf" {
		t.Fatalf("mode %q degraded %q fusion %q", r.Mode, r.Degraded, r.Fusion)
	}
	if r.Dense == nil || r.Dense.Vectors != r.Dense.Chunks || r.Dense.Chunks != st.Chunks {
		t.Fatalf("dense coverage %+v, %d chunks", r.Dense, st.Chunks)
	}
	if len(r.Results) == 0 || !strings.HasPrefix(r.Results[0].Path, "docs/") {
		t.Fatalf("results %v", paths(r))
	}
	if r.Results[0].LexicalRank == 0 && r.Results[0].DenseRank == 0 {
		t.Errorf("fused result carries no list ranks: %+v", r.Results[0])
	}
	d := searchJSON(t, dir, "--mode", "dense", "连接池打满怎么办")
	if d.Mode != search.ModeDense || len(d.Results) == 0 || d.Results[0].DenseRank != 1 {
		t.Fatalf("dense: mode %s, %+v", d.Mode, d.Results)
	}
	if x := searchJSON(t, dir, "--fusion", "dbsf", "连接池打满怎么办"); x.Fusion != "dbsf" || len(x.Results) == 0 {
		t.Fatalf("dbsf: %+v", x)
	}
	if l := searchJSON(t, dir, "--mode", "lexical", "连接池打满怎么办"); l.Mode != search.ModeLexical || l.Dense != nil {
		t.Fatalf("lexical: %+v", l)
	}

	// Same commit again: nothing to embed.
	again := indexJSON(t, dir)
	if again.Embed == nil || again.Embed.Embedded != 0 || again.Embed.Ready != st.Chunks {
		t.Fatalf("re-index embedded again: %+v", again.Embed)
	}
	// A rename keeps its blob, so its chunks keep their vectors.
	gittest.Git(t, dir, "mv", "internal/retry/retry.go", "internal/retry/do.go")
	gittest.Git(t, dir, "commit", "-qm", "rename")
	mv := indexJSON(t, dir)
	if mv.Embed.Embedded != 0 || mv.Embed.Ready != mv.Chunks {
		t.Fatalf("rename re-embedded: %+v", mv.Embed)
	}
	// Editing one section of a document: the untouched section is a new
	// blob's chunk, but its text is known, so its vector comes from the cache.
	section := func(h, body string) string { return "## " + h + "\n\n" + strings.Repeat(body, 40) + "\n\n" }
	gittest.Commit(t, dir, "guide", map[string]string{"docs/guide.md": "# 指南\n\n" + section("部署", "部署服务前先检查配置。") + section("回滚", "回滚时恢复上一个版本。")})
	indexJSON(t, dir)
	gittest.Commit(t, dir, "guide v2", map[string]string{"docs/guide.md": "# 指南\n\n" + section("部署", "部署服务前先检查配置。") + section("回滚", "回滚时先停流量。")})
	g2 := indexJSON(t, dir)
	if g2.Embed.Cached != 1 || g2.Embed.Embedded != 1 {
		t.Fatalf("edited section: %+v", g2.Embed)
	}
	// One edited file: only its chunks are embedded.
	gittest.Commit(t, dir, "edit", map[string]string{"README.md": "# Demo service\n\n新增：灰度发布说明。\n"})
	ed := indexJSON(t, dir)
	if ed.Embed.Embedded == 0 || ed.Embed.Embedded > 2 {
		t.Fatalf("one-file edit embedded %d chunks", ed.Embed.Embedded)
	}
	if _, _, code := kb(t, dir, "index", "--embed", "later"); code != 2 {
		t.Errorf("bad --embed value: exit %d", code)
	}
}

func TestDenseOffWithoutEmbedder(t *testing.T) {
	dir := gittest.New(t, docs)
	r := searchJSON(t, dir, "连接池")
	if r.Mode != search.ModeLexical || r.Degraded != "" {
		t.Fatalf("mode %q degraded %q", r.Mode, r.Degraded)
	}
	_, errs, code := kb(t, dir, "search", "--mode", "dense", "连接池")
	if code != 2 || !strings.Contains(errs, "kb.embed.baseURL") {
		t.Fatalf("--mode dense without embedder: exit %d, %s", code, errs)
	}
	gittest.Git(t, dir, "config", "kb.embed.provider", "bert")
	if _, errs, code := kb(t, dir, "search", "连接池"); code != 1 || !strings.Contains(errs, "want openai, hash or off") {
		t.Fatalf("bad provider: exit %d, %s", code, errs)
	}
}

// embeddingsServer answers the OpenAI embeddings API with bag-of-
// characters vectors, and can be told to fail.
type embeddingsServer struct {
	calls  atomic.Int64
	inputs atomic.Int64
	failAt atomic.Int64 // fail calls numbered >= failAt (0: never)
}

func (s *embeddingsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.calls.Add(1)
	if f := s.failAt.Load(); f > 0 && n >= f {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"message":"backend down","type":"server_error"}}`))
		return
	}
	var req struct {
		Input []string `json:"input"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	s.inputs.Add(int64(len(req.Input)))
	var data []map[string]any
	for i, in := range req.Input {
		v := make([]float32, 64)
		for _, c := range in {
			h := fnv.New32a()
			h.Write([]byte(string(c)))
			v[h.Sum32()%64]++
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "fake"})
}

func TestOpenAIEmbedderEndToEnd(t *testing.T) {
	srv := &embeddingsServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "kb.embed.baseURL", hs.URL+"/v1")
	gittest.Git(t, dir, "config", "kb.embed.model", "fake-embed")
	gittest.Git(t, dir, "config", "kb.embed.batchSize", "1")
	gittest.Git(t, dir, "config", "kb.embed.maxRetries", "-1")
	// The default cooldown stays on: a search of a commit without vectors
	// must not open the breaker, so the search after the recovery is hybrid.

	// The endpoint dies after two requests: the lexical index is complete,
	// embedding fails, and what was embedded is kept.
	srv.failAt.Store(3)
	_, errs, code := kb(t, dir, "index", "-q")
	if code != 1 || !strings.Contains(errs, "backend down") || !strings.Contains(errs, "lexical index is complete") {
		t.Fatalf("failing endpoint: exit %d, %s", code, errs)
	}
	r := searchJSON(t, dir, "连接池")
	if r.Mode != search.ModeLexical || !strings.Contains(r.Degraded, "no vectors") || len(r.Results) == 0 {
		t.Fatalf("search before vectors: mode %s degraded %q", r.Mode, r.Degraded)
	}
	// A phrase no file holds falls back to its words: its notice joins
	// the vector side's, not replaces it.
	if r := searchJSON(t, dir, `"打满 连接池" 连接池`); !strings.Contains(r.Degraded, "no vectors") || !strings.Contains(r.Degraded, "as written") {
		t.Errorf("phrase fallback before vectors: degraded %q", r.Degraded)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "kb", "embed-breaker.json")); err == nil {
		t.Fatalf("a query vector nobody used opened the breaker")
	}
	srv.failAt.Store(0)
	st := indexJSON(t, dir)
	if st.Embed == nil || st.Embed.Cached != 2 || st.Embed.Embedded != st.Chunks-2 {
		t.Fatalf("resumed embedding: %+v (chunks %d)", st.Embed, st.Chunks)
	}

	// Hybrid search; the query vector is cached, so repeating it makes no call.
	r = searchJSON(t, dir, "数据库连接池打满")
	if r.Mode != search.ModeHybrid || r.Degraded != "" || r.Dense.Model != "openai/fake-embed/native" {
		t.Fatalf("hybrid: mode %s degraded %q dense %+v", r.Mode, r.Degraded, r.Dense)
	}
	before := srv.calls.Load()
	searchJSON(t, dir, "数据库连接池打满")
	if srv.calls.Load() != before {
		t.Errorf("a repeated query called the endpoint again")
	}

	// The endpoint fails at query time: a lexical answer, saying why.
	srv.failAt.Store(1)
	out, errs, code := kb(t, dir, "search", "--json", "重试次数")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var resp search.Response
	json.Unmarshal([]byte(out), &resp)
	if resp.Mode != search.ModeLexical || !strings.Contains(resp.Degraded, "backend down") || len(resp.Results) == 0 {
		t.Fatalf("degraded answer: %+v", resp)
	}
	if !strings.Contains(errs, "dense retrieval failed") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("want a one-line notice on stderr, got %q", errs)
	}
}

func TestStatusReportsDense(t *testing.T) {
	dir := gittest.New(t, docs)
	var rep index.Report
	kb(t, dir, "index", "-q")
	kbJSON(t, dir, &rep, "status", "--json")
	if rep.Dense.On || !strings.Contains(rep.Dense.Off, "no embedder") {
		t.Fatalf("dense without config: %+v", rep.Dense)
	}
	gittest.Git(t, dir, "config", "kb.embed.provider", "hash")
	kbJSON(t, dir, &rep, "status", "--json")
	if !rep.Dense.On || rep.Dense.HeadVectors != 0 || rep.Dense.HeadChunks == 0 {
		t.Fatalf("dense before embedding: %+v", rep.Dense)
	}
	kb(t, dir, "index", "-q")
	kbJSON(t, dir, &rep, "status", "--json")
	if rep.Dense.HeadVectors != rep.Dense.HeadChunks {
		t.Fatalf("dense after embedding: %+v", rep.Dense)
	}
}
