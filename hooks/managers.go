package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Kinds of hook setup Detect recognises.
const (
	KindGit       = "git"         // plain $GIT_DIR/hooks (husky 4, pre-commit and lefthook install there too)
	KindHusky     = "husky"       // husky 9: core.hooksPath=.husky/_, which `husky` regenerates
	KindTeam      = "team-folder" // core.hooksPath is a folder of the work tree (husky 5-8's .husky, a team's githooks/)
	KindLefthook  = "lefthook"    // lefthook.yml in the work tree
	KindPreCommit = "pre-commit"  // .pre-commit-config.yaml in the work tree
)

// Setup is how a repository runs its hooks.
type Setup struct {
	Kind     string `json:"kind"`
	HooksDir string `json:"hooks_dir"` // where git runs hooks from
	Dir      string `json:"dir"`       // where our hook scripts go
	WorkTree string `json:"-"`
}

// Detect tells how git runs hooks here from the hooks directory git uses
// and the files of the work tree.
func Detect(hooksDir, workTree string) Setup {
	s := Setup{Kind: KindGit, HooksDir: hooksDir, Dir: hooksDir, WorkTree: workTree}
	if workTree == "" {
		return s
	}
	inTree := func(p string) bool {
		rel, err := filepath.Rel(workTree, p)
		return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !strings.HasPrefix(rel, ".git"+string(filepath.Separator)) && rel != ".git"
	}
	switch {
	case filepath.Base(hooksDir) == "_" && exists(filepath.Join(hooksDir, "h")) && inTree(hooksDir):
		// husky 9: .husky/_/<hook> runs .husky/<hook> if that exists;
		// `husky` (npm's prepare) rewrites everything in _, never .husky/<hook>.
		s.Kind, s.Dir = KindHusky, filepath.Dir(hooksDir)
	case inTree(hooksDir):
		s.Kind = KindTeam
	case firstExisting(workTree, lefthookConfigs) != "":
		s.Kind = KindLefthook
	case exists(filepath.Join(workTree, ".pre-commit-config.yaml")):
		s.Kind = KindPreCommit
	}
	return s
}

var lefthookConfigs = []string{"lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml", ".config/lefthook.yml", ".config/lefthook.yaml"}

func firstExisting(dir string, names []string) string {
	for _, n := range names {
		if exists(filepath.Join(dir, n)) {
			return n
		}
	}
	return ""
}

// SharedLine is what --shared adds to a team's hook file: no machine
// path, silent and harmless for a teammate without git-kb, never failing
// the hook (husky runs hooks with sh -e).
func SharedLine(name string) string {
	return `command -v git-kb >/dev/null 2>&1 && git kb hooks run ` + name + ` "$@" </dev/null >/dev/null 2>&1 || true # git-kb: keeps the git kb index current`
}

// Installed is what install did, kept in kb/hooks/installed.json so that
// uninstall undoes exactly that and search/status notice when a hook
// manager has removed our hooks.
type Installed struct {
	At      time.Time `json:"at"`
	Kind    string    `json:"kind"`
	Scripts []string  `json:"scripts,omitempty"` // our hook scripts
	Lines   []string  `json:"lines,omitempty"`   // team files we added SharedLine to (--shared)
	Created []string  `json:"created,omitempty"`
	Managed []string  `json:"managed,omitempty"` // a manager's hooks that must exist (lefthook)
	Added   []string  `json:"added,omitempty"`   // a manager's hooks that exist because of us
	Block   string    `json:"block,omitempty"`   // what we wrote to lefthook-local.yml // team files --shared created
	Exclude string    `json:"exclude,omitempty"` // the block appended to info/exclude
	ExclIn  string    `json:"exclude_file,omitempty"`
	Noticed time.Time `json:"noticed,omitempty"` // when search/status said the hooks are gone
	// --shared with lefthook or pre-commit: the block appended to the
	// team's config, taken out again byte for byte by uninstall.
	TeamFile  string `json:"team_file,omitempty"`
	TeamBlock string `json:"team_block,omitempty"`
}

const installedFile = "installed.json"

// ReadInstalled returns what install recorded (nil if nothing).
func ReadInstalled(kbDir string) *Installed {
	b, err := os.ReadFile(filepath.Join(kbDir, stateDir, installedFile))
	if err != nil {
		return nil
	}
	var in Installed
	if json.Unmarshal(b, &in) != nil {
		return nil
	}
	return &in
}

