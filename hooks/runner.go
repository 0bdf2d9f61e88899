package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Files under kb/ (the common git dir's kb, shared by worktrees).
const (
	stateDir    = "hooks"
	pendingFile = "pending"   // touched by every hook call: HEAD may have moved
	headsDir    = "heads"     // one file per worktree whose hook fired: which HEAD
	lastFile    = "last.json" // how the last run ended
	LogFile     = "hooks.log" // the runner's log, kept under maxLog
	maxLog      = 1 << 20
)

// RunnerLock is the lock the one live runner holds (flock, or
// LockFileEx): taking it waits for a runner to finish, and holding it
// keeps hooks from starting one.
func RunnerLock(kbDir string) string { return filepath.Join(kbDir, stateDir, "runner.lock") }

// Debounce is how quiet the hooks must be before the runner indexes: a
// rebase fires a hook per commit, and indexing each intermediate HEAD
// would be wasted work.
var Debounce = 300 * time.Millisecond

// maxDebounce bounds the wait under a continuous stream of hook calls.
const maxDebounce = 10 * time.Second

// Trigger records that a hook fired in the worktree head names (opaque
// here: the caller's name for the HEAD that may have moved, handed back
// to Run's index) and says whether a runner must be started (none holds
// the runner lock). It does no git work: a hook returns to git within
// milliseconds.
func Trigger(kbDir, head string) (spawn bool, err error) {
	dir := filepath.Join(kbDir, stateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	// The worktree first, then the pending mark: a runner that sees the
	// mark finds the worktree. Without it (a mark that could not be
	// written) the runner indexes its own HEAD: the hook call still counts.
	markHead(dir, head)
	if err := touch(filepath.Join(dir, pendingFile)); err != nil {
		return false, err
	}
	f, err := tryLock(RunnerLock(kbDir))
	if err != nil || f == nil {
		return false, err // a runner is alive and will see the pending mark
	}
	unlock(f)
	return true, nil
}

func touch(path string) error {
	now := time.Now()
	if err := os.WriteFile(path, []byte(strconv.FormatInt(now.UnixNano(), 10)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Chtimes(path, now, now)
}

// markHead writes the mark of head for takeHeads: the time it fired
// (file times are coarser than a burst of hooks), then head. Written
// beside and renamed, so a runner reads it whole or not at all.
func markHead(dir, head string) {
	if os.MkdirAll(filepath.Join(dir, headsDir), 0o755) != nil {
		return
	}
	sum := sha256.Sum256([]byte(head))
	tmp := filepath.Join(dir, "head-"+strconv.Itoa(os.Getpid())+".tmp")
	mark := strconv.FormatInt(time.Now().UnixNano(), 10) + "\n" + head
	if os.WriteFile(tmp, []byte(mark), 0o644) != nil || os.Rename(tmp, filepath.Join(dir, headsDir, hex.EncodeToString(sum[:8]))) != nil {
		os.Remove(tmp)
	}
}

// takeHeads returns the worktrees whose hooks fired since the last take,
// in the order they fired, and forgets them: a hook that fires after this
// writes its file anew, and the runner's next round takes it.
func takeHeads(dir string) []string {
	entries, _ := os.ReadDir(filepath.Join(dir, headsDir))
	type fired struct {
		head string
		at   int64
	}
	var fs []fired
	for _, e := range entries {
		p := filepath.Join(dir, headsDir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil || os.Remove(p) != nil {
			continue
		}
		at, head, _ := strings.Cut(string(b), "\n")
		ns, err := strconv.ParseInt(at, 10, 64)
		if err != nil {
			continue // not a mark Trigger wrote
		}
		fs = append(fs, fired{head, ns})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].at < fs[j].at })
	heads := make([]string, len(fs))
	for i, f := range fs {
		heads[i] = f.head
	}
	return heads
}

// pendingSince is the time of the last hook call (zero if none).
func pendingSince(dir string) time.Time {
	b, err := os.ReadFile(filepath.Join(dir, pendingFile))
	if err != nil {
		return time.Time{}
	}
	ns, err := strconv.ParseInt(string(trimNL(b)), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// tryLock takes an exclusive lock without waiting; nil, nil if busy.
// gofrs/flock: flock(2) on Unix, LockFileEx on Windows; either way the OS
// releases it when the process dies.
func tryLock(path string) (*flock.Flock, error) {
	l := flock.New(path)
	ok, err := l.TryLock()
	if err != nil || !ok {
		return nil, err
	}
	return l, nil
}

func unlock(l *flock.Flock) { l.Unlock() }

// Last is how the last background run ended.
type Last struct {
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Commit  string    `json:"commit,omitempty"`
	OK      bool      `json:"ok"`
	Error   string    `json:"error,omitempty"`
	Seconds float64   `json:"seconds"`
	Runs    int       `json:"runs"` // index runs this runner had made
	// Failures counts the runs that failed in a row; until RetryAfter
	// hook calls do not index again (a full disk or a damaged index fails
	// the same way on every commit).
	Failures   int       `json:"failures,omitempty"`
	RetryAfter time.Time `json:"retry_after,omitempty"`
}

// backoff is the pause after the n-th failure in a row: 30 s doubling,
// at most an hour.
func backoff(n int) time.Duration {
	d := 30 * time.Second
	for i := 1; i < n && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// ReadLast reads the state of the last run (nil if there was none).
func ReadLast(kbDir string) *Last {
	b, err := os.ReadFile(filepath.Join(kbDir, stateDir, lastFile))
	if err != nil {
		return nil
	}
	var l Last
	if json.Unmarshal(b, &l) != nil {
		return nil
	}
	return &l
}

// Run is the background runner: unless another runner is alive, it waits
// for the hooks to go quiet, indexes the HEAD of each worktree whose hook
// fired (index returns the commit it indexed; own, the runner's worktree,
// when no hook said which), and repeats while hook calls arrived
// meanwhile. One runner serves every worktree of the repository: a hook
// in another worktree while it runs starts none of its own. Progress and
// errors go to kb/hooks.log; the outcome to kb/hooks/last.json.
func Run(ctx context.Context, kbDir, own string, index func(ctx context.Context, head string) (string, error)) error {
	dir := filepath.Join(kbDir, stateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock, err := tryLock(RunnerLock(kbDir))
	if err != nil || lock == nil {
		return err // another runner has it
	}
	logf := openLog(kbDir)
	defer logf.Close()
	logLine := func(format string, a ...any) {
		fmt.Fprintf(logf, "%s pid %d: %s\n", time.Now().Format(time.RFC3339), os.Getpid(), fmt.Sprintf(format, a...))
	}
	var handled time.Time
	runs, skipped := 0, false
	for {
		// Wait for quiet: no hook call for Debounce (bounded).
		waitStart := time.Now()
		for {
			p := pendingSince(dir)
			quiet := time.Since(p) >= Debounce && !sequencing(filepath.Dir(kbDir))
			if quiet || time.Since(waitStart) > maxDebounce {
				break
			}
			select {
			case <-ctx.Done():
				unlock(lock)
				return ctx.Err()
			case <-time.After(Debounce / 4):
			}
		}
		p := pendingSince(dir)
		if !p.After(handled) && (runs > 0 || skipped) {
			// Nothing new. Release, then look once more: a hook that fired
			// while we held the lock did not start a runner of its own.
			unlock(lock)
			if !pendingSince(dir).After(p) {
				return nil
			}
			if lock, err = tryLock(RunnerLock(kbDir)); err != nil || lock == nil {
				return err
			}
			continue
		}
		handled = p
		prev := ReadLast(kbDir)
		if prev != nil && !prev.OK && time.Now().Before(prev.RetryAfter) {
			skipped = true
			continue // backing off: logged when it failed
		}
		heads := takeHeads(dir)
		if len(heads) == 0 {
			heads = []string{own}
		}
		runs++
		last := Last{Started: time.Now(), Runs: runs}
		var err error
		for _, h := range heads {
			t0 := time.Now()
			switch commit, ierr := index(ctx, h); {
			case ierr != nil:
				if err == nil {
					err = ierr
				}
				// Its mark was taken: put it back, or the retry after the
				// back-off would index whichever worktree fires next and
				// leave this one's HEAD unindexed until its own next hook.
				markHead(dir, h)
			case commit != "": // "": the worktree is gone
				last.Commit = commit
				logLine("indexed %s in %.2fs (run %d)", short(commit), time.Since(t0).Seconds(), runs)
			}
		}
		last.Ended = time.Now()
		last.Seconds = last.Ended.Sub(last.Started).Seconds()
		last.OK = err == nil
		if err != nil {
			last.Error = err.Error()
			last.Failures = 1
			if prev != nil && !prev.OK {
				last.Failures = prev.Failures + 1
			}
			pause := backoff(last.Failures)
			last.RetryAfter = last.Ended.Add(pause)
			if prev == nil || prev.OK || prev.Error != last.Error {
				logLine("index failed after %.2fs: %v (hooks retry in %s at the earliest; git kb index retries now)", last.Seconds, err, pause)
			}
		}
		if b, err := json.MarshalIndent(last, "", "  "); err == nil {
			os.WriteFile(filepath.Join(dir, lastFile+".tmp"), b, 0o644)
			os.Rename(filepath.Join(dir, lastFile+".tmp"), filepath.Join(dir, lastFile))
		}
	}
}

func short(s string) string { return s[:min(12, len(s))] }

// openLog opens kb/hooks.log for appending, first moving a log over
// maxLog to hooks.log.1 (one generation kept): the log stays bounded
// however long the hooks run.
func openLog(kbDir string) *os.File {
	p := filepath.Join(kbDir, LogFile)
	if fi, err := os.Stat(p); err == nil && fi.Size() > maxLog {
		os.Rename(p, p+".1")
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		f, _ = os.Open(os.DevNull)
	}
	return f
}

// sequencing says a rebase, cherry-pick or revert sequence is under way in
// a worktree of the repository whose common git dir is commonDir: its
// hooks fire once per commit, with gaps that pass Debounce on a busy
// machine, and the commits in between are not worth an index run each.
// The wait stays bounded by maxDebounce.
func sequencing(commonDir string) bool {
	for _, pat := range []string{"rebase-merge", "rebase-apply", "sequencer",
		"worktrees/*/rebase-merge", "worktrees/*/rebase-apply", "worktrees/*/sequencer"} {
		if m, _ := filepath.Glob(filepath.Join(commonDir, pat)); len(m) > 0 {
			return true
		}
	}
	return false
}
