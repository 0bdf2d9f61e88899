package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/pack"
	"github.com/git-kb/git-kb/search"
)

// damaged is an engine on a repository of the files of engine_test.go
// with a failing rerank endpoint configured, indexed, then missing the
// object of lost's blob; it collects the engine's notices, formatted.
func damaged(t *testing.T, lost string) (*Engine, *[]string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	return damagedRepo(t, files, lost, func(dir string) {
		gittest.Git(t, dir, "config", "kb.rerank.baseURL", srv.URL)
	})
}

// damagedRepo is an engine on a repository of fs (configured by setup,
// if any), indexed, then missing the object of lost's blob; it collects
// the engine's notices, formatted.
func damagedRepo(t *testing.T, fs map[string]string, lost string, setup func(dir string)) (*Engine, *[]string) {
	t.Helper()
	dir := gittest.New(t, fs)
	if setup != nil {
		setup(dir)
	}
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	k, err := Open(context.Background(), repo, Options{Getenv: func(string) string { return "" }, Version: "test",
		Note: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	v, err := k.OpenView(context.Background(), "", false) // indexes HEAD
	if err != nil {
		t.Fatal(err)
	}
	v.Close()
	blob := gittest.Git(t, dir, "rev-parse", "HEAD:"+lost)
	if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	return k, &notes
}

// TestDegradedNotes: each reason a search gives for answering less than
// asked is a typed note, Degraded their texts joined in the order met,
// and a context pack repeats all but the unread files' note, which it
// says itself (what it left out), so that each is said once.
func TestDegradedNotes(t *testing.T) {
	ctx := context.Background()
	const lost = "docs/adr/0001-connection-pool.md"
	k, notes := damaged(t, lost)
	// The phrase is not in the ADR as written (its words are), the
	// ADR's blob is gone, and the judge answers 503.
	q := `"连接池 默认"`
	parsed, err := search.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	req := search.Request{Query: q, Parsed: parsed, K: 3}
	r, err := k.Search(ctx, SearchRequest{Request: req, Rerank: "endpoint"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(paths(r), lost) {
		t.Fatalf("results %v, want %s (cited, without its snippet)", paths(r), lost)
	}
	var kinds []search.NoteKind
	var texts []string
	for _, n := range r.Notes() {
		kinds, texts = append(kinds, n.Kind), append(texts, n.Text)
	}
	if want := []search.NoteKind{search.NotePhrase, search.NoteUnread, search.NoteRerank}; !slices.Equal(kinds, want) {
		t.Fatalf("note kinds %v, want %v: %q", kinds, want, texts)
	}
	if !strings.HasPrefix(texts[1], "cannot read "+lost+": ") || texts[1] != search.UnreadNote(r.Unread()) {
		t.Errorf("unread note %q", texts[1])
	}
	if r.Degraded != strings.Join(texts, "; ") {
		t.Errorf("degraded %q, want the notes joined: %q", r.Degraded, texts)
	}
	besides := r.DegradedBesides(search.NoteUnread)
	if besides != texts[0]+"; "+texts[2] {
		t.Errorf("degraded besides the unread files: %q", besides)
	}

	*notes = nil
	p, err := k.ContextPack(ctx, ContextRequest{Request: req, Rerank: "endpoint", Budget: 2000, Ratios: pack.DefaultRatios, Format: pack.JSON})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("search: %q; pack's notices: %q", r.Degraded, *notes)
	if !slices.Contains(*notes, besides) {
		t.Errorf("the pack's notices %q lack the search's other notes %q", *notes, besides)
	}
	if n := strings.Count(strings.Join(*notes, "\n"), lost); n != 1 {
		t.Errorf("the pack's notices name %s %d times, want once: %q", lost, n, *notes)
	}
	for _, b := range p.Blocks {
		if b.Path == lost {
			t.Errorf("the unreadable %s was packed: %+v", lost, b)
		}
	}
}

// TestPackNamesUnreadFilesByPath: an unread file a phrase filter left
// out of the search, so the pack never asked for it, is named by the
// search's note (TestDegradedNotes has the pack name the one it asked
// for, once): the pack's files are told from the search's by path, a
// path holding ": " included.
func TestPackNamesUnreadFilesByPath(t *testing.T) {
	const lost = "docs/超时: 重试.md"
	k, notes := damagedRepo(t, map[string]string{
		lost:          "# 超时\n\n请求超时之后按指数退避重试。\n",
		"docs/ok.md":  "# 重试\n\n失败的请求按指数退避重试，最多三次。\n",
		"docs/etc.md": "# 其他\n\n与本题无关的内容。\n",
	}, lost, nil)
	*notes = nil
	p := jsonPack(t, k, `"按指数退避重试"`)
	t.Logf("unread %q, notices %q", p.Unread, *notes)
	if len(p.Blocks) == 0 || p.Blocks[0].Path != "docs/ok.md" || len(p.UnreadFiles) != 0 {
		t.Fatalf("pack of %d blocks, unread %q: want docs/ok.md, nothing left out", len(p.Blocks), p.Unread)
	}
	if n := strings.Count(strings.Join(*notes, "\n"), lost); n != 1 || !slices.ContainsFunc(*notes, func(n string) bool { return strings.HasPrefix(n, "cannot read "+lost+": ") }) {
		t.Errorf("notices %q name %s %d times, want once as the search could not read it", *notes, lost, n)
	}
}
