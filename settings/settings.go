// Package settings is git kb's configuration: every kb.* git config key,
// and the environment variables that stand in for a few of them, read in
// one git call, defaulted, validated and documented in one table (Table).
// `git kb config` and README's settings reference are generated from that
// table, so what the code reads, what the user is shown and what the docs
// say cannot drift apart.
//
// Git config is case-insensitive in the section and the last segment
// (kb.embed.batchSize and kb.embed.batchsize are one key); the code spells
// each key one way, the table's, and matches what git prints.
package settings

//go:generate go run ./internal/readme ../README.md

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/secrets"
)

// Settings is one repository's configuration, typed, with defaults
// applied. The zero value is not useful: use Load or Defaults.
type Settings struct {
	// MaxFileSize is kb.maxFileSize: files above it are not indexed.
	MaxFileSize int64
	// IndexMemoryMB is kb.index.memoryMB: the memory budget of an
	// indexing run's buffers, in MiB.
	IndexMemoryMB int
	// SecretsAllow is kb.secrets.allow: rule ids or path globs the secret
	// scanner lets through.
	SecretsAllow []string
	// Dict is kb.dict: the path of the team's word list ("": none).
	Dict string
	// Synonyms is kb.synonyms: the path of the team's synonyms file
	// ("": none), read at search time.
	Synonyms string
	// VocabLearn is kb.vocab.learn: learn the corpus's own words.
	VocabLearn bool
	// StaleAfter is kb.staleAfter: docs untouched this long are flagged.
	StaleAfter time.Duration
	// Priors, Expand: kb.priors, kb.expand (on unless set false).
	Priors, Expand bool
	// ContextRatios is kb.context.ratios: whole documents, sections,
	// reserve.
	ContextRatios [3]float64
	// GCKeepRecent, GCKeepTags: kb.gc.keepRecent, kb.gc.keepTags.
	GCKeepRecent int
	GCKeepTags   bool
	// GCAuto is kb.gc.auto (on unless set false): an index run that
	// rebuilt for a new pipeline version starts `git kb gc --auto`.
	GCAuto bool
	// ShareRemote is kb.share.remote ("" : origin).
	ShareRemote string
	// Org is kb.org.*: the organisation's Weaviate index.
	Org Org
	// MCPRepos is kb.mcp.repos; MCPToken is GIT_KB_MCP_TOKEN, else
	// kb.mcp.token (MCPTokenFrom says which).
	MCPRepos     []string
	MCPToken     string
	MCPTokenFrom string
	// MCPIdleTimeout is kb.mcp.idleTimeout: an HTTP session idle this
	// long is ended (0: never).
	MCPIdleTimeout time.Duration
	// APIKey is GIT_KB_API_KEY, else OPENAI_API_KEY: never git config,
	// which is easily shared or committed.
	APIKey string
	Embed  Embed
	// GraphMin is kb.ann.graphMin: segments with at least this many
	// vectors get an HNSW graph (0: never).
	GraphMin int
	Chat     Chat
	Rerank   Rerank

	values []Value // one per Table row, in table order
	// Unknown holds kb.* keys git has that the table does not know:
	// typos, or keys of another version of git kb.
	Unknown []Value
}

// Embed is kb.embed.*.
type Embed struct {
	// Provider is as set, lowercased: "" (unset), openai, hash, off or none.
	Provider   string
	BaseURL    string
	Model      string
	Dimensions int // 0: the model's own
	BatchSize  int
	// Concurrency is requests in flight while indexing.
	Concurrency int
	// MaxRetries: -1 none, 0 the endpoint client's default.
	MaxRetries int
	Throttle   time.Duration
	Timeout    time.Duration
	// QueryTimeout bounds embedding one query; Cooldown is how long search
	// skips an endpoint after it failed.
	QueryTimeout, Cooldown time.Duration
}

// Org is kb.org.*.
type Org struct {
	URL, APIKey, Collection string
	// Repo is kb.org.repo as set ("": derived from the origin remote).
	Repo        string
	Timeout     time.Duration
	AutoPublish bool
	// Alpha weighs the vector side of Weaviate's hybrid fusion (0: BM25
	// only, 1: vectors only).
	Alpha float64
}

// Chat is kb.chat.*.
type Chat struct {
	BaseURL, Model string
	Timeout        time.Duration
	// MaxRetries: 0 none.
	MaxRetries int
}

// Rerank is kb.rerank.*.
type Rerank struct {
	// Mode is off, llm or endpoint ("none" reads as off).
	Mode           string
	BaseURL, Model string
	Timeout        time.Duration
	Concurrency    int
}

// Value is one setting as git kb sees it: its value, default and origin.
type Value struct {
	Key string `json:"key"`
	// Value is the effective value as it may be shown ("" for a
	// secret; a URL without its user:password@, see Shown).
	Value   string   `json:"value"`
	Values  []string `json:"values,omitempty"` // every value of a multi-valued key, shown alike
	Default string   `json:"default"`
	// Origin is the file that set it, "command line", "env NAME" or
	// "default".
	Origin string `json:"origin"`
	// Scope is git's (system, global, local, worktree, command), "env"
	// or "default".
	Scope  string `json:"scope"`
	Set    bool   `json:"set"`
	Secret bool   `json:"secret,omitempty"`
	// Error is why the value was refused (the default stands in).
	Error string `json:"error,omitempty"`
}

// Getenv reads an environment variable; nil means os.Getenv.
type Getenv func(string) string

// Defaults is the configuration of a repository with nothing set.
func Defaults() *Settings {
	s, _ := resolve(nil, func(string) string { return "" })
	return s
}

