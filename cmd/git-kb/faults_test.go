package main

// The fault matrix (issue 21): every command under the faults real
// machines have, run as the real binary so that a crash is seen as a
// crash. Each cell must end with no stack trace, either a correct answer
// or a short error, and after `doctor --fix` nothing lost and doctor clean.
//
//	go test ./cmd/git-kb -run TestFaultMatrix -v
//
// GIT_KB_FAULT_BIN=<binary> runs the matrix against another build (e.g.
// main before issue 21) and only reports; GIT_KB_FAULT_MATRIX=<file>
// writes the outcome table as Markdown.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/search"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// faultCmds are the commands of the matrix: arguments, and whether the
// command needs the index of HEAD to answer.
var faultCmds = []struct {
	name string
	args []string
}{
	{"index", []string{"index", "--embed", "off", "-q"}},
	{"search", []string{"search", "-n", "3", "连接池 超时"}},
	{"show", nil}, // the citation of the first result, filled in per repo
	{"context", []string{"context", "--budget", "400", "连接池 超时"}},
	{"ask", []string{"ask", "连接池 超时 怎么办"}},
	{"blame-context", []string{"blame-context", "-q"}},
	{"gc", []string{"gc", "-q"}},
	{"doctor", []string{"doctor"}},
	{"mcp search", []string{"mcp"}}, // one tools/call over stdio
}

type faultRun struct {
	out, err string
	code     int
	took     time.Duration
}

func faultBinary(t *testing.T) (string, bool) {
	if b := os.Getenv("GIT_KB_FAULT_BIN"); b != "" {
		return b, true
	}
	return gitKBBinary(t), false
}

func runBin(t *testing.T, bin, dir string, stdin string, args ...string) faultRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, gittest.Env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	t0 := time.Now()
	err := cmd.Run()
	r := faultRun{out: out.String(), err: errb.String(), took: time.Since(t0)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// mcpCall starts `git-kb mcp` in dir and calls its keyword_search tool
// once, as an agent would; a tool error comes back as exit 1 and its text.
func mcpCall(t *testing.T, bin, dir string) faultRun {
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env = dir, gittest.Env()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t0 := time.Now()
	client := sdk.NewClient(&sdk.Implementation{Name: "fault-test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return faultRun{err: err.Error() + "\n" + errb.String(), code: 1, took: time.Since(t0)}
	}
	defer sess.Close()
	res, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: "keyword_search", Arguments: map[string]any{"query": "连接池 超时"}})
	r := faultRun{took: time.Since(t0)}
	switch {
	case err != nil:
		r.code, r.err = 1, "protocol error: "+err.Error()+"\n"+errb.String()
	case res.IsError:
		r.code = 1
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				r.err += tc.Text
			}
		}
	default:
		b, _ := json.Marshal(res.StructuredContent)
		r.out = string(b)
	}
	return r
}

// crashDump says a run ended in a Go crash dump: a stack trace, a panic,
// a runtime fatal error or a signal (SIGBUS on a full disk).
func crashDump(r faultRun) bool {
	all := r.out + r.err
	return strings.Contains(all, "goroutine ") || strings.Contains(all, "panic:") || strings.Contains(all, "fatal error:") || r.code == 2 && strings.Contains(all, "[signal")
}

// verdict classifies one run: "crash" (a stack trace or a Go runtime
// exit), "answer", "error: <first line>".
func verdict(r faultRun) string {
	if crashDump(r) {
		return "STACK TRACE"
	}
	if r.code == 0 {
		if strings.Contains(r.err, "answering from") || strings.Contains(r.err, "cannot index") {
			return "stale answer"
		}
		return "answer"
	}
	return "error: " + firstErrLine(r.err)
}

func firstErrLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "git kb: indexing") {
			if len(l) > 90 {
				l = l[:90] + "…"
			}
			return l
		}
	}
	return "(no message)"
}

