package engine

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
)

// Friendly turns known errors into what the user should do. Every front
// end shows errors through it; the engine uses it too, for the reason a
// stale view stands in.
func Friendly(err error) error {
	if err == nil || errors.As(err, new(explained)) {
		// Explained already (a command's own call, then main's): the
		// advice once, not twice over.
		return err
	}
	err = store.Classify(err)
	if f := friendly(err); f != nil {
		return explained{f}
	}
	return err
}

// explained is an error Friendly has turned into what to do.
type explained struct{ error }

func (e explained) Unwrap() error { return e.error }

// friendly is what to do about err, nil when there is nothing to add.
func friendly(err error) error {
	var busy *index.BusyError
	switch {
	case errors.Is(err, gitx.ErrNotARepo):
		return fmt.Errorf("%w\nrun git kb inside a git repository, or use git -C <dir> kb ...", err)
	case isGitNotFound(err):
		return fmt.Errorf("git is not on PATH: git kb runs git; install git, or add the directory that holds it to PATH")
	case errors.Is(err, gitx.ErrEmptyRepo):
		return fmt.Errorf("%w: nothing to index; commit some files first", err)
	case errors.Is(err, store.ErrLocked):
		return fmt.Errorf("%w for more than %s; try again when it has finished", err, LockWait)
	case errors.As(err, &busy):
		if h := busy.Holder; h != nil && h.Stopped {
			return fmt.Errorf("%w: resume it (kill -CONT %d) or end it (kill %d), then run the command again", err, h.PID, h.PID)
		}
		if h := busy.Holder; h != nil {
			return fmt.Errorf("%w: run the command again when it has finished, or wait longer (git kb index --wait 10m); if it hangs, end it (kill %d)", err, h.PID)
		}
		return fmt.Errorf("%w: run the command again when it has finished, or wait longer (git kb index --wait 10m)", err)
	case errors.Is(err, store.ErrDamaged):
		return fmt.Errorf("%w\nrun: git kb doctor --fix   (moves it aside and rebuilds it from git; cached embeddings are kept)", err)
	case errors.Is(err, syscall.ENOSPC):
		var se *store.SpaceError
		if !errors.As(err, &se) {
			return fmt.Errorf("the disk is full (%v); free some space and run the command again", FirstLine(err))
		}
		return fmt.Errorf("%w; free some space and run the command again", se)
	case errors.Is(err, syscall.EROFS) || strings.Contains(err.Error(), "read-only file system"):
		return fmt.Errorf("cannot write the index: the file system is read-only (%v)", FirstLine(err))
	case isMissingObject(err):
		return fmt.Errorf("a git object is missing from the repository (%s): a partial clone, or a damaged repository (run git fsck)", missingObject(err))
	case errors.Is(err, syscall.EIO) || strings.Contains(err.Error(), "input/output error"):
		return fmt.Errorf("the disk failed to read or write (%v); check the disk, then run: git kb doctor", FirstLine(err))
	}
	return nil
}

// isGitNotFound recognises a git command that could not start: no git
// on PATH.
func isGitNotFound(err error) bool {
	var ee *exec.Error
	return errors.As(err, &ee) && errors.Is(ee.Err, exec.ErrNotFound) && strings.TrimSuffix(filepath.Base(ee.Name), ".exe") == "git"
}

// isMissingObject recognises git failing on an object it does not have.
func isMissingObject(err error) bool {
	var ge *gitx.GitError
	var me *gitx.MissingObjectsError
	if errors.As(err, &me) {
		return true
	}
	return errors.As(err, &ge) && (strings.Contains(ge.Stderr, "unable to read") || strings.Contains(ge.Stderr, "bad object") ||
		strings.Contains(ge.Stderr, "missing blob") || strings.Contains(ge.Stderr, "does not exist") && strings.Contains(ge.Stderr, "object"))
}

func missingObject(err error) string {
	var me *gitx.MissingObjectsError
	if errors.As(err, &me) {
		return me.First
	}
	var ge *gitx.GitError
	errors.As(err, &ge)
	return FirstLine(errors.New(strings.TrimPrefix(strings.TrimSpace(ge.Stderr), "fatal: ")))
}

// FirstLine keeps an error to one line.
func FirstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
