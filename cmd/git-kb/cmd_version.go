package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// Set at build time by install.sh and `make dist`:
//
//	-ldflags "-X main.version=v0.3.0 -X main.commit=<sha> -X main.date=<RFC 3339>"
//
// A plain `go build` or `go install` leaves them empty; buildInfo then
// reads what the Go toolchain stamped into the binary.
var (
	commit string
	date   string
)

// Build says which git-kb this is.
type Build struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Modified bool   `json:"modified,omitempty"` // built from a work tree with uncommitted changes
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// buildInfo combines the ldflags values with the toolchain's stamps:
// vcs.revision and vcs.time when built inside a git checkout, the module
// version when installed with `go install ...@vX`.
func buildInfo() Build {
	b := Build{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if b.Commit == "" {
					b.Commit = s.Value
				}
			case "vcs.time":
				if b.Date == "" {
					b.Date = s.Value
				}
			case "vcs.modified":
				b.Modified = b.Modified || s.Value == "true"
			}
		}
	}
	return b
}

func (b Build) String() string {
	c, d := b.Commit, b.Date
	if c == "" {
		c = "unknown"
	}
	if b.Modified {
		c += " (modified)"
	}
	if d == "" {
		d = "unknown"
	}
	return fmt.Sprintf("%s (commit %s, built %s, %s %s)", b.Version, c, d, b.Go, b.Platform)
}

func versionCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print version, commit and build date of this git-kb",
		Description: `Prints what to quote in a bug report: the release version, the git-kb
commit it was built from, the build date, the Go version and the platform.
Release archives and ./install.sh set these at build time; a 'go build'
from a checkout reads them from git.`,
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			b := buildInfo()
			if c.Bool("json") {
				return writeJSON(e.Stdout, b)
			}
			_, err := fmt.Fprintln(e.Stdout, "git-kb "+b.String())
			return err
		},
	}
}
