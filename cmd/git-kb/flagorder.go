package main

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// queryCommands join all their arguments into one query or question,
// where a flag-like word (go test -v, --follow) can be part of what is
// asked; only their own long flags written after the query are caught.
var queryCommands = map[string]bool{"search": true, "context": true, "ask": true}

// flagOrder refuses a command's own flags written after its arguments
// (git kb push upstream --rev v1.4.0, git kb context "..." --budget 8000).
// urfave/cli stops reading flags at the first argument, so such a flag was
// read as an argument: a push or blame-context failed with "takes one ...",
// and a search or context pack searched for the word "--budget" and
// silently ignored the budget. The error shows the command as it reads.
// Everything after "--" is an argument, as usual; --help after the
// arguments asks for the command's help, as in git (git log x --help), and
// flagOrder returns the command line that shows it.
func flagOrder(app *cli.App, args []string) ([]string, error) {
	cmds := app.Commands
	var cmd *cli.Command
	var path []string
	i := 1
	for i < len(args) {
		var found *cli.Command
		for _, c := range cmds {
			if c.HasName(args[i]) {
				found = c
			}
		}
		if found == nil {
			break
		}
		cmd, path, cmds = found, append(path, found.Name), found.Subcommands
		i++
		if len(cmds) == 0 {
			break
		}
	}
	if cmd == nil || cmd.Hidden || len(cmd.Subcommands) > 0 {
		return args, nil
	}
	flags := map[string]cli.Flag{}
	for _, f := range append([]cli.Flag{cli.HelpFlag}, cmd.Flags...) {
		for _, n := range f.Names() {
			flags[n] = f
		}
	}
	lookup := func(a string) (cli.Flag, bool) {
		if len(a) < 2 || a[0] != '-' {
			return nil, false
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := flags[name]
		if f == nil {
			return nil, false
		}
		v, ok := f.(cli.DocGenerationFlag)
		return f, ok && v.TakesValue() && !hasValue
	}
	// The flags urfave/cli reads: up to the first argument.
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break
		}
		f, takesValue := lookup(a)
		if f == nil {
			if queryCommands[cmd.Name] && queryLike(a) {
				return nil, dashQuery(path, args, i)
			}
			return args, nil // an unknown flag: urfave/cli says so
		}
		if takesValue {
			i++
		}
	}
	if i >= len(args) || args[i] == "--" {
		return args, nil
	}
	var moved, rest []string
	for j := i; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			rest = append(rest, args[j:]...)
			break
		}
		f, takesValue := lookup(a)
		if f == nil || queryCommands[cmd.Name] && !strings.HasPrefix(a, "--") {
			rest = append(rest, a)
			continue
		}
		if f == cli.HelpFlag {
			return append(slices.Clone(args[:1+len(path)]), "--help"), nil
		}
		moved = append(moved, a)
		if takesValue {
			j++
			if j < len(args) {
				moved = append(moved, args[j])
			} else {
				// Its value is missing: the line that works names
				// where it goes, rather than taking an argument for it.
				moved = append(moved, "VALUE")
			}
		}
	}
	if len(moved) == 0 {
		return args, nil
	}
	fixed := append(append(append([]string{"git kb"}, path...), args[1+len(path):i]...), moved...)
	fixed = append(fixed, rest...)
	for k := 1 + len(path); k < len(fixed); k++ {
		fixed[k] = shellQuote(fixed[k])
	}
	if queryCommands[cmd.Name] {
		return nil, usagef("flags go before the query (%s after it would be searched for as a word; to search for it, put it inside the quoted query): %s",
			moved[0], strings.Join(fixed, " "))
	}
	return nil, usagef("flags go before the arguments (%s after them is not read as a flag): %s", moved[0], strings.Join(fixed, " "))
}

// queryLike says whether an argument that starts with - and is no flag
// of the command is a query that starts with an exclusion (-测试 回滚,
// -path:releases/, -"a phrase") rather than a mistyped flag: no flag
// name holds a space, a colon, a quote or a letter outside ASCII. An
// exclusion has one dash; --anything is left to urfave/cli.
func queryLike(a string) bool {
	if strings.HasPrefix(a, "--") {
		return false
	}
	name, _, _ := strings.Cut(a, "=")
	if strings.ContainsAny(name, " \t:\"'“「") {
		return true
	}
	for _, r := range name {
		if r >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// dashQuery is the error for a query whose first argument, at args[i],
// starts with -: urfave/cli reads it as a flag, and the line that works
// puts -- before the query.
func dashQuery(path, args []string, i int) error {
	fixed := append(append([]string{"git kb"}, path...), args[1+len(path):i]...)
	fixed = append(fixed, "--")
	fixed = append(fixed, args[i:]...)
	for k := 1 + len(path); k < len(fixed); k++ {
		fixed[k] = shellQuote(fixed[k])
	}
	return usagef("%s is read as a flag: a query that starts with - goes after --: %s", args[i], strings.Join(fixed, " "))
}

// shellQuote quotes an argument for a command line a user can paste:
// double quotes, as the README writes queries, unless the argument holds
// characters a shell expands inside them.
func shellQuote(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n\"'\\$`*?[]{}()<>|&;!") && a[0] != '#' && a[0] != '~' {
		return a
	}
	if !strings.ContainsAny(a, "\"\\$`!") {
		return `"` + a + `"`
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
