package gitx

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// EmptyTree is the id of the empty tree: the base of a root commit's diff.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// DiffFile is one changed file, as git diff --name-status -M reports it.
type DiffFile struct {
	Status  byte   // A added, D deleted, M modified, R renamed, C copied, T type changed
	OldPath string // "" when added
	NewPath string // "" when deleted
}

// Diff compares base with head (staged: base with the index) with renames
// detected, and returns the changed files and the zero-context patch
// (-U0), whose per-file sections come in the same order as the files.
// External diff drivers and textconv are off, so the patch is the
// content's own, whatever the user's configuration.
func (r *Repo) Diff(ctx context.Context, base, head string, staged bool) ([]DiffFile, []byte, error) {
	common := []string{"-c", "core.quotePath=false", "diff", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}
	revs := []string{base, head}
	if staged {
		revs = []string{"--cached", base}
	}
	names, err := r.git(ctx, nil, append(append(append(common[:len(common):len(common)], "--name-status", "-z"), revs...), "--")...)
	if err != nil {
		return nil, nil, err
	}
	patch, err := r.git(ctx, nil, append(append(append(common[:len(common):len(common)], "-U0"), revs...), "--")...)
	if err != nil {
		return nil, nil, err
	}
	var files []DiffFile
	f := strings.Split(strings.TrimSuffix(string(names), "\x00"), "\x00")
	for i := 0; i < len(f) && f[i] != ""; {
		st := f[i][0]
		switch st {
		case 'R', 'C':
			if i+2 >= len(f) {
				return nil, nil, fmt.Errorf("git diff --name-status: truncated record %q", f[i])
			}
			files = append(files, DiffFile{Status: st, OldPath: f[i+1], NewPath: f[i+2]})
			i += 3
		default:
			if i+1 >= len(f) {
				return nil, nil, fmt.Errorf("git diff --name-status: truncated record %q", f[i])
			}
			df := DiffFile{Status: st, OldPath: f[i+1], NewPath: f[i+1]}
			if st == 'A' {
				df.OldPath = ""
			} else if st == 'D' {
				df.NewPath = ""
			}
			files = append(files, df)
			i += 2
		}
	}
	return files, patch, nil
}

// BlameRange is an inclusive 1-based line range.
type BlameRange struct{ Start, End int }

// Blame runs git blame --porcelain on the given line ranges of path at rev
// (one process, one -L per range).
func (r *Repo) Blame(ctx context.Context, rev, path string, ranges []BlameRange) ([]byte, error) {
	args := []string{"blame", "--porcelain"}
	for _, rg := range ranges {
		args = append(args, "-L", fmt.Sprintf("%d,%d", rg.Start, rg.End))
	}
	return r.git(ctx, nil, append(args, rev, "--", path)...)
}

// CommitMessages returns the full messages of commits, by SHA, in one
// git call.
func (r *Repo) CommitMessages(ctx context.Context, shas []string) (map[string]string, error) {
	if len(shas) == 0 {
		return map[string]string{}, nil
	}
	out, err := r.git(ctx, []byte(strings.Join(shas, "\n")+"\n"), "log", "--no-walk=unsorted", "--stdin", "--format=%H%x00%B%x1e")
	if err != nil {
		return nil, err
	}
	msgs := map[string]string{}
	for _, rec := range strings.Split(string(out), "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if sha, msg, ok := strings.Cut(rec, "\x00"); ok {
			msgs[sha] = strings.TrimSpace(msg)
		}
	}
	return msgs, nil
}

// Parents returns a commit's parent SHAs (none for a root commit).
func (r *Repo) Parents(ctx context.Context, commit string) ([]string, error) {
	out, err := r.git(ctx, nil, "rev-list", "--parents", "-n", "1", commit, "--")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return nil, fmt.Errorf("rev-list --parents %s: no output", commit)
	}
	return f[1:], nil
}

// Show returns the bytes of an object named as git cat-file names it:
// "<rev>:<path>", or ":<path>" for the staged version of a file.
func (r *Repo) Show(ctx context.Context, spec string) ([]byte, error) {
	return r.git(ctx, nil, "cat-file", "blob", spec)
}

// ParseHash reads a hex object id (no validation: a bad one reads nothing).
func ParseHash(s string) Hash { return plumbing.NewHash(s) }

// MergeBase returns the best common ancestor of a and b.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	out, err := r.git(ctx, nil, "merge-base", a, b)
	if err != nil {
		return "", fmt.Errorf("no common ancestor of %s and %s: %w", a, b, err)
	}
	return strings.TrimSpace(string(out)), nil
}
