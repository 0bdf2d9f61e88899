package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/expand"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/segment"
	"github.com/urfave/cli/v2"
)

func searchCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "search",
		Usage:     "search the docs and code of a commit (HEAD by default)",
		ArgsUsage: "QUERY",
		Description: `Ranks the chunks of the commit's files (Markdown sections, code
declarations, paragraphs) by BM25F over words: Chinese is segmented into
words, identifiers are split, and matches in titles, headings, paths and
symbol names count more. Each file is listed once, with its best chunk;
--per-file shows more.

The commit is indexed first if it has not been (progress on stderr).
Results cite <commit>:<path>#L<start>-L<end>; read one with 'git kb show'.

Dense and hybrid retrieval. With an embedder configured, search also ranks
chunks by vector similarity and fuses both lists (reciprocal rank fusion,
k=60; --fusion dbsf rescales scores instead). Any OpenAI-compatible
embeddings endpoint works (OpenAI, Ollama, vLLM, LM Studio, TEI):
  git config kb.embed.baseURL http://localhost:11434/v1
  git config kb.embed.model bge-m3
  export GIT_KB_API_KEY=...      # or OPENAI_API_KEY; never put keys in git config
Optional: kb.embed.dimensions (models that can truncate), kb.embed.batchSize
(32), kb.embed.concurrency (2), kb.embed.throttleMs, kb.embed.timeoutMs,
kb.embed.maxRetries ('git kb config' lists every setting, its default and
where its value came from). Offline, kb.embed.provider=hash uses a built-in
feature-hashing embedder: it needs no model, but it is lexical (words and
character pairs), not semantic. If the endpoint fails, or the commit has
no vectors yet, search answers lexically and says so ("degraded" in --json).

Query language (--literal turns it off):
  "exact phrase"      chunks containing the words in this order (if none
                      does, its words are ranked and "degraded" says so);
                      “短语” and 「短语」 quote too, even glued to the text
  -word  -"a phrase"  leave out chunks containing it; a flag (--follow, or
                      -race in a Chinese question) is a word; -"race" excludes it
  path:docs/**/*.md   only files matching the glob (dir/, *.go, a/**/b)
  -path:test/         leave out files matching (a directory, *_test.go, ...)
  lang:go             only files of that language (markdown, go, python, ...)
  -lang:yaml          leave out files of that language
  tag:release         only docs whose front-matter tags include it
  owner:sre-team      only docs whose front-matter owner is it
  @docs/runbook.md    only that file (or directory); a bare @word no path
                      is named or near (SET @uid, @Override) is a word
  @@RetryCount        the chunk that declares the symbol first (if none
                      does, its words are ranked and "degraded" says so)
A malformed query is refused with a caret under the bad part. A query that
starts with - goes after --: git kb search -- "-path:releases/ 慢查询".

Rerank. --rerank llm has the chat model (kb.chat.*) score the top 20
results 0-10 from their heading and first lines, several at a time, and
caches the scores by the query's words and the chunk, so asking again costs
no calls; --rerank endpoint posts them to a cross-encoder /rerank API (git
config kb.rerank.baseURL, kb.rerank.model: TEI, Jina, Cohere style). The
judge's score is blended with the fusion rank (0.7 / 0.3) so a strong exact
match is not buried; --json shows rerank_score and rank_before_rerank;
--min-score N drops what the judge scored below N (without a rerank it is
refused). If the judge fails, results stay in fusion order and "degraded"
says so. The chat model is asked for the number only; a reply that is
something else ("Passage [1] is relevant...") is no score, not 1: that
result keeps its place and "degraded" names the model and quotes the reply.
Default: kb.rerank.mode, else off.

Doc health. Front-matter confidence: deprecated (or status: deprecated)
halves a document's score and marks it [deprecated]; last_reviewed older
than kb.staleAfter (365d) marks it [stale]. A document can be both. In
--json, "health_flags" lists them all, "health" is the first.

Related files. --related follows the top three matches, when they contain
most of the query's words (a weak match's neighbours are noise), and lists
after the results, marked "related" (match: "related" in --json):
  defines      the definition of a name the match uses (a Go pkg.Func or
               same-package name, a function defined elsewhere)
  imports      a file the match imports or links to (Go, Python, JS/TS,
               C, Rust, Java imports; Markdown links)
  imported_by  a file that imports or links to the match
at most three of each kind per match, those about the query first.

Your team's synonyms. Chinese and English words are expanded into each
other from built-in tables (-v shows it; --no-expand, kb.expand false
turn it off). Your team's own words go in a file, in the synonym format
of Solr and Elasticsearch, one entry a line:
      # our words
      熔断, circuitbreaker, circuit breaker   # equivalent: each finds the others
      挂了, 掉线 => 不健康, unhealthy          # one way: the left finds the right
then name it (a path from the top of the working tree, or absolute):
  git config kb.synonyms docs/synonyms.txt
A question holding a word also looks for its synonyms, at half the
weight of its own words. The file is read at each search: no re-index;
an edit counts at once. --synonyms FILE (a path from the current
directory) tries another file in its place (git kb eval --compare
'lexical --no-synonyms;lexical --synonyms new.txt' Q.jsonl measures it),
--no-synonyms leaves it out. A line that does not parse stops the search
with FILE:LINE; a missing file is a notice; git kb doctor checks it.

Uncommitted work. --worktree searches HEAD with the working tree on top:
modified, added and untracked (not ignored) files are read from disk and
analyzed on the fly, in place of their committed versions; deleted files
drop out. Their citations read worktree:<path>#L<a>-L<b>, and "worktree"
in --json lists them. Nothing is written to the index or the repository.

Examples:
  git kb search "发布失败后如何回滚"
  git kb search -n 5 "retry_count 配置"
  git kb search '"连接池打满" -测试 path:docs/'
  git kb search --since "1 month ago" "值班 交接"
  git kb search --rev v7.5.0 --json "慢查询日志"
  git kb search --related "@@RetryCount"
  git kb search --worktree "灰度发布 检查项"      # includes the doc you are writing
  git kb search -v --synonyms team.txt "熔断怎么配"  # try a synonyms file
  git kb search --mode dense "怎样让服务不中断地升级"

Org-wide. --org searches every repository published to the organisation's
Weaviate index (git kb publish; kb.org.url) instead of this one: the same
results and JSON, plus "repo" and "commit" per result, citations
<repo>@<commit>:<path>#L<a>-L<b>, and repo:NAME / -repo:NAME in the query.
It ranks as local search does (-v shows where the time went, --explain the
parts of each score). With an embedder configured here and vectors of the
same model published (git kb publish writes them from an embedded
repository), it is hybrid: the query is embedded here and Weaviate's hybrid
query (BM25F over our terms and the vector) ranks the chunks, as measured
best; --fusion rrf or dbsf instead fuses Weaviate's nearest chunks with the
lexical ranking above as local hybrid search does. --alpha (kb.org.alpha,
0.25) weighs the vector side of Weaviate's fusion. Vectors of another model
are never compared: search says so (--json: "degraded") and answers
lexically for them. An endpoint that is down or slow is an error after
kb.org.timeoutMs; local search is not touched.
  git kb search --org "发布失败后如何回滚 repo:team/deploy"`,
		Flags: append([]cli.Flag{
			revFlag, jsonFlag, quietFlag, verboseFlag,
			&cli.IntFlag{Name: "n", Aliases: []string{"limit"}, Value: 10, Usage: "number of results"},
			&cli.IntFlag{Name: "per-file", Value: 1, Usage: "chunks shown per file (further matches are counted)"},
			&cli.BoolFlag{Name: "no-index", Usage: "fail instead of indexing a commit that is not indexed yet"},
			&cli.StringFlag{Name: "since", Usage: "only files changed since `DATE` (2026-01-01, \"2 weeks ago\": as git log --since)"},
			&cli.Float64Flag{Name: "min-score", Usage: "drop results the judge scored below this (0-10); needs a rerank (--rerank llm|endpoint or kb.rerank.mode)"},
			&cli.BoolFlag{Name: "related", Usage: "after strong matches, list what they import, what imports them and the definitions they use"},
			&cli.BoolFlag{Name: "explain", Usage: "show the parts of each result's score: chunk, other chunks, query coverage, priors"},
			worktreeFlag,
			&cli.BoolFlag{Name: "org", Usage: "search every repository published to the organisation's index (kb.org.url; see git kb publish)"},
			&cli.Float64Flag{Name: "alpha", Usage: "with --org: weight of the vector side in Weaviate's hybrid fusion, 0 (BM25 only) to 1 (vectors only)", DefaultText: "kb.org.alpha or 0.25"},
		}, searchRequestFlags()...),
		Action: func(c *cli.Context) error {
			return runSearch(c, e)
		},
	}
}

