package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// sharedMarker opens the block --shared appends to a team's lefthook or
// pre-commit config: it tells the team what the block is, and lets a second
// install see it is there.
const sharedMarker = "# git-kb: keeps the git kb index current (added by 'git kb hooks install --shared'; 'git kb hooks uninstall' removes it)"

// PreCommitHook is the pre-commit framework's `repo: local` entry that
// runs git kb, as an item of `repos:` indented by two spaces. pre-commit
// gives post-checkout and post-rewrite their arguments in PRE_COMMIT_*
// variables, not on the command line, so one hook with a fixed hook name
// serves all four stages (the runner indexes HEAD whatever the stage).
// The entry does nothing where git-kb is not installed: a teammate
// without it sees no error after each commit.
const PreCommitHook = `  - repo: local
    hooks:
      - id: git-kb
        name: git kb index
        entry: sh -c 'command -v git-kb >/dev/null 2>&1 || exit 0; exec git kb hooks run post-commit'
        language: system
        always_run: true
        pass_filenames: false
        stages: [post-checkout, post-commit, post-merge, post-rewrite]
`

var (
	topKey   = regexp.MustCompile(`^([A-Za-z_][\w-]*|"[^"]*"|'[^']*')\s*:`)
	listItem = regexp.MustCompile(`^( *)- `)
)

// appendBlock appends block to file as text, so that everything else in
// the file stays byte for byte; it returns what was appended (with a
// newline first if the file lacked its last one), for uninstall to take out.
func appendBlock(file string, b []byte, block string) (string, error) {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		block = "\n" + block
	}
	if err := writeKeepMode(file, append(b, block...)); err != nil {
		return "", err
	}
	return block, nil
}

// readTeamFile reads a team config for --shared; ok false means our
// block is in it already. A block install recorded (in, from the last
// install) stays ours to remove; one a teammate committed is the team's.
func readTeamFile(file string, in *Installed) (b []byte, ok bool, err error) {
	b, err = os.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	if !bytes.Contains(b, []byte(sharedMarker)) {
		return b, true, nil
	}
	if in.TeamFile != file || in.TeamBlock == "" || !bytes.Contains(b, []byte(in.TeamBlock)) {
		in.TeamFile, in.TeamBlock = "", ""
	}
	return b, false, nil
}

// SharePreCommit appends PreCommitHook to the team's
// .pre-commit-config.yaml. Appending keeps the YAML meaning only when
// `repos:` is the last top-level key and holds a block list; otherwise it
// refuses, saying what to add by hand.
func SharePreCommit(workTree string, in *Installed) (string, error) {
	file := filepath.Join(workTree, ".pre-commit-config.yaml")
	b, ok, err := readTeamFile(file, in)
	if err != nil {
		return "", err
	}
	if !ok {
		return ".pre-commit-config.yaml already runs git kb", nil
	}
	byHand := fmt.Errorf(".pre-commit-config.yaml: cannot append safely (repos: must be the last top-level key, a block list); add by hand under repos: the 'repo: local' hook that 'git kb hooks install' prints")
	last, indent := "", -1
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "...") {
			last = "" // a YAML document marker: text after it is not under repos:
			continue
		}
		if m := topKey.FindStringSubmatch(l); m != nil {
			last, indent = strings.Trim(m[1], `"'`), -1
			if rest := strings.TrimSpace(l[len(m[0]):]); rest != "" && !strings.HasPrefix(rest, "#") {
				last = "" // repos: [] or another inline value
			}
			continue
		}
		if m := listItem.FindStringSubmatch(l); m != nil && last == "repos" && indent < 0 {
			indent = len(m[1])
		}
	}
	if last != "repos" {
		return "", byHand
	}
	if indent < 0 {
		indent = 2
	}
	var block strings.Builder
	pad := strings.Repeat(" ", indent)
	block.WriteString(pad + sharedMarker + "\n")
	for _, l := range strings.SplitAfter(PreCommitHook, "\n") {
		if l != "" {
			block.WriteString(pad + l[2:])
		}
	}
	added, err := appendBlock(file, b, block.String())
	if err != nil {
		return "", err
	}
	in.TeamFile, in.TeamBlock = file, added
	return "added a 'repo: local' hook for post-checkout, post-commit, post-merge, post-rewrite to .pre-commit-config.yaml (commit it for the team; each teammate runs 'pre-commit install -t post-checkout -t post-commit -t post-merge -t post-rewrite')", nil
}

// lefthookShared is what --shared adds to the team's lefthook config: no
// machine path, and silent and harmless for a teammate without git-kb.
// lefthook runs `run` with sh and puts the hook's arguments in {0}.
func lefthookShared() string {
	var b strings.Builder
	b.WriteString(sharedMarker + "\n")
	for _, n := range Names {
		fmt.Fprintf(&b, "%s:\n  commands:\n    git-kb:\n      run: command -v git-kb >/dev/null 2>&1 && git kb hooks run %s {0} || true\n", n, n)
	}
	return b.String()
}

// ShareLefthook appends our four hooks to the team's lefthook config, when
// none of them is a top-level key there already (a second key would replace
// the team's hook, so then it refuses, saying what to add by hand).
func ShareLefthook(workTree string, in *Installed) (string, error) {
	name := firstExisting(workTree, lefthookConfigs)
	if name == "" {
		return "", errors.New("no lefthook.yml in the work tree")
	}
	file := filepath.Join(workTree, name)
	b, ok, err := readTeamFile(file, in)
	if err != nil {
		return "", err
	}
	if !ok {
		return name + " already runs git kb", nil
	}
	for _, l := range strings.Split(string(b), "\n") {
		if m := topKey.FindStringSubmatch(l); m != nil {
			for _, n := range Names {
				if strings.Trim(m[1], `"'`) == n {
					return "", fmt.Errorf("%s already has %s: add by hand under %s: commands: a 'git-kb' command with run: git kb hooks run %s {0}", name, n, n, n)
				}
			}
		}
	}
	added, err := appendBlock(file, b, lefthookShared())
	if err != nil {
		return "", err
	}
	in.TeamFile, in.TeamBlock = file, added
	return "added post-checkout, post-commit, post-merge, post-rewrite to " + name + " (commit it for the team)", nil
}
