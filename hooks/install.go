// Package hooks keeps the index current through git hooks: it installs
// small shell hooks that chain whatever hook was there before, and runs the
// background indexer they start, coalescing bursts of hook calls (a rebase
// fires dozens) into one index run of the final HEAD.
//
// A hook returns to git as soon as it has recorded that HEAD moved and,
// if no runner is alive, started one; everything slow happens in the
// detached runner, which logs to a bounded file. Nothing here may make the
// user's git command fail.
package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Names are the hooks installed: together they fire whenever HEAD moves
// (checkout, switch, commit, merge, pull, amend, rebase).
var Names = []string{"post-checkout", "post-commit", "post-merge", "post-rewrite"}

// marker identifies our hook scripts, whatever binary path they hold.
const marker = "# git-kb hook v1"

// ChainSuffix is appended to a hook that was there before ours; our hook
// runs it first, with the same arguments and stdin, and exits with its
// status.
const ChainSuffix = ".pre-git-kb"

// script is the hook: run the chained hook, record the event with git-kb
// (fast: it only spawns the runner), and exit with the chained hook's
// status. git-kb's own failure never fails the git command.
func script(name, exe string) []byte {
	return []byte(`#!/bin/sh
` + marker + `: keeps the git kb index of HEAD current.
# Installed by 'git kb hooks install'; 'git kb hooks uninstall' removes it and
# restores the hook that was here before (kept as ` + name + ChainSuffix + `).
status=0
if [ -x "$0` + ChainSuffix + `" ]; then
	"$0` + ChainSuffix + `" "$@" || status=$?
fi
kb=` + shellQuote(filepath.ToSlash(exe)) + `
[ -x "$kb" ] || kb=git-kb
GIT_KB_HOOK=` + name + ` "$kb" hooks run ` + name + ` "$@" </dev/null >/dev/null 2>&1
exit $status
`)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Hook is the state of one hook.
type Hook struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Ours    bool   `json:"installed"`         // our script is in place
	Chained bool   `json:"chained,omitempty"` // it runs a previous hook first
	Foreign bool   `json:"foreign,omitempty"` // someone else's hook, not ours
	Shared  bool   `json:"shared,omitempty"`  // someone else's hook that runs git kb (--shared)
}

func isOurs(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte(marker))
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Status reports each hook in dir.
func Status(dir string) []Hook {
	var out []Hook
	for _, n := range Names {
		p := filepath.Join(dir, n)
		h := Hook{Name: n, Path: p, Ours: isOurs(p)}
		h.Chained = h.Ours && exists(p+ChainSuffix)
		h.Foreign = !h.Ours && exists(p)
		if b, err := os.ReadFile(p); err == nil && !h.Ours && bytes.Contains(b, []byte("git kb hooks run")) {
			h.Shared, h.Foreign = true, false
		}
		out = append(out, h)
	}
	return out
}

// Install puts our hook in place of each of Names in dir. An existing hook
// that is not ours is renamed to <name>.pre-git-kb and chained; one that is
// ours is rewritten only if its binary path changed. It returns what it did,
// one line per hook.
func Install(dir, exe string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create hooks dir: %w", err)
	}
	var did []string
	for _, n := range Names {
		p := filepath.Join(dir, n)
		want := script(n, exe)
		var line string
		chain := false
		switch cur, err := os.ReadFile(p); {
		case err == nil && bytes.Equal(cur, want):
			did = append(did, n+": already installed")
			continue
		case err == nil && bytes.Contains(cur, []byte(marker)):
			// Ours, from another binary path: rewrite below.
			line = n + ": updated"
		case err == nil || exists(p): // someone else's hook (or a dangling link)
			if exists(p + ChainSuffix) {
				return did, fmt.Errorf("%s exists and so does %s: move one of them away first", p, p+ChainSuffix)
			}
			chain = true
			line = fmt.Sprintf("%s: installed, chaining the existing hook (now %s)", n, n+ChainSuffix)
		case errors.Is(err, os.ErrNotExist):
			line = n + ": installed"
		default:
			return did, err
		}
		// Our script is written in full before the user's hook moves: a
		// write that fails (a full disk) leaves the directory as it was.
		tmp, err := writeTemp(p, want, 0o755)
		if err != nil {
			return did, err
		}
		if chain {
			if err := os.Rename(p, p+ChainSuffix); err != nil {
				os.Remove(tmp)
				return did, err
			}
		}
		if err := os.Rename(tmp, p); err != nil {
			os.Remove(tmp)
			if chain {
				os.Rename(p+ChainSuffix, p)
			}
			return did, err
		}
		did = append(did, line)
	}
	return did, nil
}

// writeExecutable writes a file atomically (temp file, rename), mode 0755.
func writeExecutable(path string, data []byte) error {
	tmp, err := writeTemp(path, data, 0o755)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// writeTemp writes data with mode to a temporary file beside path for a
// rename onto it, and returns its name; on failure (a full disk) it
// leaves none behind.
func writeTemp(path string, data []byte, mode os.FileMode) (string, error) {
	tmp := path + ".git-kb-tmp"
	err := os.WriteFile(tmp, data, mode)
	if err == nil {
		err = os.Chmod(tmp, mode) // umask
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// Uninstall removes our hooks from dir and moves chained hooks back, so
// the directory is as it was before Install. Hooks that are not ours are
// left alone.
func Uninstall(dir string) ([]string, error) {
	var did []string
	for _, n := range Names {
		p := filepath.Join(dir, n)
		switch {
		case isOurs(p):
			d, err := removeOurs(p)
			if err != nil {
				return did, err
			}
			did = append(did, n+": "+d)
		case !isOurs(p) && isOurs(p+".legacy"):
			// `pre-commit install` moved ours to <name>.legacy and runs it from its own hook.
			if err := os.Remove(p + ".legacy"); err != nil {
				return did, err
			}
			did = append(did, n+": removed "+n+".legacy (ours, run by pre-commit's hook)")
		case exists(p) && exists(p+ChainSuffix) && sameFile(p, p+ChainSuffix):
			// A manager (husky 9) rewrote our hook with its own, which is
			// what we had chained: the chained copy is a leftover.
			if err := os.Remove(p + ChainSuffix); err != nil {
				return did, err
			}
			did = append(did, n+": removed the leftover "+n+ChainSuffix)
		case exists(p):
			did = append(did, n+": not ours, left alone")
		}
	}
	return did, nil
}

func sameFile(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// removeOurs removes our hook at p, putting back the hook it chained;
// "" if p is not ours.
func removeOurs(p string) (string, error) {
	switch {
	case isOurs(p) && exists(p+ChainSuffix):
		if err := os.Rename(p+ChainSuffix, p); err != nil {
			return "", err
		}
		return "removed, previous hook restored", nil
	case isOurs(p):
		if err := os.Remove(p); err != nil {
			return "", err
		}
		return "removed", nil
	}
	return "", nil
}
