package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// commandPaths lists every visible command as its words (hooks install).
func commandPaths(cmds []*cli.Command, prefix []string) [][]string {
	var out [][]string
	for _, c := range visible(cmds) {
		p := append(append([]string(nil), prefix...), c.Name)
		out = append(out, p)
		out = append(out, commandPaths(c.Subcommands, p)...)
	}
	return out
}

func findCommand(cmds []*cli.Command, path []string) *cli.Command {
	var c *cli.Command
	for _, name := range path {
		c = nil
		for _, x := range cmds {
			if x.Name == name {
				c = x
			}
		}
		if c == nil {
			return nil
		}
		cmds = c.Subcommands
	}
	return c
}

// TestHelpEveryCommand: git kb help, git kb help CMD [SUB] and
// git kb CMD [SUB] --help all print the command's help with exit 0.
func TestHelpEveryCommand(t *testing.T) {
	dir := t.TempDir() // help needs no repository
	app := newApp(env{})
	out, errs, code := kb(t, dir, "help")
	if code != exitOK || errs != "" {
		t.Fatalf("git kb help: exit %d %q", code, errs)
	}
	paths := commandPaths(app.Commands, nil)
	for _, p := range paths {
		if len(p) == 1 && !strings.Contains(out, "   "+p[0]) {
			t.Errorf("git kb help does not list %s", p[0])
		}
	}
	if len(paths) < 12 {
		t.Fatalf("only %d commands found", len(paths))
	}
	for _, p := range paths {
		c := findCommand(app.Commands, p)
		for _, args := range [][]string{append([]string{"help"}, p...), append(append([]string(nil), p...), "--help")} {
			out, errs, code := kb(t, dir, args...)
			if code != exitOK || !strings.Contains(out, "git kb "+strings.Join(p, " ")+" - "+c.Usage) {
				t.Errorf("%v: exit %d %q\n%s", args, code, errs, out)
			}
		}
	}
	for _, bad := range [][]string{{"help", "nope"}, {"help", "hooks", "nope"}} {
		if _, errs, code := kb(t, dir, bad...); code != exitUsage || !strings.Contains(errs, "no help topic") {
			t.Errorf("%v: exit %d %q", bad, code, errs)
		}
	}
}

