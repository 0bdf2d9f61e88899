package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --shared appends to the team's config as text: a second install changes
// nothing, and uninstall gives back the file byte for byte.
func TestSharedConfigsRoundTrip(t *testing.T) {
	cases := []struct {
		name, file, text string
		share            func(string, *Installed) (string, error)
		want             string // a line the block must hold, as the file's indentation wants it
	}{
		{"pre-commit, two-space list", ".pre-commit-config.yaml",
			"---\n# team hooks\ndefault_stages: [pre-commit]\nrepos:\n  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v4.5.0   # pinned\n    hooks:\n      - id: trailing-whitespace\n",
			SharePreCommit, "\n  - repo: local\n    hooks:\n      - id: git-kb\n        name: git kb index\n        entry: sh -c 'command -v git-kb >/dev/null 2>&1 || exit 0; exec git kb hooks run post-commit'\n"},
		{"pre-commit, sample-config style, no final newline", ".pre-commit-config.yaml",
			"repos:\n-   repo: local\n    hooks:\n    -   id: team\n        name: team\n        entry: 'true'\n        language: system",
			SharePreCommit, "\n- repo: local\n  hooks:\n    - id: git-kb\n"},
		{"lefthook", "lefthook.yml",
			"# our hooks\npre-commit:\n  commands:\n    lint:\n      run: yarn lint {staged_files}\n",
			ShareLefthook, "\npost-rewrite:\n  commands:\n    git-kb:\n      run: command -v git-kb >/dev/null 2>&1 && git kb hooks run post-rewrite {0} || true\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, c.file)
			os.WriteFile(p, []byte(c.text), 0o644)
			in := &Installed{}
			if _, err := c.share(dir, in); err != nil {
				t.Fatal(err)
			}
			once, _ := os.ReadFile(p)
			if !strings.HasPrefix(string(once), c.text) || !strings.Contains(string(once), c.want) || strings.Contains(string(once), "/git-kb ") {
				t.Fatalf("after install:\n%s", once)
			}
			if in.TeamFile != p || len(in.Missing()) != 0 {
				t.Errorf("recorded %+v, missing %v", in, in.Missing())
			}
			// A second install (which carries the record forward) is a no-op.
			again := &Installed{TeamFile: in.TeamFile, TeamBlock: in.TeamBlock}
			if did, err := c.share(dir, again); err != nil || !strings.Contains(did, "already") {
				t.Errorf("second install: %q %v", did, err)
			}
			if twice, _ := os.ReadFile(p); string(twice) != string(once) || again.TeamBlock != in.TeamBlock {
				t.Errorf("second install changed the file:\n%s", twice)
			}
			if _, err := UninstallRecorded(again); err != nil {
				t.Fatal(err)
			}
			if after, _ := os.ReadFile(p); string(after) != c.text {
				t.Errorf("after uninstall:\n%q\nwant\n%q", after, c.text)
			}
		})
	}
}

// Where appending would change what the team's file means, --shared
// refuses in one line and leaves the file alone; a block a teammate
// committed is not ours to remove.
func TestSharedConfigsRefuse(t *testing.T) {
	cases := []struct{ name, file, text, say string }{
		{"repos not last", ".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks: []\nfail_fast: true\n", "add by hand"},
		{"flow list", ".pre-commit-config.yaml", "repos: []\n", "add by hand"},
		{"document end", ".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks: []\n...\n", "add by hand"},
		{"lefthook hook exists", "lefthook.yml", "post-merge:\n  commands:\n    deps:\n      run: npm ci\n", "already has post-merge"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		p := filepath.Join(dir, c.file)
		os.WriteFile(p, []byte(c.text), 0o644)
		share := SharePreCommit
		if c.file == "lefthook.yml" {
			share = ShareLefthook
		}
		in := &Installed{}
		_, err := share(dir, in)
		if err == nil || !strings.Contains(err.Error(), c.say) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", c.name, err)
		}
		if b, _ := os.ReadFile(p); string(b) != c.text || in.TeamFile != "" {
			t.Errorf("%s: file changed or recorded: %q %+v", c.name, b, in)
		}
	}
	// Committed by a teammate: found, not recorded, so uninstall keeps it.
	dir := t.TempDir()
	p := filepath.Join(dir, "lefthook.yml")
	team := "pre-commit:\n  commands: {}\n" + lefthookShared()
	os.WriteFile(p, []byte(team), 0o644)
	in := &Installed{}
	if did, err := ShareLefthook(dir, in); err != nil || !strings.Contains(did, "already") || in.TeamFile != "" {
		t.Errorf("teammate's block: %q %v %+v", did, err, in)
	}
}
