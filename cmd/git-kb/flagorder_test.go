package main

import (
	"os"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/search"
	"github.com/urfave/cli/v2"
)

// TestFlagsAfterArguments: a command's own flag written after its
// arguments (as the README's examples once did) is refused with the
// command line that works, instead of being read as a query word (context
// packed for "回滚 --budget 800" with the default budget) or failing with
// "takes one REMOTE"; the same flags before the arguments work, and a
// flag-like word of a question is still a word.
func TestFlagsAfterArguments(t *testing.T) {
	dir := gittest.New(t, docs)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"context", "连接池 打满", "--budget", "800"}, `git kb context --budget 800 "连接池 打满"`},
		{[]string{"search", "-n", "2", "回滚", "--json"}, `git kb search -n 2 --json 回滚`},
		{[]string{"ask", "怎么回滚", "--budget=900", "--no-stream"}, `git kb ask --budget=900 --no-stream 怎么回滚`},
		{[]string{"push", "upstream", "--rev", "HEAD"}, `git kb push --rev HEAD upstream`},
		{[]string{"blame-context", "--format", "json", "HEAD", "--max-bytes", "100"}, `git kb blame-context --format json --max-bytes 100 HEAD`},
		{[]string{"show", "HEAD:docs/runbook/rollback.md#L1-L3", "-n"}, `git kb show -n HEAD:docs/runbook/rollback.md#L1-L3`},
		// A flag's value missing at the end: the line names where it
		// goes, rather than taking the argument for it (--rev upstream).
		{[]string{"push", "upstream", "--rev"}, `git kb push --rev VALUE upstream`},
		{[]string{"search", "回滚", "--since"}, `git kb search --since VALUE 回滚`},
	} {
		out, errs, code := kb(t, dir, c.args...)
		if code != exitUsage || !strings.Contains(errs, "flags go before") || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit %d and %q", c.args, code, errs, out, exitUsage, c.want)
		}
	}

	// A flag that is not the command's is not sent before the arguments
	// (where it would fail as unknown).
	if _, errs, code := kb(t, dir, "config", "kb.rerank.mode", "--jsn"); code != exitUsage || !strings.Contains(errs, "config has no flag --jsn") {
		t.Errorf("config KEY --jsn: exit %d %q", code, errs)
	}
	if out, errs, code := kb(t, dir, "context", "--budget", "800", "连接池 打满"); code != exitOK || !strings.Contains(out, "Context for: 连接池 打满\n") {
		t.Errorf("flags first: exit %d %q\n%s", code, errs, out)
	}
	if out, errs, code := kb(t, dir, "show", "-n", "HEAD:docs/runbook/rollback.md#L1-L2"); code != exitOK || !strings.HasPrefix(strings.TrimSpace(out), "1") {
		t.Errorf("show -n first: exit %d %q\n%s", code, errs, out)
	}
	// --help at the end shows the command's help, as git log x --help
	// does, instead of refusing it or searching for it.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "HEAD:docs/runbook/rollback.md", "--help"}, "git kb show - "},
		{[]string{"search", "-n", "2", "回滚", "--help"}, "git kb search - "},
		{[]string{"hooks", "install", "x", "-h"}, "git kb hooks install - "},
	} {
		out, errs, code := kb(t, dir, c.args...)
		if code != exitOK || !strings.Contains(out, c.want) || errs != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want the help saying %q", c.args, code, errs, out, c.want)
		}
	}
	// Words of a question: a short flag (go test -v), a flag that is not
	// search's (--follow), and anything after "--".
	for _, c := range []struct {
		args  []string
		query string
	}{
		{[]string{"search", "--json", "回滚", "-v"}, "回滚 -v"},
		{[]string{"search", "--json", "git", "log", "--follow", "回滚"}, "git log --follow 回滚"},
		{[]string{"search", "--json", "--", "回滚", "--json"}, "回滚 --json"},
	} {
		var r search.Response
		kbJSON(t, dir, &r, c.args...)
		if r.Query != c.query {
			t.Errorf("%q: query %q, want %q", c.args, r.Query, c.query)
		}
	}
}

