package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/hooks"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/settings"
	"github.com/git-kb/git-kb/share"
	"github.com/urfave/cli/v2"
)

func hooksCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "hooks",
		Usage: "keep the index current with git hooks (install, uninstall, status)",
		Description: `'git kb hooks install' adds post-checkout, post-commit, post-merge and
post-rewrite hooks, so checkout, switch, commit, merge, pull, amend and
rebase keep HEAD's index current. A hook returns to git at once: it starts
a background indexer, which waits for a burst of hooks (a rebase fires
dozens) to end and indexes the final HEAD once, then embeds new chunks if
an embedder is configured. Its log is .git/kb/hooks.log.

Hooks go where git looks for them: core.hooksPath if set, else the common
git dir (shared by all worktrees). A hook that is already there is kept,
renamed to <name>.pre-git-kb, and run first with the same arguments and
stdin; its exit status is what git sees. Installing twice changes nothing;
'git kb hooks uninstall' removes only our hooks and restores the others.

With a hook manager, install goes where the manager keeps it and changes no
tracked file: husky 9 and a core.hooksPath folder in the work tree get
untracked hooks listed in .git/info/exclude (a tracked team hook is left
alone; --shared adds one line, with no machine path, for the team to
commit); lefthook gets lefthook-local.yml and 'lefthook install'; the
pre-commit framework keeps ours as <name>.legacy and runs them. With
--shared, lefthook.yml gets our four hooks and .pre-commit-config.yaml a
'repo: local' hook, appended as text (uninstall takes them out). If the
hooks vanish later, search and status say so once and doctor warns.`,
		Subcommands: []*cli.Command{
			{
				Name:  "install",
				Usage: "install the hooks (chaining any existing ones; per-user unless --shared)",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "shared", Usage: "add our hooks, with no machine path, to the team's tracked files (husky, a core.hooksPath folder, lefthook.yml, .pre-commit-config.yaml) for the team to commit"}},
				Action: func(c *cli.Context) error {
					return hooksInstall(c, e)
				},
			},
			{
				Name:  "uninstall",
				Usage: "remove our hooks and lines, restoring the files they changed",
				Action: func(c *cli.Context) error {
					return hooksUninstall(c, e)
				},
			},
			{
				Name:  "status",
				Usage: "show which hooks are installed and how the last background run ended",
				Flags: []cli.Flag{jsonFlag},
				Action: func(c *cli.Context) error {
					return printHooksStatus(c, e)
				},
			},
			{
				Name:      "run",
				Usage:     "what the installed hooks call (not for direct use)",
				ArgsUsage: "HOOK [ARGS...]",
				Hidden:    true,
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "background", Usage: "be the runner"}},
				Action: func(c *cli.Context) error {
					return hooksRun(c, e)
				},
			},
		},
	}
}

// hooksDir opens the repository and finds where git runs its hooks.
func hooksDir(c *cli.Context, e env) (*gitx.Repo, string, error) {
	repo, err := openRepo(e)
	if err != nil {
		return nil, "", err
	}
	dir, err := repo.HooksDir(c.Context)
	return repo, dir, err
}

// hooksInstall installs the hooks where this repository's hook manager (or git) runs them.
func hooksInstall(c *cli.Context, e env) error {
	repo, dir, err := hooksDir(c, e)
	if err != nil {
		return err
	}
	if repo.WorkTree == "" {
		return fmt.Errorf("hooks install: %s is a bare repository: nothing is checked out, committed or merged in it, so these hooks would never run; keep its index current with git kb index (from cron, or a post-receive hook you write)", repo.CommonDir)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return err
	}
	s := hooks.Detect(dir, repo.WorkTree)
	in := &hooks.Installed{At: time.Now().UTC(), Kind: s.Kind}
	if prev := hooks.ReadInstalled(repo.KBDir()); prev != nil {
		in.Exclude, in.ExclIn = prev.Exclude, prev.ExclIn // replaced, not added twice
		// A block --shared added stays ours to remove, and so do
		// hooks lefthook added for us, whatever this install does.
		in.TeamFile, in.TeamBlock = prev.TeamFile, prev.TeamBlock
		if prev.Kind == s.Kind {
			in.Added = prev.Added
		}
	}
	did, err := installFor(c.Context, repo, dir, exe, s, in, c.Bool("shared"))
	for _, d := range did {
		fmt.Fprintln(e.Stdout, d)
	}
	if err != nil {
		return err
	}
	if err := hooks.WriteInstalled(repo.KBDir(), in); err != nil {
		return err
	}
	printInstallNote(e.Stdout, s, dir, c.Bool("shared"))
	fmt.Fprintln(e.Stdout, "the index of HEAD now follows checkout, commit, merge, pull and rebase")
	return nil
}

