package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/rerank"
	"github.com/git-kb/git-kb/search"
	"github.com/urfave/cli/v2"
)

func contextCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "context",
		Usage:     "print the most relevant docs and code for a query, within a token budget",
		ArgsUsage: "QUERY",
		Description: `Builds a context pack for an agent, a prompt or a script: searches like
'git kb search' (same query language), then fills --budget tokens with
whole small documents first (--ratios: by default 60% of the budget),
then the best sections (35%; adjacent chunks of one file merged), keeping
5% in reserve. The same content at two paths, or twice, is given once.
Every block is headed by its citation <commit>:<path>#L<a>-L<b>.

Tokens are counted with the cl100k_base BPE, built into the binary (no
download). Models with other vocabularies count differently: leave 10-20%
margin. The pack never exceeds the budget by that count.

Examples:
  git kb context "连接池打满怎么处理" --budget 8000 > ctx.md
  git kb context --format json --budget 4000 "@@RetryCount 重试策略"
  git kb context --format xml --ratios 0.3,0.65,0.05 "发布回滚 path:docs/"
  git kb context --related "Charge 扣款 重试"    # with the code it calls`,
		Flags: []cli.Flag{
			worktreeFlag,
			revFlag, quietFlag,
			&cli.IntFlag{Name: "budget", Value: 8000, Usage: "tokens the pack may use"},
			&cli.StringFlag{Name: "format", Value: "markdown", Usage: "markdown, json or xml"},
			jsonFormatFlag,
			&cli.StringFlag{Name: "ratios", Usage: "budget shares of whole documents, sections and reserve (default kb.context.ratios or 0.6,0.35,0.05)"},
			&cli.StringFlag{Name: "mode", Usage: "retrieval: lexical, dense or hybrid (default: hybrid with an embedder configured)"},
			&cli.StringFlag{Name: "rerank", Usage: "rerank the top 20 before packing: off, llm or endpoint (default kb.rerank.mode or off; see git kb search --help)"},
			&cli.BoolFlag{Name: "related", Usage: "pack, right after each strong match, the definitions it uses and the files it imports or is imported by (see git kb search --help)"},
		},
		Action: func(c *cli.Context) error {
			query := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
			if query == "" {
				return usagef("context needs a QUERY, e.g. git kb context \"连接池打满怎么处理\"")
			}
			format, err := formatOf(c)
			if err != nil {
				return err
			}
			if format == "md" {
				format = pack.Markdown
			}
			if format != pack.Markdown && format != pack.JSON && format != pack.XML {
				return usagef("--format %s: want markdown, json or xml", format)
			}
			if c.Int("budget") < 100 {
				return usagef("--budget %d: give at least 100 tokens", c.Int("budget"))
			}
			parsed, err := search.ParseQuery(query)
			if err != nil {
				return usageError{err.Error()}
			}
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			var ratios pack.Ratios
			if r := c.String("ratios"); r != "" {
				if ratios, err = pack.ParseRatios(r); err != nil {
					return usagef("%v", err)
				}
			}
			kb, err := openKB(c.Context, e, repo)
			if err != nil {
				return err
			}
			if c.String("ratios") == "" {
				r := kb.set.ContextRatios // kb.context.ratios
				ratios = pack.Ratios{Whole: r[0], Sections: r[1], Reserve: r[2]}
			}
			kb.worktree = c.Bool("worktree")
			p, err := kb.contextPack(c.Context, e, search.Request{Query: query, Parsed: parsed, Mode: c.String("mode"), Related: c.Bool("related")}, c.String("rev"), c.Int("budget"), ratios, format, c.String("rerank"), c.Bool("quiet"))
			if err != nil {
				return err
			}
			if len(p.Blocks) == 0 {
				notifier(e, c.Bool("quiet"))("nothing relevant found for %q in %s", query, p.Commit[:min(12, len(p.Commit))])
			}
			_, err = fmt.Fprint(e.Stdout, pack.Render(p))
			return err
		},
	}
}

