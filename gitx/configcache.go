package gitx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/git-kb/git-kb/secrets"
)

// ConfigEntriesCached is ConfigEntries(ctx, section), answered from a file
// under <kb dir>/cache/config when none of the files git reads its configuration from has
// changed since git was last asked, so that a short command (a search)
// starts no git process for its settings: a `git config` run was a tenth
// of a cold search's CPU and more of its wall time (issue 16).
//
// The answer is git's, never a reading of config files here: on a miss
// git lists the whole configuration once (`git config --list
// --show-origin --show-scope`), the section's entries are kept, and with
// them the content hash of every file git reads configuration from,
// present or not: the system file (/etc/gitconfig and the one beside the
// git binary's prefix), the global ones ($XDG_CONFIG_HOME/git/config or
// ~/.config/git/config, ~/.gitconfig), the repository's config and the
// worktree's config.worktree. A hit needs every one of those files to
// hash as it did, and the same repository, HOME, XDG_CONFIG_HOME and git
// binary. Nothing is cached, and git is asked every time, when the
// configuration includes other files (include.path, includeIf: what they
// read can depend on the branch or a remote), when any GIT_CONFIG*
// variable is set (git -c, GIT_CONFIG_GLOBAL, ...), when a value comes
// from a file outside that list, when a file changed while git read it,
// when the section holds a credential (a key ending apiKey, token,
// password or secret, or a value such as a URL with user:password@: no
// copy of it in the repository), or when the kb
// directory does not exist (the cache does not create it). Any failure of the cache itself falls back to
// ConfigEntries.
func (r *Repo) ConfigEntriesCached(ctx context.Context, section string) ([]ConfigEntry, error) {
	if !cacheableEnv() {
		return r.ConfigEntries(ctx, section)
	}
	key, ok := r.configKey(section)
	if !ok {
		return r.ConfigEntries(ctx, section)
	}
	dir := filepath.Join(r.KBDir(), "cache", "config")
	path := filepath.Join(dir, key.name())
	if es, ok := readConfigCache(path, key); ok {
		configHits.Add(1)
		return es, nil
	}
	return r.fillConfigCache(ctx, section, dir, path, key)
}

// configListed counts the misses (git asked for the whole configuration)
// and configHits the answers from the cache, for tests.
var configListed, configHits atomic.Int64

// configCacheVersion changes when the cache's format or its rules do.
const configCacheVersion = 2

// configKey is what a cached answer was for: the repository, the section,
// where git finds the global files and which git answered.
type configKey struct {
	Version   int    `json:"version"`
	Section   string `json:"section"`
	GitDir    string `json:"git_dir"`
	CommonDir string `json:"common_dir"`
	WorkTree  string `json:"work_tree"`
	// Cwd is where relative origins resolve in a bare repository.
	Cwd  string `json:"cwd,omitempty"`
	Home string `json:"home"`
	XDG  string `json:"xdg_config_home"`
	// Git is the git binary's path, size and modification time.
	Git string `json:"git"`
}

// name is the cache file of k: one per repository and section (linked
// worktrees share the index directory, not their config.worktree).
func (k configKey) name() string {
	h := sha256.Sum256([]byte(k.Section + "\x00" + k.GitDir))
	return hex.EncodeToString(h[:8]) + ".json"
}

func (r *Repo) configKey(section string) (configKey, bool) {
	git, err := exec.LookPath("git")
	if err != nil {
		return configKey{}, false
	}
	fi, err := os.Stat(git)
	if err != nil {
		return configKey{}, false
	}
	k := configKey{Version: configCacheVersion, Section: section, GitDir: r.GitDir, CommonDir: r.CommonDir, WorkTree: r.WorkTree,
		Home: os.Getenv("HOME"), XDG: os.Getenv("XDG_CONFIG_HOME"),
		Git: git + " " + fi.ModTime().UTC().Format("2006-01-02T15:04:05.999999999") + " " + strconv.FormatInt(fi.Size(), 10)}
	if r.WorkTree == "" {
		if k.Cwd, err = os.Getwd(); err != nil {
			return configKey{}, false
		}
	}
	return k, true
}

// cacheableEnv: git's configuration comes only from files (no GIT_CONFIG*
// variable: git -c, GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT,
// GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, GIT_CONFIG_NOSYSTEM, GIT_CONFIG).
func cacheableEnv() bool {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_CONFIG") {
			return false
		}
	}
	return true
}

