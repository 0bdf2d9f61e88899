package main

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/git-kb/git-kb/search"
)

// TestRankingUsageListsEveryLever: `git kb search --help` names every
// lever --ranking can switch, so a lever added to search is not one a
// user can only find in the source.
func TestRankingUsageListsEveryLever(t *testing.T) {
	var usage string
	for _, f := range searchCommand(env{}).Flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "ranking" {
			usage = sf.Usage
		}
	}
	if usage == "" {
		t.Fatal("search has no --ranking flag")
	}
	for name, on := range search.Levers {
		sign := "-"
		if !on {
			sign = "+"
		}
		if !strings.Contains(usage, sign+name+",") && !strings.Contains(usage, sign+name+" ") {
			t.Errorf("--ranking's usage lacks %s%s: %q", sign, name, usage)
		}
	}
}
