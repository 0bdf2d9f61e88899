package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestTeamSynonyms: kb.synonyms makes a question in the team's word find
// the file that says it in another (both ways for an equivalent entry),
// shows the expansion as the team's, is read at search time (no re-index,
// an edit counts at once), and --synonyms, --no-synonyms, kb.expand false
// and a bad file behave as documented.
func TestTeamSynonyms(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"rollout/bird.go": `package rollout

// EnableCanary sends percent of the traffic to the new build first.
func EnableCanary(percent int) error {
	return route(percent)
}
`,
		"docs/小黄鸭.md":   "# 小黄鸭\n\n新版本先给一小部分流量，观察半小时再全量。\n",
		"docs/other.md": "# 值班\n\n值班表每周一更新。\n",
	})
	indexJSON(t, dir)
	if got := paths(searchJSON(t, dir, "小黄鸭的代码在哪")); contains(got, "rollout/bird.go") {
		t.Fatalf("without synonyms the code is found already: %v; the test needs a word only the team knows", got)
	}

	// The file is the team's: committed or not, it is read from the working tree.
	if err := os.WriteFile(filepath.Join(dir, "team-synonyms.txt"), []byte("# our words\n小黄鸭, canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "config", "kb.synonyms", "team-synonyms.txt")
	r := searchJSON(t, dir, "小黄鸭的代码在哪")
	if !contains(paths(r), "rollout/bird.go") {
		t.Fatalf("with 小黄鸭, canary: %v, want rollout/bird.go", paths(r))
	}
	var team []string
	for _, x := range r.Expansions {
		if x.Source == "team" {
			team = append(team, x.From+"->"+strings.Join(x.To, ","))
		}
	}
	if strings.Join(team, ";") != "小黄鸭->canary" {
		t.Errorf("team expansions shown: %v (all: %v)", team, r.Expansions)
	}
	_, errs, _ := kb(t, dir, "search", "-v", "小黄鸭的代码在哪")
	if !strings.Contains(errs, "expanded 小黄鸭 -> canary (team)") {
		t.Errorf("-v does not show the team's expansion:\n%s", errs)
	}
	// Equivalent: the English word finds the Chinese page.
	if got := paths(searchJSON(t, dir, "canary")); len(got) < 2 || !contains(got, "docs/小黄鸭.md") {
		t.Errorf("canary: %v, want the Chinese page too", got)
	}

	// An edit counts at the next search: nothing is re-indexed.
	if err := os.WriteFile(filepath.Join(dir, "team-synonyms.txt"), []byte("小黄鸭 => 值班\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second) // a new modification time even on a coarse clock
	if err := os.Chtimes(filepath.Join(dir, "team-synonyms.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	if got := paths(searchJSON(t, dir, "小黄鸭的代码在哪")); contains(got, "rollout/bird.go") || !contains(got, "docs/other.md") {
		t.Errorf("after the edit (小黄鸭 => 值班): %v", got)
	}
	if got := paths(searchJSON(t, dir, "canary")); contains(got, "docs/小黄鸭.md") {
		t.Errorf("after the edit canary still finds the page: %v", got)
	}

	// --synonyms tries another file in its place; --no-synonyms and
	// kb.expand false leave the team's words out.
	other := filepath.Join(t.TempDir(), "try.txt")
	if err := os.WriteFile(other, []byte("小黄鸭, canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := paths(searchJSON(t, dir, "--synonyms", other, "小黄鸭的代码在哪")); !contains(got, "rollout/bird.go") || contains(got, "docs/other.md") {
		t.Errorf("--synonyms %s: %v", other, got)
	}
	if got := paths(searchJSON(t, dir, "--no-synonyms", "小黄鸭的代码在哪")); contains(got, "docs/other.md") {
		t.Errorf("--no-synonyms: %v", got)
	}
	if _, errs, code := kb(t, dir, "search", "--no-synonyms", "--synonyms", other, "x"); code != 2 || !strings.Contains(errs, "contradict") {
		t.Errorf("--no-synonyms with --synonyms: exit %d, %s", code, errs)
	}
	gittest.Git(t, dir, "config", "kb.expand", "false")
	if got := paths(searchJSON(t, dir, "小黄鸭的代码在哪")); contains(got, "docs/other.md") {
		t.Errorf("kb.expand false: %v", got)
	}
	gittest.Git(t, dir, "config", "--unset", "kb.expand")

	if out, _, _ := kb(t, dir, "doctor"); !strings.Contains(out, "synonyms") || !strings.Contains(out, "1 key from") {
		t.Errorf("doctor on a good file:\n%s", out)
	}

	// git kb eval measures a file before the team adopts it.
	qs := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(qs, []byte(`{"id":"t1","query":"小黄鸭的代码在哪","relevant":["rollout/bird.go"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := kb(t, dir, "eval", "--compare", "lexical;lexical --synonyms "+other, qs)
	if code != 0 || !strings.Contains(out, "lexical --synonyms") {
		t.Errorf("eval --compare with --synonyms: exit %d\n%s\n%s", code, out, errs)
	}

	// A bad file is an error naming the key, the file and the line; a
	// missing one says how to unset the key. Nothing is searched.
	if err := os.WriteFile(filepath.Join(dir, "team-synonyms.txt"), []byte("# ok\n小黄鸭\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := kb(t, dir, "search", "小黄鸭"); code != 1 || !strings.Contains(errs, "kb.synonyms: ") || !strings.Contains(errs, "team-synonyms.txt:2: \"小黄鸭\" alone") {
		t.Errorf("bad file: exit %d, %s", code, errs)
	}
	if out, _, code := kb(t, dir, "doctor"); code == 0 || !strings.Contains(out, "ERROR synonyms") || !strings.Contains(out, "team-synonyms.txt:2:") {
		t.Errorf("doctor on a bad file: exit %d\n%s", code, out)
	}

	// A missing file (a branch from before it was committed) is a
	// notice: the search goes on without it, and doctor warns.
	gittest.Git(t, dir, "config", "kb.synonyms", "gone.txt")
	if _, errs, code := kb(t, dir, "search", "小黄鸭"); code != 0 || !strings.Contains(errs, "gone.txt does not exist") {
		t.Errorf("missing file: exit %d, %s", code, errs)
	}
	if out, _, _ := kb(t, dir, "doctor"); !strings.Contains(out, "WARN  synonyms") {
		t.Errorf("doctor on a missing file:\n%s", out)
	}

	// A relative path that a symlink leads out of the working tree is
	// refused, and what it reads is never quoted.
	outside := filepath.Join(t.TempDir(), "fake.env")
	if err := os.WriteFile(outside, []byte("DB_PASSWORD=hunter2-very-secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "config", "kb.synonyms", "link.txt")
	if _, errs, code := kb(t, dir, "search", "小黄鸭"); code != 1 || !strings.Contains(errs, "leads outside the working tree") || strings.Contains(errs, "hunter2") {
		t.Errorf("symlink out of the working tree: exit %d, %s", code, errs)
	}
}