// TestManPages: a page for git-kb and each command, each a man(7) page
// with its name, synopsis, description and every flag, and (where groff is
// installed) one that groff formats without a warning.
func TestManPages(t *testing.T) {
	app := newApp(env{})
	dir := t.TempDir()
	out, errs, code := kb(t, dir, "man-pages", filepath.Join(dir, "man1"))
	if code != exitOK {
		t.Fatalf("man-pages: exit %d %s", code, errs)
	}
	paths := commandPaths(app.Commands, nil)
	if !strings.Contains(out, "wrote") {
		t.Errorf("man-pages said %q", out)
	}
	groff, _ := exec.LookPath("groff")
	check := func(name string, flags []cli.Flag) {
		data, err := os.ReadFile(filepath.Join(dir, "man1", name+".1"))
		if err != nil {
			t.Errorf("no page for %s: %v", name, err)
			return
		}
		page := string(data)
		for _, want := range []string{".TH " + name + " 1", ".SH NAME", name + ` \- `, ".SH SYNOPSIS", ".SH DESCRIPTION"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s.1 lacks %q", name, want)
			}
		}
		for _, f := range flags {
			if !strings.Contains(page, `\-\-`+f.Names()[0]) && !strings.Contains(page, "--"+f.Names()[0]) {
				t.Errorf("%s.1 does not document --%s", name, f.Names()[0])
			}
		}
		if groff != "" {
			cmd := exec.Command(groff, "-k", "-man", "-Tutf8", "-ww", "-z", filepath.Join(dir, "man1", name+".1"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil || stderr.Len() > 0 {
				t.Errorf("groff on %s.1: %v %s", name, err, stderr.String())
			}
		}
	}
	check("git-kb", nil)
	for _, p := range paths {
		check("git-kb-"+strings.Join(p, "-"), findCommand(app.Commands, p).Flags)
	}
	// The synopsis is the command as typed, with its arguments (git kb
	// search [options] QUERY), as git's own pages have it; urfave/cli put
	// the page's name there (git-kb-search, no such program) over a list
	// of flags, and the usage line after the description.
	synopsis := func(name string) string {
		data, _ := os.ReadFile(filepath.Join(dir, "man1", name+".1"))
		page := string(data)
		_, after, _ := strings.Cut(page, ".SH SYNOPSIS\n")
		syn, _, _ := strings.Cut(after, ".SH ")
		if strings.Contains(page, `\fBUsage\fP`) {
			t.Errorf("%s.1 still has a Usage block after its description", name)
		}
		return syn
	}
	if syn := synopsis("git-kb"); !strings.Contains(syn, "git kb COMMAND") {
		t.Errorf("git-kb.1 synopsis %q", syn)
	}
	for _, p := range paths {
		name := "git-kb-" + strings.Join(p, "-")
		c := findCommand(app.Commands, p)
		syn := synopsis(name)
		if !strings.Contains(syn, "git kb "+strings.Join(p, " ")+" ") || strings.Contains(syn, name) {
			t.Errorf("%s.1 synopsis %q: want the command as typed, git kb %s", name, syn, strings.Join(p, " "))
		}
		if strings.TrimSpace(c.ArgsUsage) != "" && len(c.Subcommands) == 0 && !strings.Contains(syn, strings.ReplaceAll(c.ArgsUsage, "-", `\-`)) && !strings.Contains(syn, c.ArgsUsage) {
			t.Errorf("%s.1 synopsis %q lacks its arguments %q", name, syn, c.ArgsUsage)
		}
	}
	if n, _ := os.ReadDir(filepath.Join(dir, "man1")); len(n) != len(paths)+1 {
		t.Errorf("%d pages for %d commands + git-kb", len(n), len(paths))
	}
}

// TestUnknownCommand: a command name git kb does not have (a typo) is one
// line that says so, suggests the command meant and where the list is,
// exit 2; urfave/cli said "No help topic for 'serach'", as if help had
// been asked for.
func TestUnknownCommand(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serach", "回滚"}, `"serach" is not a git kb command; did you mean search? (git kb help lists the commands)`},
		{[]string{"stauts"}, `"stauts" is not a git kb command; did you mean status? (git kb help lists the commands)`},
		{[]string{"hooks", "instal"}, `"instal" is not a git kb hooks command; did you mean install? (git kb help hooks lists the commands)`},
		{[]string{"frobnicate"}, `"frobnicate" is not a git kb command (git kb help lists the commands)`},
	} {
		out, errs, code := kb(t, dir, c.args...)
		if code != exitUsage || out != "" || strings.TrimSpace(errs) != "git kb: "+c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errs, exitUsage, c.want)
		}
	}
	// Commands, help and flags still reach urfave/cli.
	for _, args := range [][]string{{"help"}, {"help", "hooks"}, {"hooks", "help", "install"}, {"version"}, {"--version"}, {"hooks", "h"}} {
		if _, errs, code := kb(t, dir, args...); code != exitOK {
			t.Errorf("%q: exit %d %q", args, code, errs)
		}
	}
}

// TestHelpProseWraps: the prose of every command's help (lines that do
// not start with a space: examples and tables are indented) fits 80
// columns, as the rest of it is wrapped; lines edited in place had grown
// to 120 and wrapped mid-word in an 80-column terminal.
func TestHelpProseWraps(t *testing.T) {
	app := newApp(env{})
	var walk func(cmds []*cli.Command, prefix string)
	walk = func(cmds []*cli.Command, prefix string) {
		for _, c := range cmds {
			name := prefix + " " + c.Name
			for _, l := range strings.Split(c.Description, "\n") {
				if l != "" && l[0] != ' ' && utf8.RuneCountInString(l) > 80 {
					t.Errorf("%s --help: a line of %d columns: %s", name, utf8.RuneCountInString(l), l)
				}
			}
			walk(c.Subcommands, name)
		}
	}
	walk(app.Commands, "git kb")
}

// TestModeFlagsSayTheDefault: every command that takes --mode says what
// it does without one, as search does (ask said nothing, context only
// half: hybrid with an embedder, and not what it is without one).
func TestModeFlagsSayTheDefault(t *testing.T) {
	app := newApp(env{})
	n := 0
	for _, p := range commandPaths(app.Commands, nil) {
		for _, f := range findCommand(app.Commands, p).Flags {
			if f.Names()[0] != "mode" {
				continue
			}
			n++
			if u := f.(*cli.StringFlag).Usage; !strings.Contains(u, "default: hybrid with an embedder configured, else lexical") {
				t.Errorf("git kb %s --mode: %q", strings.Join(p, " "), u)
			}
		}
	}
	if n < 4 {
		t.Errorf("only %d --mode flags found", n)
	}
}
