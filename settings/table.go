package settings

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Setting documents one key and knows how to read it.
type Setting struct {
	// Key is the one spelling the code, the docs and git kb config use.
	// A setting read from the environment only is named by its variable.
	Key  string
	Type string
	// Default is the value in force when nothing sets the key, as a user
	// would write it; "" is none.
	Default string
	// Accepted is what a value may be, as error messages say it.
	Accepted string
	Doc      string
	// Env lists environment variables that override git config, the
	// first one set winning.
	Env []string
	// Secret values are never shown, only whether and where they are set.
	Secret bool
	// Multi keys take several values (git config --add).
	Multi bool
	// set validates a value (never "" for single-valued keys) and stores
	// it; vals is every value of a Multi key.
	set func(s *Settings, d *Setting, v string, vals []string, origin string) error
}

// match is the key as git prints it.
func (d *Setting) match() string { return gitKey(d.Key) }

// apply stores raw (or, when empty and not a Multi key, the default).
func (d *Setting) apply(s *Settings, raw string, vals []string, set bool, origin string) error {
	if !d.Multi && strings.TrimSpace(raw) == "" {
		raw, origin = d.Default, "default"
	}
	if !d.Multi && raw == "" && d.Type != "string" && d.Type != "url" && d.Type != "secret" && d.Type != "enum" {
		return nil // no default: the zero value stands
	}
	return d.set(s, d, raw, vals, origin)
}