// Load reads the kb.* configuration of repo in one git call, or none when
// no config file changed since the last (gitx.ConfigEntriesCached). A bad value
// is an error naming the key and what it accepts (the first in table
// order); the returned Settings then holds the defaults in its place, and
// Values reports every problem.
func Load(ctx context.Context, repo *gitx.Repo, getenv Getenv) (*Settings, error) {
	es, err := repo.ConfigEntriesCached(ctx, "kb")
	if err != nil {
		return nil, err
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return resolve(es, getenv)
}

// LoadOutside is Load where there is no repository (dir is in none): the
// system and global files, git -c and the environment over the defaults.
func LoadOutside(ctx context.Context, dir string, getenv Getenv) (*Settings, error) {
	es, err := gitx.ConfigEntriesOutside(ctx, dir, "kb")
	if err != nil {
		return nil, err
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return resolve(es, getenv)
}

func resolve(es []gitx.ConfigEntry, getenv Getenv) (*Settings, error) {
	byKey := map[string][]gitx.ConfigEntry{}
	for _, e := range es {
		byKey[e.Key] = append(byKey[e.Key], e)
	}
	s := &Settings{}
	var first error
	for i := range Table {
		d := &Table[i]
		v := Value{Key: d.Key, Default: d.Default, Origin: "default", Scope: "default", Secret: d.Secret}
		raw, vals, set := d.Default, []string(nil), false
		if got := byKey[d.match()]; len(got) > 0 {
			delete(byKey, d.match())
			last := got[len(got)-1]
			raw, set = last.Value, true
			if last.Bare {
				raw = "true"
			}
			v.Origin, v.Scope = last.Origin, last.Scope
			for _, e := range got {
				if e.Value != "" { // as git config --get-all, a bare or empty entry adds nothing
					vals = append(vals, e.Value)
				}
			}
		}
		for _, name := range d.Env {
			if x := getenv(name); x != "" {
				raw, vals, set = x, []string{x}, true
				v.Origin, v.Scope = "env "+name, "env"
				break
			}
		}
		v.Set = set
		if d.Multi {
			for _, x := range vals {
				v.Values = append(v.Values, Shown(x))
			}
			raw = strings.Join(vals, ", ")
		}
		if err := d.apply(s, raw, vals, set, v.Origin); err != nil {
			v.Error = err.Error()
			if first == nil {
				first = err
			}
			// The default stands in, so callers that go on (git kb
			// config) see a whole configuration.
			_ = d.apply(s, d.Default, nil, false, "default")
		}
		if !d.Secret {
			v.Value = Shown(raw)
		}
		s.values = append(s.values, v)
	}
	for _, e := range es {
		if _, left := byKey[e.Key]; left {
			u := Value{Key: e.Key, Value: Shown(e.Value), Origin: e.Origin, Scope: e.Scope, Set: true, Error: "not a git kb setting" + Suggest(e.Key)}
			if secretName(e.Key) {
				u.Value, u.Secret = "", true
			}
			s.Unknown = append(s.Unknown, u)
		}
	}
	return s, first
}

// Values is every setting in table order, with its origin.
func (s *Settings) Values() []Value { return s.values }

// Lookup finds a setting by key, in any letter case git accepts (the
// section and the last segment).
func Lookup(key string) (*Setting, bool) {
	for i := range Table {
		if Table[i].match() == gitKey(key) || Table[i].Key == key {
			return &Table[i], true
		}
	}
	return nil, false
}

// Value is one setting's value and origin, by key (any letter case).
func (s *Settings) Value(key string) (Value, bool) {
	d, ok := Lookup(key)
	if !ok {
		return Value{}, false
	}
	for _, v := range s.values {
		if v.Key == d.Key {
			return v, true
		}
	}
	return Value{}, false
}

// gitKey is key as git prints it: section and last segment lowercased,
// subsections as written. Environment variable names stay as they are.
func gitKey(key string) string {
	if !strings.Contains(key, ".") {
		return key
	}
	first := strings.Index(key, ".")
	last := strings.LastIndex(key, ".")
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// Suggest names the known key an unknown one most likely meant: the same
// letters in another case or subsection case, or the same last segment.
func Suggest(key string) string {
	low := strings.ToLower(key)
	for _, d := range Table {
		if strings.ToLower(d.Key) == low {
			return " (did you mean " + d.Key + "? subsections are case-sensitive)"
		}
	}
	name := low[strings.LastIndex(low, ".")+1:]
	for _, d := range Table {
		if strings.HasSuffix(strings.ToLower(d.Key), "."+name) {
			return " (did you mean " + d.Key + "?)"
		}
	}
	return ""
}

// errorf is the one shape of a bad value: the key, the value, what is
// wrong and what is accepted.
func (d *Setting) errorf(v, why string) error {
	return fmt.Errorf("git config %s = %q: %s (want %s)", d.Key, Shown(v), why, d.Accepted)
}

// Shown is a value as git kb config, its JSON and error messages show it:
// a URL without its user:password@ (secrets.RedactURL: kb.embed.baseURL,
// kb.share.remote, kb.org.url may hold a proxy's or a remote's
// credentials), and any other credential the secrets rules find in it
// (a token in a query string) replaced by its marker. The settings
// themselves keep the value as set: the endpoint is called with it.
func Shown(v string) string {
	return (*secrets.Policy)(nil).RedactText("", secrets.RedactURL(v))
}

// secretName says an unknown key's name looks like it holds a secret
// (kb.openai.apiKey, kb.chat.token): its value is not shown either.
func secretName(key string) bool {
	name := strings.ToLower(key[strings.LastIndex(key, ".")+1:])
	for _, w := range []string{"key", "token", "secret", "password", "passwd", "auth", "credential"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}
