package settings

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// repo is a real repository in a temp dir, with a global config file of
// the test's own (no user or system config leaks in).
func repo(t *testing.T) (dir, global string, r *gitx.Repo) {
	t.Helper()
	global = filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_COUNT", "")
	dir = gittest.Init(t)
	r, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, global, r
}

func noEnv(string) string { return "" }

func load(t *testing.T, r *gitx.Repo, getenv Getenv) *Settings {
	t.Helper()
	s, err := Load(context.Background(), r, getenv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDefaults(t *testing.T) {
	_, _, r := repo(t)
	s := load(t, r, noEnv)
	want := Settings{
		MaxFileSize: 1 << 20, IndexMemoryMB: 512, StaleAfter: 365 * 24 * time.Hour, Priors: true, Expand: true, GCAuto: true,
		ContextRatios: [3]float64{0.6, 0.35, 0.05}, GCKeepRecent: 5, MCPTokenFrom: "kb.mcp.token", MCPIdleTimeout: 30 * time.Minute,
		Embed:  Embed{BatchSize: 32, Concurrency: 2, MaxRetries: 5, Timeout: time.Minute, QueryTimeout: 1500 * time.Millisecond, Cooldown: time.Minute},
		Chat:   Chat{Timeout: 2 * time.Minute, MaxRetries: 3},
		Rerank: Rerank{Mode: "off", Timeout: 30 * time.Second, Concurrency: 4},
		Org:    Org{Collection: "GitKB", Timeout: 15 * time.Second, Alpha: 0.25},
	}
	got := *s
	got.values = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", got, want)
	}
	if d := Defaults(); !reflect.DeepEqual(d.Embed, want.Embed) || d.MaxFileSize != want.MaxFileSize {
		t.Errorf("Defaults() = %+v", d)
	}
	if len(s.Values()) != len(Table) {
		t.Fatalf("%d values for %d settings", len(s.Values()), len(Table))
	}
	for _, v := range s.Values() {
		if v.Set || v.Origin != "default" || v.Scope != "default" || v.Error != "" {
			t.Errorf("%s: %+v, want an unset default", v.Key, v)
		}
		if d, _ := Lookup(v.Key); v.Value != d.Default && !d.Multi {
			t.Errorf("%s: value %q, default %q", v.Key, v.Value, d.Default)
		}
	}
}

func TestValuesAndBothSpellings(t *testing.T) {
	dir, _, r := repo(t)
	// git keeps the spelling it was given; git kb reads either.
	gittest.Git(t, dir, "config", "kb.embed.batchSize", "8")
	gittest.Git(t, dir, "config", "kb.rerank.baseurl", "http://localhost:8080")
	gittest.Git(t, dir, "config", "KB.ann.GRAPHMIN", "1000")
	gittest.Git(t, dir, "config", "kb.priors", "off")
	gittest.Git(t, dir, "config", "kb.staleAfter", "26w")
	gittest.Git(t, dir, "config", "kb.maxFileSize", "4m")
	gittest.Git(t, dir, "config", "kb.embed.cooldown", "5m")
	gittest.Git(t, dir, "config", "kb.chat.timeoutMs", "2000")
	gittest.Git(t, dir, "config", "--add", "kb.secrets.allow", "jwt")
	gittest.Git(t, dir, "config", "--add", "kb.secrets.allow", "docs/examples/**")
	s := load(t, r, noEnv)
	if s.Embed.BatchSize != 8 || s.Rerank.BaseURL != "http://localhost:8080" || s.GraphMin != 1000 || s.Priors ||
		s.StaleAfter != 26*7*24*time.Hour || s.MaxFileSize != 4<<20 || s.Embed.Cooldown != 5*time.Minute || s.Chat.Timeout != 2*time.Second {
		t.Errorf("read back: %+v", s)
	}
	if !reflect.DeepEqual(s.SecretsAllow, []string{"jwt", "docs/examples/**"}) {
		t.Errorf("kb.secrets.allow = %q", s.SecretsAllow)
	}
	// Lookup takes any spelling of the section and the last segment.
	for _, k := range []string{"kb.embed.batchSize", "kb.embed.batchsize", "KB.embed.BATCHSIZE"} {
		v, ok := s.Value(k)
		if !ok || v.Key != "kb.embed.batchSize" || v.Value != "8" || !v.Set {
			t.Errorf("Value(%q) = %+v, %v", k, v, ok)
		}
	}
	// Subsections are case-sensitive in git: kb.Embed.model is another key.
	gittest.Git(t, dir, "config", "kb.Embed.model", "x")
	s = load(t, r, noEnv)
	if s.Embed.Model != "" || len(s.Unknown) != 1 || !strings.Contains(s.Unknown[0].Error, "did you mean kb.embed.model") {
		t.Errorf("kb.Embed.model: model %q, unknown %+v", s.Embed.Model, s.Unknown)
	}
}

func TestBadValues(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"kb.embed.batchSize", "abc", `git config kb.embed.batchSize = "abc": not a whole number (want 1..2048)`},
		{"kb.embed.batchsize", "0", `git config kb.embed.batchSize = "0": out of range (want 1..2048)`},
		{"kb.embed.provider", "bert", `want openai, hash or off`},
		{"kb.embed.baseURL", "localhost:11434", `kb.embed.baseURL = "localhost:11434": not an http(s) URL`},
		{"kb.priors", "maybe", `kb.priors = "maybe": not a boolean (want true or false)`},
		{"kb.staleAfter", "soon", `kb.staleAfter = "soon": not an age (want an age like 365d, 26w or 720h)`},
		{"kb.maxFileSize", "1.5m", `kb.maxFileSize = "1.5m": not a size`},
		{"kb.context.ratios", "1,1,1", `kb.context.ratios = "1,1,1": the shares do not add up to 1`},
		{"kb.chat.timeoutMs", "0", `kb.chat.timeoutMs = "0": out of range (want milliseconds ≥ 1)`},
		{"kb.rerank.mode", "always", `kb.rerank.mode = "always": unknown mode (want off, llm or endpoint)`},
		{"kb.embed.cooldown", "-5", `kb.embed.cooldown = "-5": not a duration`},
	} {
		t.Run(c.key, func(t *testing.T) {
			dir, _, r := repo(t)
			gittest.Git(t, dir, "config", c.key, c.value)
			s, err := Load(context.Background(), r, noEnv)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, c.want)
			}
			// The rest of the configuration is there, the default in the
			// bad one's place, and the value reports the problem.
			v, _ := s.Value(c.key)
			d, _ := Lookup(c.key)
			if v.Error != err.Error() || !v.Set || v.Value != c.value {
				t.Errorf("value: %+v", v)
			}
			if def := Defaults(); d.Key == "kb.embed.batchSize" && s.Embed.BatchSize != def.Embed.BatchSize {
				t.Errorf("batch size %d after a bad value, want the default", s.Embed.BatchSize)
			}
		})
	}
}

