//go:build unix

package index

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// processState says whether process pid is alive and, on Linux, whether
// it is stopped (state T: SIGSTOP, ^Z; t: stopped by a debugger).
func processState(pid int) (alive, stopped bool) {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true, false // no /proc (macOS): alive, state unknown
	}
	// pid (comm) state ...: comm may hold spaces and parentheses, so the
	// state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return true, false
	}
	switch b[i+2] {
	case 'Z', 'X':
		return false, false // a zombie holds no lock
	case 'T', 't':
		return true, true
	}
	return true, false
}
