package gitx

import (
	"context"
	"strings"
)

// RefTips returns the commits that refs under the given prefixes point at
// (e.g. "refs/heads", "refs/tags"), annotated tags peeled to their commit.
func (r *Repo) RefTips(ctx context.Context, prefixes ...string) ([]string, error) {
	args := append([]string{"for-each-ref", "--format=%(objectname) %(*objectname)"}, prefixes...)
	out, err := r.git(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	var tips []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		switch len(f) {
		case 1:
			tips = append(tips, f[0])
		case 2:
			tips = append(tips, f[1]) // the peeled object
		}
	}
	return tips, nil
}

// ExistingCommits says which of shas name commits this repository has
// (git cat-file --batch-check, one process for all).
func (r *Repo) ExistingCommits(ctx context.Context, shas []string) (map[string]bool, error) {
	have := map[string]bool{}
	if len(shas) == 0 {
		return have, nil
	}
	out, err := r.git(ctx, []byte(strings.Join(shas, "\n")+"\n"), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if sha, typ, ok := strings.Cut(line, " "); ok && typ == "commit" {
			have[sha] = true
		}
	}
	return have, nil
}

// ChangedSince lists the paths that commits reachable from rev changed
// since date (anything git log --since understands: 2026-01-01, "2 weeks
// ago").
func (r *Repo) ChangedSince(ctx context.Context, rev, date string) (map[string]bool, error) {
	out, err := r.git(ctx, nil, "-c", "core.quotePath=false", "log", "--since="+date, "--name-only", "-z", "--format=", rev, "--")
	if err != nil {
		return nil, err
	}
	paths := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p = strings.TrimSpace(p); p != "" {
			paths[p] = true
		}
	}
	return paths, nil
}
