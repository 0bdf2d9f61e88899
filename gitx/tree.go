package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Entry is one file of a tree.
type Entry struct {
	Path string
	Blob Hash
	Mode uint32 // 0100644, 0100755, 0120000 (symlink)
	Size int64  // -1 when git cannot read the blob (lost, or in a damaged pack)
}

// ListTree lists every file (blob) of a tree recursively with its size, via
// `git ls-tree -r -l -z`. Submodules (gitlinks) are left out.
func (r *Repo) ListTree(ctx context.Context, tree Hash) ([]Entry, error) {
	out, err := r.git(ctx, nil, "ls-tree", "-r", "-l", "-z", "--full-tree", tree.String())
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for len(out) > 0 {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			i = len(out)
		}
		rec := out[:i]
		out = out[min(i+1, len(out)):]
		// <mode> SP <type> SP <object> SP+ <size> TAB <path>
		tab := bytes.IndexByte(rec, '\t')
		if tab < 0 {
			return nil, fmt.Errorf("ls-tree: malformed record %q", rec)
		}
		f := bytes.Fields(rec[:tab])
		if len(f) != 4 {
			return nil, fmt.Errorf("ls-tree: malformed record %q", rec)
		}
		if string(f[1]) != "blob" {
			continue
		}
		mode, _ := strconv.ParseUint(string(f[0]), 8, 32)
		// A blob git cannot read (lost, or in a damaged pack) has the
		// size "BAD": not 0, which would be taken for an empty file.
		size, err := strconv.ParseInt(string(f[3]), 10, 64)
		if err != nil {
			size = -1
		}
		entries = append(entries, Entry{Path: string(rec[tab+1:]), Blob: plumbing.NewHash(string(f[2])), Mode: uint32(mode), Size: size})
	}
	return entries, nil
}

