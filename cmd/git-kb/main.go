// Command git-kb is `git kb`: a knowledge base of a git repository's docs and
// code, searched per commit, with citations pinned to commit SHAs.
//
// This package holds flags and output only: a command turns its flags into
// a request to package engine, which does the work, and prints the answer.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"

	_ "github.com/git-kb/git-kb/cmd/git-kb/internal/hugeheap" // huge pages for the heap, before other initialisers allocate
	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/search"
	"github.com/urfave/cli/v2"
)

// version is set at build time by install.sh and make dist
// (-ldflags -X main.version=...); see cmd_version.go.
var version = "dev"

// Exit codes (ARCHITECTURE.md): 0 results or none, 1 error, 2 usage.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// env is what commands touch of the outside world, so tests can swap it.
type env struct {
	Stdout, Stderr io.Writer
	Dir            string // working directory
	StderrTTY      bool
	StdoutTTY      bool
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
}

func (e env) getenv(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return e.Getenv(k)
}

// usageError is a mistake in how the command was called (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// exiting is set by main: this process ends after its one command
// (engine.Options.Exiting). Tests run many commands in one process and
// leave it false.
var exiting bool

func main() {
	exiting = true
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	dir, _ := os.Getwd()
	// GIT_KB_CPUPROFILE=FILE writes a CPU profile of the command, for
	// `go tool pprof`: how the next engineer finds where time goes.
	if path := os.Getenv("GIT_KB_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.StartCPUProfile(f)
			defer f.Close()
		}
	}
	// GIT_KB_MEMPROFILE=FILE writes where the command allocated (every
	// allocation sampled; `go tool pprof -sample_index=alloc_space`): in a
	// short command, fresh heap is page faults, a large part of its time.
	memProfile := os.Getenv("GIT_KB_MEMPROFILE")
	if memProfile != "" {
		runtime.MemProfileRate = 1
	}
	code := run(ctx, os.Args, env{Stdout: os.Stdout, Stderr: os.Stderr, Dir: dir, StderrTTY: isTTY(os.Stderr), StdoutTTY: isTTY(os.Stdout)})
	stop()
	pprof.StopCPUProfile()
	if memProfile != "" {
		if f, err := os.Create(memProfile); err == nil {
			// The profile is as of the last collection: without one
			// now, what was allocated since is missing (all of it, in a
			// command that ran none).
			runtime.GC()
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	os.Exit(code)
}

func isTTY(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func run(ctx context.Context, args []string, e env) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = exitError
			fmt.Fprintf(e.Stderr, "git kb: %v\n", crashed(r))
		}
	}()
	app := newApp(e)
	args, err := helpArgs(app, args)
	if err == nil {
		err = unknownCommand(app, args)
	}
	if err == nil {
		args, err = flagOrder(app, args)
	}
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	if err == nil {
		return exitOK
	}
	var ue usageError
	var eu *engine.UsageError
	var pe *search.PathError
	var fe *search.FilterError
	if errors.As(err, &ue) || errors.As(err, &eu) || errors.As(err, &pe) || errors.As(err, &fe) || isFlagError(err) {
		fmt.Fprintf(e.Stderr, "git kb: %s\n", tidy(err.Error()))
		return exitUsage
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(e.Stderr, "git kb: interrupted")
		return exitError
	}
	fmt.Fprintf(e.Stderr, "git kb: %s\n", tidy(friendly(err).Error()))
	return exitError
}

// maxErrLine bounds each line of an error message, in runes.
const maxErrLine = 800

// tidy makes an error message safe to print whatever the input was: an
// error that quotes a 1 MB query or revision shows its start, and control
// characters (a terminal escape in a query) are shown as \ufffd, one for
// one, so a caret under a query still points at the right column.
func tidy(msg string) string {
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	for i, l := range lines {
		l = strings.ToValidUTF8(l, "\ufffd")
		l = strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				return '\ufffd'
			}
			return r
		}, l)
		if rs := []rune(l); len(rs) > maxErrLine {
			l = string(rs[:maxErrLine-40]) + fmt.Sprintf("… (%d more characters)", len(rs)-(maxErrLine-40))
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

func newApp(e env) *cli.App {
	app := &cli.App{
		Name:      "git kb",
		HelpName:  "git kb",
		Usage:     "search a repository's docs and code, per commit, with citations",
		Version:   buildInfo().String(),
		Writer:    e.Stdout,
		ErrWriter: e.Stderr,
		Description: `git kb indexes the files of a commit (HEAD by default) into a local index
under $(git rev-parse --git-common-dir)/kb and answers queries against it.
Chinese text is segmented into words (gse), code identifiers are split
(retryCount -> retry, count), and every result cites an immutable place:
<commit>:<path>#L<start>-L<end>, readable later with 'git kb show'.

Start with:  git kb search "发布失败后如何回滚"   (indexes HEAD on first use)
Help on a command:  git kb help COMMAND, git kb COMMAND --help, man git-kb-COMMAND`,
		HideHelpCommand:      true,
		EnableBashCompletion: true,
		Commands: []*cli.Command{
			indexCommand(e),
			searchCommand(e),
			evalCommand(e),
			showCommand(e),
			statusCommand(e),
			askCommand(e),
			contextCommand(e),
			blameContextCommand(e),
			hooksCommand(e),
			gcCommand(e),
			doctorCommand(e),
			configCommand(e),
			mcpCommand(e),
			versionCommand(e),
			pushCommand(e),
			pullCommand(e),
			shareCommand(e),
			publishCommand(e),
			manPagesCommand(e, func() *cli.App { return newApp(e) }),
		},
		ExitErrHandler: func(*cli.Context, error) {}, // run() maps errors to exit codes
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err.Error()}
		},
	}
	quietUsage(app.Commands, "git kb")
	return app
}

// quietUsage gives every command the app's handling of a usage error (an
// unknown flag, a bad value): one line on stderr, exit 2. Without it
// urfave/cli prints "Incorrect Usage" and the command's whole help to
// stdout, into the --json a script reads.
func quietUsage(cmds []*cli.Command, parent string) {
	for _, c := range cmds {
		name := parent + " " + c.Name
		if c.OnUsageError == nil {
			c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
				return usagef("%v (%s --help lists its flags)", err, name)
			}
		}
		quietUsage(c.Subcommands, name)
	}
}

// crashed turns a panic that reached the command into one line; the
// stack goes to a file for the bug report. A panic inside the database
// library means a damaged index (Badger indexes slices with what it reads
// from disk), and the cure is a rebuild.
func crashed(r any) string {
	stack := debug.Stack()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("git-kb-crash-%d.log", os.Getpid()))
	saved := ""
	if err := os.WriteFile(path, fmt.Appendf(nil, "git-kb %s panic: %v\n%s", version, r, stack), 0o644); err == nil {
		saved = "; details in " + path
	}
	msg := strings.SplitN(fmt.Sprint(r), "\n", 2)[0]
	if bytes.Contains(stack, []byte("dgraph-io/badger")) {
		return fmt.Sprintf("the index is damaged (%s)%s\nrun: git kb doctor --fix   (moves it aside and rebuilds it from git)", msg, saved)
	}
	return fmt.Sprintf("internal error: %s%s; please report it", msg, saved)
}

// isFlagError recognises urfave/cli's own parse errors, which are not typed.
func isFlagError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"flag provided but not defined", "invalid value", "Required flag", "flag needs an argument", "No help topic"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
