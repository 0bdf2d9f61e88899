// Command readme rewrites the settings table of the README named by its
// argument from settings.Table (go generate ./settings runs it).
package main

import (
	"fmt"
	"os"

	"github.com/git-kb/git-kb/settings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: readme README.md")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, ok := settings.SpliceReadme(string(b))
	if !ok {
		fmt.Fprintf(os.Stderr, "%s has no settings table markers\n", os.Args[1])
		os.Exit(1)
	}
	if out != string(b) {
		if err := os.WriteFile(os.Args[1], []byte(out), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
