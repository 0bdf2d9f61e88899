package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// Help for people reaches them three ways, all from the same definitions:
// `git kb CMD --help` (urfave/cli's text), `git kb help [CMD...]` (the same,
// rewritten in run), and man pages, which git shows for `git kb --help` and
// `git help kb` (it runs `man git-kb`). install.sh writes the man pages
// with the hidden `git kb man-pages DIR`, so they always match the binary.

// helpArgs rewrites `git kb help [CMD [SUB]]` into `git kb [CMD [SUB]] --help`,
// which urfave/cli answers for any depth of subcommand (its own help
// command stops at the first level). Unknown topics stay a usage error.
func helpArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 || args[1] != "help" {
		return args, nil
	}
	topic := args[2:]
	cmds := app.Commands
	for i, name := range topic {
		if strings.HasPrefix(name, "-") {
			topic = topic[:i]
			break
		}
		var found *cli.Command
		for _, c := range cmds {
			if c.HasName(name) && !c.Hidden {
				found = c
			}
		}
		if found == nil {
			return nil, usagef("no help topic %q: see git kb help for the commands", strings.Join(topic[:i+1], " "))
		}
		cmds = found.Subcommands
	}
	return append(append([]string{args[0]}, topic...), "--help"), nil
}

// unknownCommand refuses a command name git kb does not have, at any
// level (git kb serach, git kb hooks instal), with the one meant if a
// name is close; urfave/cli answered "No help topic for 'serach'".
func unknownCommand(app *cli.App, args []string) error {
	cmds, spoken := app.Commands, "git kb"
	for _, a := range args[1:] {
		if len(cmds) == 0 || a == "" || a[0] == '-' {
			return nil
		}
		var found *cli.Command
		for _, c := range cmds {
			if c.HasName(a) {
				found = c
			}
		}
		if found == nil {
			if spoken != "git kb" && (a == "help" || a == "h") {
				return nil // urfave/cli's help of a command with subcommands
			}
			helpCmd := "git kb help" + strings.TrimPrefix(spoken, "git kb")
			if near := closestCommand(cmds, a); near != "" {
				return usagef("%q is not a %s command; did you mean %s? (%s lists the commands)", a, spoken, near, helpCmd)
			}
			return usagef("%q is not a %s command (%s lists the commands)", a, spoken, helpCmd)
		}
		cmds, spoken = found.Subcommands, spoken+" "+found.Name
	}
	return nil
}

// closestCommand is the visible command whose name is within two edits of
// name (a typo), else "".
func closestCommand(cmds []*cli.Command, name string) string {
	best, bestD := "", 3
	for _, c := range visible(cmds) {
		if d := editDistance(name, c.Name); d < bestD {
			best, bestD = c.Name, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (optimal string
// alignment) of a and b, in runes: a swap of two neighbours is one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// manPages renders a page for git-kb and one per command and subcommand
// (git-kb-search.1, git-kb-hooks-install.1, ...), keyed by file name.
func manPages(app *cli.App) (map[string]string, error) {
	pages := map[string]string{}
	top := *app
	top.Name = "git-kb"
	top.Description = preformatted(app.Description) + "\n\nEach command has its own page: " + strings.Join(commandPageNames(app.Commands, "git-kb"), ", ") +
		".\nIn a shell: git kb help COMMAND, or git kb COMMAND --help."
	top.Commands = visible(app.Commands)
	top.UsageText = "git kb COMMAND [options] [ARGUMENTS...]"
	page, err := top.ToManWithSection(1)
	if err != nil {
		return nil, fmt.Errorf("man page git-kb: %w", err)
	}
	pages["git-kb.1"] = usageAsSynopsis(page)
	var walk func(cmds []*cli.Command, prefix, spoken string) error
	walk = func(cmds []*cli.Command, prefix, spoken string) error {
		for _, c := range visible(cmds) {
			name := prefix + "-" + c.Name
			said := spoken + " " + c.Name
			usage := said + " [options]"
			if c.ArgsUsage != "" {
				usage += " " + c.ArgsUsage
			}
			if len(visible(c.Subcommands)) > 0 {
				usage = said + " COMMAND [options]"
			}
			desc := c.Description
			if desc == "" {
				desc = c.Usage + "."
			}
			sub := &cli.App{
				Name:        name,
				Usage:       c.Usage,
				UsageText:   usage,
				Description: preformatted(desc),
				Flags:       c.Flags,
				Commands:    visible(c.Subcommands),
			}
			page, err := sub.ToManWithSection(1)
			if err != nil {
				return fmt.Errorf("man page %s: %w", name, err)
			}
			// A command's flags are its own, not global ones.
			pages[name+".1"] = usageAsSynopsis(strings.Replace(page, ".SH GLOBAL OPTIONS", ".SH OPTIONS", 1))
			if err := walk(c.Subcommands, name, said); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(app.Commands, "git-kb", "git kb"); err != nil {
		return nil, err
	}
	return pages, nil
}

// usageAsSynopsis makes the usage line the page's SYNOPSIS, as git's
// own pages have it (git kb search [options] QUERY). urfave/cli's
// template puts the page's name there (git-kb-search, which is no
// program) over a list of every flag, and the usage line after the
// description; the flags are in OPTIONS anyway.
func usageAsSynopsis(page string) string {
	const usage = "\n.PP\n\\fBUsage\\fP:\n\n.EX\n"
	i := strings.Index(page, usage)
	s := strings.Index(page, ".SH SYNOPSIS\n")
	if i < 0 || s < 0 || s > i {
		return page
	}
	n := strings.Index(page[i+len(usage):], ".EE\n")
	if n < 0 {
		return page
	}
	line := page[i+len(usage) : i+len(usage)+n]
	page = page[:i] + page[i+len(usage)+n+len(".EE\n"):]
	body := s + len(".SH SYNOPSIS\n")
	end := strings.Index(page[body:], ".SH ")
	if end < 0 {
		return page
	}
	return page[:body] + ".EX\n" + line + ".EE\n\n" + page[body+end:]
}

func visible(cmds []*cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, c := range cmds {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

func commandPageNames(cmds []*cli.Command, prefix string) []string {
	var names []string
	for _, c := range visible(cmds) {
		names = append(names, prefix+"-"+c.Name+"(1)")
	}
	return names
}

// preformatted keeps a description's own layout (examples, aligned lists,
// <placeholders>) in the Markdown that urfave/cli turns into a man page:
// as prose, Markdown would reflow the examples and drop <commit> as HTML.
func preformatted(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return "```\n" + strings.ReplaceAll(s, "```", "'''") + "\n```"
}

// manPagesCommand is hidden: install.sh runs it to write the pages.
func manPagesCommand(e env, app func() *cli.App) *cli.Command {
	return &cli.Command{
		Name:      "man-pages",
		Hidden:    true,
		Usage:     "write the man pages (git-kb.1, git-kb-COMMAND.1 ...) into DIR",
		ArgsUsage: "DIR",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("man-pages takes one directory")
			}
			dir := c.Args().First()
			pages, err := manPages(app())
			if err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			names := make([]string, 0, len(pages))
			for name := range pages {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(pages[name]), 0o644); err != nil {
					return err
				}
			}
			fmt.Fprintf(e.Stdout, "wrote %d man pages to %s\n", len(names), dir)
			return nil
		},
	}
}