// runSearch is git kb search: flags into an engine request, the answer printed.
func runSearch(c *cli.Context, e env) error {
	engine.LighterGC()
	query := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
	if query == "" {
		return usagef("search needs a QUERY, e.g. git kb search \"发布失败后如何回滚\"")
	}
	if c.Int("n") < 1 {
		return usagef("-n must be at least 1")
	}
	repo, err := openRepo(e)
	if err != nil {
		return err
	}
	if c.Bool("org") {
		return orgSearch(c, e, repo, query)
	}
	if c.IsSet("alpha") {
		return usagef("--alpha weighs Weaviate's hybrid fusion: it goes with --org")
	}
	noticeGoneHooks(e, repo)
	quiet := c.Bool("quiet")
	req, err := searchRequest(c, query)
	if err != nil {
		return err
	}
	req.K, req.PerFile, req.Related, req.Explain = c.Int("n"), c.Int("per-file"), c.Bool("related"), c.Bool("explain")
	if since := c.String("since"); since != "" {
		if req.Scope, err = sinceScope(c, e, repo, since); err != nil {
			return err
		}
	}
	// The process ends after this one search: its view is left to the
	// exit. Only here: a command that opens a view and then indexes, in
	// one process, would wait on its own unclosed view's lock.
	o := engineOptions(e, quiet)
	o.Exiting = exiting
	kb, err := engine.Open(c.Context, repo, o)
	if err != nil {
		return err
	}
	resp, err := kb.Search(c.Context, engine.SearchRequest{Request: req, Rev: c.String("rev"), NoIndex: c.Bool("no-index"),
		Worktree: c.Bool("worktree"), Rerank: c.String("rerank"), MinScore: c.Float64("min-score")})
	if err != nil {
		return err
	}
	if resp.Degraded != "" {
		notifier(e, quiet)("%s", resp.Degraded)
	}
	if c.Bool("verbose") {
		printTimings(e.Stderr, "search", resp.Timings)
		for _, x := range resp.Expansions {
			fmt.Fprintf(e.Stderr, "git kb: expanded %s -> %s (%s)\n", x.From, strings.Join(x.To, ", "), x.Source)
		}
		if len(resp.Feedback) > 0 {
			fmt.Fprintf(e.Stderr, "git kb: feedback added %s\n", strings.Join(resp.Feedback, ", "))
		}
	}
	if c.Bool("json") {
		resp.Timings = nil
		return writeJSON(e.Stdout, resp)
	}
	printResults(e, resp)
	return nil
}

