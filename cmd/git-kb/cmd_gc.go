package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
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

func gcCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "gc",
		Usage: "drop index data that no kept commit uses, and compact",
		Description: `Keeps the views of HEAD, of every local branch head, of the N most recently
indexed commits (--keep-recent, default kb.gc.keepRecent or 5) and, with
--tags (or kb.gc.keepTags), of tagged commits. Everything else derived goes:
views of other commits, files in none of the kept views, whole index
segments none of whose chunks a kept view uses (postings, lengths, vector
tables, graphs), data of older pipeline versions and of killed runs, and
cached query vectors older than 30 days or of another model. Cached
document embeddings stay (keyed by text, they make re-indexing cheap).
Then the database is compacted and the space freed is reported.

It waits for running index and embedding runs and holds them off while it
works; searches wait for it. --dry-run only counts.

--auto drops only what an upgrade of git-kb leaves behind: the data of older
index pipeline versions, which the new version rebuilt and never reads again.
Every indexed commit's view stays. git kb index starts it in the background
after such a rebuild (log: .git/kb/gc.log) unless kb.gc.auto is false; it
does nothing when there is nothing of an older version, or when a newer
git-kb uses the same index.`,
		Flags: []cli.Flag{
			jsonFlag, quietFlag,
			&cli.IntFlag{Name: "keep-recent", Value: -1, DefaultText: "kb.gc.keepRecent or 5", Usage: "also keep the N most recently indexed commits"},
			&cli.BoolFlag{Name: "tags", DefaultText: "kb.gc.keepTags or false", Usage: "also keep the views of tagged commits"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "report what would be dropped, change nothing"},
			&cli.BoolFlag{Name: "auto", Usage: "drop only older git-kb versions' index data, keep every view (what git kb index starts after an upgrade)"},
		},
		Action: func(c *cli.Context) error {
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			set, err := settings.Load(c.Context, repo, e.getenv)
			if err != nil {
				return err
			}
			o := index.GCOptions{KeepRecent: set.GCKeepRecent, KeepTags: c.Bool("tags") || set.GCKeepTags, DryRun: c.Bool("dry-run"), Auto: c.Bool("auto"), Wait: lockWait}
			if o.Auto {
				// Started by an index run that may still be embedding:
				// wait as long as a run can reasonably take.
				o.Wait = autoGCWait
			}
			if c.Int("keep-recent") >= 0 {
				o.KeepRecent = c.Int("keep-recent")
			}
			cfg := engine.EmbedConfigOf(set)
			if emb, err := cfg.Embedder(false); err == nil && emb != nil {
				mk := index.ModelKey(emb)
				o.QueryModel = hex.EncodeToString(mk[:])
			}
			note := notifier(e, c.Bool("quiet"))
			o.OnWait = func(what string) { note("waiting for %s...", what) }
			t0 := time.Now()
			rep, err := index.GC(c.Context, repo, o)
			if err != nil {
				return friendly(err)
			}
			if c.Bool("json") {
				return writeJSON(e.Stdout, rep)
			}
			verb := "dropped"
			if rep.DryRun {
				verb = "would drop"
			}
			if o.Auto {
				if rep.Skipped != "" {
					fmt.Fprintf(e.Stdout, "nothing to do: %s\n", rep.Skipped)
					return nil
				}
				fmt.Fprintf(e.Stdout, "kept every indexed commit's view (%d); %s an older git-kb version's index data (%d files, %d segments, %d keys)\n",
					rep.RefsKept, verb, rep.OtherPipelineFiles, rep.SegmentsDropped, rep.KeysDeleted)
				if !rep.DryRun {
					fmt.Fprintf(e.Stdout, "index: %s -> %s (freed %s) in %.1fs\n", humanBytes(rep.BytesBefore), humanBytes(rep.BytesAfter), humanBytes(max(0, rep.BytesBefore-rep.BytesAfter)), time.Since(t0).Seconds())
				}
				return nil
			}
			commits := "commits"
			if rep.RefsKept == 1 {
				commits = "commit"
			}
			fmt.Fprintf(e.Stdout, "kept %d indexed %s; %s %d (%d views, %d files, %d segments, %d keys)\n",
				rep.RefsKept, commits, verb, rep.RefsDropped, rep.ViewsDropped, rep.BlobsDropped, rep.SegmentsDropped, rep.KeysDeleted)
			if rep.DeadChunks > 0 {
				fmt.Fprintf(e.Stdout, "%d chunks in kept segments are used by no kept commit; their postings stay until the whole segment goes\n(to rebuild compactly: rm -rf %s && git kb index)\n", rep.DeadChunks, index.DBDir(repo))
			}
			if rep.QueryFilesDropped > 0 {
				fmt.Fprintf(e.Stdout, "%s %d cached query vectors (%s)\n", verb, rep.QueryFilesDropped, humanBytes(rep.QueryBytesFreed))
			}
			if rep.DamagedDropped > 0 {
				fmt.Fprintf(e.Stdout, "%s %d damaged indexes set aside over %d days ago (.git/kb/damaged)\n", verb, rep.DamagedDropped, int(index.DamagedKeep.Hours()/24))
			}
			if rep.ReplacedDropped > 0 {
				fmt.Fprintf(e.Stdout, "%s %d old indexes left by an interrupted rebuild (.git/kb/replaced)\n", verb, rep.ReplacedDropped)
			}
			if !rep.DryRun {
				fmt.Fprintf(e.Stdout, "index: %s -> %s (freed %s) in %.1fs\n", humanBytes(rep.BytesBefore), humanBytes(rep.BytesAfter), humanBytes(max(0, rep.BytesBefore-rep.BytesAfter)), time.Since(t0).Seconds())
			}
			return nil
		},
	}
}