// Table is every setting, grouped as README lists them.
var Table = []Setting{
	{Key: "kb.maxFileSize", Type: "size", Default: "1m", Accepted: "a size in bytes, or with k, m or g: 1048576, 512k, 2m",
		Doc: "files larger than this are not indexed (counted as skipped in `git kb status`)",
		set: func(s *Settings, d *Setting, v string, _ []string, _ string) error {
			n, err := ParseSize(v)
			if err != nil {
				return d.errorf(v, "not a size")
			}
			s.MaxFileSize = n
			return nil
		}},
	{Key: "kb.index.memoryMB", Type: "int", Default: "512", Accepted: "a whole number of MiB ≥ 1",
		Doc: "memory an indexing run keeps postings and file metadata in; beyond it they are spilled to sorted runs in `.git/kb/spill` and merged (the same index, more disk I/O). The process needs about 256 MiB more; a big run lowers the budget to what the machine or its cgroup has free, and stops with a clear error when not even 32 MiB is left",
		set: intInto(1, 1<<20, func(s *Settings) *int { return &s.IndexMemoryMB })},
	{Key: "kb.secrets.allow", Type: "list", Multi: true, Accepted: "secret rule ids (e.g. jwt) or path globs (e.g. docs/examples/**), one per git config --add",
		Doc: "secrets the scanner lets through: findings of these rules, or in these paths, are indexed as written",
		set: func(s *Settings, _ *Setting, _ string, vals []string, _ string) error {
			s.SecretsAllow = vals
			return nil
		}},
	{Key: "kb.dict", Type: "string", Accepted: "a file path, relative to the top of the working tree or absolute",
		Doc: "the team's own words (product names, jargon: 回滚, 扩缩容), one a line, optionally followed by a frequency; the index and searches cut Chinese text with them as whole words, their pieces still matching. Changing the file or the key re-indexes every file on the next `git kb index`",
		set: stringInto(func(s *Settings) *string { return &s.Dict })},
	{Key: "kb.synonyms", Type: "string", Accepted: "a file path, relative to the top of the working tree or absolute",
		Doc: "the team's own synonyms, in Solr's format (`熔断, circuitbreaker` equivalent; `挂了 => 不健康` one way): a question holding one word also looks for the others, at half its own words' weight. Read at search time: no re-index",
		set: stringInto(func(s *Settings) *string { return &s.Synonyms })},
	{Key: "kb.vocab.learn", Type: "bool", Default: "false", Accepted: "true or false",
		Doc: "learn the repository's own words (frequent, cohesive Chinese strings the built-in dictionary lacks) when a full index is built, and cut documents and queries with them; off by default: it did not pay on the dev sets (README, \"Your team's words\")",
		set: boolInto(func(s *Settings) *bool { return &s.VocabLearn })},
	{Key: "kb.staleAfter", Type: "age", Default: "365d", Accepted: "an age like 365d, 26w or 720h",
		Doc: "a document whose front-matter `last_reviewed` is older than this is marked [stale] in results",
		set: func(s *Settings, d *Setting, v string, _ []string, _ string) error {
			a, err := ParseAge(v)
			if err != nil {
				return d.errorf(v, "not an age")
			}
			s.StaleAfter = a
			return nil
		}},
	{Key: "kb.priors", Type: "bool", Default: "true", Accepted: "true or false",
		Doc: "demote, by what a file is, tests (×0.5), examples (×0.6), tables of constants (×0.3), release notes, versioned migrations and AI-agent instructions (×0.5), string tables (×0.6), references (×0.7) and Go files built for one minority platform (×0.7) in the ranking (`--explain` names each); false turns them all off (`--no-priors` for one search)",
		set: boolInto(func(s *Settings) *bool { return &s.Priors })},
	{Key: "kb.expand", Type: "bool", Default: "true", Accepted: "true or false",
		Doc: "expand query words across Chinese and English (built-in glossary, CC-CEDICT); false turns it off (`--no-expand` for one search)",
		set: boolInto(func(s *Settings) *bool { return &s.Expand })},
	{Key: "kb.context.ratios", Type: "ratios", Default: "0.6,0.35,0.05", Accepted: "three non-negative shares adding up to 1, like 0.6,0.35,0.05",
		Doc: "`git kb context` budget shares: whole documents, sections, reserve (`--ratios` for one pack)",
		set: func(s *Settings, d *Setting, v string, _ []string, _ string) error {
			r, err := ParseRatios(v)
			if err != nil {
				return d.errorf(v, err.Error())
			}
			s.ContextRatios = r
			return nil
		}},
	{Key: "kb.gc.keepRecent", Type: "int", Default: "5", Accepted: "a whole number ≥ 0",
		Doc: "`git kb gc` keeps the views of this many most recently indexed commits (`--keep-recent`)",
		set: intInto(0, math.MaxInt32, func(s *Settings) *int { return &s.GCKeepRecent })},
	{Key: "kb.gc.keepTags", Type: "bool", Default: "false", Accepted: "true or false",
		Doc: "`git kb gc` also keeps the views of tagged commits (`--tags`)",
		set: boolInto(func(s *Settings) *bool { return &s.GCKeepTags })},
	{Key: "kb.gc.auto", Type: "bool", Default: "true", Accepted: "true or false",
		Doc: "after an upgrade of git-kb rebuilds the index, a background `git kb gc --auto` drops the data of the older version (only that), and finishes a gc that was killed; false leaves both for `git kb gc`",
		set: boolInto(func(s *Settings) *bool { return &s.GCAuto })},
	{Key: "kb.share.remote", Type: "string", Accepted: "a remote name or URL",
		Doc: "where `git kb push`/`pull` go when no REMOTE is named, and what hooks pull from (set by `git kb share setup`); unset: origin",
		set: stringInto(func(s *Settings) *string { return &s.ShareRemote })},
	{Key: "kb.org.url", Type: "url", Accepted: "an http(s) URL of a Weaviate server, e.g. http://weaviate.internal:8080",
		Doc: "the organisation's Weaviate endpoint: `git kb publish` writes this repository there, `git kb search --org` searches every repository published there",
		set: urlInto(func(s *Settings) *string { return &s.Org.URL })},
	{Key: "kb.org.apiKey", Type: "secret", Env: []string{"GIT_KB_ORG_API_KEY"}, Secret: true, Accepted: "the Weaviate API key",
		Doc: "bearer token sent to kb.org.url; GIT_KB_ORG_API_KEY overrides it (keep it there rather than in a shared config)",
		set: stringInto(func(s *Settings) *string { return &s.Org.APIKey })},
	{Key: "kb.org.collection", Type: "string", Default: "GitKB", Accepted: "a Weaviate collection name: a capital letter, then letters, digits or _",
		Doc: "the collection every repository of the organisation is published to",
		set: func(s *Settings, d *Setting, v string, _ []string, _ string) error {
			v = strings.TrimSpace(v)
			ok := v != "" && v[0] >= 'A' && v[0] <= 'Z'
			for _, r := range v {
				ok = ok && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
			}
			if !ok {
				return d.errorf(v, "not a collection name")
			}
			s.Org.Collection = v
			return nil
		}},
	{Key: "kb.org.repo", Type: "string", Accepted: "a name such as team/service",
		Doc: "this repository's name in the org index and in `--org` citations; unset: the origin remote's path (github.com/team/service.git -> team/service), else the directory's name",
		set: stringInto(func(s *Settings) *string { return &s.Org.Repo })},
	{Key: "kb.org.timeoutMs", Type: "milliseconds", Default: "15000", Accepted: "milliseconds ≥ 1",
		Doc: "total time one request to kb.org.url may take (a search, one batch of a publish) before it fails with a clear error",
		set: msInto(1, func(s *Settings) *time.Duration { return &s.Org.Timeout })},
	{Key: "kb.org.alpha", Type: "number", Default: "0.25", Accepted: "a number from 0 to 1 (0: BM25 only, 1: vectors only)",
		Doc: "weight of the vector side in Weaviate's hybrid fusion for `git kb search --org` (`--fusion weaviate`, the default when this repository has an embedder); `--alpha` for one search. 0.25 measured best with the hash embedder (README, org search); a semantic model may deserve more",
		set: floatInto(0, 1, func(s *Settings) *float64 { return &s.Org.Alpha })},
	{Key: "kb.org.autoPublish", Type: "bool", Default: "false", Accepted: "true or false",
		Doc: "the hooks' background runner publishes HEAD after indexing it, when HEAD is the default branch",
		set: boolInto(func(s *Settings) *bool { return &s.Org.AutoPublish })},
	{Key: "kb.mcp.repos", Type: "list", Multi: true, Accepted: "paths of other repositories (relative to this work tree), one per git config --add",
		Doc: "more repositories `git kb mcp` serves beside this one",
		set: func(s *Settings, _ *Setting, _ string, vals []string, _ string) error {
			s.MCPRepos = vals
			return nil
		}},
	{Key: "kb.mcp.idleTimeout", Type: "duration", Default: "30m", Accepted: "a duration like 30m or 2h, or seconds; 0: never",
		Doc: "`git kb mcp --http`/`--listen` ends a session that sent no request for this long (its memory is freed); a client that comes back gets HTTP 404 (session not found) and must initialize a new session",
		set: durationInto(func(s *Settings) *time.Duration { return &s.MCPIdleTimeout })},
	{Key: "kb.mcp.token", Type: "secret", Env: []string{"GIT_KB_MCP_TOKEN"}, Secret: true, Accepted: "at least 16 characters, e.g. $(openssl rand -hex 32)",
		Doc: "bearer token `git kb mcp --listen` requires of HTTP clients; GIT_KB_MCP_TOKEN overrides it",
		set: func(s *Settings, _ *Setting, v string, _ []string, origin string) error {
			s.MCPToken, s.MCPTokenFrom = strings.TrimSpace(v), "kb.mcp.token"
			if origin == "env GIT_KB_MCP_TOKEN" {
				s.MCPTokenFrom = "GIT_KB_MCP_TOKEN"
			}
			return nil
		}},
	{Key: "GIT_KB_API_KEY", Type: "secret", Env: []string{"GIT_KB_API_KEY", "OPENAI_API_KEY"}, Secret: true, Accepted: "the endpoints' API key",
		Doc: "bearer token sent to the embedding, chat and rerank endpoints; environment only (else OPENAI_API_KEY), never git config",
		set: func(s *Settings, _ *Setting, v string, _ []string, _ string) error {
			s.APIKey = v
			return nil
		}},

	{Key: "kb.embed.provider", Type: "enum", Accepted: "openai, hash or off",
		Doc: "the embedder for dense retrieval: openai (any OpenAI-compatible endpoint), hash (built in, offline) or off; unset: openai when kb.embed.baseURL is set, else off",
		set: func(s *Settings, d *Setting, v string, _ []string, _ string) error {
			p := strings.ToLower(strings.TrimSpace(v))
			switch p {
			case "", "openai", "hash", "off", "none":
				s.Embed.Provider = p
				return nil
			}
			return d.errorf(v, "unknown provider")
		}},
	{Key: "kb.embed.baseURL", Type: "url", Accepted: "an http(s) URL, e.g. http://localhost:11434/v1",
		Doc: "OpenAI-compatible embeddings endpoint, including /v1",
		set: urlInto(func(s *Settings) *string { return &s.Embed.BaseURL })},
	{Key: "kb.embed.model", Type: "string", Accepted: "the endpoint's model name, e.g. bge-m3",
		Doc: "embedding model",
		set: func(s *Settings, _ *Setting, v string, _ []string, _ string) error {
			s.Embed.Model = v
			return nil
		}},
	{Key: "kb.embed.dimensions", Type: "int", Accepted: "0..65536 (0: the model's own)",
		Doc: "ask the model for vectors this long (models that can truncate); with provider hash, its dimension (default 512)",
		set: intInto(0, 65536, func(s *Settings) *int { return &s.Embed.Dimensions })},
	{Key: "kb.embed.batchSize", Type: "int", Default: "32", Accepted: "1..2048",
		Doc: "texts per embeddings request",
		set: intInto(1, 2048, func(s *Settings) *int { return &s.Embed.BatchSize })},
	{Key: "kb.embed.concurrency", Type: "int", Default: "2", Accepted: "1..64",
		Doc: "embeddings requests in flight while indexing",
		set: intInto(1, 64, func(s *Settings) *int { return &s.Embed.Concurrency })},
	{Key: "kb.embed.maxRetries", Type: "int", Default: "5", Accepted: "-1..100 (-1: none)",
		Doc: "retries on 429, 5xx and timeouts (at query time an endpoint that does not answer is not retried, and kb.embed.queryTimeoutMs bounds the whole call)",
		set: intInto(-1, 100, func(s *Settings) *int { return &s.Embed.MaxRetries })},
	{Key: "kb.embed.throttleMs", Type: "milliseconds", Default: "0", Accepted: "milliseconds ≥ 0",
		Doc: "minimum gap between the starts of two embeddings requests (rate-limited endpoints)",
		set: msInto(0, func(s *Settings) *time.Duration { return &s.Embed.Throttle })},
	{Key: "kb.embed.timeoutMs", Type: "milliseconds", Default: "60000", Accepted: "milliseconds ≥ 1",
		Doc: "time limit of one embeddings request while indexing",
		set: msInto(1, func(s *Settings) *time.Duration { return &s.Embed.Timeout })},
	{Key: "kb.embed.queryTimeoutMs", Type: "milliseconds", Default: "1500", Accepted: "milliseconds ≥ 0 (0: no limit)",
		Doc: "time limit for embedding a query; past it search answers lexically and says so",
		set: msInto(0, func(s *Settings) *time.Duration { return &s.Embed.QueryTimeout })},
	{Key: "kb.embed.cooldown", Type: "duration", Default: "60s", Accepted: "a duration like 60s or 5m, or seconds; 0: never skip",
		Doc: "after the endpoint fails, searches skip it (lexical only) for this long",
		set: durationInto(func(s *Settings) *time.Duration { return &s.Embed.Cooldown })},
	{Key: "kb.ann.graphMin", Type: "int", Default: "0", Accepted: "a whole number ≥ 0 (0: never)",
		Doc: "build an HNSW graph for vector segments of at least this many chunks; below it (and at 0) vector search is an exact scan",
		set: intInto(0, math.MaxInt32, func(s *Settings) *int { return &s.GraphMin })},

	{Key: "kb.chat.baseURL", Type: "url", Accepted: "an http(s) URL, e.g. http://localhost:11434/v1",
		Doc: "OpenAI-compatible chat endpoint for `git kb ask` and `--rerank llm`, including /v1",
		set: urlInto(func(s *Settings) *string { return &s.Chat.BaseURL })},
	{Key: "kb.chat.model", Type: "string", Accepted: "the endpoint's model name, e.g. qwen2.5:14b",
		Doc: "chat model",
		set: func(s *Settings, _ *Setting, v string, _ []string, _ string) error {
			s.Chat.Model = v
			return nil
		}},
	{Key: "kb.chat.timeoutMs", Type: "milliseconds", Default: "120000", Accepted: "milliseconds ≥ 1",
		Doc: "time limit of one chat request",
		set: msInto(1, func(s *Settings) *time.Duration { return &s.Chat.Timeout })},
	{Key: "kb.chat.maxRetries", Type: "int", Default: "3", Accepted: "0..100 (0: none)",
		Doc: "retries on 429, 5xx and timeouts before any text arrived",
		set: intInto(-1, 100, func(s *Settings) *int { return &s.Chat.MaxRetries })},

	{Key: "kb.rerank.mode", Type: "enum", Default: "off", Accepted: "off, llm or endpoint",
		Doc: "rerank the top 20 by default: llm (the chat model scores 0-10) or endpoint (a /rerank API); `--rerank` for one search",
		set: func(s *Settings, d *Setting, v string, _ []string, _ string) error {
			switch m := strings.ToLower(strings.TrimSpace(v)); m {
			case "off", "none":
				s.Rerank.Mode = "off"
			case "llm", "endpoint":
				s.Rerank.Mode = m
			default:
				return d.errorf(v, "unknown mode")
			}
			return nil
		}},
	{Key: "kb.rerank.baseURL", Type: "url", Accepted: "an http(s) URL of a TEI, Jina or Cohere-style server",
		Doc: "rerank endpoint for `--rerank endpoint` (POST {baseURL}/rerank)",
		set: urlInto(func(s *Settings) *string { return &s.Rerank.BaseURL })},
	{Key: "kb.rerank.model", Type: "string", Accepted: "the endpoint's model name",
		Doc: "rerank model, sent with each request",
		set: func(s *Settings, _ *Setting, v string, _ []string, _ string) error {
			s.Rerank.Model = v
			return nil
		}},
	{Key: "kb.rerank.timeoutMs", Type: "milliseconds", Default: "30000", Accepted: "milliseconds ≥ 1",
		Doc: "time limit of one rerank request",
		set: msInto(1, func(s *Settings) *time.Duration { return &s.Rerank.Timeout })},
	{Key: "kb.rerank.concurrency", Type: "int", Default: "4", Accepted: "1..64",
		Doc: "chat calls in flight for `--rerank llm`",
		set: intInto(1, 64, func(s *Settings) *int { return &s.Rerank.Concurrency })},
}

