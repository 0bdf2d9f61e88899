package gitx

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// hermeticConfig gives the test its own HOME and no GIT_CONFIG* variable
// (the cache steps aside for those), restored afterwards.
func hermeticConfig(t *testing.T) (home string) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_CONFIG") {
			os.Unsetenv(k)
			t.Cleanup(func() { os.Setenv(k, v) })
		}
	}
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	return home
}

// gitConfig runs git config in dir with the test's environment (not
// gittest's, which turns the global and system files off).
func gitConfig(t *testing.T, dir string, args ...string) {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.git(t.Context(), nil, append([]string{"config"}, args...)...); err != nil {
		t.Fatal(err)
	}
}

// How ConfigEntriesCached answered.
const (
	miss   = "miss"   // git listed the whole configuration
	hit    = "hit"    // from the cache
	bypass = "bypass" // git asked as ConfigEntries does
)

// cachedAsGit asks the cache and git itself, wants the same entries, and
// wants the answer to have come the way want says.
func cachedAsGit(t *testing.T, r *Repo, how, what string) []ConfigEntry {
	t.Helper()
	listed, hits := configListed.Load(), configHits.Load()
	got, err := r.ConfigEntriesCached(t.Context(), "kb")
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	came := bypass
	switch {
	case configListed.Load() != listed:
		came = miss
	case configHits.Load() != hits:
		came = hit
	}
	want, err := r.ConfigEntries(t.Context(), "kb")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: cached\n%+v\nwant (git config --get-regexp)\n%+v", what, got, want)
	}
	if came != how {
		t.Fatalf("%s: a %s, want a %s", what, came, how)
	}
	return got
}

func hasEntry(es []ConfigEntry, key, value string) bool {
	for _, e := range es {
		if e.Key == key && e.Value == value {
			return true
		}
	}
	return false
}

