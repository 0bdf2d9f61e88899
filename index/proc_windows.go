//go:build windows

package index

import "os"

// processState says whether process pid is alive; whether it is stopped
// is not known on Windows.
func processState(pid int) (alive, stopped bool) {
	p, err := os.FindProcess(pid) // opens a handle: fails when it is gone
	if err != nil {
		return false, false
	}
	p.Release()
	return true, false
}
