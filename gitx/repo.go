package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Hash is a git object name (SHA-1).
type Hash = plumbing.Hash

var (
	// ErrNotARepo means no git repository was found at or above the directory.
	ErrNotARepo = errors.New("not a git repository (or any parent directory)")
	// ErrEmptyRepo means HEAD points at a branch with no commits yet.
	ErrEmptyRepo = errors.New("the repository has no commits yet")
	// ErrNoSuchRev means a revision did not resolve to a commit.
	ErrNoSuchRev error = &missing{"unknown revision", true}
	// ErrNotACommit means a revision names an object that is not a commit
	// (a blob or a tree), where a commit is needed.
	ErrNotACommit error = &missing{"not a commit", true}
	// ErrNoSuchPath means a path is not in the commit's tree.
	ErrNoSuchPath error = &missing{"path not in commit", false}
)

// missing is the type of the errors for a revision or a path the
// repository has not got. Its methods say which to a caller that does
// not import gitx: search.ReadCited reads an argument with a colon both
// as <rev>:<path> and as a path, and tells the readings' misses apart by
// them (git kb show and the MCP server's get_document).
type missing struct {
	msg string
	rev bool // a revision that names no commit, else a path not in one
}

func (e *missing) Error() string { return e.msg }

// NoRevision says the error is for a revision that names no commit.
func (e *missing) NoRevision() bool { return e.rev }

// NoPath says the error is for a path the commit has not got.
func (e *missing) NoPath() bool { return !e.rev }

// GitError is a failed git command.
type GitError struct {
	Args     []string
	ExitCode int
	Stderr   string
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.ExitCode, strings.TrimSpace(e.Stderr))
}

// Repo is an opened repository.
type Repo struct {
	repo *git.Repository
	// GitDir is this worktree's git dir; CommonDir is shared by all worktrees
	// (where git-kb keeps its data). WorkTree is empty for bare repositories.
	GitDir, CommonDir, WorkTree string
}

// Open finds the repository containing dir, as git does: $GIT_DIR if set,
// else the nearest .git (directory or worktree file) above dir, else dir
// itself when it is a bare repository.
func Open(dir string) (*Repo, error) {
	gitDir, workTree, err := discover(dir)
	if err != nil {
		return nil, err
	}
	return OpenAt(gitDir, workTree)
}

// OpenAt opens the repository whose git dir is gitDir, with workTree ("":
// none known) as its work tree, as Open found them: a Repo's GitDir and
// WorkTree open the same repository again, from any directory and
// whatever GIT_DIR says.
func OpenAt(gitDir, workTree string) (*Repo, error) {
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	}
	openAt := workTree
	if openAt == "" {
		openAt = gitDir
	}
	// A bare repository is opened as itself: DetectDotGit would look for
	// a .git inside it, or above it, and find none.
	r, err := git.PlainOpenWithOptions(openAt, &git.PlainOpenOptions{DetectDotGit: workTree != "", EnableDotGitCommonDir: workTree != ""})
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", openAt, err)
	}
	return &Repo{repo: r, GitDir: gitDir, CommonDir: common, WorkTree: workTree}, nil
}

func discover(dir string) (gitDir, workTree string, err error) {
	if env := os.Getenv("GIT_DIR"); env != "" {
		abs, err := filepath.Abs(env)
		if err != nil {
			return "", "", err
		}
		wt := os.Getenv("GIT_WORK_TREE")
		if wt == "" && filepath.Base(abs) == ".git" {
			wt = filepath.Dir(abs)
		}
		return abs, wt, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				return dotgit, d, nil
			}
			b, err := os.ReadFile(dotgit)
			if err != nil {
				return "", "", err
			}
			line := strings.TrimSpace(string(b))
			if !strings.HasPrefix(line, "gitdir: ") {
				return "", "", fmt.Errorf("%s: not a gitdir file", dotgit)
			}
			gd := strings.TrimPrefix(line, "gitdir: ")
			if !filepath.IsAbs(gd) {
				gd = filepath.Join(d, gd)
			}
			return filepath.Clean(gd), d, nil
		}
		if isBare(d) {
			return d, "", nil
		}
		if parent := filepath.Dir(d); parent == d {
			return "", "", fmt.Errorf("%s: %w", abs, ErrNotARepo)
		}
	}
}

func isBare(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}

// KBDir is where git-kb keeps its data: <common git dir>/kb.
func (r *Repo) KBDir() string { return filepath.Join(r.CommonDir, "kb") }