// installFor installs the hooks the way s's manager (or plain git) runs
// them, recording in in what it added; did says what changed.
func installFor(ctx context.Context, repo *gitx.Repo, dir, exe string, s hooks.Setup, in *hooks.Installed, shared bool) (did []string, err error) {
	switch s.Kind {
	case hooks.KindHusky, hooks.KindTeam:
		if s.Kind == hooks.KindHusky {
			// An older git-kb wrote into husky's _ folder: take that out.
			d, err := hooks.Uninstall(s.HooksDir)
			if err != nil {
				return nil, err
			}
			for _, x := range d {
				if !strings.Contains(x, "not ours") {
					did = append(did, x)
				}
			}
		}
		var d []string
		d, err = hooks.InstallTeam(s, hooks.TeamOptions{
			Exe: exe, Shared: shared, Exclude: repo.InfoExclude(),
			Tracked: func(p string) bool { return repo.Tracked(ctx, p) },
		}, in)
		did = append(did, d...)
	case hooks.KindLefthook:
		// Ours in .git/hooks (an earlier install) would be moved aside by lefthook.
		if _, err := hooks.Uninstall(dir); err != nil {
			return nil, err
		}
		if shared {
			did, err = hooks.InstallLefthookShared(s, in)
		} else {
			did, err = hooks.InstallLefthook(s, exe, repo.InfoExclude(), in)
		}
	case hooks.KindPreCommit:
		// Ours in .git/hooks work now; --shared also gives the team
		// a repo: local hook, which works once each member runs
		// pre-commit install for those hook types.
		if shared {
			var d string
			if d, err = hooks.SharePreCommit(repo.WorkTree, in); err != nil {
				return nil, err
			}
			did = append(did, d)
		}
		var d []string
		d, err = hooks.Install(dir, exe)
		did = append(did, d...)
		for _, n := range hooks.Names {
			in.Scripts = append(in.Scripts, filepath.Join(dir, n))
		}
	default:
		if shared {
			return nil, usagef("--shared adds a line to hook files kept in the work tree (husky, core.hooksPath); here git runs hooks from %s, which is per-user already", dir)
		}
		did, err = hooks.Install(dir, exe)
		for _, n := range hooks.Names {
			in.Scripts = append(in.Scripts, filepath.Join(dir, n))
		}
	}
	return did, err
}

// printInstallNote says where the hooks went and what keeps them there.
func printInstallNote(w io.Writer, s hooks.Setup, dir string, shared bool) {
	switch s.Kind {
	case hooks.KindHusky:
		fmt.Fprintf(w, "husky: hooks in %s, which husky runs and never regenerates; git status is unchanged\n", s.Dir)
	case hooks.KindTeam:
		fmt.Fprintf(w, "core.hooksPath is %s, in the work tree\n", s.Dir)
	case hooks.KindPreCommit:
		fmt.Fprintln(w, "pre-commit: our hooks keep working after 'pre-commit install' (it keeps them as <hook>.legacy and runs them)")
		if !shared {
			fmt.Fprintf(w, "to share them with the team, run 'git kb hooks install --shared', or add under repos: in .pre-commit-config.yaml:\n%s", hooks.PreCommitHook)
		}
	case hooks.KindLefthook:
		if shared {
			fmt.Fprintln(w, "lefthook: the hooks are in the team's config, so 'lefthook install' keeps them")
		} else {
			fmt.Fprintln(w, "lefthook: the hooks are in lefthook-local.yml, so 'lefthook install' keeps them; git status is unchanged")
		}
	default:
		fmt.Fprintf(w, "hooks in %s\n", dir)
	}
}

// hooksUninstall removes our hooks and the lines install added, restoring what they changed.
func hooksUninstall(c *cli.Context, e env) error {
	repo, dir, err := hooksDir(c, e)
	if err != nil {
		return err
	}
	var did []string
	if in := hooks.ReadInstalled(repo.KBDir()); in != nil {
		if did, err = hooks.UninstallRecorded(in); err != nil {
			return err
		}
	}
	d, err := hooks.Uninstall(dir)
	for _, x := range d {
		if !strings.Contains(x, "not ours") || len(did) == 0 {
			did = append(did, x)
		}
	}
	for _, x := range did {
		fmt.Fprintln(e.Stdout, x)
	}
	if err != nil {
		return err
	}
	if err := hooks.WriteInstalled(repo.KBDir(), nil); err != nil {
		return err
	}
	if len(did) == 0 {
		fmt.Fprintf(e.Stdout, "no git kb hooks in %s\n", dir)
	}
	return nil
}

