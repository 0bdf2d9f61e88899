package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/review"
	"github.com/git-kb/git-kb/search"
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
  git kb blame-context HEAD~5..HEAD --max-bytes 60000 | gh pr comment 42 -F -`,
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
			rep, err := kb.explain(c.Context, e, c.Args().First(), c.String("base"), c.Bool("staged"), c.Int("context"), c.Bool("quiet"))
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

// explain builds the blame-context report of a change (see changeOf).
func (k *kbRepo) explain(ctx context.Context, e env, change, base string, staged bool, contextLines int, quiet bool) (*review.Report, error) {
	o, err := changeOf(ctx, k.Repo, change, base, staged)
	if err != nil {
		return nil, err
	}
	o.Context = contextLines
	o.Secrets = k.Secrets
	// Docs and code come from the base's view; a root commit has no base,
	// so its own view stands in.
	searchRev := o.Base
	if searchRev == gitx.EmptyTree {
		searchRev = o.Head
	}
	view, err := k.OpenView(ctx, searchRev, false)
	if err != nil {
		return nil, err
	}
	defer view.Close()
	o.Search = func(ctx context.Context, q string, n int, scope func(string) bool) ([]search.Result, error) {
		resp, err := view.Search(ctx, search.Request{Query: q, K: n, Mode: search.ModeLexical, Scope: scope})
		if err != nil {
			return nil, err
		}
		return resp.Results, nil
	}
	rep, err := review.Explain(ctx, o)
	if err == nil {
		if cut := k.Repo.ShallowCommits(); cut != nil {
			// Blame stops at the clone's depth and credits every older
			// line to the boundary commit: say so once, at the top.
			rep.Notes = append(rep.Notes, fmt.Sprintf("Shallow clone: history before %s is cut off, so older lines are credited to it; for full history run git fetch --unshallow (in CI: fetch-depth: 0).", shortest(cut)))
		}
	}
	return rep, err
}

// shortest names the boundary commits of a shallow clone, briefly.
func shortest(cut map[string]bool) string {
	var names []string
	for c := range cut {
		names = append(names, c[:12])
	}
	sort.Strings(names)
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
	}
	return strings.Join(names, ", ")
}

// changeOf turns the command's argument into base and head commits.
func changeOf(ctx context.Context, repo *gitx.Repo, arg, base string, staged bool) (review.Options, error) {
	o := review.Options{Repo: repo, Staged: staged, Range: arg}
	resolve := func(rev string) (string, error) {
		if rev == "" {
			rev = "HEAD"
		}
		commit, _, err := repo.Resolve(ctx, rev)
		return commit.String(), err
	}
	var err error
	switch {
	case staged:
		o.Range = "staged changes"
		o.Base, err = resolve("HEAD")
	case base != "":
		if o.Range == "" {
			o.Range = "HEAD"
		}
		if o.Head, err = resolve(arg); err != nil {
			return o, err
		}
		if o.Base, err = resolve(base); err != nil {
			return o, fmt.Errorf("--base %s: %w", base, err)
		}
		o.Range = base + ".." + o.Range
	case strings.Contains(arg, "..."):
		a, b, _ := strings.Cut(arg, "...")
		if o.Head, err = resolve(b); err != nil {
			return o, err
		}
		var left string
		if left, err = resolve(a); err != nil {
			return o, err
		}
		if o.Base, err = repo.MergeBase(ctx, left, o.Head); err != nil && repo.ShallowCommits() != nil {
			return o, &gitx.HistoryCutError{What: arg + ": no merge base", Commit: shortest(repo.ShallowCommits())}
		}
	case strings.Contains(arg, ".."):
		a, b, _ := strings.Cut(arg, "..")
		if o.Base, err = resolve(a); err != nil {
			return o, err
		}
		o.Head, err = resolve(b)
	default:
		if o.Range == "" {
			o.Range = "HEAD"
		}
		if o.Head, err = resolve(arg); err != nil {
			return o, err
		}
		var parents []string
		if parents, err = repo.Parents(ctx, o.Head); err != nil {
			return o, err
		}
		o.Base = gitx.EmptyTree
		if len(parents) > 0 {
			o.Base = parents[0] // first parent: what a merge brought in
		} else if repo.ShallowCommits()[o.Head] {
			// Not a root commit: its parent was cut off by the clone's
			// depth. Comparing with the empty tree would list every file.
			return o, &gitx.HistoryCutError{What: o.Range, Commit: o.Head}
		}
	}
	if err != nil {
		return o, err
	}
	if o.Base == o.Head {
		return o, fmt.Errorf("%s: base and head are the same commit, nothing to explain", o.Range)
	}
	return o, nil
}
