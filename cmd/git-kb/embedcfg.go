package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/segment"
)

// embedConfig is the kb.embed.* configuration, read in one git call.
type embedConfig struct {
	Provider string // "openai", "hash" or "" (off)
	Off      string // why dense retrieval is off, for status
	Open     llm.EmbedConfig
	HashDims int
	GraphMin int
	// QueryTimeout is kb.embed.queryTimeoutMs: the budget for embedding
	// one query (default 1.5 s); Cooldown is kb.embed.cooldown: how long
	// search skips an endpoint after it failed (default 60 s).
	QueryTimeout, Cooldown time.Duration
}

// Query-time defaults: a search with a dead embedder answers lexically in
// about the time a lexical search takes, and tries the endpoint again a
// minute later.
const (
	defaultQueryTimeout = 1500 * time.Millisecond
	defaultCooldown     = 60 * time.Second
)

// breakerFile is the circuit breaker's state under .git/kb.
const breakerFile = "embed-breaker.json"

// readEmbedConfig reads kb.embed.*. The API key comes from the
// environment only (GIT_KB_API_KEY, else OPENAI_API_KEY): keys do not
// belong in git config, which is easily shared or committed.
func readEmbedConfig(ctx context.Context, e env, repo *gitx.Repo) (*embedConfig, error) {
	kv, err := repo.ConfigSection(ctx, "kb")
	if err != nil {
		return nil, err
	}
	c := &embedConfig{HashDims: llm.DefaultHashDims, QueryTimeout: defaultQueryTimeout, Cooldown: defaultCooldown}
	c.Open.BaseURL = kv["kb.embed.baseurl"]
	c.Open.Model = kv["kb.embed.model"]
	c.Open.APIKey = e.getenv("GIT_KB_API_KEY")
	if c.Open.APIKey == "" {
		c.Open.APIKey = e.getenv("OPENAI_API_KEY")
	}
	ints := []struct {
		key string
		dst *int
	}{
		{"kb.embed.dimensions", &c.Open.Dimensions},
		{"kb.embed.batchsize", &c.Open.BatchSize},
		{"kb.embed.concurrency", &c.Open.Concurrency},
		{"kb.embed.maxretries", &c.Open.MaxRetries},
		{"kb.ann.graphmin", &c.GraphMin},
	}
	for _, x := range ints {
		if v, ok := kv[x.key]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("git config %s = %q: not a whole number", x.key, v)
			}
			*x.dst = n
		}
	}
	for key, dst := range map[string]*time.Duration{"kb.embed.throttlems": &c.Open.Throttle, "kb.embed.timeoutms": &c.Open.Timeout, "kb.embed.querytimeoutms": &c.QueryTimeout} {
		if v, ok := kv[key]; ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("git config %s = %q: want milliseconds", key, v)
			}
			*dst = time.Duration(n) * time.Millisecond
		}
	}
	if v, ok := kv["kb.embed.cooldown"]; ok {
		d, err := parseSeconds(v)
		if err != nil {
			return nil, fmt.Errorf("git config kb.embed.cooldown = %q: %w", v, err)
		}
		c.Cooldown = d
	}
	c.Provider = strings.ToLower(strings.TrimSpace(kv["kb.embed.provider"]))
	switch c.Provider {
	case "":
		if c.Open.BaseURL != "" {
			c.Provider = "openai"
		} else {
			c.Off = "no embedder configured (set kb.embed.baseURL and kb.embed.model, or kb.embed.provider=hash)"
		}
	case "openai", "hash":
	case "off", "none":
		c.Provider, c.Off = "", "kb.embed.provider is "+c.Provider
	default:
		return nil, fmt.Errorf("git config kb.embed.provider = %q: want openai, hash or off", c.Provider)
	}
	if c.Provider == "hash" && c.Open.Dimensions > 0 {
		c.HashDims = c.Open.Dimensions
	}
	return c, nil
}

// embedder builds the configured embedder, or nil when dense is off.
// forIndex picks the analyzer that suits many texts (the full dictionary,
// loaded once) over the one that suits a single query.
func (c *embedConfig) embedder(forIndex bool) (llm.Embedder, error) {
	switch c.Provider {
	case "openai":
		return llm.NewOpenAIEmbedder(c.Open)
	case "hash":
		an := segment.Tiny()
		if forIndex {
			an = segment.Full()
		}
		return &llm.HashEmbedder{Dims: c.HashDims, Terms: an.Terms}, nil
	}
	return nil, nil
}

// parseSeconds reads a duration as Go writes it (90s, 2m) or a number of
// seconds; 0 turns the thing off.
func parseSeconds(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, errors.New("want a duration like 60s or 5m, or 0 for never")
	}
	return d, nil
}

// denseFor builds the search side of dense retrieval, or nil when off.
// The query embedder fails fast: no retry when nothing answers, the whole
// call within kb.embed.queryTimeoutMs, and a breaker under .git/kb that
// skips the endpoint for kb.embed.cooldown after it failed.
func denseFor(c *embedConfig, repo *gitx.Repo) (*search.Dense, error) {
	q := *c
	q.Open.FailFast = true
	if q.QueryTimeout > 0 && (q.Open.Timeout <= 0 || q.Open.Timeout > q.QueryTimeout) {
		q.Open.Timeout = q.QueryTimeout
	}
	emb, err := q.embedder(false)
	if err != nil || emb == nil {
		return nil, err
	}
	return &search.Dense{
		Embedder: emb, Model: index.ModelKey(emb), QueryCacheDir: filepath.Join(repo.KBDir(), "cache", "query"),
		QueryTimeout: c.QueryTimeout,
		Breaker:      &llm.Breaker{Path: filepath.Join(repo.KBDir(), breakerFile), Key: c.Open.BaseURL + " " + c.Open.Model, Cooldown: c.Cooldown},
	}, nil
}

// configuredEmbedder reads kb.embed.* and builds the query-side embedder
// (nil when dense is off; cfg.Off says why).
func configuredEmbedder(ctx context.Context, e env, repo *gitx.Repo) (*embedConfig, llm.Embedder, error) {
	cfg, err := readEmbedConfig(ctx, e, repo)
	if err != nil {
		return nil, nil, err
	}
	emb, err := cfg.embedder(false)
	return cfg, emb, err
}