// stringInto stores the value as it is, less surrounding blanks.
func stringInto(field func(*Settings) *string) func(*Settings, *Setting, string, []string, string) error {
	return func(s *Settings, _ *Setting, v string, _ []string, _ string) error {
		*field(s) = strings.TrimSpace(v)
		return nil
	}
}

func boolInto(field func(*Settings) *bool) func(*Settings, *Setting, string, []string, string) error {
	return func(s *Settings, d *Setting, v string, _ []string, _ string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "on", "1":
			*field(s) = true
		case "false", "no", "off", "0":
			*field(s) = false
		default:
			return d.errorf(v, "not a boolean")
		}
		return nil
	}
}

func intInto(lo, hi int, field func(*Settings) *int) func(*Settings, *Setting, string, []string, string) error {
	return func(s *Settings, d *Setting, v string, _ []string, _ string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return d.errorf(v, "not a whole number")
		}
		if n < lo || n > hi {
			return d.errorf(v, "out of range")
		}
		*field(s) = n
		return nil
	}
}

// floatInto reads a number within [lo, hi].
func floatInto(lo, hi float64, field func(*Settings) *float64) func(*Settings, *Setting, string, []string, string) error {
	return func(s *Settings, d *Setting, v string, _ []string, _ string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) {
			return d.errorf(v, "not a number")
		}
		if f < lo || f > hi {
			return d.errorf(v, "out of range")
		}
		*field(s) = f
		return nil
	}
}