func TestOrigins(t *testing.T) {
	dir, global, r := repo(t)
	gittest.Git(t, dir, "config", "--file", global, "kb.embed.model", "bge-m3")
	gittest.Git(t, dir, "config", "--file", global, "kb.embed.batchSize", "16")
	gittest.Git(t, dir, "config", "kb.embed.batchSize", "64") // the repository's wins
	gittest.Git(t, dir, "config", "--file", global, "kb.priors", "false")
	s := load(t, r, noEnv)
	local, err := filepath.EvalSymlinks(filepath.Join(dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]Value{
		"kb.embed.model":     {Value: "bge-m3", Origin: global, Scope: "global"},
		"kb.embed.batchSize": {Value: "64", Origin: local, Scope: "local"},
		"kb.priors":          {Value: "false", Origin: global, Scope: "global"},
		"kb.expand":          {Value: "true", Origin: "default", Scope: "default"},
	} {
		v, _ := s.Value(key)
		origin, _ := filepath.EvalSymlinks(v.Origin)
		if origin == "" {
			origin = v.Origin
		}
		if v.Value != want.Value || origin != want.Origin || v.Scope != want.Scope {
			t.Errorf("%s: %q from %q (%s), want %q from %q (%s)", key, v.Value, v.Origin, v.Scope, want.Value, want.Origin, want.Scope)
		}
	}
	// git -c (GIT_CONFIG_PARAMETERS) is the command line, above files.
	t.Setenv("GIT_CONFIG_PARAMETERS", "'kb.embed.batchsize'='128'")
	s = load(t, r, noEnv)
	if v, _ := s.Value("kb.embed.batchSize"); v.Value != "128" || v.Origin != "command line" || s.Embed.BatchSize != 128 {
		t.Errorf("git -c: %+v", v)
	}
}

func TestSecretsAndEnv(t *testing.T) {
	dir, _, r := repo(t)
	gittest.Git(t, dir, "config", "kb.mcp.token", "from-git-config-0123456789")
	s := load(t, r, noEnv)
	v, _ := s.Value("kb.mcp.token")
	if s.MCPToken != "from-git-config-0123456789" || s.MCPTokenFrom != "kb.mcp.token" || v.Value != "" || !v.Set || !v.Secret || v.Scope != "local" {
		t.Errorf("token from git config: %q from %q; shown %+v", s.MCPToken, s.MCPTokenFrom, v)
	}
	env := map[string]string{"GIT_KB_MCP_TOKEN": "from-the-environment-0123", "OPENAI_API_KEY": "sk-openai"}
	s = load(t, r, func(k string) string { return env[k] })
	v, _ = s.Value("kb.mcp.token")
	k, _ := s.Value("GIT_KB_API_KEY")
	if s.MCPToken != "from-the-environment-0123" || s.MCPTokenFrom != "GIT_KB_MCP_TOKEN" || v.Origin != "env GIT_KB_MCP_TOKEN" || v.Value != "" {
		t.Errorf("token from env: %q from %q; shown %+v", s.MCPToken, s.MCPTokenFrom, v)
	}
	if s.APIKey != "sk-openai" || k.Origin != "env OPENAI_API_KEY" || k.Value != "" || !k.Set {
		t.Errorf("API key: %q; shown %+v", s.APIKey, k)
	}
	env["GIT_KB_API_KEY"] = "sk-ours"
	if s = load(t, r, func(k string) string { return env[k] }); s.APIKey != "sk-ours" {
		t.Errorf("GIT_KB_API_KEY should win over OPENAI_API_KEY: %q", s.APIKey)
	}
	// A secret never appears in any value, whatever the spelling.
	for _, v := range s.Values() {
		for _, secret := range []string{"from-git-config", "from-the-environment", "sk-"} {
			if strings.Contains(v.Value+strings.Join(v.Values, ","), secret) {
				t.Errorf("%s shows a secret: %+v", v.Key, v)
			}
		}
	}
}

// A URL's credentials are used, never shown: the setting holds the URL
// as set, its Value, every value of a list and a refusal's message name
// it without user:password@, and a token in a query string is redacted.
func TestURLCredentialsNotShown(t *testing.T) {
	dir, _, r := repo(t)
	gittest.Git(t, dir, "config", "kb.embed.baseURL", "https://ci:s3cretEmbed@proxy.internal/v1")
	gittest.Git(t, dir, "config", "kb.rerank.baseURL", "https://rerank.internal/?access_token=ghp_abcdefghijklmnopqrstuvwxyz0123456789")
	gittest.Git(t, dir, "config", "--add", "kb.mcp.repos", "https://me:s3cretRepo@git.internal/x.git")
	gittest.Git(t, dir, "config", "kb.org.url", "ftp://svc:s3cretOrg@weaviate.internal")
	s, err := Load(context.Background(), r, noEnv)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), `"ftp://weaviate.internal"`) {
		t.Errorf("refused kb.org.url: %v", err)
	}
	if s.Embed.BaseURL != "https://ci:s3cretEmbed@proxy.internal/v1" {
		t.Errorf("the endpoint is called with %q, want the URL as set", s.Embed.BaseURL)
	}
	for _, v := range s.Values() {
		all := v.Value + " " + strings.Join(v.Values, " ") + " " + v.Error
		if strings.Contains(all, "s3cret") || strings.Contains(all, "ghp_") {
			t.Errorf("%s shows a credential: %+v", v.Key, v)
		}
	}
	if v, _ := s.Value("kb.embed.baseURL"); v.Value != "https://proxy.internal/v1" {
		t.Errorf("kb.embed.baseURL shown as %q", v.Value)
	}
}

func TestTableIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Table {
		if d.Key == "" || d.Type == "" || d.Accepted == "" || d.Doc == "" || d.set == nil {
			t.Errorf("%+v: every setting needs a key, type, accepted values, doc and reader", d)
		}
		if seen[d.match()] {
			t.Errorf("%s twice", d.Key)
		}
		seen[d.match()] = true
		// A default must be a value the setting accepts.
		if d.Default != "" {
			if err := d.set(&Settings{}, &d, d.Default, nil, "default"); err != nil {
				t.Errorf("%s: default %q refused: %v", d.Key, d.Default, err)
			}
		}
	}
}

func TestUnknownKeys(t *testing.T) {
	dir, _, r := repo(t)
	gittest.Git(t, dir, "config", "kb.embed.batchSise", "8")
	gittest.Git(t, dir, "config", "kb.openai.apiKey", "sk-do-not-show")
	s := load(t, r, noEnv)
	if len(s.Unknown) != 2 {
		t.Fatalf("unknown: %+v", s.Unknown)
	}
	for _, u := range s.Unknown {
		switch u.Key {
		case "kb.embed.batchsise":
			if u.Value != "8" || !strings.HasPrefix(u.Error, "not a git kb setting") {
				t.Errorf("%+v", u)
			}
		case "kb.openai.apikey":
			if u.Value != "" || !u.Secret {
				t.Errorf("a secret-looking unknown key shows its value: %+v", u)
			}
		default:
			t.Errorf("unexpected %+v", u)
		}
	}
}