// autoGCWait is how long gc --auto waits for the index and embedding runs
// (the one that started it may still be embedding) and for searches.
const autoGCWait = 30 * time.Minute

// pulledSample is how many files of each pulled view doctor re-analyses:
// a fraction of a second, and a bad import rarely spares them all.
const pulledSample = 20

func doctorCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the index against git and say what to do",
		Description: `Checks the format and pipeline versions; that every indexed commit still
exists in git with the tree its view was built from; that each view's chunk
count adds up and the segments and file records it uses are all there;
vector coverage for the configured embedder; for views pulled from a
remote (git kb pull), re-analyses a random sample of their files and
compares with the index; and how the last background run of the hooks
ended. Every block and value of the index is verified against its
checksum first (like git fsck); a damaged file is named. Exits 1 if
something is broken.

--fix repairs what doctor found broken: a damaged index (or embedding
cache) is moved aside to .git/kb/damaged/ (kept for a bug report; gc
removes it after 14 days) and HEAD is indexed afresh from git. The
embedding cache is kept, so the vectors come back without model calls.
The same rebuild, unconditionally: git kb index --rebuild (which removes
an old index that passes its checks once the new one is built).

With --secrets, lists instead where secrets were found and redacted in the
indexed files of a commit (path, lines and rule id, never the value), and
the files skipped whole as secrets files (.env, *.pem, id_rsa, ...):
  git kb doctor --secrets
  git kb doctor --secrets --rev v1.2 --json
A false positive (a value that is not a secret and that you want to find)
is allowed by rule id or by path glob, then re-indexed on the next run:
  git config --add kb.secrets.allow jwt
  git config --add kb.secrets.allow 'docs/examples/**'
or the file is left out of the index with a .kbignore line.`,
		Flags: []cli.Flag{jsonFlag, quietFlag,
			&cli.BoolFlag{Name: "fix", Usage: "rebuild a damaged or inconsistent index from git (the old one is kept under .git/kb/damaged)"},
			&cli.BoolFlag{Name: "secrets", Usage: "list where secrets were redacted (path, line, rule; never the value)"},
			&cli.StringFlag{Name: "rev", Value: "HEAD", Usage: "with --secrets: the commit to report on"},
		},
		Action: func(c *cli.Context) error {
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			if c.Bool("secrets") {
				return doctorSecrets(c.Context, e, repo, c.String("rev"), c.Bool("json"))
			}
			cfg, emb, err := configuredEmbedder(c.Context, e, repo)
			if err != nil {
				return err
			}
			checks, err := index.Doctor(c.Context, repo, emb)
			if err != nil {
				return err
			}
			if c.Bool("fix") && needsRebuild(checks) {
				quiet := c.Bool("quiet") || c.Bool("json")
				if err := rebuild(c.Context, e, repo, cfg, quiet, lockWait, indexDamaged(checks)); err != nil {
					return err
				}
				if checks, err = index.Doctor(c.Context, repo, emb); err != nil {
					return err
				}
			}
			pulled, err := share.CheckPulled(c.Context, repo, pulledSample, lockWait)
			if err != nil && !needsRebuild(checks) {
				return err
			}
			checks = append(checks, pulled...) // a damaged index: reported above
			if cfg.Off != "" {
				checks = append(checks, index.Check{Name: "dense", Status: "ok", Detail: "off: " + cfg.Off})
			}
			checks = append(checks, synonymsCheck(c.Context, e, repo)...)
			if dir, err := repo.HooksDir(c.Context); err == nil {
				installed := 0
				dir = hooks.Detect(dir, repo.WorkTree).Dir
				in := hooks.ReadInstalled(repo.KBDir())
				var gone []string
				if in != nil {
					gone = in.Missing()
				}
				for _, h := range hooks.Status(dir) {
					if h.Ours || h.Shared {
						installed++
					}
				}
				switch last := hooks.ReadLast(repo.KBDir()); {
				case len(gone) > 0:
					checks = append(checks, index.Check{Name: "hooks", Status: "warn", Detail: fmt.Sprintf("installed %s, now gone (%s): a hook manager may have regenerated its folder; the index no longer follows commits", in.At.Local().Format("2006-01-02"), strings.Join(gone, ", ")), Fix: "run: git kb hooks install"})
				case installed == 0:
					checks = append(checks, index.Check{Name: "hooks", Status: "ok", Detail: "not installed: the index follows HEAD only when you search or index", Fix: "optional: git kb hooks install"})
				case installed < len(hooks.Names):
					checks = append(checks, index.Check{Name: "hooks", Status: "warn", Detail: fmt.Sprintf("%d of %d hooks installed", installed, len(hooks.Names)), Fix: "run: git kb hooks install"})
				case last != nil && !last.OK:
					checks = append(checks, index.Check{Name: "hooks", Status: "warn", Detail: "the last background run failed: " + last.Error, Fix: "see .git/kb/" + hooks.LogFile})
				default:
					checks = append(checks, index.Check{Name: "hooks", Status: "ok", Detail: "installed"})
				}
			}
			broken := false
			for _, ch := range checks {
				broken = broken || ch.Status == "error"
			}
			if c.Bool("json") {
				if err := writeJSON(e.Stdout, checks); err != nil {
					return err
				}
			} else {
				for _, ch := range checks {
					fmt.Fprintf(e.Stdout, "%-5s %-20s %s\n", strings.ToUpper(ch.Status), ch.Name, ch.Detail)
					if ch.Fix != "" && ch.Status != "ok" {
						fmt.Fprintf(e.Stdout, "      %-20s -> %s\n", "", ch.Fix)
					}
				}
			}
			if broken {
				return fmt.Errorf("the index has problems; see above")
			}
			return nil
		},
	}
}