func msInto(lo int, field func(*Settings) *time.Duration) func(*Settings, *Setting, string, []string, string) error {
	return func(s *Settings, d *Setting, v string, _ []string, _ string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return d.errorf(v, "not a number of milliseconds")
		}
		if n < lo {
			return d.errorf(v, "out of range")
		}
		*field(s) = time.Duration(n) * time.Millisecond
		return nil
	}
}

// durationInto reads a duration as ParseSeconds does (90s, 2m, 120).
func durationInto(field func(*Settings) *time.Duration) func(*Settings, *Setting, string, []string, string) error {
	return func(s *Settings, d *Setting, v string, _ []string, _ string) error {
		t, err := ParseSeconds(v)
		if err != nil {
			return d.errorf(v, "not a duration")
		}
		*field(s) = t
		return nil
	}
}

func urlInto(field func(*Settings) *string) func(*Settings, *Setting, string, []string, string) error {
	return func(s *Settings, d *Setting, v string, _ []string, _ string) error {
		v = strings.TrimSpace(v)
		if u, err := url.Parse(v); v != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			return d.errorf(v, "not an http(s) URL")
		}
		*field(s) = v
		return nil
	}
}

// ParseSize reads git-style sizes: 1048576, 512k, 2m, 1g.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("not a size (want e.g. 1048576, 512k, 2m)")
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		mult = 1 << 10
	case 'm', 'M':
		mult = 1 << 20
	case 'g', 'G':
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("not a size (want e.g. 1048576, 512k, 2m)")
	}
	return n * mult, nil
}