// faultRepo makes a small repository with docs and code, indexed at HEAD,
// and a citation to show.
func faultRepo(t *testing.T, bin string) (dir, citation string) {
	files := genDocs(40, 21, "docs")
	files["svc/pool.go"] = "package svc\n\n// Pool 连接池 超时 retry_count\nfunc Pool() int { return 1 }\n"
	dir = gittest.New(t, files)
	gittest.Commit(t, dir, "second", map[string]string{"docs/extra.md": "# 连接池 超时\n\n连接池 超时 后先重试，再回滚。\n", "svc/pool.go": "package svc\n\n// Pool 连接池 超时 retry_count\nfunc Pool() int { return 2 }\n"})
	if r := runBin(t, bin, dir, "", "index", "--embed", "off", "-q"); r.code != 0 {
		t.Fatalf("index: %s", r.err)
	}
	r := runBin(t, bin, dir, "", "search", "--json", "-q", "-n", "1", "连接池 超时")
	var resp search.Response
	if err := json.Unmarshal([]byte(r.out), &resp); err != nil || len(resp.Results) == 0 {
		t.Fatalf("search: %v %s %s", err, r.out, r.err)
	}
	return dir, resp.Results[0].Citation
}

// copyRepo clones a prepared repository with its index (cp -a keeps the
// loose objects and .git/kb as they are).
func copyRepo(t *testing.T, src string) string {
	dst := filepath.Join(t.TempDir(), "r")
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

type fault struct {
	name string
	// apply damages dir; it returns false (with a reason logged) to skip.
	apply func(t *testing.T, dir string) bool
	// recover is what a user does afterwards (nil: doctor --fix).
	recover func(t *testing.T, dir string)
}

func damageFile(glob string, how func(path string, size int64) error) func(t *testing.T, dir string) bool {
	return func(t *testing.T, dir string) bool {
		names, _ := filepath.Glob(filepath.Join(dir, ".git", "kb", "db", glob))
		if len(names) == 0 {
			t.Logf("no %s in the index", glob)
			return false
		}
		sort.Strings(names)
		name := names[len(names)-1]
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := how(name, fi.Size()); err != nil {
			t.Fatal(err)
		}
		return true
	}
}

func truncHalf(p string, n int64) error { return os.Truncate(p, n/2) }
func zeroMiddle(p string, n int64) error {
	return overwriteAt(p, n/3, min(4096, n/3+1), 0)
}
func garbageTail(p string, n int64) error { return overwriteAt(p, max(0, n-48), min(48, n), 0xA5) }

func overwriteAt(path string, off, n int64, b byte) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteAt(bytes.Repeat([]byte{b}, int(n)), off)
	return err
}

// onTmpfs moves .git/kb onto a tmpfs of size bytes (ro: read-only once
// filled), where the test may mount one: root on Linux. CI without it
// skips these faults (store's tests cover the space check itself).
func onTmpfs(size string, ro bool) func(t *testing.T, dir string) bool {
	return func(t *testing.T, dir string) bool {
		mnt, err := kbOnTmpfs(t, dir, size)
		if err != nil {
			t.Logf("%v: skipped", err)
			return false
		}
		if ro {
			if out, err := exec.Command("mount", "-o", "remount,ro", mnt).CombinedOutput(); err != nil {
				t.Fatalf("remount ro: %v %s", err, out)
			}
		} else {
			// Fill what is left, leaving a little: a full disk.
			exec.Command("sh", "-c", "dd if=/dev/zero of="+mnt+"/filler bs=64k 2>/dev/null; rm -f "+mnt+"/filler; dd if=/dev/zero of="+mnt+"/filler bs=1k count=$(( $(df -k --output=avail "+mnt+" | tail -1) - 16 )) 2>/dev/null").Run()
		}
		// A new commit: HEAD is not indexed and cannot be.
		gittest.Commit(t, dir, "third", genDocs(30, 99, "more"))
		return true
	}
}

// freeTmpfs is the recovery from a full or read-only tmpfs: the index
// goes back to the ordinary disk (what a user does by freeing space).
func freeTmpfs(t *testing.T, dir string) {
	kbDir := filepath.Join(dir, ".git", "kb")
	mnt, err := os.Readlink(kbDir)
	if err != nil {
		return
	}
	os.Remove(kbDir)
	os.Remove(filepath.Join(mnt, "filler"))
	if out, err := exec.Command("cp", "-a", mnt+"/.", kbDir).CombinedOutput(); err != nil {
		t.Fatalf("cp back: %v %s", err, out)
	}
}

// deleteObject removes the loose object of a blob of HEAD that is not yet
// indexed: a lost object (or a partial clone's absent blob).
func deleteObject(t *testing.T, dir string) bool {
	gittest.Commit(t, dir, "third", map[string]string{"docs/lost.md": "# 失踪\n\n这篇文档的对象会丢失。\n"})
	sha := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD:docs/lost.md"))
	if err := os.Remove(filepath.Join(dir, ".git", "objects", sha[:2], sha[2:])); err != nil {
		t.Logf("object %s is packed: skipped (%v)", sha, err)
		return false
	}
	return true
}

