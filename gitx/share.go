package gitx

import (
	"github.com/git-kb/git-kb/secrets"

	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// What sharing the index through git needs: writing many objects and a
// commit onto a ref in one go (git fast-import), fetching and pushing refs
// with the git binary (so every transport and credential helper the user
// has works), and cheap existence and size checks.

// File is one file of a commit written by WriteCommit: either new content
// (Data) or an object the repository already has (Blob).
type File struct {
	Path string
	Data []byte
	Blob Hash // used when Data is nil
}

// WriteCommit writes files as the whole tree of a new commit on ref (with
// parent as its parent when non-zero) through one `git fast-import`
// process, which packs the new objects and skips those the repository
// already has. The ref is moved only once everything is written.
func (r *Repo) WriteCommit(ctx context.Context, ref string, parent Hash, message string, files []File) (Hash, error) {
	cmd := exec.CommandContext(ctx, "git", "--git-dir", r.GitDir, "fast-import", "--quiet", "--force", "--done")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Hash{}, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return Hash{}, fmt.Errorf("start git fast-import: %w", err)
	}
	w := bufio.NewWriterSize(stdin, 1<<16)
	now := time.Now().Unix()
	fmt.Fprintf(w, "commit %s\ncommitter git-kb <git-kb@localhost> %d +0000\ndata %d\n%s\n", ref, now, len(message), message)
	if !parent.IsZero() {
		fmt.Fprintf(w, "from %s\n", parent)
	}
	fmt.Fprintf(w, "deleteall\n")
	for _, f := range files {
		if f.Data == nil {
			fmt.Fprintf(w, "M 100644 %s %s\n", f.Blob, f.Path)
			continue
		}
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", f.Path, len(f.Data))
		w.Write(f.Data)
		w.WriteByte('\n')
	}
	fmt.Fprintf(w, "\ndone\n")
	werr := w.Flush()
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return Hash{}, fmt.Errorf("git fast-import: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if werr != nil {
		return Hash{}, fmt.Errorf("git fast-import: %w", werr)
	}
	return r.RevParse(ctx, ref)
}

// RevParse resolves any revision to an object name (not peeled).
func (r *Repo) RevParse(ctx context.Context, rev string) (Hash, error) {
	out, err := r.git(ctx, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev)
	if err != nil {
		return Hash{}, fmt.Errorf("%w %q", ErrNoSuchRev, rev)
	}
	return plumbing.NewHash(strings.TrimSpace(string(out))), nil
}

// UpdateRef points ref at h (git update-ref), creating it if needed.
func (r *Repo) UpdateRef(ctx context.Context, ref string, h Hash) error {
	_, err := r.git(ctx, nil, "update-ref", ref, h.String())
	return err
}

// DeleteRef deletes ref; a missing ref is not an error.
func (r *Repo) DeleteRef(ctx context.Context, ref string) error {
	_, err := r.git(ctx, nil, "update-ref", "-d", ref)
	return err
}

// RefsUnder lists the refs under prefix (e.g. "refs/kb/") with the objects
// they point at.
func (r *Repo) RefsUnder(ctx context.Context, prefix string) (map[string]Hash, error) {
	out, err := r.git(ctx, nil, "for-each-ref", "--format=%(objectname) %(refname)", prefix)
	if err != nil {
		return nil, err
	}
	refs := map[string]Hash{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok {
			refs[name] = plumbing.NewHash(sha)
		}
	}
	return refs, nil
}

