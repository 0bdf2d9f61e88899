package main

import (
	"context"
	"fmt"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/settings"
	"github.com/git-kb/git-kb/share"
	"github.com/urfave/cli/v2"
)

// shareRemote is the remote argument, else kb.share.remote, else origin.
func shareRemote(ctx context.Context, c *cli.Context, repo *gitx.Repo) (string, error) {
	if c.NArg() > 1 {
		return "", usagef("%s takes one REMOTE at most (got %q)", c.Command.Name, c.Args().Slice())
	}
	if r := c.Args().First(); r != "" {
		return r, nil
	}
	set, err := settings.Load(ctx, repo, nil)
	if err != nil {
		return "", err
	}
	if set.ShareRemote != "" {
		return set.ShareRemote, nil
	}
	return "origin", nil
}

func pushCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "push the index of HEAD (or --rev, --all-branches) to a remote as refs/kb/...",
		ArgsUsage: "[REMOTE]",
		Description: `Writes the index data of a commit's view (what each file became: chunks,
terms, lengths, and the vectors of the configured embedding model) as
ordinary git objects on refs/kb/1/heads/<branch> (tags/<tag>,
commits/<sha>) and pushes them with git, so any remote git accepts works
(a path, ssh, https; GitHub and GitLab accept extra refs) with your usual
credentials. One git blob per file version: a push after a one-file commit
sends that file's data and a few small trees, not the repository again.
Teammates and CI runners then 'git kb pull' instead of indexing and
embedding.

Nothing is pushed of files your filters skip (secret-looking paths,
.kbignore, kb.maxFileSize) nor of files in which secrets were redacted;
push refuses if the index holds data of paths not in the commit. Records
hold no text: search results are always read from git.

A pushed view replaces the remote's ref of its name, but only the one
this clone last pulled or pushed: if another clone pushed since, the push
is refused (run git kb pull, then push again). Nor does a push replace a
newer view with an older one: the remote's view is kept when it was made
by a newer pipeline or newer secret rules, or is of a commit that
descends from yours (or, unrelated to yours, was committed at the same
time or later); --force replaces it anyway. With several revisions
(--all-branches, --rev repeated), one not indexed or whose remote view is
newer is skipped, said so on stderr ("skipped_why" in --json), and the
others are pushed (exit 0); --rev NAME --force replaces that one view.
Several views go in one atomic push: when one is refused because
another clone pushed it, none is pushed. A view the remote already has
is not pushed again: "nothing new to push".

REMOTE defaults to git config kb.share.remote, else origin. The commit
must be indexed first (git kb index).

Examples:
  git kb index && git kb push                 # HEAD's branch, to origin
  git kb push --rev v1.4.0 upstream           # a tag's view
  git kb push --all-branches --json           # every indexed local branch`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "rev", Aliases: []string{"r"}, Usage: "the commit(s) to push (repeatable; default HEAD)"},
			&cli.BoolFlag{Name: "all-branches", Usage: "push the view of every local branch that is indexed"},
			&cli.BoolFlag{Name: "dry-run", Usage: "write the local refs/kb/... but do not push"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "replace a remote view newer than yours (one you have not pulled is still kept)"},
			jsonFlag, quietFlag,
		},
		Action: func(c *cli.Context) error {
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			remote, err := shareRemote(c.Context, c, repo)
			if err != nil {
				return err
			}
			revs := c.StringSlice("rev")
			if c.Bool("all-branches") {
				if len(revs) > 0 {
					return usagef("--all-branches and --rev do not mix")
				}
				if revs, err = repo.Branches(c.Context); err != nil {
					return err
				}
			}
			_, emb, err := configuredEmbedder(c.Context, e, repo)
			if err != nil {
				return err
			}
			note := notifier(e, c.Bool("quiet") || c.Bool("json"))
			res, err := share.Push(c.Context, repo, share.PushOptions{Remote: remote, Revs: revs, Embedder: emb, DryRun: c.Bool("dry-run"), Force: c.Bool("force"), Wait: lockWait, Version: version})
			if err != nil {
				return err
			}
			for _, s := range res.Skipped {
				note("%s is not pushed: %s", s, res.SkippedWhy[s])
			}
			if c.Bool("json") {
				return writeJSON(e.Stdout, res)
			}
			if len(res.Views) == 0 {
				fmt.Fprintf(e.Stdout, "nothing pushed: each of the %d revisions was skipped\n", len(res.Skipped))
				return nil
			}
			if res.UpToDate {
				if len(res.Views) == 1 {
					v := res.Views[0]
					fmt.Fprintf(e.Stdout, "nothing new to push: %s already has the view of %s on %s (commit %s)\n", res.Remote, v.Commit[:12], v.Ref, v.KBCommit[:12])
				} else {
					fmt.Fprintf(e.Stdout, "nothing new to push: %s already has these %d views\n", res.Remote, len(res.Views))
				}
				return nil
			}
			for _, v := range res.Views {
				fmt.Fprintf(e.Stdout, "%s -> %s (commit %s): %d files' records (%d new, %d unchanged), %d with vectors",
					v.Commit[:12], v.Ref, v.KBCommit[:12], v.Blobs, v.Exported, v.Reused, v.Vectors)
				if v.Unchanged {
					fmt.Fprintf(e.Stdout, "; the remote already has it")
				}
				if v.Withheld > 0 {
					fmt.Fprintf(e.Stdout, "; %d withheld (secrets redacted in them)", v.Withheld)
				}
				if v.Filtered > 0 {
					fmt.Fprintf(e.Stdout, "; %d skipped by filters", v.Filtered)
				}
				fmt.Fprintln(e.Stdout)
			}
			if c.Bool("dry-run") {
				fmt.Fprintln(e.Stdout, "dry run: not pushed")
				return nil
			}
			fmt.Fprintf(e.Stdout, "pushed to %s: %d objects, %s in %.2fs\n", res.Remote, res.Objects, humanBytes(res.Bytes), res.Seconds)
			return nil
		},
	}
}

func pullCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Usage:     "fetch a remote's shared index (refs/kb/...) and search without indexing",
		ArgsUsage: "[REMOTE]",
		Description: `Fetches the views that 'git kb push' shared (refs/kb/1/* into
refs/kb/remotes/REMOTE/1/*), picks the one of HEAD's commit (--rev), else
of its nearest ancestor, checks it and imports what the local index lacks.
Then indexes the commit, which finds the imported files done and indexes
only what changed since, and embeds, which finds the imported vectors
cached: 0 embedding calls for what was shared.

Data from a remote is input, not truth. The pull is refused whole, with
nothing local changed, when the shared view was made by another pipeline
or format version, under another kb.secrets.allow policy, with vectors of
another model than yours (--no-vectors takes the lexical part only), or
when any record fails a check: a file version it describes is missing or
has another size, a chunk's line range does not fit the file, a vector
table's shape is wrong, or the data is truncated. --verify also
re-analyses every imported file and compares (slower, as slow as indexing
without embedding). Results always cite and quote git, never the import.

REMOTE defaults to git config kb.share.remote, else origin.

Examples:
  git clone URL && cd repo && git kb pull && git kb search "..."
  git kb pull --verify                 # trust nothing: re-analyse too
  git kb pull --no-vectors upstream    # another model: lexical data only`,
		Flags: []cli.Flag{revFlag,
			&cli.BoolFlag{Name: "verify", Usage: "re-analyse every imported file and refuse the pull on any difference"},
			&cli.BoolFlag{Name: "no-vectors", Usage: "import the lexical data only (your embedder embeds everything)"},
			&cli.BoolFlag{Name: "no-fetch", Usage: "import from refs fetched before (git fetch, after git kb share setup)"},
			&cli.StringFlag{Name: "embed", Value: "sync", Usage: "after importing: sync, background or off (as in git kb index)"},
			jsonFlag, quietFlag,
		},
		Action: func(c *cli.Context) error {
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			remote, err := shareRemote(c.Context, c, repo)
			if err != nil {
				return err
			}
			mode := c.String("embed")
			if mode != "sync" && mode != "background" && mode != "off" {
				return usagef("--embed %s: want sync, background or off", mode)
			}
			quiet := c.Bool("quiet") || c.Bool("json")
			note := notifier(e, quiet)
			res, st, err := pullAndIndex(c.Context, e, repo, remote, c.String("rev"), mode, share.PullOptions{
				Verify: c.Bool("verify"), NoVectors: c.Bool("no-vectors"), NoFetch: c.Bool("no-fetch"),
				Progress: func(s string) { note("%s", s) },
			}, quiet)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e.Stdout, struct {
					*share.PullResult
					Index *index.Stats `json:"index"`
				}{res, st})
			}
			which := "its own"
			if !res.Exact {
				which = "of ancestor " + res.Commit[:12]
			}
			fmt.Fprintf(e.Stdout, "pulled %s from %s (%s view, %s fetched): %d files' records, %d imported, %d already here",
				res.Ref, res.Remote, which, humanBytes(res.Fetched), res.Records, res.Imported, res.Present)
			if res.Model != "" {
				fmt.Fprintf(e.Stdout, "; %d vectors of %s", res.Vectors, res.Model)
			}
			if res.Verified > 0 {
				fmt.Fprintf(e.Stdout, "; %d re-analysed and equal", res.Verified)
			}
			fmt.Fprintln(e.Stdout)
			fmt.Fprintf(e.Stdout, "indexed %s: %d files, %d chunks; %d files indexed here\n", st.Commit[:12], st.Indexed, st.Chunks, st.BlobsNew)
			printEmbed(e, st)
			return nil
		},
	}
}