// errLeftToGit stands for go-git's answer when Resolve asks git alone.
var errLeftToGit = errors.New("left to git")

// Resolve turns a revision (HEAD, a branch, a tag, a SHA prefix, HEAD~3...)
// into its commit and that commit's tree.
func (r *Repo) Resolve(ctx context.Context, rev string) (commit, tree Hash, err error) {
	if rev == "" {
		rev = "HEAD"
	}
	var h *plumbing.Hash
	err = errLeftToGit
	if !strings.ContainsAny(rev, ":{") {
		// go-git reads a revision's path (v1:x.md) and a peel
		// (main^{tree}) as if absent, the commit before them: those
		// (and reflogs, HEAD@{1}) are git's to resolve.
		h, err = r.repo.ResolveRevision(plumbing.Revision(rev))
	}
	if err != nil {
		if _, serr := os.Stat(filepath.Join(r.GitDir, "HEAD")); errors.Is(serr, fs.ErrNotExist) {
			// Gone, not empty: a long-lived caller (git kb mcp) outlived
			// the repository.
			return Hash{}, Hash{}, fmt.Errorf("%s was deleted or moved after git kb opened it: %w", r.GitDir, ErrNotARepo)
		}
		if rev == "HEAD" && isUnborn(r.repo) {
			return Hash{}, Hash{}, ErrEmptyRepo
		}
		// go-git knows only part of gitrevisions(7); let git have the last word.
		out, gerr := r.git(ctx, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
		if gerr != nil {
			return Hash{}, Hash{}, r.notACommit(ctx, rev)
		}
		h2 := plumbing.NewHash(strings.TrimSpace(string(out)))
		h = &h2
	}
	c, err := r.repo.CommitObject(*h)
	if err != nil {
		// A tag object or something else: peel with git.
		out, gerr := r.git(ctx, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", h.String()+"^{commit}")
		if gerr != nil {
			return Hash{}, Hash{}, r.notACommit(ctx, rev)
		}
		if c, err = r.repo.CommitObject(plumbing.NewHash(strings.TrimSpace(string(out)))); err != nil {
			return Hash{}, Hash{}, fmt.Errorf("read commit for %q: %w", rev, err)
		}
	}
	return c.Hash, c.TreeHash, nil
}

// HeadCommit returns the commit HEAD points at, from the refs alone (no
// object is read), when rev is HEAD (or empty); ok is false for any other
// rev, or an unborn HEAD. Git only lets HEAD and branches point at
// commits, so this is what Resolve would return, without its commit read:
// go-git decodes the whole pack index to find one object, the largest cost
// of opening a search's view on Go's source (issue 16). The tree then
// comes from the index's record of that commit, if it has one.
func (r *Repo) HeadCommit(rev string) (commit Hash, ok bool) {
	if rev != "" && rev != "HEAD" {
		return Hash{}, false
	}
	ref, err := r.repo.Reference(plumbing.HEAD, true)
	if err != nil || ref.Type() != plumbing.HashReference || ref.Hash().IsZero() {
		return Hash{}, false
	}
	return ref.Hash(), true
}

// notACommit explains a revision that does not peel to a commit: either
// it names nothing, or it names a blob or a tree (a SHA copied from
// git ls-tree or a search result's "blob"), which deserves saying.
func (r *Repo) notACommit(ctx context.Context, rev string) error {
	if strings.HasPrefix(rev, "-") {
		return fmt.Errorf("%w %q", ErrNoSuchRev, rev) // not an option to cat-file
	}
	out, err := r.git(ctx, nil, "cat-file", "-t", rev)
	if err != nil {
		return fmt.Errorf("%w %q", ErrNoSuchRev, rev)
	}
	switch kind := strings.TrimSpace(string(out)); kind {
	case "blob":
		return fmt.Errorf("%q is a blob (the content of one file), %w: give a commit (a branch, a tag, a commit SHA, HEAD~3)", rev, ErrNotACommit)
	case "tree":
		return fmt.Errorf("%q is a tree (a directory listing), %w: give a commit (a branch, a tag, a commit SHA, HEAD~3)", rev, ErrNotACommit)
	default:
		return fmt.Errorf("%q is a %s, %w: give a commit (a branch, a tag, a commit SHA, HEAD~3)", rev, kind, ErrNotACommit)
	}
}

func isUnborn(r *git.Repository) bool {
	ref, err := r.Reference(plumbing.HEAD, false)
	if err != nil {
		return true
	}
	if ref.Type() != plumbing.SymbolicReference {
		return false
	}
	_, err = r.Reference(ref.Target(), true)
	return errors.Is(err, plumbing.ErrReferenceNotFound)
}

// FileAt returns the blob of path in commit's tree.
func (r *Repo) FileAt(commit Hash, path string) (Hash, []byte, error) {
	c, err := r.repo.CommitObject(commit)
	if err != nil {
		return Hash{}, nil, fmt.Errorf("read commit %s: %w", commit, err)
	}
	t, err := c.Tree()
	if err != nil {
		return Hash{}, nil, fmt.Errorf("read tree of %s: %w", commit, err)
	}
	e, err := t.FindEntry(path)
	if err == nil && !e.Mode.IsFile() {
		kind := "a directory"
		if e.Mode == filemode.Submodule {
			kind = "a submodule (a commit of another repository: read it there)"
		}
		return Hash{}, nil, notAFile(fmt.Sprintf("%s:%s is %s, not a file", commit.String()[:12], path, kind))
	}
	if err != nil {
		return Hash{}, nil, fmt.Errorf("%s:%s: %w", commit.String()[:12], path, ErrNoSuchPath)
	}
	data, err := r.ReadBlob(e.Hash)
	return e.Hash, data, err
}

// notAFile is FileAt's error for a directory or a submodule at the path:
// what it is, in its own words; still ErrNoSuchPath (no file there) to a
// caller telling misses apart.
type notAFile string

func (e notAFile) Error() string { return string(e) }
func (notAFile) Unwrap() error   { return ErrNoSuchPath }

// ReadBlob reads one blob with go-git (no fork; right for a handful).
func (r *Repo) ReadBlob(h Hash) ([]byte, error) {
	if err := looseNotRegular(r.CommonDir, h); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err) // go-git's open would block on a FIFO
	}
	b, err := r.repo.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer rd.Close()
	var buf bytes.Buffer
	buf.Grow(int(b.Size))
	if _, err := buf.ReadFrom(rd); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return buf.Bytes(), nil
}

