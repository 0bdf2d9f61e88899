package gitx

import (
	"bytes"
	"context"
	"errors"
)

// WorktreeChanges lists the paths (relative to the root) whose working
// tree content differs from HEAD: modified, added, deleted (staged or
// not) and untracked files that are not ignored. Renames appear as a
// deletion and an addition. Submodules are left out.
func (r *Repo) WorktreeChanges(ctx context.Context) ([]string, error) {
	if r.WorkTree == "" {
		return nil, errors.New("this repository has no working tree (it is bare)")
	}
	out, err := r.git(ctx, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "XY path": two status letters, a space, the path.
		if len(rec) < 4 || rec[2] != ' ' {
			continue
		}
		paths = append(paths, string(rec[3:]))
	}
	return paths, nil
}