// CurrentBranch is the branch HEAD points at ("" when detached).
func (r *Repo) CurrentBranch(ctx context.Context) string {
	out, err := r.git(ctx, nil, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Branches lists the local branches (short names).
func (r *Repo) Branches(ctx context.Context) ([]string, error) {
	out, err := r.git(ctx, nil, "for-each-ref", "--format=%(refname:short)", "refs/heads/")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// IsAncestor says whether a is an ancestor of (or equal to) b.
func (r *Repo) IsAncestor(ctx context.Context, a, b string) bool {
	_, err := r.git(ctx, nil, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// ObjectInfo is what `git cat-file --batch-check` says of one object.
type ObjectInfo struct {
	Type string // "" when missing
	Size int64
}

// Objects looks up many objects in one `git cat-file --batch-check`.
func (r *Repo) Objects(ctx context.Context, hs []Hash) (map[Hash]ObjectInfo, error) {
	out := make(map[Hash]ObjectInfo, len(hs))
	if len(hs) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, h := range hs {
		in.WriteString(h.String())
		in.WriteByte('\n')
	}
	res, err := r.git(ctx, in.Bytes(), "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(res), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3:
			n, _ := strconv.ParseInt(f[2], 10, 64)
			out[plumbing.NewHash(f[0])] = ObjectInfo{Type: f[1], Size: n}
		case len(f) == 2 && f[1] == "missing":
			out[plumbing.NewHash(f[0])] = ObjectInfo{}
		}
	}
	return out, nil
}

// RemoteError is a failed fetch or push: git's own message, which names
// the remote and what went wrong (auth, unknown remote, rejected ref).
type RemoteError struct {
	Op, Remote string
	Msg        string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("git %s %s failed: %s", e.Op, secrets.RedactURL(e.Remote), e.Msg)
}

// Transfer is what a fetch or push moved, as git reports it.
type Transfer struct {
	Objects int   // objects sent or received
	Bytes   int64 // pack bytes sent or received
}

// Fetch runs `git fetch --no-tags --no-write-fetch-head REMOTE refspecs...`.
// A refspec whose source the remote lacks is an error unless it has a
// wildcard (then it simply matches nothing).
func (r *Repo) Fetch(ctx context.Context, remote string, refspecs ...string) (*Transfer, error) {
	args := append([]string{"fetch", "--no-tags", "--no-write-fetch-head", "--progress", "--prune", remote}, refspecs...)
	t, _, err := r.transfer(ctx, "fetch", remote, args)
	return t, err
}

// Push runs `git push --porcelain REMOTE refspecs...`.
func (r *Repo) Push(ctx context.Context, remote string, refspecs ...string) (*Transfer, error) {
	args := append([]string{"push", "--progress", "--no-verify", remote}, refspecs...)
	t, _, err := r.transfer(ctx, "push", remote, args)
	return t, err
}

// ErrStale means a leased push was refused: a remote ref no longer held
// the value the lease expected (someone else pushed to it).
var ErrStale = errors.New("the remote ref changed since it was last fetched")

// PushLeased pushes refspecs, each remote ref in leases only if the remote
// still holds the value given (the zero hash: only if it has no such ref),
// whatever the update (git push --force-with-lease=REF:OLD). The push is
// atomic (git push --atomic): a refused lease is an error wrapping
// ErrStale, naming the refs refused, and no ref of the push is updated.
// A remote that does not take atomic pushes gets a plain one, in which
// the refs whose leases hold are updated.
func (r *Repo) PushLeased(ctx context.Context, remote string, leases map[string]Hash, refspecs ...string) (*Transfer, error) {
	args := []string{"push", "--progress", "--no-verify", "--atomic"}
	refs := make([]string, 0, len(leases))
	for ref := range leases {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	for _, ref := range refs {
		old := ""
		if h := leases[ref]; !h.IsZero() {
			old = h.String()
		}
		args = append(args, "--force-with-lease="+ref+":"+old)
	}
	args = append(append(args, remote), refspecs...)
	t, stderr, err := r.transfer(ctx, "push", remote, args)
	var re *RemoteError
	if errors.As(err, &re) && strings.Contains(stderr, "does not support --atomic push") {
		args = slices.DeleteFunc(args, func(a string) bool { return a == "--atomic" })
		t, stderr, err = r.transfer(ctx, "push", remote, args)
	}
	if errors.As(err, &re) && strings.Contains(stderr, "(stale info)") {
		// git's own line for each ref refused, not the generic lines an
		// atomic push ends with ("the remote end hung up unexpectedly").
		var stale []string
		for _, l := range strings.Split(stderr, "\n") {
			if l = strings.TrimSpace(l); strings.HasSuffix(l, "(stale info)") {
				stale = append(stale, l)
			}
		}
		re.Msg = strings.Join(stale, "; ")
		return t, fmt.Errorf("%w: %w", ErrStale, err)
	}
	return t, err
}

// transfer runs a git fetch or push; it returns git's stderr too.
func (r *Repo) transfer(ctx context.Context, op, remote string, args []string) (*Transfer, string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir", r.GitDir}, args...)...)
	if r.WorkTree != "" {
		cmd.Dir = r.WorkTree
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	// Never stop for a password prompt: a hook or CI has no one to answer.
	// Progress at once (git waits 2 s by default), for the byte counts.
	// git's messages in English, whatever the user's locale: the progress
	// lines, a refused lease's "(stale info)" and a remote's lack of atomic
	// pushes are read from them, and git translates them (under LC_ALL=C
	// gettext ignores LANGUAGE too).
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PROGRESS_DELAY=0", "LC_ALL=C")
	err := cmd.Run()
	t := parseTransfer(stderr.String())
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return t, stderr.String(), &RemoteError{Op: op, Remote: remote, Msg: lastLines(stderr.String(), 3)}
		}
		return t, stderr.String(), err
	}
	return t, stderr.String(), nil
}

// parseTransfer reads git's progress output: "Writing objects: 100%
// (12/12), 3.40 KiB | ..." for a push, "Receiving objects: 100% (12/12),
// 3.40 KiB" for a fetch (a small fetch prints no size: the objects count).
func parseTransfer(s string) *Transfer {
	t := &Transfer{}
	for _, seg := range strings.FieldsFunc(s, func(r rune) bool { return r == '\r' || r == '\n' }) {
		for _, head := range []string{"Writing objects: 100% (", "Receiving objects: 100% ("} {
			i := strings.Index(seg, head)
			if i < 0 {
				continue
			}
			rest := seg[i+len(head):]
			if slash := strings.IndexByte(rest, '/'); slash > 0 {
				if end := strings.IndexByte(rest, ')'); end > slash {
					t.Objects, _ = strconv.Atoi(rest[slash+1 : end])
				}
			}
			if comma := strings.Index(rest, "), "); comma >= 0 {
				t.Bytes = parseSize(strings.TrimSpace(strings.Split(rest[comma+3:], "|")[0]))
			}
		}
	}
	return t
}

func parseSize(s string) int64 {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	mult := map[string]float64{"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[f[1]]
	return int64(v * mult)
}

// lastLines is the gist of git's stderr: its last n lines, progress left
// out, after the first "fatal:" line when that is earlier, since git
// says the cause first ("fatal: 'x' does not appear to be a git
// repository") and generic advice last.
func lastLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:]
		}
		if l == "" || strings.Contains(l, "objects:") || strings.HasPrefix(l, "To ") || strings.HasPrefix(l, "From ") {
			continue
		}
		keep = append(keep, l)
	}
	first := -1
	for i, l := range keep {
		if strings.HasPrefix(l, "fatal:") {
			first = i
			break
		}
	}
	if len(keep) > n {
		if first >= 0 && first < len(keep)-n {
			keep = append([]string{keep[first]}, keep[len(keep)-n:]...)
		} else {
			keep = keep[len(keep)-n:]
		}
	}
	return strings.Join(keep, "; ")
}

// LsRemote lists the remote's refs matching patterns (git ls-remote).
func (r *Repo) LsRemote(ctx context.Context, remote string, patterns ...string) (map[string]Hash, error) {
	args := append([]string{"ls-remote", remote}, patterns...)
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir", r.GitDir}, args...)...)
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, &RemoteError{Op: "ls-remote", Remote: remote, Msg: lastLines(stderr.String(), 3)}
	}
	refs := map[string]Hash{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if sha, name, ok := strings.Cut(line, "\t"); ok {
			refs[name] = plumbing.NewHash(sha)
		}
	}
	return refs, nil
}