// TestOldGit: a git without --show-scope (before 2.26) still gives values
// and origins. The git on PATH is the real one behind a wrapper that
// refuses the option as old git does.
func TestOldGit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the wrapper is a shell script")
	}
	dir, _, r := repo(t)
	gittest.Git(t, dir, "config", "kb.embed.batchSize", "8")
	gittest.Git(t, dir, "config", "kb.priors", "false")
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	script := "#!/bin/sh\nfor a; do [ \"$a\" = --show-scope ] && { echo 'error: unknown option `show-scope'\"'\" >&2; exit 129; }; done\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	s := load(t, r, noEnv)
	v, _ := s.Value("kb.embed.batchSize")
	if s.Embed.BatchSize != 8 || s.Priors || !strings.HasSuffix(v.Origin, filepath.Join(".git", "config")) {
		t.Errorf("batch size %d, priors %v, origin %q", s.Embed.BatchSize, s.Priors, v.Origin)
	}
}

// TestBareKey: a key written with no "=" is a boolean true, as git reads it.
func TestBareKey(t *testing.T) {
	dir, _, r := repo(t)
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[kb \"gc\"]\n\tkeepTags\n")
	f.Close()
	s := load(t, r, noEnv)
	if v, _ := s.Value("kb.gc.keepTags"); !s.GCKeepTags || !v.Set || v.Value != "true" {
		t.Errorf("bare kb.gc.keepTags: %v, %+v", s.GCKeepTags, v)
	}
}

func TestOrgSettings(t *testing.T) {
	dir, _, r := repo(t)
	for k, v := range map[string]string{"kb.org.url": "http://weaviate.internal:8080", "kb.org.apiKey": "from-config", "kb.org.collection": "TeamKB",
		"kb.org.repo": "team/svc", "kb.org.timeoutMs": "2500", "kb.org.autoPublish": "true", "kb.org.alpha": "0.6"} {
		gittest.Git(t, dir, "config", k, v)
	}
	s := load(t, r, noEnv)
	want := Org{URL: "http://weaviate.internal:8080", APIKey: "from-config", Collection: "TeamKB", Repo: "team/svc", Timeout: 2500 * time.Millisecond, AutoPublish: true, Alpha: 0.6}
	if s.Org != want {
		t.Fatalf("kb.org.*: %+v, want %+v", s.Org, want)
	}
	if v, _ := s.Value("kb.org.apiKey"); v.Value != "" || !v.Secret {
		t.Errorf("the API key is shown: %+v", v)
	}
	if s = load(t, r, func(k string) string { return map[string]string{"GIT_KB_ORG_API_KEY": "from-env"}[k] }); s.Org.APIKey != "from-env" {
		t.Errorf("GIT_KB_ORG_API_KEY does not win: %q", s.Org.APIKey)
	}
	for _, kv := range [][2]string{{"kb.org.collection", "lower"}, {"kb.org.url", "weaviate:8080"}, {"kb.org.alpha", "1.5"}, {"kb.org.alpha", "-0.1"}, {"kb.org.alpha", "half"}, {"kb.org.alpha", "NaN"}} {
		k, v := kv[0], kv[1]
		gittest.Git(t, dir, "config", k, v)
		if _, err := Load(context.Background(), r, noEnv); err == nil || !strings.Contains(err.Error(), k) || !strings.Contains(err.Error(), "0 to 1") && k == "kb.org.alpha" {
			t.Errorf("%s = %s accepted: %v", k, v, err)
		}
		gittest.Git(t, dir, "config", "--unset", k)
	}
}
