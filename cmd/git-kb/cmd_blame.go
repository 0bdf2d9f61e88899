package main

import (
	"fmt"
	"strings"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/review"
	"github.com/urfave/cli/v2"
)

func blameContextCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "blame-context",
		Usage:     "explain a change for code review: the history and docs behind each hunk",
		ArgsUsage: "[<base>..<head> | <base>...<head> | <commit>]",
		Description: `For each changed file and hunk, lists:
  history  the commits that last touched the lines the hunk modifies or
           deletes and the lines around it (git blame of the old version),
           with #123 / !45 / ABC-123 references from their messages;
  docs     the runbooks, ADRs and other docs most relevant to the change,
           searched in the base commit's index (indexed first if needed);
  code     where the symbols the change touches are defined or used in
           other files.
Citations are pinned to the base commit.

The change: <base>..<head>; <base>...<head> (from their merge base, as a
pull request shows it); <commit> (against its first parent, so a merge
shows what it brought in); --staged (the index against HEAD). Default:
HEAD, the last commit.

--format md (default) prints a pull-request comment with a collapsible
section per file; json is for bots. --max-bytes trims the least relevant
items first. Renamed files are blamed under their old name; added files
have no history; binary files are listed and skipped.

Examples:
  git kb blame-context                          # the last commit
  git kb blame-context origin/main...HEAD       # this branch, as a PR
  git kb blame-context --staged --format json   # what you are about to commit
  git kb blame-context --max-bytes 60000 HEAD~5..HEAD | gh pr comment 42 -F -`,
		Flags: []cli.Flag{
			quietFlag,
			&cli.BoolFlag{Name: "staged", Aliases: []string{"cached"}, Usage: "explain the staged changes (against HEAD)"},
			&cli.StringFlag{Name: "format", Value: "md", Usage: "md (a pull-request comment) or json"},
			jsonFormatFlag,
			&cli.IntFlag{Name: "max-bytes", Usage: "trim the least relevant items until the output fits (0: no limit)"},
			&cli.IntFlag{Name: "context", Value: 3, Usage: "lines around each hunk whose history counts too"},
			&cli.StringFlag{Name: "base", Usage: "compare with `REV` instead of the commit's parent (e.g. in a shallow clone: --base origin/main)"},
		},
		Action: func(c *cli.Context) error {
			format, err := formatOf(c)
			if err != nil {
				return err
			}
			if format != "md" && format != "json" {
				return usagef("--format %s: want md or json", format)
			}
			if c.NArg() > 1 {
				return usagef("blame-context takes one range or commit, got %d arguments", c.NArg())
			}
			if c.Bool("staged") && c.NArg() > 0 {
				return usagef("--staged compares the index with HEAD: give no range with it")
			}
			if c.Int("max-bytes") < 0 || c.Int("context") < 0 {
				return usagef("--max-bytes and --context cannot be negative")
			}
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			if c.Bool("staged") && repo.WorkTree == "" {
				return fmt.Errorf("--staged: %s is a bare repository: it has no staging area; give a range (base..head) or a commit", repo.CommonDir)
			}
			kb, err := openKB(c.Context, e, repo, c.Bool("quiet"))
			if err != nil {
				return err
			}
			if c.String("base") != "" && (c.Bool("staged") || strings.Contains(c.Args().First(), "..")) {
				return usagef("--base names the base of one commit: give a commit, not a range or --staged")
			}
			rep, err := kb.BlameContext(c.Context, engine.BlameRequest{Change: c.Args().First(), Base: c.String("base"), Staged: c.Bool("staged"), Context: c.Int("context")})
			if err != nil {
				return err
			}
			render := func(r *review.Report) ([]byte, error) { return []byte(review.Markdown(r)), nil }
			if format == "json" {
				render = review.JSON
			}
			fits, err := review.Fit(rep, c.Int("max-bytes"), render)
			if err != nil {
				return err
			}
			if !fits {
				notifier(e, c.Bool("quiet"))("the report does not fit in %d bytes even with every optional item dropped", c.Int("max-bytes"))
			}
			out, err := render(rep)
			if err != nil {
				return err
			}
			_, err = e.Stdout.Write(out)
			return err
		},
	}
}