// ConfigAdd adds a value to a multi-valued key unless it is there already.
func (r *Repo) ConfigAdd(ctx context.Context, key, value string) (added bool, err error) {
	vs, err := r.ConfigAll(ctx, key)
	if err != nil {
		return false, err
	}
	for _, v := range vs {
		if v == value {
			return false, nil
		}
	}
	_, err = r.git(ctx, nil, "config", "--add", key, value)
	return err == nil, err
}

// ConfigSet sets a single-valued key in the repository's config.
func (r *Repo) ConfigSet(ctx context.Context, key, value string) error {
	_, err := r.git(ctx, nil, "config", key, value)
	return err
}

// ConfigUnsetValue removes the values of key equal to value (exactly),
// leaving its other values; none is not an error.
func (r *Repo) ConfigUnsetValue(ctx context.Context, key, value string) (removed bool, err error) {
	_, err = r.git(ctx, nil, "config", "--fixed-value", "--unset-all", key, value)
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode == 5 {
		return false, nil // no such value
	}
	return err == nil, err
}

// ConfigUnset removes a single-valued key; unset is not an error.
func (r *Repo) ConfigUnset(ctx context.Context, key string) error {
	_, err := r.git(ctx, nil, "config", "--unset-all", key)
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode == 5 {
		return nil
	}
	return err
}

// HasRemote says whether name is a configured remote.
func (r *Repo) HasRemote(ctx context.Context, name string) bool {
	v, _ := r.Config(ctx, "remote."+name+".url")
	return v != ""
}
