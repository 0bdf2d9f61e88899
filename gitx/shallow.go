package gitx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ShallowCommits lists the commits whose parents this clone does not
// have (the $GIT_COMMON_DIR/shallow file of a `git clone --depth N`, what
// CI checkouts make by default); nil for a full clone. git reports such a
// commit as having no parents, so without this check it looks like the
// first commit of the project.
func (r *Repo) ShallowCommits() map[string]bool {
	b, err := os.ReadFile(filepath.Join(r.CommonDir, "shallow"))
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, l := range strings.Fields(string(b)) {
		out[l] = true
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Partial reports a partial clone (`git clone --filter=blob:none`): blobs
// may be absent and would be fetched on demand from the promisor remote.
func (r *Repo) Partial(ctx context.Context) bool {
	if v, _ := r.Config(ctx, "extensions.partialclone"); v != "" {
		return true
	}
	kv, err := r.ConfigSection(ctx, "remote")
	if err != nil {
		return false
	}
	for k, v := range kv {
		if strings.HasSuffix(k, ".promisor") && v == "true" {
			return true
		}
	}
	return false
}

// HistoryCutError is history a command needs that a shallow clone lacks.
type HistoryCutError struct {
	What   string // what needed it, e.g. "HEAD"
	Commit string // the shallow boundary commit
}

func (e *HistoryCutError) Error() string {
	return fmt.Sprintf("%s: the parent of %s is not in this shallow clone; fetch history with git fetch --deepen=50 (in CI: fetch-depth: 0), or name a base that is here with --base REV",
		e.What, e.Commit[:min(12, len(e.Commit))])
}

// MissingObjectsError says how many objects git does not have: skipped by
// ReadBlobs's callers that can do without them (a partial clone, or a
// repository that lost objects: see git fsck).
type MissingObjectsError struct {
	N     int
	First string
}

func (e *MissingObjectsError) Error() string {
	return fmt.Sprintf("%d git objects are missing (first %s): a partial clone, or a damaged repository (run git fsck)", e.N, e.First[:min(12, len(e.First))])
}