// The cache answers as git config does, and a change to any file git
// reads configuration from, or to what git is told by the environment,
// is seen on the next call.
func TestConfigCacheFollowsEveryConfigFile(t *testing.T) {
	home := hermeticConfig(t)
	dir := gittest.New(t, map[string]string{"a.md": "# A\n"})
	if err := os.MkdirAll(filepath.Join(dir, ".git", "kb"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	gitConfig(t, dir, "kb.embed.batchSize", "64")
	gitConfig(t, dir, "--add", "kb.secrets.allow", "one")
	gitConfig(t, dir, "--add", "kb.secrets.allow", "two")
	global := filepath.Join(home, ".gitconfig")
	if err := os.WriteFile(global, []byte("[kb]\n\tpriors\n\tmode = aaaa\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	es := cachedAsGit(t, r, miss, "first call")
	if !hasEntry(es, "kb.embed.batchsize", "64") || !hasEntry(es, "kb.secrets.allow", "two") || !hasEntry(es, "kb.priors", "") {
		t.Fatalf("entries %+v", es)
	}
	cachedAsGit(t, r, hit, "nothing changed")

	gitConfig(t, dir, "kb.embed.batchSize", "128")
	if es := cachedAsGit(t, r, miss, "git config in the repository"); !hasEntry(es, "kb.embed.batchsize", "128") {
		t.Fatalf("new value not seen: %+v", es)
	}
	cachedAsGit(t, r, hit, "unchanged again")

	// Same size, same modification time: the content decides.
	fi, _ := os.Stat(global)
	if err := os.WriteFile(global, []byte("[kb]\n\tpriors\n\tmode = bbbb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(global, fi.ModTime(), fi.ModTime())
	if es := cachedAsGit(t, r, miss, "global file edited in place"); !hasEntry(es, "kb.mode", "bbbb") {
		t.Fatalf("edit not seen: %+v", es)
	}

	xdg := filepath.Join(home, ".config", "git", "config")
	os.MkdirAll(filepath.Dir(xdg), 0o755)
	if err := os.WriteFile(xdg, []byte("[kb]\n\txdg = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if es := cachedAsGit(t, r, miss, "XDG config created"); !hasEntry(es, "kb.xdg", "1") {
		t.Fatalf("XDG file not seen: %+v", es)
	}
	other := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", other)
	cachedAsGit(t, r, miss, "XDG_CONFIG_HOME moved")
	t.Setenv("XDG_CONFIG_HOME", "")
	cachedAsGit(t, r, miss, "XDG_CONFIG_HOME back")

	gitConfig(t, dir, "extensions.worktreeConfig", "true")
	cachedAsGit(t, r, miss, "extension turned on")
	if err := os.WriteFile(filepath.Join(dir, ".git", "config.worktree"), []byte("[kb]\n\twt = yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if es := cachedAsGit(t, r, miss, "config.worktree written"); !hasEntry(es, "kb.wt", "yes") {
		t.Fatalf("worktree config not seen: %+v", es)
	}
	cachedAsGit(t, r, hit, "unchanged after the worktree config")

	// git -c and GIT_CONFIG_*: git is asked, the cache stays as it was.
	t.Setenv("GIT_CONFIG_PARAMETERS", "'kb.embed.batchsize'='256'")
	if es := cachedAsGit(t, r, bypass, "git -c"); !hasEntry(es, "kb.embed.batchsize", "256") {
		t.Fatalf("git -c not seen: %+v", es)
	}
	os.Unsetenv("GIT_CONFIG_PARAMETERS")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "kb.env")
	t.Setenv("GIT_CONFIG_VALUE_0", "v")
	if es := cachedAsGit(t, r, bypass, "GIT_CONFIG_COUNT"); !hasEntry(es, "kb.env", "v") {
		t.Fatalf("GIT_CONFIG_COUNT not seen: %+v", es)
	}
	for _, k := range []string{"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"} {
		os.Unsetenv(k)
	}
	cachedAsGit(t, r, hit, "environment cleared: the cache again")

	t.Setenv("HOME", t.TempDir())
	if es := cachedAsGit(t, r, miss, "another HOME"); hasEntry(es, "kb.mode", "bbbb") {
		t.Fatalf("the old HOME's file still read: %+v", es)
	}
}

// With an include, git is asked every time: what an included file says,
// and which files are included, is not watched.
func TestConfigCacheStepsAsideForIncludes(t *testing.T) {
	home := hermeticConfig(t)
	dir := gittest.New(t, map[string]string{"a.md": "# A\n"})
	os.MkdirAll(filepath.Join(dir, ".git", "kb"), 0o755)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	inc := filepath.Join(home, "kb.inc")
	if err := os.WriteFile(inc, []byte("[kb]\n\tmode = one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitConfig(t, dir, "include.path", inc)
	cachedAsGit(t, r, miss, "first")
	cachedAsGit(t, r, miss, "second: not cached")
	if err := os.WriteFile(inc, []byte("[kb]\n\tmode = two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if es := cachedAsGit(t, r, miss, "included file edited"); !hasEntry(es, "kb.mode", "two") {
		t.Fatalf("edit not seen: %+v", es)
	}
	gitConfig(t, dir, "--unset", "include.path")
	gitConfig(t, dir, "includeIf.onbranch:main.path", inc)
	cachedAsGit(t, r, miss, "includeIf")
	cachedAsGit(t, r, miss, "includeIf again: not cached")
}

// Without a kb directory nothing is written (the cache does not create
// the index's directory), and the answer is git's all the same.
func TestConfigCacheNeedsTheKBDir(t *testing.T) {
	hermeticConfig(t)
	dir := gittest.New(t, map[string]string{"a.md": "# A\n"})
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	gitConfig(t, dir, "kb.mode", "lexical")
	cachedAsGit(t, r, miss, "first")
	cachedAsGit(t, r, miss, "second")
	if _, err := os.Stat(r.KBDir()); !os.IsNotExist(err) {
		t.Fatalf("kb directory: %v", err)
	}
}

// Linked worktrees share the kb directory and the repository's config:
// each has its cache file (git dirs differ, and with them
// config.worktree), and both see a change.
func TestConfigCachePerWorktree(t *testing.T) {
	hermeticConfig(t)
	dir := gittest.New(t, map[string]string{"a.md": "# A\n"})
	os.MkdirAll(filepath.Join(dir, ".git", "kb"), 0o755)
	linked := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, dir, "worktree", "add", "-q", linked)
	gitConfig(t, dir, "kb.mode", "one")
	main, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := Open(linked)
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{miss, hit} {
		cachedAsGit(t, main, how, "main worktree")
		if es := cachedAsGit(t, wt, how, "linked worktree"); !hasEntry(es, "kb.mode", "one") {
			t.Fatalf("linked worktree: %+v", es)
		}
	}
	gitConfig(t, linked, "kb.mode", "two")
	for _, r := range []*Repo{main, wt} {
		if es := cachedAsGit(t, r, miss, "changed from the linked worktree"); !hasEntry(es, "kb.mode", "two") {
			t.Fatalf("%s: %+v", r.GitDir, es)
		}
	}
}

// A section that holds a credential is never copied into the cache (a
// key set in ~/.gitconfig would otherwise sit in the repository's .git),
// and is read from git every time; without it the cache serves again. A
// credential in a value (a proxy's user:password@ in kb.embed.baseURL, a
// token in kb.share.remote's URL) is one too. What the cache does keep is
// readable by its owner only.
func TestConfigCacheKeepsNoCredential(t *testing.T) {
	hermeticConfig(t)
	dir := gittest.New(t, map[string]string{"a.md": "# A\n"})
	os.MkdirAll(filepath.Join(dir, ".git", "kb"), 0o755)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	gitConfig(t, dir, "kb.mode", "lexical")
	cachedAsGit(t, r, miss, "before the key")
	cachedAsGit(t, r, hit, "before the key, cached")
	files, _ := filepath.Glob(filepath.Join(r.KBDir(), "cache", "config", "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v (%v), want 0600", files[0], fi.Mode().Perm(), err)
	}
	for _, kv := range [][3]string{
		{"kb.org.apiKey", "sk-not-for-the-cache", "sk-not"},
		{"kb.embed.baseURL", "https://ci:s3cr3t-for-no-cache@proxy.internal/v1", "s3cr3t"},
		{"kb.share.remote", "https://x-access-token:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/team/kb.git", "ghp_"},
	} {
		gitConfig(t, dir, "--global", kv[0], kv[1])
		cachedAsGit(t, r, miss, kv[0]+" first")
		cachedAsGit(t, r, miss, kv[0]+" second: a credential, not cached")
		filepath.WalkDir(r.KBDir(), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), kv[2]) {
					t.Errorf("%s holds the credential of %s", p, kv[0])
				}
				if strings.HasSuffix(filepath.Dir(p), filepath.Join("cache", "config")) {
					t.Errorf("%s: the answer from before %s stayed", p, kv[0])
				}
			}
			return nil
		})
		gitConfig(t, dir, "--global", "--unset", kv[0])
		cachedAsGit(t, r, miss, kv[0]+" gone")
		cachedAsGit(t, r, hit, kv[0]+" gone, cached again")
	}
	gitConfig(t, dir, "kb.embed.baseURL", "http://localhost:11434/v1")
	cachedAsGit(t, r, miss, "a URL without credentials")
	cachedAsGit(t, r, hit, "a URL without credentials is cached")
	for _, k := range []string{"kb.org.apiKey", "kb.embed.apikey", "kb.mcp.token", "kb.x.password"} {
		if !secretKey(k) {
			t.Errorf("secretKey(%s) = false", k)
		}
	}
	if secretKey("kb.embed.model") {
		t.Errorf("secretKey(kb.embed.model) = true")
	}
}
