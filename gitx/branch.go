package gitx

import (
	"context"
	"strings"
)

// DefaultBranch is the repository's default branch (short name): what
// origin/HEAD points at, else init.defaultBranch when that branch exists,
// else main or master, whichever exists; "" when none can be told.
func (r *Repo) DefaultBranch(ctx context.Context) string {
	if out, err := r.git(ctx, nil, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); err == nil {
		if b := strings.TrimPrefix(strings.TrimSpace(string(out)), "origin/"); b != "" {
			return b
		}
	}
	branches, _ := r.Branches(ctx)
	has := map[string]bool{}
	for _, b := range branches {
		has[b] = true
	}
	if b, _ := r.Config(ctx, "init.defaultBranch"); b != "" && has[b] {
		return b
	}
	for _, b := range []string{"main", "master"} {
		if has[b] {
			return b
		}
	}
	if len(branches) == 1 {
		return branches[0]
	}
	return ""
}