// printHooksStatus prints which hooks are installed and how the last background run ended.
func printHooksStatus(c *cli.Context, e env) error {
	repo, dir, err := hooksDir(c, e)
	if err != nil {
		return err
	}
	setup := hooks.Detect(dir, repo.WorkTree)
	var missing []string
	if in := hooks.ReadInstalled(repo.KBDir()); in != nil {
		missing = in.Missing()
	}
	st := struct {
		Dir     string       `json:"dir"`
		Kind    string       `json:"kind"`
		Hooks   []hooks.Hook `json:"hooks"`
		Missing []string     `json:"missing,omitempty"`
		Last    *hooks.Last  `json:"last_run"`
		Log     string       `json:"log"`
	}{setup.Dir, setup.Kind, hooks.Status(setup.Dir), missing, hooks.ReadLast(repo.KBDir()), filepath.Join(repo.KBDir(), hooks.LogFile)}
	if c.Bool("json") {
		return writeJSON(e.Stdout, st)
	}
	fmt.Fprintf(e.Stdout, "hooks dir: %s (%s)\n", st.Dir, st.Kind)
	for _, m := range missing {
		fmt.Fprintf(e.Stdout, "  GONE: %s (installed, then removed; run: git kb hooks install)\n", m)
	}
	for _, h := range st.Hooks {
		state := "not installed"
		switch {
		case h.Ours && h.Chained:
			state = "installed, runs " + h.Name + hooks.ChainSuffix + " first"
		case h.Ours:
			state = "installed"
		case h.Shared:
			state = "installed (the team's hook runs git kb)"
		case h.Foreign:
			state = "not installed (someone else's hook is there; install chains it)"
		}
		fmt.Fprintf(e.Stdout, "  %-14s %s\n", h.Name, state)
	}
	switch l := st.Last; {
	case l == nil:
		fmt.Fprintln(e.Stdout, "last run: none yet")
	case l.OK:
		fmt.Fprintf(e.Stdout, "last run: ok, indexed %s at %s in %.2fs\n", l.Commit[:min(12, len(l.Commit))], l.Ended.Local().Format("2006-01-02 15:04:05"), l.Seconds)
	default:
		fmt.Fprintf(e.Stdout, "last run: FAILED at %s: %s\n", l.Ended.Local().Format("2006-01-02 15:04:05"), l.Error)
	}
	fmt.Fprintf(e.Stdout, "log:      %s\n", st.Log)
	return nil
}

// hooksRun is what an installed hook calls: quick, never failing git; with --background, the runner itself.
func hooksRun(c *cli.Context, e env) error {
	repo, err := openRepo(e)
	if err != nil {
		return nil // not our business to fail a git command
	}
	if c.Bool("background") {
		return runHooks(c.Context, e, repo)
	}
	if !headMoved(c.Args().Slice()) {
		return nil
	}
	if h := c.Args().First(); h == "post-merge" || h == "post-checkout" {
		wantPull(repo) // new commits may have come with shared data
	}
	spawn, err := hooks.Trigger(repo.KBDir(), headOf(repo))
	if err != nil || !spawn {
		return nil
	}
	spawnRunner(repo)
	return nil
}

// headMoved tells from a hook's name and arguments whether HEAD may have
// moved to another commit: post-checkout says so in its arguments (old
// HEAD, new HEAD, and 0 for a checkout of files, which leaves HEAD alone).
func headMoved(args []string) bool {
	if len(args) >= 4 && args[0] == "post-checkout" {
		return args[3] != "0" && args[1] != args[2]
	}
	return len(args) > 0
}