// pullAndIndex pulls, indexes rev (only what the import did not cover),
// embeds as mode says, and records where the view came from.
func pullAndIndex(ctx context.Context, e env, repo *gitx.Repo, remote, rev, mode string, o share.PullOptions, quiet bool) (*share.PullResult, *index.Stats, error) {
	cfg, err := readEmbedConfig(ctx, e, repo)
	if err != nil {
		return nil, nil, err
	}
	if mode != "off" {
		if o.Embedder, err = cfg.Embedder(false); err != nil {
			return nil, nil, err
		}
	}
	o.Remote, o.Rev, o.Wait = remote, rev, lockWait
	res, err := share.Pull(ctx, repo, o)
	if err != nil {
		return nil, nil, err
	}
	st, err := runIndex(ctx, e, repo, rev, quiet)
	if err != nil {
		return res, nil, fmt.Errorf("the import succeeded, indexing the rest failed: %w", err)
	}
	if mode != "off" {
		if err := embedAfterIndex(ctx, e, repo, cfg, st, mode, quiet); err != nil {
			return res, st, err
		}
	}
	if err := share.RecordOrigin(ctx, repo, st.Commit, res.Origin, st.BlobsNew, lockWait); err != nil {
		return res, st, err
	}
	return res, st, nil
}

func shareCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "share",
		Usage: "set up a remote so plain git fetch brings the shared index (refs/kb/*)",
		Description: `'git kb share setup REMOTE' adds the refspec
+refs/kb/1/*:refs/kb/remotes/REMOTE/1/* to remote.REMOTE.fetch (so 'git
fetch' and 'git pull' bring the shared views too) and sets kb.share.remote,
which makes push and pull default to REMOTE and makes the hooks pull in
the background before indexing after a merge or checkout. 'git kb share
remove REMOTE' takes both out again; no other configuration is touched.`,
		Subcommands: []*cli.Command{
			{
				Name:      "setup",
				Usage:     "fetch refs/kb/* with REMOTE and pull from it in the hooks",
				ArgsUsage: "REMOTE",
				Action: func(c *cli.Context) error {
					repo, remote, err := shareArg(c, e)
					if err != nil {
						return err
					}
					added, err := repo.ConfigAdd(c.Context, "remote."+remote+".fetch", fetchRefspec(remote))
					if err != nil {
						return err
					}
					if err := repo.ConfigSet(c.Context, "kb.share.remote", remote); err != nil {
						return err
					}
					if added {
						fmt.Fprintf(e.Stdout, "added fetch refspec %s to remote %s\n", fetchRefspec(remote), remote)
					} else {
						fmt.Fprintf(e.Stdout, "remote %s already fetches %s\n", remote, fetchRefspec(remote))
					}
					fmt.Fprintf(e.Stdout, "kb.share.remote = %s: push and pull default to it; hooks pull from it before indexing\n", remote)
					return nil
				},
			},
			{
				Name:      "remove",
				Usage:     "undo setup: drop the refspec and kb.share.remote",
				ArgsUsage: "REMOTE",
				Action: func(c *cli.Context) error {
					repo, remote, err := shareArg(c, e)
					if err != nil {
						return err
					}
					removed, err := repo.ConfigUnsetValue(c.Context, "remote."+remote+".fetch", fetchRefspec(remote))
					if err != nil {
						return err
					}
					if set, _ := settings.Load(c.Context, repo, nil); set != nil && set.ShareRemote == remote {
						if err := repo.ConfigUnset(c.Context, "kb.share.remote"); err != nil {
							return err
						}
					}
					if removed {
						fmt.Fprintf(e.Stdout, "removed fetch refspec %s from remote %s\n", fetchRefspec(remote), remote)
					} else {
						fmt.Fprintf(e.Stdout, "remote %s had no git kb refspec\n", remote)
					}
					return nil
				},
			},
		},
	}
}

func fetchRefspec(remote string) string {
	return "+" + share.RefPrefix + "*:" + share.TrackingPrefix(remote) + "*"
}

func shareArg(c *cli.Context, e env) (*gitx.Repo, string, error) {
	if c.NArg() != 1 {
		return nil, "", usagef("%s needs exactly one REMOTE (a name from git remote)", c.Command.Name)
	}
	repo, err := openRepo(e)
	if err != nil {
		return nil, "", err
	}
	remote := c.Args().First()
	if !repo.HasRemote(c.Context, remote) {
		return nil, "", fmt.Errorf("no remote named %q (see git remote -v)", remote)
	}
	return repo, remote, nil
}
