// Package gittest makes real git repositories in t.TempDir() for tests,
// with a hermetic environment (no user or system config) and fixed dates,
// so commit SHAs are stable from run to run.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Env is the environment every git call in tests runs with.
func Env() []string {
	return append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
	)
}

// Git runs git in dir and returns its trimmed stdout, failing the test on error.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Init makes an empty repository (branch main) and returns its directory.
func Init(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q", "-b", "main")
	return dir
}

// New makes a repository with one commit holding files, and returns its dir.
func New(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := Init(t)
	Commit(t, dir, "initial", files)
	return dir
}

// Commit writes files (a nil-valued entry is not possible in a map of
// strings, so use Remove for deletions), stages everything and commits.
// It returns the new commit's SHA.
func Commit(t testing.TB, dir, msg string, files map[string]string) string {
	t.Helper()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		WriteFile(t, dir, name, []byte(files[name]))
	}
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return Git(t, dir, "rev-parse", "HEAD")
}

// WriteFile writes one file in the work tree, creating directories.
func WriteFile(t testing.TB, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Remove deletes files and commits, returning the new commit's SHA.
func Remove(t testing.TB, dir, msg string, names ...string) string {
	t.Helper()
	Git(t, dir, append([]string{"rm", "-q", "--"}, names...)...)
	Git(t, dir, "commit", "-q", "-m", msg)
	return Git(t, dir, "rev-parse", "HEAD")
}

// CorpusBundle returns the path of a shared corpus bundle, or skips the test
// when the shared directory is absent (a fresh clone of git-kb alone).
func CorpusBundle(t testing.TB, name string) string {
	t.Helper()
	if p := os.Getenv("GITKB_CORPORA"); p != "" {
		return filepath.Join(p, name)
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "..", "shared", "corpora", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	t.Skipf("corpus %s not found (set GITKB_CORPORA or place ../shared/corpora beside the checkout)", name)
	return ""
}

// Clone clones a bundle or repository into a temp dir.
func Clone(t testing.TB, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	Git(t, filepath.Dir(dir), "clone", "-q", src, dir)
	return dir
}