// spawnRunner starts the detached background runner.
func spawnRunner(repo *gitx.Repo) {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	logf, err := os.OpenFile(filepath.Join(repo.KBDir(), hooks.LogFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer logf.Close()
	cmd := exec.Command(exe, "hooks", "run", "--background")
	cmd.Dir = repo.WorkTree
	if cmd.Dir == "" {
		cmd.Dir = repo.GitDir
	}
	// The hook's environment, minus what git sets for the hook itself.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_INDEX_FILE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	engine.Detach(cmd)
	if cmd.Start() == nil {
		cmd.Process.Release()
	}
}

// hookHead names a worktree's HEAD for hooks.Trigger: its git dir and
// work tree, as the hook's git gave them (in a linked worktree git sets
// GIT_DIR for the hook, so the runner's own GIT_DIR may name another).
type hookHead struct {
	GitDir   string `json:"git_dir"`
	WorkTree string `json:"work_tree,omitempty"`
}

func headOf(repo *gitx.Repo) string {
	b, _ := json.Marshal(hookHead{repo.GitDir, repo.WorkTree})
	return string(b)
}

// runHooks is the background runner: index the HEAD of each worktree
// whose hook fired, after each burst of hooks.
func runHooks(ctx context.Context, e env, own *gitx.Repo) error {
	quiet := e
	quiet.StderrTTY = false
	return hooks.Run(ctx, own.KBDir(), headOf(own), func(ctx context.Context, head string) (string, error) {
		repo := own
		if head != headOf(own) {
			var h hookHead
			if err := json.Unmarshal([]byte(head), &h); err != nil {
				return "", fmt.Errorf("hooks: %q names no worktree: %w", head, err)
			}
			if _, err := os.Stat(h.GitDir); err != nil {
				return "", nil // the worktree was removed since its hook fired
			}
			var err error
			if repo, err = gitx.OpenAt(h.GitDir, h.WorkTree); err != nil {
				return "", err
			}
		}
		ictx, cancel := context.WithTimeout(ctx, time.Hour)
		defer cancel()
		if st, ok := hookPull(ictx, e, quiet, repo); ok {
			return st.Commit, nil
		}
		st, err := runIndex(ictx, quiet, repo, "HEAD", true)
		if err != nil {
			return "", err
		}
		cfg, err := readEmbedConfig(ctx, e, repo)
		if err == nil {
			err = embedAfterIndex(ctx, quiet, repo, cfg, st, "background", true)
		}
		hookPublish(ictx, e, repo, st.Commit)
		return st.Commit, err
	})
}

// hookPublish publishes the commit just indexed to the org index when
// kb.org.autoPublish asks for it (engine.AutoPublish decides); the
// outcome goes to the hooks log, and a failure never fails the indexing.
func hookPublish(ctx context.Context, e env, repo *gitx.Repo, commit string) {
	kb, err := openKB(ctx, e, repo, true)
	if err != nil {
		return // indexing reported the settings
	}
	st, ran, err := kb.AutoPublish(ctx, commit)
	switch {
	case err != nil:
		fmt.Fprintf(e.Stderr, "%s git kb: publish %s: %v\n", time.Now().Format(time.RFC3339), commit[:min(12, len(commit))], friendly(err))
	case ran:
		fmt.Fprintf(e.Stderr, "%s git kb: published %s at %s to %s: wrote %d chunks, deleted %d\n",
			time.Now().Format(time.RFC3339), st.Repo, commit[:min(12, len(commit))], st.Collection, st.Written, st.Deleted)
	}
}

// pullMarker asks the runner to pull before indexing: a merge or checkout
// fired a hook. A file, so the hook itself does no git work.
func pullMarker(repo *gitx.Repo) string { return filepath.Join(repo.KBDir(), "hooks", "pull-wanted") }

func wantPull(repo *gitx.Repo) {
	if os.MkdirAll(filepath.Dir(pullMarker(repo)), 0o755) == nil {
		os.WriteFile(pullMarker(repo), nil, 0o644)
	}
}

// hookPull pulls from kb.share.remote when a merge or checkout asked for
// it: the imported data covers most of the new HEAD, the rest is indexed
// locally and embedded in the background. A failed pull (offline, nothing
// shared, refused) is logged and the caller indexes as usual.
func hookPull(ctx context.Context, e, quiet env, repo *gitx.Repo) (*index.Stats, bool) {
	if os.Remove(pullMarker(repo)) != nil {
		return nil, false
	}
	// A bad value elsewhere in kb.* does not stop the pull: indexing
	// reports it.
	set, _ := settings.Load(ctx, repo, nil)
	if set == nil || set.ShareRemote == "" {
		return nil, false
	}
	remote := set.ShareRemote
	res, st, err := pullAndIndex(ctx, quiet, repo, remote, "HEAD", "background", share.PullOptions{}, true)
	remote = secrets.RedactURL(remote) // for hooks.log
	if err != nil {
		fmt.Fprintf(e.Stderr, "%s git kb: pull from %s: %v; indexing locally\n", time.Now().Format(time.RFC3339), remote, friendly(err))
		return nil, false
	}
	fmt.Fprintf(e.Stderr, "%s git kb: pulled %s from %s: %d files imported, %d already here, %d analysed here\n",
		time.Now().Format(time.RFC3339), res.Ref, remote, res.Imported, res.Present, st.BlobsNew)
	return st, true
}

// noticeGoneHooks says once, in one line on stderr, that hooks installed
// here have disappeared (a hook manager regenerated its folder).
func noticeGoneHooks(e env, repo *gitx.Repo) {
	in := hooks.ReadInstalled(repo.KBDir())
	if in == nil || !in.Noticed.IsZero() {
		return
	}
	gone := in.Missing()
	if len(gone) == 0 {
		return
	}
	fmt.Fprintf(e.Stderr, "git kb: the hooks installed %s are gone (%s): the index no longer follows commits; put them back: git kb hooks install\n", in.At.Local().Format("2006-01-02"), gone[0])
	in.Noticed = time.Now().UTC()
	hooks.WriteInstalled(repo.KBDir(), in)
}