// sinceScope is the scope of --since: the files changed since the date in
// the history of --rev (HEAD by default).
func sinceScope(c *cli.Context, e env, repo *gitx.Repo, since string) (func(string) bool, error) {
	rev := c.String("rev")
	if rev == "" {
		rev = "HEAD"
	}
	changed, err := repo.ChangedSince(c.Context, rev, since)
	if err != nil {
		return nil, fmt.Errorf("--since %s: %w", since, err)
	}
	if cut := repo.ShallowCommits(); cut != nil {
		notifier(e, c.Bool("quiet"))("--since: this is a shallow clone, history stops at %s; files changed only before it are not found (git fetch --unshallow for all)", engine.Shortest(cut))
	}
	if len(changed) == 0 {
		// Nothing can match: say why, with the date as git read it (a
		// phrase git does not understand reads as now), rather than a
		// bare "no results".
		from, err1 := repo.SinceDate(c.Context, since)
		last, err2 := repo.CommitTime(c.Context, rev)
		if err1 == nil && err2 == nil {
			const layout = "2006-01-02 15:04 MST"
			notifier(e, c.Bool("quiet"))("--since %q: no commit of %s is that recent (git reads the date as %s; the newest commit is from %s)",
				since, rev, from.Format(layout), last.Format(layout))
		}
	}
	return func(p string) bool { return changed[p] }, nil
}