// ParseAge reads 365d, 26w, 12h or any positive Go duration.
func ParseAge(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, err := strconv.Atoi(strings.TrimSuffix(v, suffix)); err == nil && strings.HasSuffix(v, suffix) && n > 0 {
			return time.Duration(n) * unit, nil
		}
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want an age like 365d, 26w or 720h")
	}
	return d, nil
}

// ParseSeconds reads a duration as Go writes it (90s, 2m) or a number of
// seconds; 0 turns the thing off.
func ParseSeconds(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration like 60s or 5m, or 0 for never")
	}
	return d, nil
}

// ParseRatios reads three budget shares (whole documents, sections,
// reserve) adding up to 1, as `git kb context --ratios` takes them.
func ParseRatios(s string) ([3]float64, error) {
	var r [3]float64
	if _, err := fmt.Sscanf(strings.ReplaceAll(s, " ", ""), "%f,%f,%f", &r[0], &r[1], &r[2]); err != nil {
		return r, fmt.Errorf("not three numbers")
	}
	sum := r[0] + r[1] + r[2]
	if r[0] < 0 || r[1] < 0 || r[2] < 0 || sum < 0.99 || sum > 1.01 {
		return r, fmt.Errorf("the shares do not add up to 1")
	}
	return r, nil
}
