package main

import (
	"fmt"
	"strings"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/pack"
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
  git kb context --budget 8000 "连接池打满怎么处理" > ctx.md
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
			&cli.StringFlag{Name: "mode", Usage: "retrieval: lexical, dense or hybrid (default: hybrid with an embedder configured, else lexical)"},
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
				return usagef("%s", err)
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
			kb, err := openKB(c.Context, e, repo, c.Bool("quiet"))
			if err != nil {
				return err
			}
			if c.String("ratios") == "" {
				r := kb.Settings.ContextRatios // kb.context.ratios
				ratios = pack.Ratios{Whole: r[0], Sections: r[1], Reserve: r[2]}
			}
			p, err := kb.ContextPack(c.Context, engine.ContextRequest{Request: search.Request{Query: query, Parsed: parsed, Mode: c.String("mode"), Related: c.Bool("related")},
				Rev: c.String("rev"), Worktree: c.Bool("worktree"), Rerank: c.String("rerank"), Budget: c.Int("budget"), Ratios: ratios, Format: format})
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
