package main

import (
	"runtime"
	"strings"
	"testing"
)

// The ldflags values win; Go version and platform come from the runtime.
// (.ci/run checks that install.sh really sets the ldflags.)
func TestVersionPrintsBuild(t *testing.T) {
	defer func(v, c, d string) { version, commit, date = v, c, d }(version, commit, date)
	version, commit, date = "v9.8.7", "0123456789abcdef0123456789abcdef01234567", "2026-11-23T10:00:00Z"

	var b Build
	kbJSON(t, t.TempDir(), &b, "version", "--json")
	if b.Version != version || b.Commit != commit || b.Date != date {
		t.Errorf("version --json = %+v, want the ldflags values", b)
	}
	if b.Go != runtime.Version() || b.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("go/platform = %q %q", b.Go, b.Platform)
	}
	out, _, code := kb(t, t.TempDir(), "version")
	if code != 0 || !strings.HasPrefix(out, "git-kb v9.8.7 (commit "+commit+", built "+date) {
		t.Errorf("version: exit %d, %q", code, out)
	}
}