func shallowClone(t *testing.T, dir string) bool {
	// Replace dir by a depth-1 clone of itself, index included.
	src := filepath.Join(t.TempDir(), "src")
	if err := os.Rename(dir, src); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, filepath.Dir(dir), "clone", "-q", "--depth", "1", "file://"+src, dir)
	if out, err := exec.Command("cp", "-a", filepath.Join(src, ".git", "kb"), filepath.Join(dir, ".git", "kb")).CombinedOutput(); err != nil {
		t.Fatalf("cp kb: %v %s", err, out)
	}
	return true
}

var faults = []fault{
	{name: "none", apply: func(*testing.T, string) bool { return true }},
	{name: "disk full (tmpfs)", apply: onTmpfs("2m", false), recover: freeTmpfs},
	{name: "read-only index dir", apply: onTmpfs("8m", true), recover: freeTmpfs},
	{name: "table truncated", apply: damageFile("*.sst", truncHalf)},
	{name: "table block zeroed", apply: damageFile("*.sst", zeroMiddle)},
	{name: "table footer garbage", apply: damageFile("*.sst", garbageTail)},
	{name: "value log truncated", apply: damageFile("*.vlog", truncHalf)},
	{name: "value log zeroed", apply: damageFile("*.vlog", zeroMiddle)},
	{name: "MANIFEST truncated", apply: damageFile("MANIFEST", truncHalf)},
	{name: "MANIFEST garbage", apply: damageFile("MANIFEST", garbageTail)},
	{name: "KEYREGISTRY garbage", apply: damageFile("KEYREGISTRY", garbageTail)},
	{name: "DISCARD truncated", apply: damageFile("DISCARD", truncHalf)},
	{name: "git object deleted", apply: deleteObject, recover: func(*testing.T, string) {}},
	{name: "shallow clone (depth 1)", apply: shallowClone, recover: func(*testing.T, string) {}},
}

// TestFaultMatrix runs every command under every fault.
func TestFaultMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault matrix runs the binary ~150 times")
	}
	bin, reportOnly := faultBinary(t)
	base, citation := faultRepo(t, bin)
	table := map[string]map[string]string{}
	for _, f := range faults {
		table[f.name] = map[string]string{}
		t.Run(f.name, func(t *testing.T) {
			last, shared := "", ""
			for _, c := range faultCmds {
				// Commands that write (index, gc) get a copy each; the
				// readers share one, which keeps the matrix fast.
				dir := shared
				if dir == "" || c.name == "index" || c.name == "gc" {
					dir = copyRepo(t, base)
					if !f.apply(t, dir) {
						table[f.name][c.name] = "skipped"
						continue
					}
					if c.name != "index" && c.name != "gc" {
						shared = dir
					}
				}
				var r faultRun
				switch c.name {
				case "mcp search":
					r = mcpCall(t, bin, dir)
				case "show":
					r = runBin(t, bin, dir, "", "show", citation)
				default:
					r = runBin(t, bin, dir, "", c.args...)
				}
				v := verdict(r)
				table[f.name][c.name] = v
				t.Logf("%-14s %s (exit %d, %.1fs)", c.name, v, r.code, r.took.Seconds())
				if reportOnly {
					continue
				}
				if v == "STACK TRACE" {
					t.Errorf("%s: stack trace:\n%s", c.name, r.err)
				}
				if n := strings.Count(strings.TrimSpace(r.err), "\n") + 1; r.code != 0 && n > 3 {
					t.Errorf("%s: %d lines of errors, want one (and a hint):\n%s", c.name, n, r.err)
				}
				if f.name == "none" && r.code != 0 {
					t.Errorf("%s without a fault: exit %d: %s", c.name, r.code, r.err)
				}
				last = dir
			}
			// Recovery, once per fault (on the last command's copy):
			// what the user does, then nothing lost and doctor clean.
			if reportOnly || last == "" {
				return
			}
			dir := last
			if f.recover != nil {
				f.recover(t, dir)
			}
			if fx := runBin(t, bin, dir, "", "doctor", "--fix", "-q"); fx.code != 0 {
				t.Errorf("doctor --fix: exit %d\n%s%s", fx.code, fx.out, fx.err)
			}
			if d := runBin(t, bin, dir, "", "doctor"); d.code != 0 {
				t.Errorf("doctor after recovery: exit %d\n%s%s", d.code, d.out, d.err)
			}
			if s := runBin(t, bin, dir, "", "search", "-q", "-n", "1", "连接池 超时"); s.code != 0 || !strings.Contains(s.out, "连接池") {
				t.Errorf("search after recovery: exit %d\n%s%s", s.code, s.out, s.err)
			}
		})
	}
	writeMatrix(t, table)
}

