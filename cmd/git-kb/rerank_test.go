package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// judgeServer is a chat model that scores a passage 9 if it mentions
// favourite, else 2 (or, if chatty is set, answers that instead).
type judgeServer struct {
	favourite string
	chatty    atomic.Pointer[string]
	calls     atomic.Int32
}

func (s *judgeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	var req struct {
		Model    string
		Messages []struct{ Role, Content string }
	}
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &req)
	score := "2"
	if c := s.chatty.Load(); c != nil {
		score = *c
	}
	if strings.Contains(req.Messages[len(req.Messages)-1].Content, s.favourite) {
		score = "9"
	}
	content, _ := json.Marshal(score)
	fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}]}`, content)
}

// judgedRepo is a repository of docs whose chat model is a judgeServer
// that favours "deploy rollback".
func judgedRepo(t *testing.T) (string, *judgeServer) {
	t.Helper()
	js := &judgeServer{favourite: "deploy rollback"}
	srv := httptest.NewServer(js)
	t.Cleanup(srv.Close)
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "kb.chat.baseURL", srv.URL+"/v1")
	gittest.Git(t, dir, "config", "kb.chat.model", "judge")
	return dir, js
}

func TestRerankLLMCachesAndBlends(t *testing.T) {
	dir, js := judgedRepo(t)

	plain := searchJSON(t, dir, "连接池打满 回滚 重试")
	if plain.Results[0].Path == "docs/runbook/rollback.md" {
		t.Fatalf("the test needs another first result without rerank: %v", paths(plain))
	}
	r := searchJSON(t, dir, "--rerank", "llm", "连接池打满 回滚 重试")
	if r.Rerank != "llm" || len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
		t.Fatalf("reranked: %s %v (plain %v)", r.Rerank, paths(r), paths(plain))
	}
	first := r.Results[0]
	if first.RerankScore == nil || *first.RerankScore != 9 || first.PreRank == 0 {
		t.Errorf("first result: %+v", first)
	}
	calls := js.calls.Load()
	if int(calls) != len(plain.Results) {
		t.Errorf("%d judge calls for %d results", calls, len(plain.Results))
	}
	// The same words in another order: all from the cache.
	again := searchJSON(t, dir, "--rerank", "llm", "重试 回滚 连接池打满")
	if js.calls.Load() != calls || again.Results[0].Path != first.Path {
		t.Errorf("second run made %d more calls", js.calls.Load()-calls)
	}
	// --min-score drops what the judge scored low.
	if m := searchJSON(t, dir, "--rerank", "llm", "--min-score", "5", "连接池打满 回滚 重试"); len(m.Results) != 1 {
		t.Errorf("min-score 5: %v", paths(m))
	}
}

// --min-score filters by the judge's score: without a rerank it would do
// nothing, so it is a usage error that says how to turn rerank on, unless
// kb.rerank.mode turns it on by default.
func TestMinScoreNeedsRerank(t *testing.T) {
	dir, js := judgedRepo(t)
	for _, args := range [][]string{
		{"search", "--min-score", "5", "回滚"},
		{"search", "--rerank", "off", "--min-score", "5", "回滚"},
		{"search", "--org", "--min-score", "5", "回滚"},
	} {
		out, errs, code := kb(t, dir, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "--min-score") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a usage error", args, code, out, errs)
		}
		// (--org has no rerank: its message says --min-score is local.)
		if args[1] != "--org" && !strings.Contains(errs, "--rerank llm") || args[1] == "--min-score" && !strings.Contains(errs, "kb.rerank.mode") {
			t.Errorf("%v: %q does not name the fix (--rerank MODE or kb.rerank.mode)", args, errs)
		}
	}
	if js.calls.Load() != 0 {
		t.Errorf("a refused search asked the judge %d times", js.calls.Load())
	}
	gittest.Git(t, dir, "config", "kb.rerank.mode", "llm")
	if r := searchJSON(t, dir, "--min-score", "5", "连接池打满 回滚 重试"); r.Rerank != "llm" || len(r.Results) != 1 {
		t.Errorf("--min-score with kb.rerank.mode llm: %s %v", r.Rerank, paths(r))
	}
	if _, errs, code := kb(t, dir, "search", "--rerank", "off", "--min-score", "5", "回滚"); code != 2 {
		t.Errorf("--rerank off overrides kb.rerank.mode, --min-score is refused: exit %d %s", code, errs)
	}
}

// A judge that chats instead of answering with a number gives no score:
// not the first digit of its reply. Those results keep their first-stage
// rank and the answer says degraded, naming the model and the reply.
func TestRerankLLMChattyJudge(t *testing.T) {
	dir, js := judgedRepo(t)
	chatty := "Passage [1] is somewhat relevant to the question, since it talks about pools."
	js.chatty.Store(&chatty)
	gittest.Git(t, dir, "config", "kb.chat.model", "judge-7b")

	r := searchJSON(t, dir, "--rerank", "llm", "连接池打满 回滚 重试")
	if len(r.Results) < 2 {
		t.Fatalf("the test needs two results: %v", paths(r))
	}
	if !strings.Contains(r.Degraded, "judge-7b") || !strings.Contains(r.Degraded, `"Passage [1] is somewhat relevant`) {
		t.Errorf("degraded %q: want the model and the reply named", r.Degraded)
	}
	for _, x := range r.Results {
		chattedTo := x.Path != "docs/runbook/rollback.md"
		if chattedTo && (x.RerankScore != nil || x.PreRank != x.Rank) {
			t.Errorf("%s: judge score %v, rank %d from %d; want no score and its first-stage rank", x.Path, x.RerankScore, x.Rank, x.PreRank)
		}
	}
	// Nothing unscored was cached: a judge that learnt to answer is asked again.
	calls := js.calls.Load()
	js.chatty.Store(nil)
	again := searchJSON(t, dir, "--rerank", "llm", "连接池打满 回滚 重试")
	if again.Degraded != "" || js.calls.Load() != calls+int32(len(r.Results)-1) {
		t.Errorf("second run: degraded %q, %d more calls for %d results", again.Degraded, js.calls.Load()-calls, len(r.Results))
	}
}