// contextPack retrieves for req (40 chunks, up to 4 per file) and packs
// the results into budget tokens.
func (k *kbRepo) contextPack(ctx context.Context, e env, req search.Request, rev string, budget int, ratios pack.Ratios, format, rerankFlag string, quiet bool) (*pack.Pack, error) {
	req.K, req.PerFile = 40, 4
	mode, err := k.rerankMode(ctx, rerankFlag)
	if err != nil {
		return nil, err
	}
	var judge rerank.Scorer
	if mode != "off" {
		if judge, err = k.scorer(ctx, e, mode, req.Query); err != nil {
			return nil, err
		}
	}
	resp, err := k.search(ctx, e, req, rev, quiet, false)
	if err != nil {
		return nil, err
	}
	if judge != nil {
		k.applyRerank(ctx, e, resp, judge, mode, req.Query, len(resp.Results), 0)
	}
	if resp.Degraded != "" {
		notifier(e, quiet)("%s", resp.Degraded)
	}
	counter, err := pack.CL100K()
	if err != nil {
		return nil, fmt.Errorf("load the tokenizer: %w", err)
	}
	var cands []pack.Candidate
	rankOf := map[string]int{}
	uncommitted := map[string]string{} // blob -> path of files read from the working tree
	pathOf := map[string]string{}      // blob -> a path it is at, for kb.secrets.allow globs
	for _, r := range resp.Results {
		rank := r.Rank
		if r.Related != nil {
			// Right behind the match it belongs to (the pack's sort is
			// stable, and related results come after all matches).
			rank = rankOf[r.Related.From]
		} else if _, ok := rankOf[r.Path]; !ok {
			rankOf[r.Path] = r.Rank
		}
		if _, ok := pathOf[r.Blob]; !ok {
			pathOf[r.Blob] = r.Path
		}
		cand := pack.Candidate{Path: r.Path, Blob: r.Blob, Lang: r.Lang, Heading: r.Heading, Start: r.StartLine, End: r.EndLine, Rank: rank}
		if strings.HasPrefix(r.Citation, worktreeRev+":") {
			cand.Rev = worktreeRev
			uncommitted[r.Blob] = r.Path
		}
		cands = append(cands, cand)
	}
	return pack.Build(cands, pack.Options{
		Query: req.Query, Commit: resp.Commit, Budget: budget, Ratios: ratios, Format: format, Counter: counter,
		Lines: func(blob string) ([]string, error) {
			if p, ok := uncommitted[blob]; ok {
				lines, err := worktreeLines(k.repo, p)
				return k.secrets.RedactLines(p, lines), err
			}
			return k.blobLines(pathOf[blob], blob)
		},
	})
}

// blobLines reads a blob's text as lines (no trailing empty line), with
// secrets redacted: these lines go to packs, prompts and judges. path is
// where the blob is, for kb.secrets.allow globs.
func (k *kbRepo) blobLines(path, blob string) ([]string, error) {
	data, err := k.repo.ReadBlob(gitx.ParseHash(blob))
	if err != nil {
		return nil, err
	}
	lines, err := textLines("blob "+blob[:12], data)
	return k.secrets.RedactLines(path, lines), err
}

// textLines decodes a file's bytes (UTF-8, GB18030) into lines, without
// the empty line after a final newline; name is for the error.
func textLines(name string, data []byte) ([]string, error) {
	text, _, binary := chunk.Decode(data)
	if binary {
		return nil, fmt.Errorf("%s is binary", name)
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), nil
}

// worktreeRev is the revision worktree citations name.
const worktreeRev = "worktree"

// worktreeLines reads a working tree file's text as lines. The path must
// stay inside the working tree.
func worktreeLines(repo *gitx.Repo, p string) ([]string, error) {
	if repo.WorkTree == "" {
		return nil, fmt.Errorf("this repository has no working tree")
	}
	clean := path.Clean(strings.TrimPrefix(p, "/"))
	if clean == ".." || strings.HasPrefix(clean, "../") || filepath.IsAbs(p) {
		return nil, fmt.Errorf("%s is outside the working tree", p)
	}
	data, err := os.ReadFile(filepath.Join(repo.WorkTree, filepath.FromSlash(clean)))
	if err != nil {
		return nil, err
	}
	return textLines(p, data)
}
