package main

import (
	"fmt"
	"strings"

	"github.com/git-kb/git-kb/engine"
	"github.com/urfave/cli/v2"
)

func publishCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "publish",
		Usage: "publish a commit's view (HEAD by default) to the organisation's Weaviate index, for git kb search --org",
		Description: `Writes the chunks of the commit's files into one Weaviate collection that
every repository of the organisation publishes to; 'git kb search --org'
then searches them all, and its citations name the repository:
<repo>@<commit>:<path>#L<start>-L<end>.

  git config kb.org.url http://weaviate.internal:8080
  export GIT_KB_ORG_API_KEY=...        # if the server wants one (or kb.org.apiKey)
  git kb publish

What is sent: each chunk's text with secrets redacted (as in snippets and
MCP), path, line range, heading, title, language, front-matter tags and
owner, commit, blob, the repository's name and its origin URL without
credentials, and the chunk's terms as this index analyzes them (so --org
ranks as local search does). Nothing else leaves the machine.

Incremental: object ids are derived from the repository, the blob, the
pipeline version and the chunk's place in the file, so publishing the same
commit again writes nothing, and a new commit writes the chunks of the
files it changed and deletes those of files gone from it. The repository's
name is kb.org.repo, else the origin remote's path (team/service), else the
directory's name. A collection made by another git-kb layout or pipeline
version is refused, never mixed.

With kb.org.autoPublish true, the hooks' background runner publishes HEAD
after indexing it when HEAD is the default branch.

Examples:
  git kb publish
  git kb publish --rev v7.5.0
  git kb publish --dry-run --json`,
		Flags: []cli.Flag{
			revFlag, jsonFlag, quietFlag,
			&cli.BoolFlag{Name: "dry-run", Usage: "count what would be written and deleted; write nothing"},
			&cli.IntFlag{Name: "replicas", DefaultText: "the server's", Usage: "replication factor of the collection, when this publish creates it"},
			&cli.IntFlag{Name: "shards", DefaultText: "one per node", Usage: "number of shards of the collection, when this publish creates it"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("publish takes no arguments (got %q); use --rev for another commit", strings.Join(c.Args().Slice(), " "))
			}
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			quiet := c.Bool("quiet") || c.Bool("json")
			kb, err := openKB(c.Context, e, repo, quiet)
			if err != nil {
				return err
			}
			st, err := kb.Publish(c.Context, engine.PublishRequest{Rev: c.String("rev"), Replicas: c.Int("replicas"), Shards: c.Int("shards"), DryRun: c.Bool("dry-run")})
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e.Stdout, st)
			}
			if st.DryRun {
				create := ""
				if st.CreatesCollection {
					create = fmt.Sprintf("; %s does not exist there yet: publishing would create it", st.Collection)
				}
				fmt.Fprintf(e.Stdout, "would publish %s at %s to %s (%s): %d files, %d chunks; would write %d chunks of %d files and delete %d chunks of %d files; %d objects for %s now%s (dry run: nothing written)\n",
					st.Repo, st.Commit[:12], st.Collection, st.URL, st.Files, st.Chunks, st.Written, st.WrittenFiles, st.Deleted, st.DeletedFiles, st.Objects, st.Repo, create)
				return nil
			}
			fmt.Fprintf(e.Stdout, "published %s at %s to %s (%s): %d files, %d chunks; wrote %d chunks of %d files, deleted %d chunks of %d files; %d objects for %s (%.1f s)\n",
				st.Repo, st.Commit[:12], st.Collection, st.URL, st.Files, st.Chunks, st.Written, st.WrittenFiles, st.Deleted, st.DeletedFiles, st.Objects, st.Repo, float64(st.TookMs)/1000)
			return nil
		},
	}
}