// doctorSecrets prints where the view of rev had secrets redacted.
func doctorSecrets(ctx context.Context, e env, repo *gitx.Repo, rev string, asJSON bool) error {
	k, err := openKB(ctx, e, repo, asJSON)
	if err != nil {
		return err
	}
	_, tree, err := repo.Resolve(ctx, rev)
	if err != nil {
		return err
	}
	v, err := k.OpenView(ctx, rev, false)
	if err != nil {
		return err
	}
	defer v.Close()
	if v.Stale != nil {
		return fmt.Errorf("%s is being indexed now; run this again when it is done", rev)
	}
	entries, err := repo.ListTree(ctx, tree)
	if err != nil {
		return err
	}
	sites, err := index.SecretSites(v.DB, v.View, entries, k.Secrets)
	if err != nil {
		return err
	}
	commit := hex.EncodeToString(v.Commit[:])
	if asJSON {
		if sites == nil {
			sites = []index.SecretSite{}
		}
		return writeJSON(e.Stdout, map[string]any{"commit": commit, "redactions": sites})
	}
	files := map[string]bool{}
	for _, s := range sites {
		files[s.Path] = true
		switch {
		case s.Rule == index.SkippedSecretFile:
			fmt.Fprintf(e.Stdout, "%s\tnot indexed or served: a secrets file by its name\n", s.Path)
		case s.EndLine > s.Line:
			fmt.Fprintf(e.Stdout, "%s:%d-%d\t%s\n", s.Path, s.Line, s.EndLine, s.Rule)
		default:
			fmt.Fprintf(e.Stdout, "%s:%d\t%s\n", s.Path, s.Line, s.Rule)
		}
	}
	fmt.Fprintf(e.Stderr, "%d place(s) in %d file(s) at %s", len(sites), len(files), commit[:12])
	if len(sites) > 0 {
		fmt.Fprintf(e.Stderr, "; a false positive: git config --add kb.secrets.allow <rule-id or path glob>")
	}
	fmt.Fprintln(e.Stderr)
	return nil
}