// WriteInstalled records in (nil: forget).
func WriteInstalled(kbDir string, in *Installed) error {
	p := filepath.Join(kbDir, stateDir, installedFile)
	if in == nil {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(in, "", "  ")
	if err := os.WriteFile(p+".tmp", b, 0o644); err != nil {
		return err
	}
	return os.Rename(p+".tmp", p)
}

// Missing lists what install put in place and is gone now (a hook
// manager regenerated its folder, someone deleted a file).
func (in *Installed) Missing() []string {
	var gone []string
	for _, p := range in.Scripts {
		if !isOurs(p) && !isOurs(p+".legacy") { // pre-commit keeps a hook it replaces as <name>.legacy and runs it
			gone = append(gone, p)
		}
	}
	for _, p := range in.Lines {
		if b, err := os.ReadFile(p); err != nil || !bytes.Contains(b, []byte("git kb hooks run")) {
			gone = append(gone, p)
		}
	}
	if in.TeamFile != "" {
		if b, err := os.ReadFile(in.TeamFile); err != nil || !bytes.Contains(b, []byte(in.TeamBlock)) {
			gone = append(gone, in.TeamFile)
		}
	}
	for _, p := range in.Managed {
		if !exists(p) {
			gone = append(gone, p)
		}
	}
	if in.Kind == KindLefthook {
		for _, p := range in.Created {
			if !isOurs(p) {
				gone = append(gone, p)
			}
		}
	}
	return gone
}

// TeamOptions are what InstallTeam needs besides the setup.
type TeamOptions struct {
	Exe     string
	Shared  bool
	Tracked func(path string) bool // is path tracked by git?
	Exclude string                 // the repository's info/exclude file
}

// InstallTeam installs into a folder of the work tree (husky's .husky, a
// team's githooks/) without changing a tracked file unless o.Shared:
//   - a hook the team does not have gets our script, untracked and listed
//     in info/exclude (per-user: git status stays clean, and the manager
//     does not regenerate it);
//   - a hook the team has (tracked) is left alone, with a word on how to
//     add the one line; with o.Shared the line is added to it (or to a new
//     file) for the team to commit on purpose.
func InstallTeam(s Setup, o TeamOptions, in *Installed) ([]string, error) {
	var did, excl []string
	rel := func(p string) string {
		r, err := filepath.Rel(s.WorkTree, p)
		if err != nil {
			return p
		}
		return filepath.ToSlash(r)
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
	for _, n := range Names {
		p := filepath.Join(s.Dir, n)
		tracked := o.Tracked(p)
		switch {
		case o.Shared:
			b, err := os.ReadFile(p)
			switch {
			case err == nil && bytes.Contains(b, []byte("git kb hooks run")):
				did = append(did, n+": "+rel(p)+" already runs git kb")
				in.Lines = append(in.Lines, p)
				continue
			case err == nil && isOurs(p) && !tracked:
				return did, fmt.Errorf("%s is a per-user git-kb hook: run 'git kb hooks uninstall' first, then install --shared", rel(p))
			case err == nil:
				if len(b) > 0 && b[len(b)-1] != '\n' {
					b = append(b, '\n')
				}
				b = append(b, SharedLine(n)+"\n"...)
				if err := writeKeepMode(p, b); err != nil {
					return did, err
				}
				did = append(did, n+": added one line to "+rel(p)+" (commit it for the team)")
			case errors.Is(err, os.ErrNotExist):
				if err := writeExecutable(p, []byte("#!/bin/sh\n"+SharedLine(n)+"\n")); err != nil {
					return did, err
				}
				in.Created = append(in.Created, p)
				did = append(did, n+": created "+rel(p)+" with one line (commit it for the team)")
			default:
				return did, err
			}
			in.Lines = append(in.Lines, p)
		case tracked:
			did = append(did, fmt.Sprintf("%s: %s is the team's (tracked): left unchanged; to run git kb from it, add this line (or use --shared):\n    %s", n, rel(p), SharedLine(n)))
		case exists(p) && !isOurs(p):
			return did, fmt.Errorf("%s is an untracked hook that is not ours: move it away, or add to it: %s", rel(p), SharedLine(n))
		default:
			want := script(n, o.Exe)
			if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, want) {
				did = append(did, n+": already installed in "+rel(p))
			} else {
				if err := writeExecutable(p, want); err != nil {
					return did, err
				}
				did = append(did, n+": installed "+rel(p)+" (per-user: untracked, in .git/info/exclude)")
			}
			in.Scripts = append(in.Scripts, p)
			excl = append(excl, "/"+rel(p))
		}
	}
	if len(excl) > 0 {
		if err := addExclude(o.Exclude, excl, in); err != nil {
			return did, err
		}
	}
	return did, nil
}

const excludeMarker = "# git-kb hooks (per-user; 'git kb hooks uninstall' removes these lines)"

// addExclude appends one block to info/exclude (replacing ours, if any).
func addExclude(file string, lines []string, in *Installed) error {
	b, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if in.Exclude != "" {
		b = bytes.Replace(b, []byte(in.Exclude), nil, 1)
	}
	block := excludeMarker + "\n" + strings.Join(lines, "\n") + "\n"
	if len(b) > 0 && b[len(b)-1] != '\n' {
		block = "\n" + block
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(file, append(b, block...), 0o644); err != nil {
		return err
	}
	in.Exclude, in.ExclIn = block, file
	return nil
}

// UninstallRecorded undoes what in records: our scripts deleted, our
// lines taken out of the team's files (files we created removed), our
// block taken out of info/exclude; everything else byte for byte as it was.
func UninstallRecorded(in *Installed) ([]string, error) {
	var did []string
	for _, p := range in.Scripts {
		d, err := removeOurs(p)
		if err != nil {
			return did, err
		}
		if d != "" {
			did = append(did, filepath.Base(p)+": "+d)
		}
	}
	created := map[string]bool{}
	for _, p := range in.Created {
		created[p] = true
		if b, err := os.ReadFile(p); err == nil && filepath.Base(p) == lefthookLocal && in.Block != "" {
			if string(b) == in.Block {
				if err := os.Remove(p); err != nil {
					return did, err
				}
				did = append(did, "removed "+p)
			} else if nb := bytes.Replace(b, []byte(in.Block), nil, 1); !bytes.Equal(nb, b) {
				if err := os.WriteFile(p, nb, 0o644); err != nil {
					return did, err
				}
				did = append(did, "took our hooks out of "+p)
			}
		}
	}
	for _, p := range in.Added {
		if err := os.Remove(p); err == nil {
			did = append(did, filepath.Base(p)+": removed the hook lefthook added for us")
		}
	}
	for _, p := range in.Lines {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		line := []byte(SharedLine(filepath.Base(p)) + "\n")
		if created[p] && bytes.Equal(b, append([]byte("#!/bin/sh\n"), line...)) {
			if err := os.Remove(p); err != nil {
				return did, err
			}
			did = append(did, filepath.Base(p)+": removed "+p+" (created by --shared)")
			continue
		}
		if nb := bytes.Replace(b, line, nil, 1); !bytes.Equal(nb, b) {
			if err := writeKeepMode(p, nb); err != nil {
				return did, err
			}
			did = append(did, filepath.Base(p)+": took our line out of "+p)
		}
	}
	if in.TeamFile != "" {
		if b, err := os.ReadFile(in.TeamFile); err == nil {
			if nb := bytes.Replace(b, []byte(in.TeamBlock), nil, 1); !bytes.Equal(nb, b) {
				if err := writeKeepMode(in.TeamFile, nb); err != nil {
					return did, err
				}
				did = append(did, "took our hooks out of "+in.TeamFile)
			}
		}
	}
	if in.Exclude != "" {
		if b, err := os.ReadFile(in.ExclIn); err == nil {
			if nb := bytes.Replace(b, []byte(in.Exclude), nil, 1); !bytes.Equal(nb, b) {
				if err := os.WriteFile(in.ExclIn, nb, 0o644); err != nil {
					return did, err
				}
			}
		}
	}
	return did, nil
}

// writeKeepMode rewrites a file in place, keeping its mode.
func writeKeepMode(path string, data []byte) error {
	mode := os.FileMode(0o755)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// lefthookLocal is the per-user config lefthook merges over the team's.
const lefthookLocal = "lefthook-local.yml"

func lefthookBlock(exe string) string {
	var b strings.Builder
	b.WriteString(marker + ": per-user, keeps the git kb index current ('git kb hooks uninstall' removes it)\n")
	for _, n := range Names {
		fmt.Fprintf(&b, "%s:\n  commands:\n    git-kb:\n      run: \"%s hooks run %s {0}\"\n", n, shellQuote(filepath.ToSlash(exe)), n)
	}
	return b.String()
}

// InstallLefthook adds our hooks to lefthook-local.yml, lefthook's
// per-user config (untracked, listed in info/exclude), and runs
// `lefthook install` (found on PATH or in node_modules/.bin), so that
// lefthook itself keeps them: re-running it regenerates them with the
// rest. Hooks lefthook did not have before are recorded, so uninstall
// takes them away again.
func InstallLefthook(s Setup, exe, exclude string, in *Installed) ([]string, error) {
	var did []string
	local := filepath.Join(s.WorkTree, lefthookLocal)
	block := lefthookBlock(exe)
	switch b, err := os.ReadFile(local); {
	case err == nil && bytes.Contains(b, []byte(marker)):
		if !bytes.Contains(b, []byte(block)) {
			return nil, fmt.Errorf("%s holds git-kb hooks from another binary: run 'git kb hooks uninstall' first", local)
		}
		did = append(did, lefthookLocal+": already has the git-kb hooks")
	case err == nil:
		return nil, fmt.Errorf("%s is yours: add to it (or remove it and install again):\n%s", local, block)
	case errors.Is(err, os.ErrNotExist):
		if err := os.WriteFile(local, []byte(block), 0o644); err != nil {
			return nil, err
		}
		did = append(did, lefthookLocal+": added post-checkout, post-commit, post-merge, post-rewrite (per-user: untracked, in .git/info/exclude)")
	default:
		return nil, err
	}
	in.Created, in.Block = append(in.Created, local), block
	if err := addExclude(exclude, []string{"/" + lefthookLocal}, in); err != nil {
		return did, err
	}
	d, err := activateLefthook(s, in)
	return append(did, d...), err
}

// InstallLefthookShared appends our hooks, with no machine path, to the
// team's lefthook config (ShareLefthook) and runs `lefthook install`.
func InstallLefthookShared(s Setup, in *Installed) ([]string, error) {
	if b, err := os.ReadFile(filepath.Join(s.WorkTree, lefthookLocal)); err == nil && bytes.Contains(b, []byte(marker)) {
		return nil, fmt.Errorf("%s holds per-user git-kb hooks: run 'git kb hooks uninstall' first, then install --shared", lefthookLocal)
	}
	d, err := ShareLefthook(s.WorkTree, in)
	if err != nil {
		return nil, err
	}
	more, err := activateLefthook(s, in)
	return append([]string{d}, more...), err
}

// activateLefthook runs `lefthook install` and records the hooks it
// added for us, so uninstall takes them away again.
func activateLefthook(s Setup, in *Installed) ([]string, error) {
	var did []string
	var before []string
	for _, n := range Names {
		if !exists(filepath.Join(s.HooksDir, n)) {
			before = append(before, filepath.Join(s.HooksDir, n))
		}
	}
	lh, err := findLefthook(s.WorkTree)
	if err != nil {
		return append(did, "lefthook not found on PATH or in node_modules/.bin: run 'lefthook install' to activate"), nil
	}
	cmd := exec.Command(lh, "install")
	cmd.Dir = s.WorkTree
	if out, err := cmd.CombinedOutput(); err != nil {
		return did, fmt.Errorf("lefthook install: %v: %s", err, bytes.TrimSpace(out))
	}
	for _, p := range before {
		if exists(p) {
			in.Added = append(in.Added, p)
		}
	}
	in.Managed = nil
	for _, n := range Names {
		in.Managed = append(in.Managed, filepath.Join(s.HooksDir, n))
	}
	return append(did, "ran lefthook install"), nil
}

func findLefthook(workTree string) (string, error) {
	if p, err := exec.LookPath("lefthook"); err == nil {
		return p, nil
	}
	return exec.LookPath(filepath.Join(workTree, "node_modules", ".bin", "lefthook"))
}
