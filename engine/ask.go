package engine

import (
	"context"
	"strings"

	"github.com/git-kb/git-kb/ask"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/segment"
)

// AskRequest is a question to answer from the repository's docs and code.
type AskRequest struct {
	Question string
	Parsed   *search.Query // the question in the query language
	Mode     string        // retrieval mode, as search.Request.Mode
	Rev      string        // "" = HEAD
	Worktree bool
	Rerank   string // as SearchRequest.Rerank
	Budget   int    // tokens for the sources
	// Stream, when set, receives the answer as it is written (citations
	// checked on the fly), or the extractive answer at once.
	Stream func(string)
}

// AskResult is an answer with its sources: the --json contract of git kb
// ask.
type AskResult struct {
	Question  string       `json:"question"`
	Commit    string       `json:"commit"`
	Mode      string       `json:"mode"` // generated or extractive
	Model     string       `json:"model,omitempty"`
	Answer    string       `json:"answer"`
	Citations []ask.Source `json:"citations"`
	Invalid   []int        `json:"invalid_citations,omitempty"` // numbers the model invented, removed
	Sources   []ask.Source `json:"sources"`
	Notice    string       `json:"notice,omitempty"`
	Degraded  string       `json:"degraded,omitempty"`
}

// Ask packs the best sources for the question into r.Budget tokens and has
// the chat model (kb.chat.*) answer from them, citing them by number;
// citations it invents are removed. Without a chat model, or when it
// fails before writing anything, the answer is the best matching passages
// (extractive), and Notice says why.
func (k *Engine) Ask(ctx context.Context, r AskRequest) (*AskResult, error) {
	chatCfg, off := ChatConfigOf(k.Settings)
	p, err := k.ContextPack(ctx, ContextRequest{Request: search.Request{Query: r.Question, Parsed: r.Parsed, Mode: r.Mode}, Rev: r.Rev, Worktree: r.Worktree,
		Rerank: r.Rerank, Budget: r.Budget, Ratios: pack.Ratios{Whole: 0.3, Sections: 0.65, Reserve: 0.05}, Format: pack.Markdown})
	if err != nil {
		return nil, err
	}
	res := &AskResult{Question: r.Question, Commit: p.Commit, Citations: []ask.Source{}, Sources: []ask.Source{}}
	for i, b := range p.Blocks {
		res.Sources = append(res.Sources, ask.Source{N: i + 1, Citation: b.Citation, Path: b.Path, Heading: b.Heading, Start: b.Start, End: b.End, Text: b.Text})
	}
	if len(res.Sources) == 0 {
		res.Mode, res.Notice = "extractive", "nothing in "+p.Commit[:min(12, len(p.Commit))]+" matches the question"
		return res, nil
	}
	var answer string
	if chatCfg != nil {
		chat, err := llm.NewChat(*chatCfg)
		if err != nil {
			return nil, err
		}
		res.Mode, res.Model = "generated", chat.Model()
		// The model may be remote: a secret pasted into the question stays here.
		msgs := ask.Prompt(k.Secrets.RedactText("", r.Question), res.Sources)
		if r.Stream != nil {
			f := &ask.StreamFilter{N: len(res.Sources), Out: r.Stream}
			answer, err = chat.Stream(ctx, msgs, f.Write)
			f.Flush()
		} else {
			answer, err = chat.Complete(ctx, msgs)
		}
		if err != nil && answer == "" {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.Degraded = err.Error()
			off = "the chat model failed (" + err.Error() + ")"
			chatCfg = nil
		} else if err != nil {
			res.Degraded = "the answer was cut short: " + err.Error()
		}
	}
	if chatCfg == nil {
		res.Mode, res.Model, res.Notice = "extractive", "", off+"; these are the best matching passages"
		k.opt.note("%s", res.Notice)
		answer, _ = ask.Extractive(HighlightTerms(r.Parsed.Text), res.Sources, 3)
		if r.Stream != nil {
			r.Stream(answer)
		}
	}
	clean, used, invalid := ask.Validate(answer, len(res.Sources))
	res.Answer, res.Invalid = clean, invalid
	for _, n := range used {
		res.Citations = append(res.Citations, res.Sources[n-1])
	}
	return res, nil
}

// HighlightTerms are the query's words worth showing in bold: not the
// lone characters search mode also yields (线, 上 match everywhere), but a
// run of them in a row is an out-of-vocabulary word (回 滚 -> 回滚).
func HighlightTerms(text string) []string {
	var out []string
	run := ""
	flush := func() {
		if len([]rune(run)) >= 2 {
			out = append(out, run)
		}
		run = ""
	}
	for _, t := range segment.Tiny().Terms(text) {
		if len([]rune(t)) == 1 {
			if strings.Contains(text, run+t) {
				run += t
				continue
			}
			flush()
			run = t
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}
