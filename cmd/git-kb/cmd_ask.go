package main

import (
	"fmt"
	"strings"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/search"
	"github.com/urfave/cli/v2"
)

// askResult is the --json contract of git kb ask.
type askResult = engine.AskResult

func askCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "ask",
		Usage:     "answer a question from the docs and code, citing sources",
		ArgsUsage: "QUESTION",
		Description: `Retrieves like 'git kb context' (same query language), then asks an
OpenAI-compatible chat model to answer from those sources only, citing
them as [1], [2]. The answer streams as it is written; below it, each
cited [n] is listed as <commit>:<path>#L<a>-L<b> with its heading. A
citation number the model invents is removed and reported.

  git config kb.chat.baseURL http://localhost:11434/v1
  git config kb.chat.model qwen2.5:14b
  export GIT_KB_API_KEY=...     # or OPENAI_API_KEY
Optional: kb.chat.timeoutMs (120000), kb.chat.maxRetries (3).

Without a chat model, or when it fails, ask answers extractively: the
sentences of the best sources that match the question, matched words in
bold, each cited, and it says why.

Examples:
  git kb ask "线上数据库连接池打满怎么处理？"
  git kb ask --json "发布失败后如何回滚" | jq .citations`,
		Flags: []cli.Flag{
			worktreeFlag,
			revFlag, jsonFlag, quietFlag,
			&cli.IntFlag{Name: "budget", Value: 6000, Usage: "tokens of sources given to the model"},
			&cli.BoolFlag{Name: "no-stream", Usage: "wait for the whole answer instead of streaming it"},
			&cli.StringFlag{Name: "mode", Usage: "retrieval: lexical, dense or hybrid (default: hybrid with an embedder configured, else lexical)"},
			&cli.StringFlag{Name: "rerank", Usage: "rerank the top 20 sources first: off, llm or endpoint (default kb.rerank.mode or off)"},
		},
		Action: func(c *cli.Context) error {
			question := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
			if question == "" {
				return usagef("ask needs a QUESTION, e.g. git kb ask \"线上数据库连接池打满怎么处理？\"")
			}
			if c.Int("budget") < 200 {
				return usagef("--budget %d: give the sources at least 200 tokens", c.Int("budget"))
			}
			parsed, err := search.ParseQuery(question)
			if err != nil {
				return usagef("%s", err)
			}
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			kb, err := openKB(c.Context, e, repo, c.Bool("quiet"))
			if err != nil {
				return err
			}
			req := engine.AskRequest{Question: question, Parsed: parsed, Mode: c.String("mode"), Rev: c.String("rev"), Worktree: c.Bool("worktree"), Rerank: c.String("rerank"), Budget: c.Int("budget")}
			stream := !c.Bool("json") && !c.Bool("no-stream")
			if stream {
				req.Stream = func(s string) { fmt.Fprint(e.Stdout, s) }
			}
			res, err := kb.Ask(c.Context, req)
			if err != nil {
				return err
			}
			if stream && len(res.Sources) > 0 {
				return printAskTail(e, res)
			}
			return finishAsk(e, c.Bool("json"), res)
		},
	}
}

// finishAsk prints a non-streamed answer.
func finishAsk(e env, asJSON bool, res *askResult) error {
	if asJSON {
		return writeJSON(e.Stdout, res)
	}
	if res.Answer == "" && res.Notice != "" {
		fmt.Fprintln(e.Stdout, res.Notice)
		return nil
	}
	fmt.Fprint(e.Stdout, res.Answer)
	return printAskTail(e, res)
}

// printAskTail prints what follows the answer: invented citations, then
// the cited sources.
func printAskTail(e env, res *askResult) error {
	w := e.Stdout
	if !strings.HasSuffix(res.Answer, "\n") {
		fmt.Fprintln(w)
	}
	if len(res.Invalid) > 0 {
		var ns []string
		for _, n := range res.Invalid {
			ns = append(ns, fmt.Sprintf("[%d]", n))
		}
		fmt.Fprintf(w, "\n(removed: the model cited %s, which is not among the sources)\n", strings.Join(ns, ", "))
	}
	if res.Degraded != "" && res.Mode == "generated" {
		fmt.Fprintf(w, "\n(%s)\n", res.Degraded)
	}
	fmt.Fprintln(w)
	for _, s := range res.Citations {
		fmt.Fprintf(w, "[%d] %s", s.N, s.Citation)
		if s.Heading != "" {
			fmt.Fprintf(w, "  %s", s.Heading)
		}
		fmt.Fprintln(w)
	}
	return nil
}