func TestRerankEndpointAndFailure(t *testing.T) {
	var calls atomic.Int32
	fail := atomic.Bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/rerank" {
			http.NotFound(w, r)
			return
		}
		if fail.Load() {
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":"slow down"}`)
			return
		}
		var req struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			Texts     []string `json:"texts"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if len(req.Documents) == 0 || len(req.Texts) != len(req.Documents) {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		// TEI's shape: a bare array, logits for scores.
		var out []map[string]any
		for i, d := range req.Documents {
			score := -3.0
			if strings.Contains(d, "RetryCount") {
				score = 4.0
			}
			out = append(out, map[string]any{"index": i, "score": score})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "kb.rerank.baseURL", srv.URL)
	gittest.Git(t, dir, "config", "kb.rerank.mode", "endpoint")

	plain := searchJSON(t, dir, "--rerank", "off", "连接池 retry")
	if plain.Results[0].Path == "internal/retry/retry.go" {
		t.Fatalf("the test needs another first result without rerank: %v", paths(plain))
	}
	r := searchJSON(t, dir, "连接池 retry")
	if r.Rerank != "endpoint" || r.Results[0].Path != "internal/retry/retry.go" || *r.Results[0].RerankScore < 9 {
		t.Fatalf("endpoint rerank: %s %v", r.Rerank, paths(r))
	}
	fail.Store(true)
	d := searchJSON(t, dir, "连接池 retry")
	if d.Rerank != "" || !strings.Contains(d.Degraded, "rerank failed") || !strings.Contains(d.Degraded, "429") || len(d.Results) == 0 {
		t.Errorf("failing endpoint: %+v", d)
	}
	if off := searchJSON(t, dir, "--rerank", "off", "重试"); off.Rerank != "" || off.Degraded != "" {
		t.Errorf("--rerank off: %+v", off)
	}
	if _, _, code := kb(t, dir, "search", "--rerank", "magic", "x"); code != 2 {
		t.Errorf("bad mode: exit %d", code)
	}
}

// Rerank before packing: the judged-best file leads the context pack.
func TestRerankContextPack(t *testing.T) {
	dir, js := judgedRepo(t)
	out, errs, code := kb(t, dir, "context", "-q", "--rerank", "llm", "--format", "json", "--budget", "2000", "连接池打满 回滚 重试")
	var p struct {
		Blocks []struct{ Path string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || len(p.Blocks) == 0 || p.Blocks[0].Path != "docs/runbook/rollback.md" || js.calls.Load() == 0 {
		t.Errorf("context --rerank llm: exit %d %s %+v", code, errs, p)
	}
}