// searchRequestFlags are the flags that decide how a query is ranked.
// 'git kb search' has them, and 'git kb eval' takes them both as its own
// flags and inside --compare specs: a ranking flag added here can be
// measured at once.
func searchRequestFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "mode", Usage: "lexical, dense or hybrid (default: hybrid with an embedder configured, else lexical)"},
		&cli.StringFlag{Name: "fusion", Value: search.FusionRRF, Usage: "how hybrid merges the two lists: rrf or dbsf (with --org also weaviate, its default: Weaviate's own fusion)"},
		&cli.BoolFlag{Name: "literal", Usage: "take the query as plain words: no operators, quotes or -exclusions"},
		&cli.BoolFlag{Name: "no-expand", Usage: "no cross-lingual expansion of the query's words (as kb.expand false)"},
		&cli.StringFlag{Name: "synonyms", Usage: "the team's synonyms from `FILE` in place of kb.synonyms's (try a file before setting the key; see git kb search --help)"},
		&cli.BoolFlag{Name: "no-synonyms", Usage: "leave out the team's synonyms (kb.synonyms)"},
		&cli.BoolFlag{Name: "prf", Usage: "pseudo-relevance feedback: add the words the best matches share, and rank again (RM3)"},
		&cli.BoolFlag{Name: "no-priors", Usage: "no file-kind demotion: of tests, examples, data tables, release notes, migrations, agent instructions, string tables, references, platform variants (as kb.priors false)"},
		&cli.StringFlag{Name: "rerank", Usage: "rerank the top 20 with off, llm (the chat model scores 0-10) or endpoint (a /rerank API); default kb.rerank.mode or off"},
		&cli.StringFlag{Name: "ranking", Usage: "switch ranking levers on or off, to measure them: +coverage, +proximity, -file, -hub, -links, -dedup, -concept, -name, -qualified, -summary, -focus, -platform, -role, -mention (comma-separated)"},
	}
}

// searchRequest is the request c's searchRequestFlags ask for, for query.
// The caller sets K and what else is its own (PerFile, Related, Scope);
// --rerank is the engine's (engine.SearchRequest.Rerank).
func searchRequest(c *cli.Context, query string) (search.Request, error) {
	mode, fusion := c.String("mode"), c.String("fusion")
	switch mode {
	case "", search.ModeLexical, search.ModeDense, search.ModeHybrid:
	default:
		return search.Request{}, usagef("--mode %s: want lexical, dense or hybrid", mode)
	}
	if fusion == "weaviate" {
		// The help names it, for --org, whose own check takes it.
		return search.Request{}, usagef("--fusion weaviate is Weaviate's own fusion, for git kb search --org only; without --org, want rrf or dbsf")
	}
	if fusion != search.FusionRRF && fusion != search.FusionDBSF {
		return search.Request{}, usagef("--fusion %s: want rrf or dbsf", fusion)
	}
	req := search.Request{Query: query, Mode: mode, Fusion: fusion, NoExpand: c.Bool("no-expand"), NoPriors: c.Bool("no-priors"), Feedback: c.Bool("prf")}
	if r := c.String("ranking"); r != "" {
		req.Levers = map[string]bool{}
		for _, l := range strings.Split(r, ",") {
			l = strings.TrimSpace(l)
			name := strings.TrimLeft(l, "+-")
			if _, known := search.Levers[name]; !known || l == name {
				return search.Request{}, usagef("--ranking %s: want +LEVER or -LEVER, levers: %s", l, strings.Join(slices.Sorted(maps.Keys(search.Levers)), ", "))
			}
			req.Levers[name] = l[0] == '+'
		}
	}
	var err error
	if req.Synonyms, req.NoSynonyms, err = synonymsFlags(c); err != nil {
		return search.Request{}, err
	}
	if err := search.CheckQueryLength(query); err != nil {
		return search.Request{}, usageError{err.Error()}
	}
	if !c.Bool("literal") {
		if req.Parsed, err = search.ParseQuery(query); err != nil {
			return search.Request{}, usageError{err.Error()}
		}
	}
	return req, nil
}

