package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/search"
	"github.com/urfave/cli/v2"
)

func showCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print the lines a citation points at, from git",
		ArgsUsage: "CITATION",
		Description: `Reads <commit>:<path>#L<start>-L<end> straight from git at that commit, so a
citation stays readable after the file changes or is deleted at HEAD.
Any revision works in place of the commit, and a path without one is
HEAD's; without #L the whole file prints. A path may hold a colon
(notes/12:30.md): when the text before the colon is no revision and HEAD
has that path, HEAD's file prints; when both readings name a file,
<rev>:<path> wins and a note on stderr says how to get the other
(HEAD:notes/12:30.md).

Examples:
  git kb show a8731366d6ef:docs/rollback.md#L10-L42
  git kb show docs/rollback.md#L10-L42                  # HEAD's
  git kb show -n -C 3 HEAD:README.md#L5-L9
  git kb show team/deploy@a8731366d6ef:docs/rollback.md#L10-L42   # from --org, in that repository`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "line-numbers", Aliases: []string{"n"}, Usage: "prefix each line with its number"},
			&cli.IntFlag{Name: "context", Aliases: []string{"C"}, Usage: "also print N lines around the range"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("show needs exactly one CITATION, like <commit>:<path>#L10-L42")
			}
			arg := c.Args().First()
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			if name, local, ok := engine.ParseOrgCitation(arg); ok {
				// A git kb search --org citation: readable here when it
				// names this repository.
				kb, err := openKB(c.Context, e, repo, true)
				if err != nil {
					return err
				}
				if here, _ := kb.OrgRepoName(c.Context); here != name {
					return fmt.Errorf("%s is in repository %s; this one is published as %s: run git kb show %s in a clone of %s", arg, name, here, local, name)
				}
				arg = local
			}
			cit, ok := search.ParseCitation(arg)
			var lines []string
			where := engine.WorktreeRev
			if ok && cit.Rev == engine.WorktreeRev {
				// A --worktree citation: the file as it is on disk now.
				if lines, err = engine.WorktreeLines(repo, cit.Path); err != nil {
					return err
				}
			} else {
				t, err := showTarget(c.Context, repo, arg)
				if err != nil {
					return err
				}
				if t.Note != "" {
					fmt.Fprintf(e.Stderr, "git kb: %s\n", t.Note)
				}
				cit, where = t.Citation, t.File.commit.String()[:12]
				if lines, err = engine.TextLines(cit.Path, t.File.data); err != nil {
					return err
				}
			}
			start, end := 1, len(lines)
			if cit.Start > 0 {
				start, end = cit.Start, cit.End
			}
			if end < start {
				return usagef("#L%d-L%d ends before it starts: write #L%d-L%d", start, end, end, start)
			}
			if start < 1 || start > len(lines) {
				return fmt.Errorf("lines %d-%d are outside %s, which has %d lines at %s", start, end, cit.Path, len(lines), where)
			}
			ctxN := c.Int("context")
			if ctxN < 0 {
				return usagef("--context %d: give the number of lines to add around the range, 0 or more", ctxN)
			}
			start, end = max(1, start-ctxN), min(len(lines), end+ctxN)
			width := len(strconv.Itoa(end))
			for i := start; i <= end; i++ {
				if c.Bool("line-numbers") {
					fmt.Fprintf(e.Stdout, "%*d  %s\n", width, i, lines[i-1])
				} else {
					fmt.Fprintln(e.Stdout, lines[i-1])
				}
			}
			return nil
		},
	}
}

// sameNamed lists files of tree whose path ends with p, or that have
// p's file name (search.NearPaths): what a citation missing its
// directories meant. Read only on that error.
func sameNamed(ctx context.Context, repo *gitx.Repo, tree gitx.Hash, p string) []string {
	entries, err := repo.ListTree(ctx, tree)
	if err != nil {
		return nil
	}
	return search.NearPaths(p, func(yield func(string) bool) {
		for _, e := range entries {
			if !yield(e.Path) {
				return
			}
		}
	}, false)
}

// target is the file show's argument names, read from git.
type target struct {
	commit gitx.Hash
	data   []byte
}

// showTarget reads what arg names: <rev>:<path>#L.., or a path of HEAD's
// (#L.. optional), a path with a colon in it included
// (search.ReadCited decides, as for the MCP server's get_document).
func showTarget(ctx context.Context, repo *gitx.Repo, arg string) (search.Cited[target], error) {
	t, err := search.ReadCited(arg, "", func(cit search.Citation) (target, error) {
		return readAt(ctx, repo, cit)
	})
	if errors.Is(err, search.ErrNotCitation) {
		return t, usagef("%v", err)
	}
	return t, err
}

// readAt reads cit's file at its revision; a missing path's error
// suggests files of that name.
func readAt(ctx context.Context, repo *gitx.Repo, cit search.Citation) (target, error) {
	commit, tree, err := repo.Resolve(ctx, cit.Rev)
	if err != nil {
		return target{}, err
	}
	// As the tree writes it: ./x, a//b and d/../x name what get_document
	// reads for them (a way out of the tree names nothing in it).
	_, data, err := repo.FileAt(commit, path.Clean(strings.TrimPrefix(cit.Path, "/")))
	if errors.Is(err, gitx.ErrNoSuchPath) && strings.Contains(cit.Path, `\`) {
		// Windows' separators (.\docs\x.md, as PowerShell completes
		// it), read as get_document reads them, once the path as
		// written (a file named a\b.md elsewhere) is not there.
		if _, d, err2 := repo.FileAt(commit, path.Clean(strings.TrimPrefix(strings.ReplaceAll(cit.Path, `\`, "/"), "/"))); err2 == nil {
			data, err = d, nil
		}
	}
	if errors.Is(err, gitx.ErrNoSuchPath) {
		if near := sameNamed(ctx, repo, tree, cit.Path); len(near) > 0 {
			return target{}, fmt.Errorf("%w; did you mean %s?", err, strings.Join(near, ", "))
		}
	}
	if err != nil {
		return target{}, err
	}
	return target{commit: commit, data: data}, nil
}
