package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/rerank"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/segment"
)

// RerankDepth is how many results the judge sees: enough to lift a good
// result from below the fold, few enough to keep calls bounded.
const RerankDepth = 20

// RerankMode is mode (a flag), else kb.rerank.mode (default off): "off",
// "llm" or "endpoint".
func (k *Engine) RerankMode(mode string) (string, error) {
	if mode == "" {
		mode = k.Settings.Rerank.Mode
	}
	switch mode {
	case "", "off", "none":
		return "off", nil
	case "llm", "endpoint":
		return mode, nil
	}
	return "", Usagef("rerank mode %q: want off, llm or endpoint", mode)
}

// Scorer builds the judge for mode ("llm" or "endpoint") and query.
func (k *Engine) Scorer(mode string, query string) (rerank.Scorer, error) {
	r := k.Settings.Rerank
	switch mode {
	case "llm":
		cfg, off := ChatConfigOf(k.Settings)
		if cfg == nil {
			return nil, Usagef("--rerank llm needs a chat model: %s", off)
		}
		chat, err := llm.NewChat(*cfg)
		if err != nil {
			return nil, err
		}
		return &rerank.LLM{Chat: chat, Concurrency: r.Concurrency, CacheDir: filepath.Join(k.Repo.KBDir(), "cache", "rerank"),
			Keywords: rerank.Keywords(segment.Tiny().Terms(query))}, nil
	default:
		if r.BaseURL == "" {
			return nil, Usagef("--rerank endpoint needs git config kb.rerank.baseURL (a TEI, Jina or Cohere-style /rerank server)")
		}
		return &rerank.Endpoint{BaseURL: r.BaseURL, Model: r.Model, APIKey: k.Settings.APIKey, Timeout: r.Timeout}, nil
	}
}

// ApplyRerank reorders resp's results with the judge s and keeps the
// first k2; on failure the results stay as they were and resp.Degraded
// says why. Passages the judge gave no score keep their place (Degraded
// says so, with the judge's reply).
func (k *Engine) ApplyRerank(ctx context.Context, resp *search.Response, s rerank.Scorer, mode, query string, k2 int, minScore float64) {
	if len(resp.Results) == 0 {
		return
	}
	// Related results (--related) are not ranked: they follow the matches
	// they came from, if those stay on the page.
	var related []search.Result
	matched := resp.Results[:0:0]
	for _, r := range resp.Results {
		if r.Match == "related" {
			related = append(related, r)
		} else {
			matched = append(matched, r)
		}
	}
	resp.Results = matched
	defer func() {
		kept := map[string]bool{}
		for _, r := range resp.Results {
			kept[r.Path] = true
		}
		for _, r := range related {
			if kept[r.Related.From] {
				r.Rank = len(resp.Results) + 1
				resp.Results = append(resp.Results, r)
			}
		}
	}()
	// The judge sees the first RerankDepth; the rest keep their order
	// behind them.
	head, tail := resp.Results, []search.Result(nil)
	if len(head) > RerankDepth {
		head, tail = head[:RerankDepth], head[RerankDepth:]
	}
	cands := make([]rerank.Candidate, len(head))
	blobs := map[string][]string{} // several results can share a file
	for i, r := range head {
		lines, ok := blobs[r.Blob]
		if !ok {
			// None when unreadable: the snippet stands in.
			lines, _, _ = k.searchedLines(resp, r.Path, r.Blob)
			blobs[r.Blob] = lines
		}
		cands[i] = rerank.Candidate{Key: fmt.Sprintf("%s:%d-%d", r.Blob, r.StartLine, r.EndLine), View: compactView(r, lines)}
	}
	// The judge may be remote: a secret pasted into the query stays here.
	out, err := rerank.Apply(ctx, s, k.Secrets.RedactText("", query), head, cands, rerank.Options{MinScore: minScore})
	for _, r := range tail {
		r.PreRank, r.Rank = r.Rank, len(out)+1
		out = append(out, r)
	}
	// A judge that gave some passages no score reranked the others: the
	// answer is reranked, and says which it could not judge.
	var unscored *rerank.UnscoredError
	if errors.As(err, &unscored) && unscored.N < len(head) {
		resp.Degrade(search.NoteRerank, "rerank: "+err.Error())
	} else if err != nil {
		resp.Degrade(search.NoteRerank, "rerank failed ("+err.Error()+"); results are in fusion order")
		resp.Results = resp.Results[:min(k2, len(resp.Results))]
		return
	}
	resp.Rerank = mode
	resp.Results = out[:min(k2, len(out))]
}

// compactView is what the judge reads: the heading (or declaration) and
// the first lines of the chunk (the snippet if the file is unreadable), at
// most ~800 bytes.
func compactView(r search.Result, lines []string) string {
	var b strings.Builder
	if r.Heading != "" {
		b.WriteString(r.Heading + "\n")
	}
	if lines != nil {
		for i := max(1, r.StartLine); i <= min(len(lines), r.EndLine) && i < r.StartLine+15 && b.Len() < 800; i++ {
			b.WriteString(lines[i-1] + "\n")
		}
	} else {
		b.WriteString(r.Snippet)
	}
	s := b.String()
	if len(s) > 900 {
		s = strings.ToValidUTF8(s[:900], "")
	}
	return s
}

// BlobLines reads a blob's text as lines (no trailing empty line), with
// secrets redacted: these lines go to packs, prompts and judges. path is
// where the blob is, for kb.secrets.allow globs.
func (k *Engine) BlobLines(path, blob string) ([]string, error) {
	k.blobReads.Add(1)
	data, err := k.Repo.ReadBlob(gitx.ParseHash(blob))
	if err != nil {
		return nil, err
	}
	lines, err := TextLines("blob "+blob[:12], data)
	return k.Secrets.RedactLines(path, lines), err
}

// TextLines decodes a file's bytes (UTF-8, GB18030) into lines, without
// the empty line after a final newline; name is for the error.
func TextLines(name string, data []byte) ([]string, error) {
	text, _, binary := chunk.Decode(data)
	if binary {
		return nil, fmt.Errorf("%s is binary", name)
	}
	return textLines(text), nil
}
