package gitx

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
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

// SinceDate is the time git log --since=date starts at: git reads dates
// approximately, and a phrase it does not understand as now.
func (r *Repo) SinceDate(ctx context.Context, date string) (time.Time, error) {
	out, err := r.git(ctx, nil, "rev-parse", "--since="+date)
	if err != nil {
		return time.Time{}, err
	}
	s, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "--max-age=")
	if !ok {
		return time.Time{}, fmt.Errorf("git rev-parse --since=%q said %q", date, strings.TrimSpace(string(out)))
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git rev-parse --since=%q said %q", date, strings.TrimSpace(string(out)))
	}
	return time.Unix(sec, 0).UTC(), nil
}

// CommitTime is the committer date of rev's commit.
func (r *Repo) CommitTime(ctx context.Context, rev string) (time.Time, error) {
	out, err := r.git(ctx, nil, "log", "-1", "--format=%ct", rev, "--")
	if err != nil {
		return time.Time{}, err
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("git log -1 --format=%%ct %s said %q", rev, strings.TrimSpace(string(out)))
	}
	return time.Unix(sec, 0).UTC(), nil
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
