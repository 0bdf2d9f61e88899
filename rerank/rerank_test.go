package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/search"
)

// judge is a chat-completions server that answers each passage with
// replies[passage text], as a chat model would.
func judge(t *testing.T, replies map[string]string) (*llm.Chat, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model    string
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		_, passage, _ := strings.Cut(req.Messages[len(req.Messages)-1].Content, "Passage:\n")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]string{"role": "assistant", "content": replies[passage]}}},
		})
	}))
	t.Cleanup(srv.Close)
	chat, err := llm.NewChat(llm.ChatConfig{BaseURL: srv.URL + "/v1", Model: "judge-7b", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return chat, &calls
}

// The prompt asks for the number only: that, in whitespace, a code
// fence, after a <think> block or with a label, a scale or emphasis that
// leave it the only thing said, is a score; anything else is no score,
// not the first digit in it.
func TestLLMScoreParsesOnlyWhatThePromptAsks(t *testing.T) {
	for reply, want := range map[string]float64{
		"7": 7, " 7\n": 7, "0": 0, "10": 10, "8.5": 8.5, "10.0": 10,
		"```\n6\n```": 6, "```text\n4\n```": 4, "`3`": 3, "\n```\n9\n```\n": 9,
		"Score: 7": 7, "score=7": 7, "Relevance: **6**": 6, "评分：8": 8, "7/10": 7, "7 / 10": 7,
		"7 out of 10": 7, "7.": 7, "**7**": 7, "*5*": 5, "8分": 8,
		"<think>The passage names the pool; the query asks for it.</think>\n\n9": 9,
		"The passage names the pool.\n</think>\n\n6":                             6,
	} {
		chat, _ := judge(t, map[string]string{"p": reply})
		l := &LLM{Chat: chat}
		got, err := l.Score(context.Background(), "q", []Candidate{{Key: "k", View: "p"}})
		if err != nil || got[0] != want {
			t.Errorf("reply %q: %v %v, want %v", reply, got, err, want)
		}
	}
	long := "Passage [1] is somewhat relevant to the query because it mentions the connection pool, " + strings.Repeat("and more ", 40)
	for _, reply := range []string{
		long, "11", "-1", "", "seven", "1 2", "I think 5", "7/100", "Score: 7 because it names the pool",
		"```\nPassage [2] is relevant\n```", "<think>maybe 7</think>", "<think>unclosed 7",
	} {
		chat, _ := judge(t, map[string]string{"a": "8", "b": reply})
		l := &LLM{Chat: chat}
		got, err := l.Score(context.Background(), "q", []Candidate{{Key: "a", View: "a"}, {Key: "b", View: "b"}})
		var ue *UnscoredError
		if !errors.As(err, &ue) {
			t.Errorf("reply %q: %v %v, want an *UnscoredError", reply, got, err)
			continue
		}
		if len(got) != 2 || got[0] != 8 || !Unscored(got[1]) || ue.N != 1 || ue.Of != 2 {
			t.Errorf("reply %q: scores %v, %d of %d unscored", reply, got, ue.N, ue.Of)
		}
		msg := err.Error()
		if !strings.Contains(msg, "judge-7b") || len(msg) > 300 {
			t.Errorf("reply %q: the error %q does not name the model or is too long", reply, msg)
		}
		if reply == long && !strings.Contains(msg, `"Passage [1] is somewhat relevant`) {
			t.Errorf("the error does not quote the reply: %q", msg)
		}
	}
}

// A reply that was no score is asked again next time (it is not cached);
// the scores that were are not.
func TestLLMUnscoredRepliesAreNotCached(t *testing.T) {
	replies := map[string]string{"a": "8", "b": "I think 5"}
	chat, calls := judge(t, replies)
	l := &LLM{Chat: chat, CacheDir: t.TempDir(), Keywords: "q"}
	cands := []Candidate{{Key: "a", View: "a"}, {Key: "b", View: "b"}}
	if _, err := l.Score(context.Background(), "q", cands); err == nil {
		t.Fatal("a chatty reply scored")
	}
	replies["b"] = "5"
	got, err := l.Score(context.Background(), "q", cands)
	if err != nil || got[0] != 8 || got[1] != 5 || calls.Load() != 3 {
		t.Errorf("second run: %v %v after %d calls, want [8 5] after 3", got, err, calls.Load())
	}
}

// Apply: a candidate the judge gave no score keeps its first-stage rank
// (and is not dropped by MinScore); the others are reordered around it.
func TestApplyKeepsUnscoredInPlace(t *testing.T) {
	replies := map[string]string{"r1": "1", "r2": "Passage [1] is somewhat relevant", "r3": "9", "r4": "0"}
	chat, _ := judge(t, replies)
	var results []search.Result
	var cands []Candidate
	for i, k := range []string{"r1", "r2", "r3", "r4"} {
		results = append(results, search.Result{Rank: i + 1, Path: k})
		cands = append(cands, Candidate{Key: k, View: k})
	}
	out, err := Apply(context.Background(), &LLM{Chat: chat}, "q", results, cands, Options{MinScore: 0.5})
	var ue *UnscoredError
	if !errors.As(err, &ue) || ue.N != 1 {
		t.Fatalf("Apply: %v, want an *UnscoredError for one passage", err)
	}
	var got []string
	for i, r := range out {
		got = append(got, r.Path)
		if r.Rank != i+1 {
			t.Errorf("%s has rank %d at %d", r.Path, r.Rank, i+1)
		}
	}
	if strings.Join(got, " ") != "r3 r2 r1" {
		t.Errorf("order %v, want r3 r2 r1 (r2 unscored stays second, r4 below MinScore)", got)
	}
	if out[1].RerankScore != nil || out[1].PreRank != 2 {
		t.Errorf("the unscored result: score %v pre-rank %d", out[1].RerankScore, out[1].PreRank)
	}
}
