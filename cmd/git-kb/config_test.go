package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/settings"
)

// TestConfigCommand: git kb config lists every setting with its value,
// default and origin, never a secret's value, and refuses a bad value with
// exit 1 and the key's accepted values.
func TestConfigCommand(t *testing.T) {
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[kb]\n\tstaleAfter = 26w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	dir := gittest.New(t, docs)
	gittest.Git(t, dir, "config", "kb.embed.batchsize", "64")
	gittest.Git(t, dir, "config", "kb.mcp.token", "hush-hush-0123456789abcdef")
	local := filepath.Join(dir, ".git", "config")

	out, errs, code := kb(t, dir, "config")
	if code != 0 || errs != "" {
		t.Fatalf("git kb config: exit %d %s", code, errs)
	}
	for _, want := range [][]string{
		{"kb.embed.batchSize", "64", "32", local},
		{"kb.staleAfter", "26w", "365d", global},
		{"kb.embed.concurrency", "2", "2", "default"},
		{"kb.mcp.token", "(set, hidden)", "-", local},
	} {
		if !hasRow(out, want) {
			t.Errorf("no row %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "hush-hush") {
		t.Errorf("the token is shown:\n%s", out)
	}

	// One key, any spelling; JSON.
	out, _, code = kb(t, dir, "config", "KB.embed.BATCHSIZE")
	if code != 0 || !strings.HasPrefix(out, "kb.embed.batchSize = 64\n") || !strings.Contains(out, "accepted:  1..2048") || !strings.Contains(out, local+" (local)") {
		t.Errorf("config KB.embed.BATCHSIZE: exit %d\n%s", code, out)
	}
	var one configValue
	kbJSON(t, dir, &one, "config", "--json", "kb.mcp.token")
	if one.Value.Value != "" || !one.Set || !one.Secret || one.Origin != local {
		t.Errorf("--json kb.mcp.token: %+v", one)
	}
	envOut, _, _ := kb(t, dir, "config", "--json")
	var all struct{ Settings []configValue }
	if err := json.Unmarshal([]byte(envOut), &all); err != nil || len(all.Settings) != len(settings.Table) || strings.Contains(envOut, "hush-hush") {
		t.Errorf("--json: %v, %d settings\n%s", err, len(all.Settings), envOut)
	}

	// A refused value: exit 1, the key and what it accepts.
	gittest.Git(t, dir, "config", "kb.embed.batchSize", "abc")
	out, errs, code = kb(t, dir, "config")
	if code != 1 || !strings.Contains(errs, `kb.embed.batchSize = "abc": not a whole number (want 1..2048)`) || !strings.Contains(out, "refused") {
		t.Errorf("bad value: exit %d, %s\n%s", code, errs, out)
	}
	if _, errs, code = kb(t, dir, "search", "连接池"); code != 1 || !strings.Contains(errs, "kb.embed.batchSize") {
		t.Errorf("search with a bad value: exit %d, %s", code, errs)
	}

	// Unknown keys are usage errors; --markdown needs no repository.
	if _, errs, code = kb(t, dir, "config", "kb.embed.modle"); code != 2 || !strings.Contains(errs, "not a git kb setting") {
		t.Errorf("unknown key: exit %d, %s", code, errs)
	}
	out, _, code = kb(t, t.TempDir(), "config", "--markdown")
	if code != 0 || out != settings.Markdown() {
		t.Errorf("--markdown: exit %d\n%s", code, out)
	}
}

// hasRow finds a line of the listing with these cells in order.
// TestConfigURLCredentials: a kb.* URL with user:password@ (a proxy in
// front of the embedding endpoint, a share remote with a token) is listed
// without them, in text, in JSON, for one key, and in the error of a
// value refused; unknown keys alike.
func TestConfigURLCredentials(t *testing.T) {
	dir := gittest.New(t, docs)
	for _, kv := range [][2]string{
		{"kb.embed.baseURL", "https://ci:s3cretEmbed@proxy.internal/v1"},
		{"kb.share.remote", "https://x-access-token:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/team/kb.git"},
		{"kb.chat.baseURL", "http://bot:s3cretChat@llm.internal:8000/v1"},
		{"kb.extra.url", "https://me:s3cretUnknown@elsewhere.internal/"},
	} {
		gittest.Git(t, dir, "config", kv[0], kv[1])
	}
	secret := []string{"s3cret", "ghp_", "x-access-token"}
	leaks := func(what, out string) {
		t.Helper()
		for _, s := range secret {
			if strings.Contains(out, s) {
				t.Errorf("%s shows %q:\n%s", what, s, out)
			}
		}
	}
	out, errs, code := kb(t, dir, "config")
	if code != 0 {
		t.Fatalf("git kb config: exit %d %s", code, errs)
	}
	leaks("git kb config", out+errs)
	local := filepath.Join(dir, ".git", "config")
	if !hasRow(out, []string{"kb.embed.baseURL", "https://proxy.internal/v1", "-", local}) || !hasRow(out, []string{"kb.share.remote", "https://github.com/team/kb.git", "-", local}) {
		t.Errorf("the URLs are not listed without their credentials:\n%s", out)
	}
	out, errs, _ = kb(t, dir, "config", "--json")
	leaks("git kb config --json", out+errs)
	if !strings.Contains(out, `"https://proxy.internal/v1"`) {
		t.Errorf("--json does not list kb.embed.baseURL:\n%s", out)
	}
	out, errs, _ = kb(t, dir, "config", "kb.chat.baseURL")
	leaks("git kb config kb.chat.baseURL", out+errs)
	if !strings.HasPrefix(out, "kb.chat.baseURL = http://llm.internal:8000/v1\n") {
		t.Errorf("config kb.chat.baseURL:\n%s", out)
	}
	// A refused value is named without its credentials too.
	gittest.Git(t, dir, "config", "kb.org.url", "ftp://svc:s3cretOrg@weaviate.internal")
	out, errs, code = kb(t, dir, "config")
	leaks("a refused kb.org.url", out+errs)
	if code != 1 || !strings.Contains(errs, `kb.org.url = "ftp://weaviate.internal": not an http(s) URL`) {
		t.Errorf("refused kb.org.url: exit %d %s", code, errs)
	}
	out, errs, _ = kb(t, dir, "search", "连接池")
	leaks("search with a refused kb.org.url", out+errs)
}

func hasRow(out string, cells []string) bool {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 1 && f[0] == cells[0] && strings.Join(f, " ") == strings.Join(strings.Fields(strings.Join(cells, " ")), " ") {
			return true
		}
	}
	return false
}

// TestContextRatiosDefault: the settings table's default is pack's.
func TestContextRatiosDefault(t *testing.T) {
	r := settings.Defaults().ContextRatios
	if got := (pack.Ratios{Whole: r[0], Sections: r[1], Reserve: r[2]}); got != pack.DefaultRatios {
		t.Errorf("kb.context.ratios default %v, pack's %v", got, pack.DefaultRatios)
	}
}

// TestConfigOutsideRepo: before any clone, git kb config shows the global
// settings over the defaults and says the local ones are not shown; a bad
// global value still exits 1; commands that need a repository still say
// they need one.
func TestConfigOutsideRepo(t *testing.T) {
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[kb]\n\tstaleAfter = 26w\n[kb \"embed\"]\n\tbaseURL = https://bob:pw@proxy.internal/v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_SYSTEM", os.DevNull)
	dir := t.TempDir()

	out, errs, code := kb(t, dir, "config")
	if code != 0 || !strings.Contains(errs, "not in a git repository") || !strings.Contains(errs, "not shown") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("config outside a repository: exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, want := range [][]string{
		{"kb.staleAfter", "26w", "365d", global},
		{"kb.embed.baseURL", "https://proxy.internal/v1", "-", global},
		{"kb.embed.concurrency", "2", "2", "default"},
	} {
		if !hasRow(out, want) {
			t.Errorf("no row %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "bob") {
		t.Errorf("URL credentials shown:\n%s", out)
	}
	out, _, code = kb(t, dir, "config", "kb.staleAfter")
	if code != 0 || !strings.HasPrefix(out, "kb.staleAfter = 26w\n") || !strings.Contains(out, global+" (global)") {
		t.Errorf("config kb.staleAfter: exit %d\n%s", code, out)
	}
	var one configValue
	kbJSON(t, dir, &one, "config", "--json", "kb.staleAfter")
	if one.Value.Value != "26w" || one.Scope != "global" || one.Origin != global {
		t.Errorf("--json kb.staleAfter: %+v", one)
	}

	if err := os.WriteFile(global, []byte("[kb]\n\tstaleAfter = soon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code = kb(t, dir, "config")
	if code != 1 || !strings.Contains(errs, `kb.staleAfter = "soon"`) || !strings.Contains(out, "refused") {
		t.Errorf("bad global value: exit %d, %s\n%s", code, errs, out)
	}
	for _, args := range [][]string{{"status"}, {"index"}, {"search", "x"}} {
		if _, errs, code := kb(t, dir, args...); code != exitError || !strings.Contains(errs, "not a git repository") {
			t.Errorf("%v outside a repository: exit %d, %s", args, code, errs)
		}
	}
}
