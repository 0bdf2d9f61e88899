package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// ErrBusy means another indexer held the lock past the wait time.
var ErrBusy = fmt.Errorf("another git kb index is running")

// ErrEmbedBusy means another embedding run held its lock past the wait time.
var ErrEmbedBusy = fmt.Errorf("another git kb embedding run is in progress")

// lockIndex takes the indexer lock (flock on kb/index.lock). The kernel
// drops it when the process dies, so a killed indexer never leaves a stale
// lock behind. onWait is called once if the lock is busy.
func lockIndex(ctx context.Context, kbDir string, wait time.Duration, onWait func()) (release func(), err error) {
	return lockFile(ctx, kbDir, "index.lock", ErrBusy, wait, onWait)
}

// lockFile takes an exclusive flock on kbDir/name, waiting up to wait.
func lockFile(ctx context.Context, kbDir, name string, busy error, wait time.Duration, onWait func()) (release func(), err error) {
	if err := os.MkdirAll(kbDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", kbDir, err)
	}
	f, err := os.OpenFile(filepath.Join(kbDir, name), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	waited := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if err != syscall.EWOULDBLOCK {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, busy
		}
		if !waited && onWait != nil {
			onWait()
		}
		waited = true
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	// The pid is for people reading the file; the flock is the lock.
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Running reports whether an indexer holds the lock right now.
func Running(kbDir string) bool {
	f, err := os.OpenFile(filepath.Join(kbDir, "index.lock"), os.O_RDWR, 0)
	if err != nil {
		return false // never indexed here
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return err == syscall.EWOULDBLOCK
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
