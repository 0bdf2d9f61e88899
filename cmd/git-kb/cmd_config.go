package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/settings"
	"github.com/urfave/cli/v2"
)

func configCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "config",
		Usage:     "list git kb's settings: value, default and where each came from",
		ArgsUsage: "[KEY]",
		Description: `Lists every setting git kb reads, with its value, its default and where
the value came from: a config file (the path, as git config --show-origin
prints it), the command line (git -c), an environment variable, or
"default". With KEY, shows that one setting and what it accepts. Key names
are case-insensitive in their last part, as in git: kb.embed.batchsize is
kb.embed.batchSize.

Secrets (kb.mcp.token, GIT_KB_API_KEY) show whether and where they are set,
never their value; a URL is shown without its user:password@. A value git
kb refuses is listed with the reason, and the command exits 1: the commands
that read it fail until it is fixed. kb.* keys git kb does not know (a
typo?) are listed at the end.

Outside a git repository it lists the system and global settings (git
config --global), git -c and the environment over the defaults, and says
on stderr that a repository's own settings are not shown.

Settings are ordinary git config; set them with git, not with this command:
  git config kb.embed.batchSize 64           # this repository
  git config --global kb.embed.model bge-m3  # all your repositories
  git config --unset kb.embed.batchSize      # back to the default

Examples:
  git kb config                       all settings
  git kb config kb.rerank.mode        one, with its accepted values
  git kb config --json                for scripts: value, default, origin, scope
  git kb config --markdown            the reference table (README has it)`,
		Flags: []cli.Flag{
			jsonFlag,
			&cli.BoolFlag{Name: "markdown", Usage: "print the settings reference as a Markdown table (needs no repository)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				if f := c.Args().Get(1); strings.HasPrefix(f, "-") {
					// config's own flags after KEY are refused before
					// this (flagOrder): this one is no flag of config's.
					return usagef("config has no flag %s: see git kb config --help", f)
				}
				return usagef("config takes one KEY at most (got %q)", c.Args().Slice())
			}
			if c.Bool("markdown") {
				if c.NArg() > 0 || c.Bool("json") {
					return usagef("--markdown prints the whole table: give no KEY and no --json")
				}
				fmt.Fprint(e.Stdout, settings.Markdown())
				return nil
			}
			key := c.Args().First()
			var def *settings.Setting
			if key != "" {
				var ok bool
				if def, ok = settings.Lookup(key); !ok {
					return usagef("%s is not a git kb setting%s; git kb config lists them all", key, settings.Suggest(key))
				}
			}
			set, loadErr := loadSettings(c.Context, e)
			if set == nil {
				return loadErr
			}
			if def != nil {
				v, _ := set.Value(def.Key)
				if c.Bool("json") {
					if err := writeJSON(e.Stdout, describe(v)); err != nil {
						return err
					}
				} else {
					printSetting(e, def, v)
				}
				if v.Error != "" {
					return errors.New(v.Error)
				}
				return nil
			}
			if c.Bool("json") {
				out := struct {
					Settings []configValue    `json:"settings"`
					Unknown  []settings.Value `json:"unknown"`
				}{Unknown: append([]settings.Value{}, set.Unknown...)}
				for _, v := range set.Values() {
					out.Settings = append(out.Settings, describe(v))
				}
				if err := writeJSON(e.Stdout, out); err != nil {
					return err
				}
			} else {
				printSettings(e, set)
			}
			if loadErr != nil {
				return badSettings(set)
			}
			return nil
		},
	}
}

// loadSettings reads the settings of the repository at e.Dir; outside
// any, the system and global ones, with a note that the local ones are not
// shown (there are none to read).
func loadSettings(ctx context.Context, e env) (*settings.Settings, error) {
	repo, err := openRepo(e)
	if errors.Is(err, gitx.ErrNotARepo) {
		set, loadErr := settings.LoadOutside(ctx, e.Dir, e.getenv)
		if set != nil {
			fmt.Fprintln(e.Stderr, "git kb: not in a git repository: system and global settings only; a repository's own (git config --local) are not shown")
		}
		return set, loadErr
	}
	if err != nil {
		return nil, err
	}
	return settings.Load(ctx, repo, e.getenv)
}

// configValue is a setting in git kb config --json: its value and origin
// with what the table says of it.
type configValue struct {
	settings.Value
	Type     string `json:"type"`
	Accepted string `json:"accepted"`
	Doc      string `json:"doc"`
}

func describe(v settings.Value) configValue {
	d, _ := settings.Lookup(v.Key)
	return configValue{Value: v, Type: d.Type, Accepted: d.Accepted, Doc: d.Doc}
}

// shown is a value as the listing prints it: a secret as set or not.
func shown(v settings.Value) string {
	switch {
	case v.Secret && v.Set:
		return "(set, hidden)"
	case v.Secret:
		return "(not set)"
	case v.Values != nil:
		return strings.Join(v.Values, ", ")
	case v.Value == "":
		return "(not set)"
	}
	return v.Value
}

func printSettings(e env, set *settings.Settings) {
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tDEFAULT\tFROM")
	for _, v := range set.Values() {
		def := v.Default
		if def == "" {
			def = "-"
		}
		from := v.Origin
		if v.Error != "" {
			from += "  (refused, see below)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Key, tidy(shown(v)), def, tidy(from))
	}
	tw.Flush()
	if len(set.Unknown) > 0 {
		fmt.Fprintln(e.Stdout, "\nnot git kb settings (ignored):")
		for _, v := range set.Unknown {
			val := v.Value
			if v.Secret {
				val = "(hidden)"
			}
			fmt.Fprintf(e.Stdout, "  %s = %s  (%s): %s\n", v.Key, tidy(val), tidy(v.Origin), v.Error)
		}
	}
}

func printSetting(e env, d *settings.Setting, v settings.Value) {
	fmt.Fprintf(e.Stdout, "%s = %s\n", d.Key, tidy(shown(v)))
	from := v.Origin
	if v.Scope != "default" && v.Scope != "env" && v.Scope != "" {
		from += " (" + v.Scope + ")"
	}
	def := d.Default
	if def == "" {
		def = "-"
	}
	fmt.Fprintf(e.Stdout, "  from:      %s\n  default:   %s\n  type:      %s\n  accepted:  %s\n", tidy(from), def, d.Type, d.Accepted)
	if len(d.Env) > 0 {
		fmt.Fprintf(e.Stdout, "  env:       %s\n", strings.Join(d.Env, ", "))
	}
	if v.Error != "" {
		fmt.Fprintf(e.Stdout, "  refused:   %s\n", tidy(v.Error))
	}
	fmt.Fprintf(e.Stdout, "  %s\n", d.Doc)
}

// badSettings is the one-line error of a listing with refused values.
func badSettings(set *settings.Settings) error {
	var bad []string
	for _, v := range set.Values() {
		if v.Error != "" {
			bad = append(bad, v.Error)
		}
	}
	if len(bad) == 1 {
		return errors.New(bad[0])
	}
	return fmt.Errorf("%d values refused: %s", len(bad), strings.Join(bad, "; "))
}
