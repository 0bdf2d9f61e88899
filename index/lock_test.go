//go:build unix

package index

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// TestHelperHoldLock is not a test: run by holdLock as a child process, it
// takes kb/index.lock in the directory GITKB_TEST_HOLD_LOCK names, says
// "locked" and sleeps until killed.
func TestHelperHoldLock(t *testing.T) {
	dir := os.Getenv("GITKB_TEST_HOLD_LOCK")
	if dir == "" {
		t.Skip("a child process of TestLock*")
	}
	if _, err := lockIndex(context.Background(), dir, 0, nil); err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// holdLock starts a real process that takes the index lock in kbDir and
// returns once it holds it; the process is killed at the end of the test.
func holdLock(t *testing.T, kbDir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "GITKB_TEST_HOLD_LOCK="+kbDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("lock holder: %q %v", line, err)
	}
	return cmd
}

// A stopped holder (SIGSTOP) keeps the lock: the waiter names it, says it
// is stopped and how to resume or end it, and gives up after its wait
// with a *BusyError that says who and for how long.
func TestLockStoppedHolder(t *testing.T) {
	kbDir := t.TempDir()
	holder := holdLock(t, kbDir)
	pid := holder.Process.Pid
	if err := holder.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	old := noteAfter
	noteAfter = 200 * time.Millisecond
	defer func() { noteAfter = old }()
	var notes []string
	began := time.Now()
	_, err := lockIndex(context.Background(), kbDir, 1500*time.Millisecond, func(who string) { notes = append(notes, who) })
	took := time.Since(began)
	var be *BusyError
	if !errors.As(err, &be) || !errors.Is(err, ErrBusy) {
		t.Fatalf("err %v (%T), want a *BusyError wrapping ErrBusy", err, err)
	}
	if took < 1500*time.Millisecond || took > 10*time.Second {
		t.Errorf("gave up after %s, want the 1.5s wait", took)
	}
	if be.Holder == nil || be.Holder.PID != pid || !be.Holder.Stopped || !strings.Contains(be.Holder.Cmd, "TestHelperHoldLock") {
		t.Fatalf("holder %+v, want pid %d, stopped", be.Holder, pid)
	}
	msg := err.Error()
	for _, want := range []string{"pid " + strconv.Itoa(pid), "stopped", "index.lock", "after a wait of 2s"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "pid "+strconv.Itoa(pid)) || !strings.Contains(notes[0], "kill -CONT "+strconv.Itoa(pid)) {
		t.Errorf("notes %q, want one naming pid %d and how to resume it", notes, pid)
	}

	// Resumed, it still holds the lock, and is no longer called stopped.
	holder.Process.Signal(syscall.SIGCONT)
	_, err = lockIndex(context.Background(), kbDir, 0, nil)
	if !errors.As(err, &be) || be.Holder == nil || be.Holder.PID != pid || be.Holder.Stopped {
		t.Fatalf("after SIGCONT: %v (holder %+v)", err, be.Holder)
	}
	if strings.Contains(err.Error(), "stopped") {
		t.Errorf("after SIGCONT: %q", err)
	}
}

// A killed holder leaves its lock file and its holder record behind: the
// next run takes the lock at once and records itself.
func TestLockFromKilledHolder(t *testing.T) {
	kbDir := t.TempDir()
	holder := holdLock(t, kbDir)
	if _, err := lockIndex(context.Background(), kbDir, 0, nil); !errors.Is(err, ErrBusy) {
		t.Fatalf("while held: %v", err)
	}
	holder.Process.Kill()
	holder.Wait()
	if _, err := os.Stat(kbDir + "/index.lock.holder"); err != nil {
		t.Fatalf("the killed holder's record: %v", err)
	}
	var notes []string
	release, err := lockIndex(context.Background(), kbDir, 0, func(who string) { notes = append(notes, who) })
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	if h := readHolder(kbDir + "/index.lock.holder"); h == nil || h.PID != os.Getpid() {
		t.Errorf("holder record %+v, want this process (%d)", h, os.Getpid())
	}
	release()
	if _, err := os.Stat(kbDir + "/index.lock.holder"); !os.IsNotExist(err) {
		t.Errorf("holder record after release: %v", err)
	}
	if len(notes) != 0 {
		t.Errorf("notes %q for a lock free at once", notes)
	}
}

// A record naming a process that is gone (a killed holder's, not yet
// overwritten) names no one.
func TestReadHolderGone(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1)")
	}
	p := dir + "/index.lock.holder"
	os.WriteFile(p, []byte(`{"pid":`+strconv.Itoa(cmd.Process.Pid)+`,"since":"2026-01-02T03:04:05Z"}`), 0o644)
	if h := readHolder(p); h != nil {
		t.Errorf("holder %+v for a process that has exited", h)
	}
	os.WriteFile(p, []byte("not json"), 0o644)
	if h := readHolder(p); h != nil {
		t.Errorf("holder %+v from a damaged record", h)
	}
}

// A holder that wrote no record (an older git-kb) is still waited for,
// and the message reads without one.
func TestLockHolderUnknown(t *testing.T) {
	kbDir := t.TempDir()
	l := flock.New(kbDir + "/index.lock")
	if ok, err := l.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	defer l.Unlock()
	_, err := lockIndex(context.Background(), kbDir, 0, nil)
	var be *BusyError
	if !errors.As(err, &be) || be.Holder != nil {
		t.Fatalf("err %v, want a *BusyError naming no holder", err)
	}
	if want := "another git kb index is running and still holds " + kbDir + "/index.lock after a wait of 0s"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