// openKB opens the repository's engine: settings read in one git call,
// notices and progress on stderr unless quiet.
func openKB(ctx context.Context, e env, repo *gitx.Repo, quiet bool) (*engine.Engine, error) {
	return engine.Open(ctx, repo, engineOptions(e, quiet))
}

// engineOptions are the engine's hooks for this process: notices and a
// progress bar on stderr (the bar on a terminal only), none when quiet.
func engineOptions(e env, quiet bool) engine.Options {
	o := engine.Options{Getenv: e.getenv, Version: version}
	if !quiet {
		o.Note = notifier(e, false)
		if e.StderrTTY {
			o.Progress = func() (func(index.Event), func()) {
				bar := newProgress(e.Stderr, true)
				return bar.update, bar.done
			}
		}
	}
	return o
}

func printResults(e env, resp *search.Response) {
	w := e.Stdout
	if len(resp.Results) == 0 {
		fmt.Fprintf(w, "no results for %q in %s\n", resp.Query, resp.Commit[:12])
		return
	}
	if resp.RelatedNote != "" {
		defer fmt.Fprintf(e.Stderr, "git kb: %s\n", resp.RelatedNote)
	}
	for i, r := range resp.Results {
		if r.Related != nil {
			if i == 0 || resp.Results[i-1].Related == nil {
				fmt.Fprintf(w, "\n%s\n", style(e, "1", "Related to the top matches:"))
			}
			printRelated(e, r)
			continue
		}
		where := placeOf(r)
		more := ""
		if r.MoreInFile > 0 {
			more = fmt.Sprintf("  (+%d more in file)", r.MoreInFile)
		}
		health := r.HealthFlags
		if health == nil && r.Health != "" {
			health = []string{r.Health}
		}
		for _, h := range health {
			switch h {
			case search.HealthDeprecated:
				more += "  " + style(e, "33", "[deprecated]")
			case search.HealthStale:
				more += "  " + style(e, "33", "[stale: not reviewed for over "+resp.StaleAfter+"]")
			}
		}
		if strings.HasPrefix(r.Citation, "worktree:") {
			more += "  " + style(e, "36", "[uncommitted]")
		}
		for _, p := range r.Priors {
			if p.Name != "deprecated" { // shown as [deprecated]
				more += "  " + style(e, "33", fmt.Sprintf("[%s x%g]", p.Name, p.Factor))
			}
		}
		fmt.Fprintf(w, "%2d. %s  L%d-L%d  %s%s\n", r.Rank, style(e, "1", r.Path), r.StartLine, r.EndLine, where, more)
		if len(r.AlsoAt) > 0 {
			fmt.Fprintf(w, "    %s\n", style(e, "2", "also at: "+strings.Join(r.AlsoAt, ", ")))
		}
		fmt.Fprintf(w, "    %s\n", highlight(e, r.Snippet, r.Highlights))
		fmt.Fprintf(w, "    %s\n", style(e, "2", r.Citation))
		if x := r.Explain; x != nil {
			printExplain(e, x)
		}
	}
}