// configFiles are the files git reads configuration from for k (present
// or not), in a fixed order.
func configFiles(k configKey) []string {
	git, _, _ := strings.Cut(k.Git, " ")
	prefix := filepath.Dir(filepath.Dir(git)) // /usr/bin/git -> /usr
	fs := []string{"/etc/gitconfig", filepath.Join(prefix, "etc", "gitconfig")}
	xdg := k.XDG
	if xdg == "" && k.Home != "" {
		xdg = filepath.Join(k.Home, ".config")
	}
	if xdg != "" {
		fs = append(fs, filepath.Join(xdg, "git", "config"))
	}
	if k.Home != "" {
		fs = append(fs, filepath.Join(k.Home, ".gitconfig"))
	}
	fs = append(fs, filepath.Join(k.CommonDir, "config"), filepath.Join(k.GitDir, "config"), filepath.Join(k.GitDir, "config.worktree"))
	out := fs[:0]
	seen := map[string]bool{}
	for _, f := range fs {
		if f = filepath.Clean(f); !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// configCache is the file: the key, the hash of each config file ("" when
// absent) and the section's entries as ConfigEntries returned them.
type configCache struct {
	Key     configKey         `json:"key"`
	Files   map[string]string `json:"files"`
	Entries []ConfigEntry     `json:"entries"`
}

// fileSum is the content hash of a file, "" when it does not exist, and
// false when it cannot be read (the cache is then not used).
func fileSum(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", true
	}
	if err != nil {
		return "", false
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), true
}

func sums(files []string) (map[string]string, bool) {
	m := make(map[string]string, len(files))
	for _, f := range files {
		s, ok := fileSum(f)
		if !ok {
			return nil, false
		}
		m[f] = s
	}
	return m, true
}

func readConfigCache(path string, key configKey) ([]ConfigEntry, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var c configCache
	if json.Unmarshal(b, &c) != nil || c.Key != key {
		return nil, false
	}
	files := configFiles(key)
	if len(c.Files) != len(files) {
		return nil, false
	}
	for _, f := range files {
		want, listed := c.Files[f]
		if !listed {
			return nil, false
		}
		if got, ok := fileSum(f); !ok || got != want {
			return nil, false
		}
	}
	return c.Entries, true
}

// fillConfigCache asks git for the whole configuration, answers with the
// section's entries and writes the cache when the answer can be cached.
func (r *Repo) fillConfigCache(ctx context.Context, section, dir, path string, key configKey) ([]ConfigEntry, error) {
	files := configFiles(key)
	before, ok := sums(files)
	if !ok {
		return r.ConfigEntries(ctx, section)
	}
	configListed.Add(1)
	out, err := r.git(ctx, nil, "config", "-z", "--show-origin", "--show-scope", "--list")
	if err != nil {
		// Old git (no --show-scope), a broken config file: ConfigEntries
		// says it as it always did.
		return r.ConfigEntries(ctx, section)
	}
	all := parseConfigEntries(out, true, r.configOrigin)
	var es []ConfigEntry
	cacheable := true
	local := map[string]bool{}
	for _, f := range files {
		local[f] = true
	}
	for _, e := range all {
		if e.Key == "include.path" || strings.HasPrefix(e.Key, "includeif.") || e.Scope == "command" || !local[filepath.Clean(e.Origin)] {
			cacheable = false
		}
		if strings.HasPrefix(e.Key, section+".") {
			es = append(es, e)
			if secretKey(e.Key) || secretValue(e.Value) {
				cacheable = false // no copy of a credential (kb.org.apiKey in ~/.gitconfig) in the repository
			}
		}
	}
	if !cacheable {
		os.Remove(path) // an older answer (one holding a credential, from before it was one) goes too
		return es, nil
	}
	after, ok := sums(files)
	if !ok || !maps.Equal(before, after) {
		return es, nil
	}
	if fi, err := os.Stat(r.KBDir()); err != nil || !fi.IsDir() {
		return es, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return es, nil
	}
	b, err := json.Marshal(configCache{Key: key, Files: after, Entries: es})
	if err != nil {
		return es, nil
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return es, nil
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
	return es, nil
}

// secretValue says a setting's value holds a credential whatever its
// key: a URL with user:password@ (kb.embed.baseURL of a proxy,
// kb.share.remote with a token), or anything the secrets rules find.
// The cache would have to keep the value as set to be of use (it answers
// in git's place, and the endpoint is called with the credential), so
// such a configuration is not cached either.
func secretValue(v string) bool {
	return secrets.RedactURL(v) != v || len((*secrets.Policy)(nil).Find("", v)) > 0
}

// secretKey says a setting holds a credential (an API key, a token, a
// password): its value is not copied into the cache, so such a
// configuration is read from git every time.
func secretKey(key string) bool {
	last := strings.ToLower(key[strings.LastIndexByte(key, '.')+1:])
	for _, w := range []string{"apikey", "token", "password", "secret"} {
		if strings.Contains(last, w) {
			return true
		}
	}
	return false
}