// git runs the git binary against this repository.
func (r *Repo) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.gitEnv(ctx, nil, stdin, args...)
}

// gitEnv is git with env added to the process's environment.
func (r *Repo) gitEnv(ctx context.Context, env []string, stdin []byte, args ...string) ([]byte, error) {
	full := append([]string{"--git-dir", r.GitDir}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if r.WorkTree != "" {
		cmd.Dir = r.WorkTree
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return runGit(cmd, args)
}

// runGit runs cmd (git args...) and returns its stdout; a non-zero exit
// is a *GitError with git's stderr.
func runGit(cmd *exec.Cmd, args []string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, &GitError{Args: args, ExitCode: ee.ExitCode(), Stderr: stderr.String()}
		}
		return nil, fmt.Errorf("run git %s: %w", strings.Join(args, " "), err)
	}
	return stdout.Bytes(), nil
}

// Config reads one git config value (empty when unset).
func (r *Repo) Config(ctx context.Context, key string) (string, error) {
	out, err := r.git(ctx, nil, "config", "--get", key)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.ExitCode == 1 {
			return "", nil // unset
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ConfigSection reads every key under a section (e.g. "kb") in one call.
// Keys come back as git prints them: section and key names lowercased.
func (r *Repo) ConfigSection(ctx context.Context, section string) (map[string]string, error) {
	out, err := r.git(ctx, nil, "config", "-z", "--get-regexp", `^`+regexp.QuoteMeta(section)+`\.`)
	m := map[string]string{}
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.ExitCode == 1 {
			return m, nil // none set
		}
		return nil, err
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		k, v, _ := strings.Cut(rec, "\n")
		m[k] = v // later (more specific) files win, as with git config --get
	}
	return m, nil
}

// ConfigEntry is one value git config holds, with where it was set.
type ConfigEntry struct {
	// Key is as git prints it: section and variable name lowercased, a
	// subsection as written (kb.embed.batchsize).
	Key   string
	Value string
	// Bare is a key written with no "=" ("[kb] priors"): git reads it as
	// a boolean true.
	Bare bool
	// Scope is system, global, local, worktree or command.
	Scope string
	// Origin is the file that set it (absolute), or "command line".
	Origin string
}

// ConfigEntries reads every value under a section (e.g. "kb") with its
// origin, in one git call, in the order git reads them: for a
// single-valued key the last one wins, as with git config --get.
func (r *Repo) ConfigEntries(ctx context.Context, section string) ([]ConfigEntry, error) {
	run := func(args ...string) ([]byte, error) { return r.git(ctx, nil, args...) }
	return configEntries(run, section, r.configOrigin)
}

// ConfigEntriesOutside is ConfigEntries where there is no repository:
// the entries git config reads in dir, which is in none (the system and
// global files, git -c), with relative origins resolved from dir.
func ConfigEntriesOutside(ctx context.Context, dir, section string) ([]ConfigEntry, error) {
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		return runGit(cmd, args)
	}
	return configEntries(run, section, func(o string) string { return configOrigin(o, dir) })
}