// printExplain shows the parts of a result's score (--explain).
func printExplain(e env, x *search.Explain) {
	w := e.Stdout
	line := fmt.Sprintf("score %.4g = (best chunk %.4g + %d other chunks %.4g + whole file %.4g)", x.Score, x.BestChunk, x.Chunks-1, x.Support, x.File)
	if x.Proximity > 0 {
		line += fmt.Sprintf(" (proximity added %.4g: %s)", x.Proximity, strings.Join(x.ProximityPairs, " "))
	}
	if x.CoverageFactor > 0 {
		line += fmt.Sprintf(" x coverage %.2f (best chunk alone %.2f)", x.CoverageFactor, x.BestChunkCoverage)
	}
	if x.NameFactor > 0 {
		line += fmt.Sprintf(" x name %.3g (its name says %.0f%% of the question)", x.NameFactor, 100*x.NameCoverage)
	}
	if x.DeclaresFactor > 0 {
		line += fmt.Sprintf(" x declares %.3g (%s)", x.DeclaresFactor, x.Declares)
	}
	for _, p := range x.Priors {
		line += fmt.Sprintf(" x %s %g", p.Name, p.Factor)
	}
	fmt.Fprintf(w, "    %s\n", style(e, "2", line))
	if len(x.Matched)+len(x.Missing) > 0 {
		terms := "matched: " + strings.Join(x.Matched, " ")
		if len(x.Missing) > 0 {
			terms += "; missing: " + strings.Join(x.Missing, " ")
		}
		if len(x.Summary) > 0 {
			terms += "; the page's front-matter summary says: " + strings.Join(x.Summary, " ")
		}
		fmt.Fprintf(w, "    %s\n", style(e, "2", terms))
	}
	for _, p := range x.Priors {
		fmt.Fprintf(w, "    %s\n", style(e, "2", p.Name+": "+p.Reason))
	}
}

