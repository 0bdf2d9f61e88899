//go:build unix

package engine

import (
	"os/exec"
	"syscall"
)

// Detach makes cmd outlive the git command that started it: in a session
// of its own it gets no SIGHUP when the terminal closes and no SIGINT when
// the user presses ^C at the prompt git returns to.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
