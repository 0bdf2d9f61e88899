package index

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// ErrBusy means another indexer held the lock past the wait time.
var ErrBusy = fmt.Errorf("another git kb index is running")

// ErrEmbedBusy means another embedding run held its lock past the wait time.
var ErrEmbedBusy = fmt.Errorf("another git kb embedding run is in progress")

// Holder is the process that holds a git-kb lock, as it wrote itself down
// beside the lock (NAME.holder) when it took it.
type Holder struct {
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	Cmd   string    `json:"cmd,omitempty"` // its arguments: "index --rev v1"
	// Stopped: the process is stopped (SIGSTOP, ^Z, a debugger), so it
	// never releases the lock by itself. Known on Linux only.
	Stopped bool `json:"-"`
}

// String is the holder for a message: "git-kb index, pid 1234, running
// since 11:41:33, stopped".
func (h *Holder) String() string {
	s := fmt.Sprintf("pid %d", h.PID)
	if h.Cmd != "" {
		s = "git-kb " + h.Cmd + ", " + s
	}
	if !h.Since.IsZero() {
		s += ", running since " + h.Since.Local().Format(time.TimeOnly)
		if time.Since(h.Since) >= 24*time.Hour {
			s += " on " + h.Since.Local().Format(time.DateOnly)
		}
	}
	if h.Stopped {
		s += ", stopped"
	}
	return s
}

// BusyError is a lock another process held for the whole wait. It wraps
// ErrBusy (kb/index.lock) or ErrEmbedBusy (kb/embed.lock).
type BusyError struct {
	Lock   string        // the lock file
	Holder *Holder       // nil when the holder is not known
	Waited time.Duration // how long this process waited
	err    error
}

func (e *BusyError) Error() string {
	who := ""
	if e.Holder != nil {
		who = " (" + e.Holder.String() + ")"
	}
	return fmt.Sprintf("%v%s and still holds %s after a wait of %s", e.err, who, e.Lock, e.Waited.Round(time.Second))
}

func (e *BusyError) Unwrap() error { return e.err }

// noteAfter is how long a lock wait stays silent: a run that ends within
// it (a hook's run on a small commit) is not worth a notice.
var noteAfter = time.Second

// lockIndex takes the indexer lock (kb/index.lock). The OS drops it when
// the process dies, so a killed indexer never leaves a stale lock behind.
// onWait is told, once, who holds it when the wait lasts; see lockFile.
func lockIndex(ctx context.Context, kbDir string, wait time.Duration, onWait func(who string)) (release func(), err error) {
	return lockFile(ctx, kbDir, "index.lock", ErrBusy, wait, onWait)
}

// waitNote is a lock wait's notice for o.OnWait: what is awaited, then
// who holds the lock.
func waitNote(onWait func(string), what string) func(who string) {
	if onWait == nil {
		return nil
	}
	return func(who string) { onWait(what + who) }
}

// lockFile takes an exclusive lock on kbDir/name, waiting up to wait (0
// or less: one try), and writes who holds it to kbDir/name.holder.
// gofrs/flock is flock(2) on Unix and LockFileEx on Windows: both are
// released by the OS with the process, which a lock file's mere existence
// is not. When the wait lasts noteAfter, onWait is told who holds the
// lock (" (git-kb index, pid 1234, running since 11:41:33)", "" when
// unknown), and told again if that process is seen stopped later. A wait
// that runs out returns a *BusyError wrapping busy.
func lockFile(ctx context.Context, kbDir, name string, busy error, wait time.Duration, onWait func(who string)) (release func(), err error) {
	if err := checkKBDir(kbDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(kbDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", kbDir, err)
	}
	l := flock.New(filepath.Join(kbDir, name))
	holderPath := l.Path() + ".holder"
	began := time.Now()
	noted, notedStopped := false, false
	var looked time.Duration // when the holder was last looked up
	for {
		ok, err := l.TryLock()
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", l.Path(), err)
		}
		if ok {
			break
		}
		waited := time.Since(began)
		if waited >= wait {
			return nil, &BusyError{Lock: l.Path(), Holder: readHolder(holderPath), Waited: waited, err: busy}
		}
		// The holder is looked up once every noteAfter, not at each try:
		// a hook may wait minutes.
		if onWait != nil && waited >= noteAfter && !notedStopped && (!noted || waited-looked >= noteAfter) {
			looked = waited
			h := readHolder(holderPath)
			if !noted || h != nil && h.Stopped {
				who := ""
				if h != nil {
					who = " (" + h.String() + ")"
					if h.Stopped {
						who = fmt.Sprintf(" (%s: it will not finish until resumed; kill -CONT %d resumes it, kill %d ends it)", h, h.PID, h.PID)
					}
				}
				onWait(who)
				noted, notedStopped = true, h != nil && h.Stopped
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	writeHolder(holderPath)
	return func() {
		os.Remove(holderPath) // before the unlock: the next holder's is its own
		l.Unlock()
	}, nil
}

// writeHolder records this process as the lock's holder (best effort: the
// lock holds without it; a waiter then names no one).
func writeHolder(path string) {
	h := Holder{PID: os.Getpid(), Since: time.Now().UTC().Truncate(time.Second)}
	if len(os.Args) > 1 {
		h.Cmd = strings.Join(os.Args[1:], " ")
		if len(h.Cmd) > 120 {
			h.Cmd = h.Cmd[:120] + "..."
		}
	}
	b, err := json.Marshal(h)
	if err != nil {
		return
	}
	tmp := path + ".tmp"
	if os.WriteFile(tmp, append(b, '\n'), 0o644) == nil {
		os.Rename(tmp, path)
	}
}

// readHolder reads who holds a lock: nil when nothing says, or when what
// is written names a process that is gone (the holder has taken the lock
// but not yet written itself down over a killed one's record).
func readHolder(path string) *Holder {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var h Holder
	if json.Unmarshal(b, &h) != nil || h.PID <= 0 {
		return nil
	}
	alive, stopped := processState(h.PID)
	if !alive {
		return nil
	}
	h.Stopped = stopped
	return &h
}

// Running reports whether an indexer holds the lock right now.
func Running(kbDir string) bool {
	p := filepath.Join(kbDir, "index.lock")
	if _, err := os.Stat(p); err != nil {
		return false // never indexed here
	}
	l := flock.New(p, flock.SetFlag(os.O_RDWR))
	ok, err := l.TryLock()
	if err != nil {
		return false
	}
	if ok {
		l.Unlock()
		return false
	}
	return true
}

// kbDirError is a .git/kb that is there but no directory: a file, or a
// link to a directory that is gone (an index moved to a disk since
// unmounted), and what to do about it.
type kbDirError struct{ what, fix string }

func (e *kbDirError) Error() string { return e.what + "\n" + e.fix }

// checkKBDir returns a *kbDirError when kbDir exists (as a name) but is
// no directory; nil when it is one or is not there at all.
func checkKBDir(kbDir string) error {
	fi, err := os.Stat(kbDir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return &kbDirError{kbDir + " is not a directory", "move it away, then run: git kb index   (it makes a new index there)"}
	}
	to, lerr := os.Readlink(kbDir)
	if lerr != nil {
		return nil // not there: it is made
	}
	if !filepath.IsAbs(to) {
		to = filepath.Join(filepath.Dir(kbDir), to)
	}
	return &kbDirError{kbDir + " links to " + to + ", which does not exist",
		"create " + to + " (or mount the disk it was on), or remove the link; then run: git kb index"}
}