// configEntries lists section's entries with run (git config ...), each
// origin turned into a path by origin.
func configEntries(run func(args ...string) ([]byte, error), section string, origin func(string) string) ([]ConfigEntry, error) {
	pattern := `^` + regexp.QuoteMeta(section) + `\.`
	out, err := run("config", "-z", "--show-origin", "--show-scope", "--get-regexp", pattern)
	scoped := true
	var ge *GitError
	if errors.As(err, &ge) && ge.ExitCode == 129 {
		// git before 2.26 has no --show-scope: origins only.
		out, err = run("config", "-z", "--show-origin", "--get-regexp", pattern)
		scoped = false
	}
	if err != nil {
		if errors.As(err, &ge) && ge.ExitCode == 1 {
			return nil, nil // none set
		}
		return nil, err
	}
	return parseConfigEntries(out, scoped, origin), nil
}

// parseConfigEntries reads git config -z --show-origin [--show-scope]
// output: records of [scope NUL] origin NUL key [LF value] NUL.
func parseConfigEntries(out []byte, scoped bool, origin func(string) string) []ConfigEntry {
	f := strings.Split(string(out), "\x00")
	var es []ConfigEntry
	for len(f) >= 3 || !scoped && len(f) >= 2 {
		var e ConfigEntry
		if scoped {
			e.Scope, f = f[0], f[1:]
		}
		var v string
		var hasValue bool
		e.Key, v, hasValue = strings.Cut(f[1], "\n")
		e.Value, e.Bare, e.Origin = v, !hasValue, origin(f[0])
		es = append(es, e)
		f = f[2:]
	}
	return es
}

// configOrigin turns git's origin ("file:.git/config", "command line:")
// into a path a user can open, or a plain description.
func (r *Repo) configOrigin(o string) string {
	base := r.WorkTree
	if base == "" {
		base, _ = os.Getwd()
	}
	return configOrigin(o, base)
}

// configOrigin is an origin git printed in base as a path or a description.
func configOrigin(o, base string) string {
	kind, p, _ := strings.Cut(o, ":")
	if kind != "file" {
		return strings.TrimSuffix(o, ":")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return p
}

// CountCommits counts the commits reachable from to but not from from
// (git rev-list --count from..to).
func (r *Repo) CountCommits(ctx context.Context, from, to string) (int, error) {
	out, err := r.git(ctx, nil, "rev-list", "--count", from+".."+to, "--")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// ConfigAll reads every value of a multi-valued key (git config --get-all),
// in the order git reads them; nil when unset.
func (r *Repo) ConfigAll(ctx context.Context, key string) ([]string, error) {
	out, err := r.git(ctx, nil, "config", "-z", "--get-all", key)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.ExitCode == 1 {
			return nil, nil
		}
		return nil, err
	}
	var vs []string
	for _, v := range strings.Split(string(out), "\x00") {
		if v != "" {
			vs = append(vs, v)
		}
	}
	return vs, nil
}

// HooksDir is where git looks for this repository's hooks: core.hooksPath
// if set (relative to the working tree), else the common git dir's hooks,
// which every worktree shares.
func (r *Repo) HooksDir(ctx context.Context) (string, error) {
	out, err := r.git(ctx, nil, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Tracked reports whether path (absolute, inside the work tree) is tracked
// in git's index: what a hook installer must not change unasked.
func (r *Repo) Tracked(ctx context.Context, path string) bool {
	if r.WorkTree == "" {
		return false
	}
	rel, err := filepath.Rel(r.WorkTree, path)
	if err != nil {
		return false
	}
	out, err := r.git(ctx, nil, "ls-files", "-z", "--", filepath.ToSlash(rel))
	return err == nil && len(out) > 0
}

// InfoExclude is the repository's per-user ignore file
// ($GIT_COMMON_DIR/info/exclude).
func (r *Repo) InfoExclude() string { return filepath.Join(r.CommonDir, "info", "exclude") }