// style wraps s in an ANSI style when stdout is a terminal.
func style(e env, code, s string) string {
	if !e.StdoutTTY {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// highlight marks the matched terms, as whole words the way the analyzer
// cut them (never "ti" inside "duration"): bold red on a terminal,
// **term** otherwise.
func highlight(e env, s string, terms []string) string {
	open, close := "**", "**"
	if e.StdoutTTY {
		open, close = "\x1b[1;31m", "\x1b[0m"
	}
	return segment.Tiny().Mark(s, terms, open, close)
}

// printRelated shows one related result: how it relates, then where.
func printRelated(e env, r search.Result) {
	w := e.Stdout
	how := ""
	doc := r.Lang == "markdown"
	switch rel := r.Related; {
	case rel.Kind == search.RelDefines:
		how = fmt.Sprintf("defines %s, used by %s", rel.Name, rel.From)
	case rel.Kind == search.RelImports && doc:
		how = fmt.Sprintf("linked from %s as %s", rel.From, rel.Via)
	case rel.Kind == search.RelImports:
		how = fmt.Sprintf("imported by %s as %q", rel.From, rel.Via)
	case rel.Kind == search.RelImportedBy && doc:
		how = fmt.Sprintf("links to %s as %s", rel.From, rel.Via)
	case rel.Kind == search.RelImportedBy:
		how = fmt.Sprintf("imports %s as %q", rel.From, rel.Via)
	}
	fmt.Fprintf(w, "  - %s  L%d-L%d  %s\n", style(e, "1", r.Path), r.StartLine, r.EndLine, placeOf(r))
	fmt.Fprintf(w, "    %s\n", style(e, "2", how))
	fmt.Fprintf(w, "    %s\n", style(e, "2", r.Citation))
}

// placeOf names where in its file a result is: its heading, else the title.
func placeOf(r search.Result) string {
	if r.Heading != "" {
		return r.Heading
	}
	return r.Title
}

// orgSearch runs git kb search --org: the engine's OrgSearch, printed as
// local results are.
func orgSearch(c *cli.Context, e env, repo *gitx.Repo, query string) error {
	for _, f := range []string{"worktree", "related", "since", "rerank", "min-score", "prf", "ranking", "no-index"} {
		if c.IsSet(f) {
			return usagef("--%s works on this repository's index, not with --org", f)
		}
	}
	if c.IsSet("rev") {
		return usagef("--org searches what each repository published (git kb publish --rev chooses the commit): leave out --rev")
	}
	mode, fusion := c.String("mode"), ""
	switch mode {
	case "", search.ModeLexical, search.ModeDense, search.ModeHybrid:
	default:
		return usagef("--mode %s: want lexical, dense or hybrid", mode)
	}
	if c.IsSet("fusion") {
		fusion = c.String("fusion")
	}
	if fusion != "" && fusion != search.FusionRRF && fusion != search.FusionDBSF && fusion != engine.OrgFusionWeaviate {
		return usagef("--org --fusion %s: want rrf, dbsf or %s (Weaviate's own hybrid fusion)", fusion, engine.OrgFusionWeaviate)
	}
	var alpha *float64
	if c.IsSet("alpha") {
		a := c.Float64("alpha")
		if !(a >= 0 && a <= 1) {
			return usagef("--alpha %g: want a number from 0 (BM25 only) to 1 (vectors only)", a)
		}
		if fusion != "" && fusion != engine.OrgFusionWeaviate {
			return usagef("--alpha weighs Weaviate's fusion: it does not go with --fusion %s", fusion)
		}
		if mode == search.ModeLexical || mode == search.ModeDense {
			return usagef("--alpha weighs Weaviate's hybrid fusion: it does not go with --mode %s", mode)
		}
		alpha = &a
	}
	kb, err := openKB(c.Context, e, repo, c.Bool("quiet"))
	if err != nil {
		return err
	}
	syn, noSyn, err := synonymsFlags(c)
	if err != nil {
		return err
	}
	resp, err := kb.OrgSearch(c.Context, engine.OrgSearchRequest{Query: query, K: c.Int("n"), PerFile: c.Int("per-file"), Mode: mode, Fusion: fusion, Alpha: alpha, Explain: c.Bool("explain"),
		NoExpand: c.Bool("no-expand"), NoSynonyms: noSyn, Synonyms: syn})
	if err != nil {
		return err
	}
	if c.Bool("verbose") {
		printTimings(e.Stderr, "search --org", resp.Timings)
		how := resp.Mode
		if resp.Fusion != "" {
			how += " (" + resp.Fusion + " fusion)"
		}
		fmt.Fprintf(e.Stderr, "git kb: org search %s\n", how)
		for _, x := range resp.Expansions {
			fmt.Fprintf(e.Stderr, "git kb: expanded %s -> %s (%s)\n", x.From, strings.Join(x.To, ", "), x.Source)
		}
	}
	if resp.Degraded != "" {
		notifier(e, c.Bool("quiet"))("%s", resp.Degraded)
	}
	if c.Bool("json") {
		resp.Timings = nil
		return writeJSON(e.Stdout, resp)
	}
	w := e.Stdout
	if len(resp.Results) == 0 {
		fmt.Fprintf(w, "no results for %q in the org index\n", resp.Query)
		return nil
	}
	for _, r := range resp.Results {
		more := ""
		if r.MoreInFile > 0 {
			more = fmt.Sprintf("  (+%d more in file)", r.MoreInFile)
		}
		fmt.Fprintf(w, "%2d. %s %s  L%d-L%d  %s%s\n", r.Rank, style(e, "36", r.Repo), style(e, "1", r.Path), r.StartLine, r.EndLine, placeOf(r), more)
		fmt.Fprintf(w, "    %s\n", highlight(e, r.Snippet, r.Highlights))
		fmt.Fprintf(w, "    %s\n", style(e, "2", r.Citation))
	}
	return nil
}

// synonymsFlags reads --synonyms and --no-synonyms: the file's synonyms
// (nil: none given), and whether to leave out kb.synonyms'.
func synonymsFlags(c *cli.Context) (*expand.Synonyms, bool, error) {
	p, no := c.String("synonyms"), c.Bool("no-synonyms")
	if p == "" {
		return nil, no, nil
	}
	if no {
		return nil, false, usagef("--synonyms and --no-synonyms contradict each other: keep one")
	}
	syn, err := flagSynonyms(p)
	return syn, false, err
}

// flagSynonyms parses the --synonyms file once per process: eval builds a
// request for every question.
var flagSynonyms = func() func(string) (*expand.Synonyms, error) {
	var mu sync.Mutex
	parsed := map[string]*expand.Synonyms{}
	return func(p string) (*expand.Synonyms, error) {
		mu.Lock()
		defer mu.Unlock()
		if s, ok := parsed[p]; ok {
			return s, nil
		}
		s, err := engine.SynonymsFile{Path: p}.Read()
		if err != nil {
			return nil, fmt.Errorf("--synonyms: %w", err)
		}
		parsed[p] = s
		return s, nil
	}
}()