// needsRebuild says whether doctor found what only a rebuild mends: a
// damaged or inconsistent index, or a damaged embedding cache.
func needsRebuild(checks []index.Check) bool {
	for _, ch := range checks {
		if ch.Name == "embedding cache" && ch.Status != "ok" {
			return true
		}
	}
	return indexDamaged(checks)
}

// indexDamaged says whether doctor found the index itself damaged or
// inconsistent: a rebuild keeps that one for a bug report.
func indexDamaged(checks []index.Check) bool {
	for _, ch := range checks {
		if ch.Status == "error" {
			return true
		}
	}
	return false
}

// rebuild indexes HEAD afresh in place of the index (damaged: doctor
// found it so) and fills in its vectors from the embedding cache
// (embedding only what it lacks).
func rebuild(ctx context.Context, e env, repo *gitx.Repo, cfg *engine.EmbedConfig, quiet bool, wait time.Duration, damaged bool) error {
	note := notifier(e, quiet)
	bar := newProgress(e.Stderr, e.StderrTTY && !quiet)
	rep, st, err := index.Rebuild(ctx, repo, index.Options{
		Rev: "HEAD", Wait: max(wait, 0), Version: version,
		OnWait:   func(what string) { note("waiting for %s...", what) },
		Progress: bar.update,
	}, damaged)
	bar.done()
	if rep.MovedIndex != "" {
		note("moved the damaged index to %s (kept for a bug report; gc removes it after %d days)", rep.MovedIndex, int(index.DamagedKeep.Hours()/24))
	}
	if rep.MovedCache != "" {
		note("the embedding cache failed its checks too: moved to %s", rep.MovedCache)
	}
	if err != nil {
		return err
	}
	note("rebuilt the index of %s: %d files, %d chunks in %.1fs", st.Commit[:12], st.Indexed, st.Chunks, st.Seconds)
	o := engineOptions(e, quiet)
	o.Wait = wait
	if err := engine.EmbedAfterIndex(ctx, repo, cfg, st, "sync", o); err != nil {
		return err
	}
	if es := st.Embed; es != nil {
		note("vectors: %d chunks, %d from the cache, %d embedded", es.Chunks, es.Cached, es.Embedded)
	}
	return nil
}

// synonymsCheck is doctor's line on kb.synonyms (none when unset): a file
// that does not parse fails every search, so it is an error here; a
// missing or empty one is searched without, a warning.
func synonymsCheck(ctx context.Context, e env, repo *gitx.Repo) []index.Check {
	set, err := settings.Load(ctx, repo, e.getenv)
	if err != nil || set.Synonyms == "" {
		return nil // a refused setting is reported by the commands that use it
	}
	check := func(status, detail, fix string) []index.Check {
		return []index.Check{{Name: "synonyms", Status: status, Detail: detail, Fix: fix}}
	}
	f, keys, err := engine.CheckSynonyms(repo, set, secrets.NewPolicy(set.SecretsAllow))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return check("warn", "kb.synonyms: "+f.Path+" does not exist: searches run without the team's synonyms", "create it, or: git config --unset kb.synonyms")
	case err != nil:
		return check("error", err.Error(), "fix the file or the key (format: git kb search --help), or: git config --unset kb.synonyms")
	case keys == 0:
		return check("warn", "kb.synonyms: "+f.Path+" has no entries", "add lines like: 熔断, circuitbreaker")
	case keys == 1:
		return check("ok", "1 key from "+f.Path+" (kb.synonyms)", "")
	}
	return check("ok", fmt.Sprintf("%d keys from %s (kb.synonyms)", keys, f.Path), "")
}
