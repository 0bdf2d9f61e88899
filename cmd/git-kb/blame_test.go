package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/review"
)

func blameJSON(t *testing.T, dir string, args ...string) review.Report {
	t.Helper()
	out, errs, code := kb(t, dir, append([]string{"blame-context", "--format", "json", "-q"}, args...)...)
	if code != 0 {
		t.Fatalf("blame-context %v: exit %d: %s", args, code, errs)
	}
	var r review.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return r
}

func fileOf(t *testing.T, r review.Report, path string) review.File {
	t.Helper()
	for _, f := range r.Files {
		if f.Path == path {
			return f
		}
	}
	t.Fatalf("%s not in the report: %+v", path, r.Files)
	return review.File{}
}

func subjects(f review.File) []string {
	var s []string
	for _, c := range f.History {
		s = append(s, c.Subject)
	}
	return s
}

// poolGo builds a function whose three settings lines each came from a
// different commit.
func poolGo(timeout, size, retries string) string {
	return `package pool

// Config holds the connection pool settings.
type Config struct{ Timeout, Size, Retries int }

// NewConfig returns the defaults.
func NewConfig() Config {
	c := Config{}
	c.Timeout = ` + timeout + `
	c.Size = ` + size + `
	c.Retries = ` + retries + `
	return c
}

// Unrelated is far from the change.
func Unrelated() int { return 42 }
`
}

func TestBlameContextHistoryDocsAndCode(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"pool/pool.go":         poolGo("1", "1", "1"),
		"docs/runbook/pool.md": "# 连接池运维手册\n\n## 调整 max_pool_size\n\n连接池打满时，先看慢查询，再调大 max_pool_size 配置。\n",
		"docs/other.md":        "# 无关文档\n\n发布流程说明。\n",
	})
	gittest.Commit(t, dir, "pool: raise the timeout (#101)", map[string]string{"pool/pool.go": poolGo("30", "1", "1")})
	gittest.Commit(t, dir, "pool: size from load test, see OPS-7", map[string]string{"pool/pool.go": poolGo("30", "16", "1")})
	gittest.Commit(t, dir, "pool: retry twice (!12)", map[string]string{"pool/pool.go": poolGo("30", "16", "2")})
	gittest.Commit(t, dir, "app: use NewConfig", map[string]string{"app/main.go": "package main\n\nimport \"x/pool\"\n\nfunc main() { _ = pool.NewConfig() }\n"})
	// The change under review rewrites all three lines and reads max_pool_size.
	changed := strings.Replace(poolGo("60", "32", "3"), "c.Size = 32", "c.Size = 32 // max_pool_size", 1)
	gittest.Commit(t, dir, "pool: new defaults", map[string]string{"pool/pool.go": changed})

	r := blameJSON(t, dir, "HEAD")
	if len(r.Files) != 1 {
		t.Fatalf("files: %+v", r.Files)
	}
	f := fileOf(t, r, "pool/pool.go")
	if f.Status != "modified" || f.Added != 3 || f.Removed != 3 {
		t.Errorf("file: %+v", f)
	}
	// The three commits that wrote the three lines, each with its reference.
	want := map[string]string{"pool: raise the timeout (#101)": "#101", "pool: size from load test, see OPS-7": "OPS-7", "pool: retry twice (!12)": "!12"}
	found := 0
	for _, c := range f.History {
		if ref, ok := want[c.Subject]; ok {
			found++
			if c.Lines != 1 || len(c.Refs) != 1 || c.Refs[0] != ref || len(c.SHA) != 40 {
				t.Errorf("%q: lines %d refs %v", c.Subject, c.Lines, c.Refs)
			}
		}
	}
	if found != 3 {
		t.Errorf("history %v: want the three commits that wrote the lines", subjects(f))
	}
	if len(f.History) > 0 && f.History[0].Lines == 0 {
		t.Errorf("a commit with changed lines should come first: %+v", f.History)
	}
	if !contains(f.Symbols, "NewConfig") {
		t.Errorf("symbols %v", f.Symbols)
	}
	// The runbook that mentions the config key, cited at the base.
	if len(f.Docs) == 0 || f.Docs[0].Path != "docs/runbook/pool.md" || !strings.HasPrefix(f.Docs[0].Citation, r.Base+":") {
		t.Errorf("docs: %+v", f.Docs)
	}
	// NewConfig is used in app/main.go.
	if len(f.Code) == 0 || f.Code[0].Path != "app/main.go" || f.Code[0].Kind != "use" || f.Code[0].Symbol != "NewConfig" {
		t.Errorf("code: %+v", f.Code)
	}

	// Markdown: a collapsible section, the history and the doc.
	md, _, code := kb(t, dir, "blame-context", "-q")
	if code != 0 || !strings.Contains(md, "<details><summary><code>pool/pool.go</code>") || !strings.Contains(md, "OPS-7") || !strings.Contains(md, "docs/runbook/pool.md") {
		t.Errorf("markdown:\n%s", md)
	}
	// A budget drops items, least relevant first, and says so.
	small, _, _ := kb(t, dir, "blame-context", "-q", "--max-bytes", "600")
	if len(small) > 600 || !strings.Contains(small, "left out") {
		t.Errorf("--max-bytes 600 gave %d bytes:\n%s", len(small), small)
	}
	if out := gittest.Git(t, dir, "status", "--porcelain"); out != "" {
		t.Errorf("blame-context changed the repository: %q", out)
	}
}