func writeMatrix(t *testing.T, table map[string]map[string]string) {
	var b strings.Builder
	b.WriteString("| fault |")
	for _, c := range faultCmds {
		fmt.Fprintf(&b, " %s |", c.name)
	}
	b.WriteString("\n|---|")
	for range faultCmds {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, f := range faults {
		fmt.Fprintf(&b, "| %s |", f.name)
		for _, c := range faultCmds {
			fmt.Fprintf(&b, " %s |", strings.ReplaceAll(table[f.name][c.name], "|", "/"))
		}
		b.WriteString("\n")
	}
	t.Logf("fault matrix:\n%s", b.String())
	if p := os.Getenv("GIT_KB_FAULT_MATRIX"); p != "" {
		os.WriteFile(p, []byte(b.String()), 0o644)
	}
}

// TestSignalsDuringIndexAndGC interrupts index and gc at random moments:
// the index then shows a complete view, doctor is clean, nothing is lost.
func TestSignalsDuringIndexAndGC(t *testing.T) {
	if testing.Short() {
		t.Skip("kills the binary at random points")
	}
	bin, reportOnly := faultBinary(t)
	files := genDocs(300, 5, "docs")
	base := gittest.New(t, files)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, what := range [][]string{{"index", "--embed", "off", "-q"}, {"gc", "-q"}} {
			dir := copyRepo(t, base)
			if what[0] == "gc" {
				runBin(t, bin, dir, "", "index", "--embed", "off", "-q")
				gittest.Commit(t, dir, "more", genDocs(100, 6, "more"))
				runBin(t, bin, dir, "", "index", "--embed", "off", "-q")
			}
			delay := time.Duration(50+rng.IntN(1500)) * time.Millisecond
			cmd := exec.Command(bin, what...)
			cmd.Dir, cmd.Env = dir, gittest.Env()
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.AfterFunc(delay, func() { cmd.Process.Signal(sig) })
			cmd.Wait()
			v := verdict(faultRun{err: errb.String(), code: cmd.ProcessState.ExitCode()})
			t.Logf("%s %s after %s: %s", sig, what[0], delay, v)
			if reportOnly {
				continue
			}
			if v == "STACK TRACE" {
				t.Errorf("%s during %s: %s", sig, what[0], errb.String())
			}
			if d := runBin(t, bin, dir, "", "doctor"); d.code != 0 {
				t.Errorf("%s during %s: doctor: %s%s", sig, what[0], d.out, d.err)
			}
			if s := runBin(t, bin, dir, "", "search", "-q", "-n", "1", "连接池 超时"); s.code != 0 {
				t.Errorf("%s during %s: search after: %s", sig, what[0], s.err)
			}
		}
	}
}

// mountTmpfs mounts a tmpfs of size (mount's -o size=: 64m, or bytes) in a
// temporary directory, unmounted when the test ends, for faults of a full
// disk; the error says why it could not (not root, no tmpfs).
// errNoFit: the index did not fit the tmpfs kbOnTmpfs mounted.
var errNoFit = errors.New("the index does not fit the tmpfs")

// kbOnTmpfs puts dir's .git/kb on a tmpfs of size (mountTmpfs), moving
// the index there when there is one, and returns the mount point. An
// error says the tmpfs could not be mounted, or (errNoFit) filled.
func kbOnTmpfs(t *testing.T, dir, size string) (string, error) {
	t.Helper()
	mnt, err := mountTmpfs(t, size)
	if err != nil {
		return "", err
	}
	kbDir := filepath.Join(dir, ".git", "kb")
	if _, err := os.Stat(kbDir); err == nil {
		if out, err := exec.Command("cp", "-a", kbDir+"/.", mnt).CombinedOutput(); err != nil {
			return "", fmt.Errorf("%w (%v %s)", errNoFit, err, out)
		}
		os.RemoveAll(kbDir)
	}
	if err := os.Symlink(mnt, kbDir); err != nil {
		t.Fatal(err)
	}
	return mnt, nil
}

func mountTmpfs(t *testing.T, size string) (string, error) {
	t.Helper()
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		return "", err
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", mnt).CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot mount a tmpfs here (%v %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	return mnt, nil
}
