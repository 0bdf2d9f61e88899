//go:build windows

package engine

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// Detach makes cmd outlive the git command that started it, the way
// Windows expects of a background process: DETACHED_PROCESS gives it no
// console (so closing the terminal does not end it and no window flashes
// up), CREATE_NEW_PROCESS_GROUP keeps Ctrl+C at the prompt from reaching it.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP,
		HideWindow:    true,
	}
}
