//go:build windows

package hooks

import (
	"strings"
	"testing"
)

// Git for Windows runs hooks with its bundled MSYS sh, which takes
// C:/x/y but mangles C:\x\y in some contexts: the binary path goes in with
// forward slashes.
func TestScriptWindowsPath(t *testing.T) {
	s := string(script("post-commit", `C:\Users\张三\bin\git-kb.exe`))
	if !strings.Contains(s, `kb='C:/Users/张三/bin/git-kb.exe'`) {
		t.Errorf("script has no forward-slash path:\n%s", s)
	}
}
