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
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// chatServer speaks the OpenAI chat-completions wire format, streaming
// (SSE) and not. fail429 answers the first call with 429; delay holds
// every answer back.
type chatServer struct {
	answer  string
	fail429 bool
	delay   time.Duration
	calls   atomic.Int32
	prompt  atomic.Value // the last user message
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.calls.Add(1)
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct{ Role, Content string }
	}
	body, _ := io.ReadAll(r.Body)
	json.Unmarshal(body, &req)
	if len(req.Messages) == 2 {
		s.prompt.Store(req.Messages[1].Content)
	}
	if s.fail429 && n == 1 {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
		return
	}
	select {
	case <-time.After(s.delay):
	case <-r.Context().Done():
		return
	}
	if !req.Stream {
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`, req.Model, s.answer)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, piece := range strings.SplitAfter(s.answer, "。") {
		b, _ := json.Marshal(piece)
		fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", req.Model, b)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func askRepo(t *testing.T, srv *httptest.Server) string {
	dir := gittest.New(t, docs)
	if srv != nil {
		gittest.Git(t, dir, "config", "kb.chat.baseURL", srv.URL+"/v1")
		gittest.Git(t, dir, "config", "kb.chat.model", "test-model")
		gittest.Git(t, dir, "config", "kb.chat.timeoutMs", "2000")
	}
	return dir
}

func TestAskStreamsAndValidatesCitations(t *testing.T) {
	cs := &chatServer{answer: "连接池打满时先检查慢查询 [1]。再调大 maxOpenConns [1][9]。"}
	srv := httptest.NewServer(cs)
	defer srv.Close()
	dir := askRepo(t, srv)

	out, errs, code := kb(t, dir, "ask", "-q", "数据库连接池打满怎么办")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "连接池打满时先检查慢查询 [1]。") || strings.Contains(out, "[9]。") {
		t.Errorf("answer:\n%s", out)
	}
	if !strings.Contains(out, "(removed: the model cited [9]") || !strings.Contains(out, "[1] ") || !strings.Contains(out, ":docs/adr/0001-connection-pool.md#L") {
		t.Errorf("tail:\n%s", out)
	}
	prompt, _ := cs.prompt.Load().(string)
	if !strings.Contains(prompt, "[1] docs/adr/0001-connection-pool.md") || !strings.Contains(prompt, "数据库连接池打满怎么办") {
		t.Errorf("prompt:\n%s", prompt)
	}

	var res askResult
	kbJSON(t, dir, &res, "ask", "--json", "-q", "数据库连接池打满怎么办")
	if res.Mode != "generated" || res.Model != "test-model" || len(res.Citations) != 1 || res.Citations[0].N != 1 ||
		len(res.Invalid) != 1 || res.Invalid[0] != 9 || strings.Contains(res.Answer, "9") || len(res.Sources) == 0 {
		t.Errorf("json: %+v", res)
	}
}

func TestAskRetriesAndFallsBack(t *testing.T) {
	// 429, then an answer: one retry.
	cs := &chatServer{answer: "回滚用 deploy rollback [1]。", fail429: true}
	srv := httptest.NewServer(cs)
	dir := askRepo(t, srv)
	var res askResult
	kbJSON(t, dir, &res, "ask", "--json", "-q", "发布失败如何回滚")
	if res.Mode != "generated" || cs.calls.Load() != 2 || len(res.Citations) != 1 {
		t.Errorf("after a 429: calls %d, %+v", cs.calls.Load(), res)
	}
	srv.Close()

	// A model that never answers in time: extractive, with the reason.
	slow := &chatServer{answer: "太慢了 [1]。", delay: 10 * time.Second}
	srv2 := httptest.NewServer(slow)
	defer srv2.Close()
	dir2 := askRepo(t, srv2)
	gittest.Git(t, dir2, "config", "kb.chat.timeoutMs", "300")
	gittest.Git(t, dir2, "config", "kb.chat.maxRetries", "0")
	res = askResult{}
	kbJSON(t, dir2, &res, "ask", "--json", "-q", "发布失败如何回滚")
	if res.Mode != "extractive" || !strings.Contains(res.Degraded, "within 300ms") || !strings.Contains(res.Notice, "chat model failed") ||
		!strings.Contains(res.Answer, "**回滚**") || len(res.Citations) == 0 {
		t.Errorf("timeout fallback: %+v", res)
	}

	// No model configured: extractive, and it says so.
	dir3 := askRepo(t, nil)
	out, errs, code := kb(t, dir3, "ask", "发布失败如何回滚")
	if code != 0 || !strings.Contains(errs, "no chat model configured") || !strings.Contains(out, "**回滚**") || !strings.Contains(out, "[1] ") {
		t.Errorf("no model: exit %d\n%s\n%s", code, out, errs)
	}
	if _, _, code := kb(t, dir3, "ask"); code != 2 {
		t.Errorf("no question: exit %d", code)
	}
}