// TestExamplesPutFlagsFirst: every git kb command line in the README's
// code blocks and in the commands' --help passes flagOrder, so no example
// teaches a line that is refused (git kb push upstream --rev v1.4.0 was
// one).
func TestExamplesPutFlagsFirst(t *testing.T) {
	app := newApp(env{})
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	fence := false
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
		} else if fence {
			lines = append(lines, "README.md: "+l)
		}
	}
	var walk func(cmds []*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			for _, l := range strings.Split(c.Description, "\n") {
				lines = append(lines, c.Name+" --help: "+l)
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	n := 0
	for _, l := range lines {
		where, text, _ := strings.Cut(l, ": ")
		for _, cmdline := range strings.Split(text, "git kb ")[1:] {
			args := append([]string{"git-kb"}, shellWords(cmdline)...)
			n++
			if _, err := flagOrder(app, args); err != nil {
				t.Errorf("%s: %s\n  %v", where, strings.TrimSpace(text), err)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d example command lines found", n)
	}
}

// shellWords splits a command line as a shell would, for the quoting the
// examples use ('...', "..."), up to its end: a pipe, a redirection, a
// ; or && and the next command, or a # comment.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case strings.ContainsRune("|;&<>", r) || r == '#' && !in:
			if in {
				words = append(words, w.String())
			}
			return words
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
			}
			in = false
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// TestUnknownFlagIsOneLine: an unknown flag of a command or subcommand
// is one line on stderr naming where its flags are listed, exit 2, and
// nothing on stdout (urfave/cli printed "Incorrect Usage" and the whole
// help there, into the --json a script reads).
func TestUnknownFlagIsOneLine(t *testing.T) {
	dir := gittest.New(t, docs)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "-n5", "--json", "回滚"}, "git kb search --help lists its flags"},
		{[]string{"hooks", "install", "--bogus"}, "git kb hooks install --help lists its flags"},
		{[]string{"eval", "--jsn", "q.jsonl"}, "git kb eval --help lists its flags"},
	} {
		out, errs, code := kb(t, dir, c.args...)
		if code != exitUsage || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, nothing on stdout, one line saying %q", c.args, code, out, errs, exitUsage, c.want)
		}
	}
}

// TestQueryStartingWithDash: a query whose first operator is an exclusion
// (-测试 回滚, -path:releases/ 慢查询) is one argument that urfave/cli
// reads as a flag. It was refused as "flag provided but not defined:
// -测试 回滚", which sends the reader to the flags; the error now says
// that a query starting with - goes after --, with the line that works,
// and that line does work.
func TestQueryStartingWithDash(t *testing.T) {
	dir := gittest.New(t, docs)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "-测试 回滚"}, `git kb search -- "-测试 回滚"`},
		{[]string{"search", "-n", "3", "-path:internal/ 回滚"}, `git kb search -n 3 -- "-path:internal/ 回滚"`},
		{[]string{"context", "--budget", "800", `-"连接池" 回滚`}, `git kb context --budget 800 -- '-"连接池" 回滚'`},
		{[]string{"ask", "-lang:go", "回滚"}, `git kb ask -- -lang:go 回滚`},
	} {
		out, errs, code := kb(t, dir, c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, "goes after --") || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, errs, exitUsage, c.want)
		}
	}
	r := searchJSON(t, dir, "--", "-path:internal/ 回滚")
	if len(r.Results) == 0 {
		t.Fatal("search -- '-path:internal/ 回滚' found nothing")
	}
	for _, res := range r.Results {
		if strings.HasPrefix(res.Path, "internal/") {
			t.Errorf("-path:internal/ kept %s", res.Path)
		}
	}
	// An unknown flag that reads as a flag stays the flag error.
	if _, errs, code := kb(t, dir, "search", "--jsn", "回滚"); code != exitUsage || !strings.Contains(errs, "git kb search --help lists its flags") {
		t.Errorf("--jsn: exit %d %q", code, errs)
	}
}