func TestBlameContextRenameAddedBinaryStaged(t *testing.T) {
	dir := gittest.New(t, map[string]string{"old/name.go": "package x\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n"})
	gittest.Commit(t, dir, "B returns 3", map[string]string{"old/name.go": "package x\n\nfunc A() int { return 1 }\n\nfunc B() int { return 3 }\n"})
	base := gittest.Git(t, dir, "rev-parse", "HEAD")
	os.Mkdir(filepath.Join(dir, "new"), 0o755)
	gittest.Git(t, dir, "mv", "old/name.go", "new/name.go")
	os.WriteFile(filepath.Join(dir, "new/name.go"), []byte("package x\n\nfunc A() int { return 1 }\n\nfunc B() int { return 4 }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "logo.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00binary"), 0o644)
	os.WriteFile(filepath.Join(dir, "added.md"), []byte("# 新文档\n"), 0o644)
	gittest.Git(t, dir, "add", "-A")

	// Staged: the index against HEAD.
	r := blameJSON(t, dir, "--staged")
	if !r.Staged || r.Base != base || len(r.Files) != 3 {
		t.Fatalf("staged report: %+v", r)
	}
	mv := fileOf(t, r, "new/name.go")
	if mv.Status != "renamed" || mv.OldPath != "old/name.go" || len(mv.History) == 0 || mv.History[0].Subject != "B returns 3" {
		t.Errorf("rename should be blamed under its old name: %+v", mv)
	}
	if bin := fileOf(t, r, "logo.png"); !bin.Binary || len(bin.History) != 0 {
		t.Errorf("binary: %+v", bin)
	}
	if add := fileOf(t, r, "added.md"); add.Status != "added" || len(add.History) != 0 || add.Note == "" {
		t.Errorf("added: %+v", add)
	}

	// The same change committed, as a range.
	gittest.Git(t, dir, "commit", "-qm", "rename and more")
	r2 := blameJSON(t, dir, base+"..HEAD")
	if len(r2.Files) != 3 || r2.Head == "" || r2.Base != base {
		t.Errorf("range report: %+v", r2)
	}
	if _, _, code := kb(t, dir, "blame-context", "HEAD..HEAD"); code != 1 {
		t.Errorf("empty range: exit %d", code)
	}
	if _, _, code := kb(t, dir, "blame-context", "--staged", "HEAD"); code != 2 {
		t.Errorf("--staged with a range: exit %d", code)
	}
	if _, _, code := kb(t, dir, "blame-context", "--format", "yaml"); code != 2 {
		t.Errorf("bad format: exit %d", code)
	}
}

// A merge commit is explained against its first parent: what it brought in.
func TestBlameContextMerge(t *testing.T) {
	dir := gittest.New(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "x\n"})
	gittest.Git(t, dir, "checkout", "-q", "-b", "topic")
	gittest.Commit(t, dir, "topic: change two", map[string]string{"a.txt": "one\nTWO\nthree\n"})
	gittest.Git(t, dir, "checkout", "-q", "main")
	gittest.Commit(t, dir, "main: change b", map[string]string{"b.txt": "y\n"})
	gittest.Git(t, dir, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
	r := blameJSON(t, dir, "HEAD")
	if len(r.Files) != 1 || r.Files[0].Path != "a.txt" {
		t.Fatalf("merge should show only what topic brought in: %+v", r.Files)
	}
	if s := subjects(r.Files[0]); len(s) == 0 || s[0] != "initial" {
		t.Errorf("history %v", s)
	}
	// Root commit: everything added, nothing to blame.
	root := gittest.Git(t, dir, "rev-list", "--max-parents=0", "HEAD")
	rr := blameJSON(t, dir, root)
	if len(rr.Files) != 2 || rr.Files[0].Status != "added" {
		t.Errorf("root commit: %+v", rr)
	}
}

// TestIndexingNoteNamesCommitOnce: the note that a commit is indexed
// first names it as the user did and by its short SHA; blame-context
// passes the base's full SHA, which the note printed in full and then
// again shortened ("indexing 7a37185e6304...4b08 (7a37185e6304)").
func TestIndexingNoteNamesCommitOnce(t *testing.T) {
	dir := gittest.New(t, docs)
	gittest.Commit(t, dir, "more", map[string]string{"docs/more.md": "# 回滚补充\n\n回滚前先通知值班。\n"})
	base := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD~1"))
	_, errs, code := kb(t, dir, "blame-context")
	if code != exitOK || !strings.Contains(errs, "indexing "+base[:12]+" before the first search of it") || strings.Contains(errs, base) {
		t.Errorf("blame-context: exit %d, stderr %q", code, errs)
	}
	_, errs, code = kb(t, dir, "search", "--rev", "HEAD", "回滚")
	if code != exitOK || !strings.Contains(errs, "indexing HEAD (") {
		t.Errorf("search --rev HEAD: exit %d, stderr %q", code, errs)
	}
}

// TestBlameContextNothingStaged: --staged with nothing staged says so,
// rather than a bare "0 files changed" report.
func TestBlameContextNothingStaged(t *testing.T) {
	dir := gittest.New(t, docs)
	out, errs, code := kb(t, dir, "blame-context", "--staged")
	if code != exitOK || !strings.Contains(out, "0 files changed") || !strings.Contains(out, "nothing is staged: git add the changes to explain") {
		t.Errorf("--staged: exit %d, stderr %q\n%s", code, errs, out)
	}
	if r := blameJSON(t, dir, "--staged"); len(r.Files) != 0 || len(r.Notes) != 1 || !strings.HasPrefix(r.Notes[0], "nothing is staged") {
		t.Errorf("--staged --json: files %d notes %q", len(r.Files), r.Notes)
	}
	// Something staged: no such note.
	if err := os.WriteFile(filepath.Join(dir, "docs", "new.md"), []byte("# 新\n\n回滚。\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "docs/new.md")
	if r := blameJSON(t, dir, "--staged"); len(r.Files) != 1 || len(r.Notes) != 0 {
		t.Errorf("staged file: files %d notes %q", len(r.Files), r.Notes)
	}
}
