package engine

import (
	"path/filepath"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/settings"
)

// EmbedConfig is the embedder's configuration (kb.embed.*, kb.ann.graphMin).
type EmbedConfig struct {
	Provider string // "openai", "hash" or "" (off)
	Off      string // why dense retrieval is off, for status
	Open     llm.EmbedConfig
	HashDims int
	GraphMin int
	// QueryTimeout is kb.embed.queryTimeoutMs: the budget for embedding
	// one query; Cooldown is kb.embed.cooldown: how long search skips an
	// endpoint after it failed (defaults: package settings).
	QueryTimeout, Cooldown time.Duration
}

// BreakerFile is the circuit breaker's state under .git/kb.
const BreakerFile = "embed-breaker.json"

// EmbedConfigOf is the embedder's part of s. The API key comes from the
// environment only (settings: GIT_KB_API_KEY, else OPENAI_API_KEY): keys
// do not belong in git config, which is easily shared or committed.
func EmbedConfigOf(s *settings.Settings) *EmbedConfig {
	se := s.Embed
	c := &EmbedConfig{HashDims: llm.DefaultHashDims, GraphMin: s.GraphMin, QueryTimeout: se.QueryTimeout, Cooldown: se.Cooldown}
	c.Open = llm.EmbedConfig{BaseURL: se.BaseURL, Model: se.Model, APIKey: s.APIKey, Dimensions: se.Dimensions,
		BatchSize: se.BatchSize, Concurrency: se.Concurrency, MaxRetries: se.MaxRetries, Throttle: se.Throttle, Timeout: se.Timeout}
	c.Provider = se.Provider
	switch c.Provider {
	case "":
		if c.Open.BaseURL != "" {
			c.Provider = "openai"
		} else {
			c.Off = "no embedder configured (set kb.embed.baseURL and kb.embed.model, or kb.embed.provider=hash)"
		}
	case "off", "none":
		c.Provider, c.Off = "", "kb.embed.provider is "+c.Provider
	}
	if c.Provider == "hash" && c.Open.Dimensions > 0 {
		c.HashDims = c.Open.Dimensions
	}
	return c
}

// Embedder builds the configured embedder, or nil when dense is off.
// forIndex picks the analyzer that suits many texts (the full dictionary,
// loaded once) over the one that suits a single query.
func (c *EmbedConfig) Embedder(forIndex bool) (llm.Embedder, error) {
	switch c.Provider {
	case "openai":
		return llm.NewOpenAIEmbedder(c.Open)
	case "hash":
		an := segment.Tiny()
		if forIndex {
			an = segment.Full()
		}
		return &llm.HashEmbedder{Dims: c.HashDims, Terms: an.Terms, Fold: segment.Normalize}, nil
	}
	return nil, nil
}

// denseFor builds the search side of dense retrieval, or nil when off.
// The query embedder fails fast: no retry when nothing answers, the whole
// call within kb.embed.queryTimeoutMs, and a breaker under .git/kb that
// skips the endpoint for kb.embed.cooldown after it failed.
func denseFor(c *EmbedConfig, repo *gitx.Repo) (*search.Dense, error) {
	q := *c
	q.Open.FailFast = true
	if q.QueryTimeout > 0 && (q.Open.Timeout <= 0 || q.Open.Timeout > q.QueryTimeout) {
		q.Open.Timeout = q.QueryTimeout
	}
	emb, err := q.Embedder(false)
	if err != nil || emb == nil {
		return nil, err
	}
	return &search.Dense{
		Embedder: emb, Model: index.ModelKey(emb), QueryCacheDir: filepath.Join(repo.KBDir(), "cache", "query"),
		QueryTimeout: c.QueryTimeout,
		Breaker:      &llm.Breaker{Path: filepath.Join(repo.KBDir(), BreakerFile), Key: c.Open.BaseURL + " " + c.Open.Model, Cooldown: c.Cooldown},
	}, nil
}

// ChatConfigOf is the chat model's part of s; nil, "why" when no model is
// configured.
func ChatConfigOf(s *settings.Settings) (*llm.ChatConfig, string) {
	c := &llm.ChatConfig{BaseURL: s.Chat.BaseURL, Model: s.Chat.Model, APIKey: s.APIKey, Timeout: s.Chat.Timeout, MaxRetries: s.Chat.MaxRetries}
	if c.BaseURL == "" || c.Model == "" {
		return nil, "no chat model configured (git config kb.chat.baseURL and kb.chat.model)"
	}
	if c.MaxRetries <= 0 {
		c.MaxRetries = -1 // kb.chat.maxRetries 0: none (the client reads 0 as its default)
	}
	return c, ""
}