// ReadBlobs streams the contents of many blobs through one
// `git cat-file --batch` process, calling fn in the order given. Blobs git
// does not have are skipped and counted: the error is then a
// *MissingObjectsError, returned after all the others were read. A partial
// clone's blobs are not fetched (GIT_NO_LAZY_FETCH, git 2.44 and later).
//
// One or two blobs are read by go-git, in process, when it finds them: a
// git process costs ~8 ms of CPU to start in this VM, more than go-git
// takes to inflate a blob or two (for more, cat-file's C inflates packed
// delta chains faster: BlobReader). Anything go-git cannot read goes to
// git.
func (r *Repo) ReadBlobs(ctx context.Context, blobs []Hash, fn func(h Hash, data []byte) error) error {
	if len(blobs) == 0 {
		return nil
	}
	if len(blobs) <= nativeReadBlobs {
		datas := make([][]byte, 0, len(blobs))
		for _, h := range blobs {
			d, err := r.ReadBlob(h)
			if err != nil {
				break
			}
			datas = append(datas, d)
		}
		if len(datas) == len(blobs) {
			for i, h := range blobs {
				if err := fn(h, datas[i]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "--git-dir", r.GitDir, "cat-file", "--batch")
	cmd.Env = append(os.Environ(), "GIT_NO_LAZY_FETCH=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start git cat-file: %w", err)
	}
	go func() {
		w := bufio.NewWriter(stdin)
		for _, h := range blobs {
			if _, err := w.WriteString(h.String() + "\n"); err != nil {
				break
			}
		}
		w.Flush()
		stdin.Close()
	}()
	rd := bufio.NewReaderSize(stdout, 1<<16)
	var ferr error
	var missing *MissingObjectsError
	for _, h := range blobs {
		header, err := rd.ReadString('\n')
		if err != nil {
			ferr = fmt.Errorf("cat-file: read header for %s: %w", h, err)
			break
		}
		f := bytes.Fields([]byte(header))
		if len(f) == 2 && string(f[1]) == "missing" {
			if missing == nil {
				missing = &MissingObjectsError{First: h.String()}
			}
			missing.N++
			continue
		}
		if len(f) != 3 {
			ferr = fmt.Errorf("cat-file: malformed header %q", header)
			break
		}
		size, _ := strconv.Atoi(string(f[2]))
		data := make([]byte, size+1) // content plus the trailing LF
		if _, err := io.ReadFull(rd, data); err != nil {
			ferr = fmt.Errorf("cat-file: read %s: %w", h, err)
			break
		}
		if err := fn(h, data[:size]); err != nil {
			ferr = err
			break
		}
	}
	if ferr != nil {
		cancel()
		_ = cmd.Wait()
		return ferr
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git cat-file: %w: %s", err, stderr.String())
	}
	if missing != nil {
		return missing // the others were all read
	}
	return nil
}

// Change is one file that differs between two trees: Old is the zero
// Hash for an added file, New for a deleted one. A modified file (or one
// whose mode changed) has both.
type Change struct {
	Path     string
	Old, New Hash
	OldMode  uint32
	NewMode  uint32
}

// DiffTrees lists the files (blobs) that differ between two trees, via
// `git diff-tree -r -z --no-renames`: git compares subtrees by their
// hashes, so the cost follows the change, not the size of the trees.
// Submodules (gitlinks) are left out, as ListTree leaves them out; a path
// that turned from a submodule into a file (or back) appears as added (or
// deleted).
//
// diff-tree reads the repository's index (.git/index, one entry per file
// of the checkout) before it compares anything, for attributes a raw diff
// does not use: on 46k files that was 50 ms of CPU and 100-300 ms of wall
// time on a loaded machine, the largest cost of a one-file commit's
// re-index that grew with the repository (issue 20). It is pointed at an
// index file that does not exist, which git reads as empty.
//
// A small difference is read in process first (diffTreesNative): a git
// process costs ~8 ms of CPU to start in this VM, diff-tree ~20 ms, a
// tenth of a one-file commit's re-index (issue 20).
func (r *Repo) DiffTrees(ctx context.Context, from, to Hash) ([]Change, error) {
	if changes, err := r.diffTreesNative(ctx, from, to); err == nil {
		return changes, nil
	}
	return r.diffTreesGit(ctx, from, to)
}

// diffTreesGit is DiffTrees by git diff-tree.
func (r *Repo) diffTreesGit(ctx context.Context, from, to Hash) ([]Change, error) {
	out, err := r.gitEnv(ctx, []string{"GIT_INDEX_FILE=" + r.noIndex()}, nil,
		"diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", from.String(), to.String())
	if err != nil {
		return nil, err
	}
	var changes []Change
	for len(out) > 0 {
		// :<old mode> SP <new mode> SP <old> SP <new> SP <status> NUL <path> NUL
		i := bytes.IndexByte(out, 0)
		if i < 0 || len(out) == 0 || out[0] != ':' {
			return nil, fmt.Errorf("diff-tree: malformed record %q", out[:min(len(out), 120)])
		}
		f := bytes.Fields(out[1:i])
		out = out[i+1:]
		j := bytes.IndexByte(out, 0)
		if j < 0 {
			j = len(out)
		}
		path := string(out[:j])
		out = out[min(j+1, len(out)):]
		if len(f) != 5 {
			return nil, fmt.Errorf("diff-tree: malformed record for %q", path)
		}
		om, _ := strconv.ParseUint(string(f[0]), 8, 32)
		nm, _ := strconv.ParseUint(string(f[1]), 8, 32)
		c := Change{Path: path, OldMode: uint32(om), NewMode: uint32(nm)}
		if isBlobMode(c.OldMode) {
			c.Old = plumbing.NewHash(string(f[2]))
		} else {
			c.OldMode = 0
		}
		if isBlobMode(c.NewMode) {
			c.New = plumbing.NewHash(string(f[3]))
		} else {
			c.NewMode = 0
		}
		if c.Old.IsZero() && c.New.IsZero() {
			continue // a submodule that moved
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// isBlobMode: a regular file, an executable or a symlink (not a gitlink,
// 0160000, nor "none", 0).
func isBlobMode(m uint32) bool { return m&0o170000 == 0o100000 || m&0o170000 == 0o120000 }

// CommitParents returns the parents of a commit, read by go-git (Resolve
// has just read the same pack index, so no process is started).
func (r *Repo) CommitParents(commit Hash) ([]Hash, error) {
	c, err := r.repo.CommitObject(commit)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", commit, err)
	}
	return c.ParentHashes, nil
}

// noIndex is a path where no index file can be (under a directory that
// does not exist), for git commands that would otherwise read the
// checkout's index for nothing.
func (r *Repo) noIndex() string {
	return filepath.Join(r.GitDir, "kb-no-index.d", "index")
}

// nativeReadBlobs: ReadBlobs reads up to this many blobs with go-git.
const nativeReadBlobs = 2

// BlobSizes is Objects for names a tree lists as blobs (a tree entry of a
// file's mode names a blob in any repository git fsck accepts): their
// sizes, read in process when go-git finds them all, else by Objects (one
// git process).
func (r *Repo) BlobSizes(ctx context.Context, hs []Hash) (map[Hash]ObjectInfo, error) {
	if sz, ok := r.repo.Storer.(interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	}); ok && len(hs) <= nativeDiffLimit {
		out := make(map[Hash]ObjectInfo, len(hs))
		for _, h := range hs {
			n, err := sz.EncodedObjectSize(h)
			if err != nil {
				return r.Objects(ctx, hs)
			}
			out[h] = ObjectInfo{Type: "blob", Size: n}
		}
		return out, nil
	}
	return r.Objects(ctx, hs)
}

// nativeDiffLimit bounds the changes diffTreesNative returns: go-git reads
// each changed subtree in Go, as fast as git for a few files but not for a
// large merge, which the git process serves.
const nativeDiffLimit = 256

var errTooMany = errors.New("too many changes to diff in process")

// diffTreesNative is DiffTrees in process: the two trees' entries are
// merged in tree order, and only subtrees whose hashes differ are read
// (go-git's own DiffTree reads every subtree of each directory it visits:
// 90 ms for a one-file change in Go's source). Changes come in git's
// order (byte order of the full paths is tree order). Any failure (an
// object go-git cannot read, a large difference) returns an error, and
// the caller asks git.
func (r *Repo) diffTreesNative(ctx context.Context, from, to Hash) ([]Change, error) {
	var changes []Change
	if err := r.diffSubtrees(ctx, "", from, to, &changes); err != nil {
		return nil, err
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, nil
}

// diffSubtrees appends the files that differ between trees a and b (zero:
// an empty tree) under prefix.
func (r *Repo) diffSubtrees(ctx context.Context, prefix string, a, b Hash, out *[]Change) error {
	if a == b {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	entries := func(h Hash) ([]object.TreeEntry, error) {
		if h.IsZero() {
			return nil, nil
		}
		t, err := r.repo.TreeObject(h)
		if err != nil {
			return nil, err
		}
		return t.Entries, nil
	}
	ae, err := entries(a)
	if err != nil {
		return err
	}
	be, err := entries(b)
	if err != nil {
		return err
	}
	isDir := func(e *object.TreeEntry) bool { return e.Mode == filemode.Dir }
	// key orders entries as git does: a directory's name as if it ended in '/'.
	key := func(e *object.TreeEntry) string {
		if isDir(e) {
			return e.Name + "/"
		}
		return e.Name
	}
	// side records one entry present on one side only (or both files).
	side := func(old, new *object.TreeEntry) error {
		switch {
		case old != nil && isDir(old):
			return r.diffSubtrees(ctx, prefix+old.Name+"/", old.Hash, Hash{}, out)
		case new != nil && isDir(new):
			return r.diffSubtrees(ctx, prefix+new.Name+"/", Hash{}, new.Hash, out)
		}
		c := Change{}
		if old != nil {
			c.Path = prefix + old.Name
			if m := uint32(old.Mode); isBlobMode(m) {
				c.Old, c.OldMode = old.Hash, m
			}
		}
		if new != nil {
			c.Path = prefix + new.Name
			if m := uint32(new.Mode); isBlobMode(m) {
				c.New, c.NewMode = new.Hash, m
			}
		}
		if c.Old.IsZero() && c.New.IsZero() {
			return nil // a submodule
		}
		if *out = append(*out, c); len(*out) > nativeDiffLimit {
			return errTooMany
		}
		return nil
	}
	i, j := 0, 0
	for i < len(ae) || j < len(be) {
		var ka, kb string
		if i < len(ae) {
			ka = key(&ae[i])
		}
		if j < len(be) {
			kb = key(&be[j])
		}
		switch {
		case j == len(be) || i < len(ae) && ka < kb:
			if err := side(&ae[i], nil); err != nil {
				return err
			}
			i++
		case i == len(ae) || kb < ka:
			if err := side(nil, &be[j]); err != nil {
				return err
			}
			j++
		default: // the same name, both directories or both not
			x, y := &ae[i], &be[j]
			i++
			j++
			if x.Hash == y.Hash && x.Mode == y.Mode {
				continue
			}
			if isDir(x) {
				if err := r.diffSubtrees(ctx, prefix+x.Name+"/", x.Hash, y.Hash, out); err != nil {
					return err
				}
				continue
			}
			if err := side(x, y); err != nil {
				return err
			}
		}
	}
	return nil
}
