package pack

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestBudgetNeverExceeded: over random candidate sets, budgets, formats
// and ratios, the rendered pack counted with the real BPE never exceeds
// the budget, citations head every block, and nothing appears twice.
func TestBudgetNeverExceeded(t *testing.T) {
	bpe, err := CL100K()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("连接池 超时 回滚 发布 retry_count maxOpenConns 慢查询 索引 the pool is full 熔断 限流 <xml> & \"quote\" ```")
	files := map[string][]string{}
	for i := range 40 {
		n := 5 + rng.IntN(120)
		var lines []string
		for range n {
			var l []string
			for range 1 + rng.IntN(12) {
				l = append(l, words[rng.IntN(len(words))])
			}
			lines = append(lines, strings.Join(l, " "))
		}
		files[fmt.Sprintf("blob%02d", i)] = lines
	}
	lines := func(blob string) ([]string, error) { return files[blob], nil }
	for trial := range 150 {
		var cands []Candidate
		for r := range 1 + rng.IntN(30) {
			blob := fmt.Sprintf("blob%02d", rng.IntN(40))
			n := len(files[blob])
			a := 1 + rng.IntN(n)
			b := min(n, a+rng.IntN(30))
			path := "docs/" + blob + ".md"
			if rng.IntN(8) == 0 {
				path = "copy/" + blob + ".md" // the same blob at another path
			}
			cands = append(cands, Candidate{Path: path, Blob: blob, Lang: "markdown", Start: a, End: b, Rank: r + 1})
		}
		format := []string{Markdown, JSON, XML}[trial%3]
		budget := 50 + rng.IntN(4000)
		ratios := DefaultRatios
		if trial%2 == 1 {
			ratios = Ratios{0.2, 0.7, 0.1}
		}
		p, err := Build(cands, Options{Query: "连接池", Commit: "abc", Budget: budget, Ratios: ratios, Format: format, Counter: bpe, Lines: lines})
		if err != nil {
			if budget < 100 && strings.Contains(err.Error(), "does not hold") {
				continue
			}
			t.Fatal(err)
		}
		out := Render(p)
		if got := bpe.Count(out); got > budget || got != p.Tokens {
			t.Fatalf("trial %d (%s, budget %d): rendered %d tokens, reported %d", trial, format, budget, got, p.Tokens)
		}
		seen := map[string]bool{}
		for _, b := range p.Blocks {
			if !strings.Contains(out, xmlOrPlain(format, b.Citation)) {
				t.Fatalf("block %s not headed by its citation", b.Citation)
			}
			key := b.Text
			if seen[key] {
				t.Fatalf("trial %d: %s appears twice", trial, b.Citation)
			}
			seen[key] = true
		}
	}
}

func xmlOrPlain(format, s string) string {
	if format == XML {
		return xmlEscape(s)
	}
	return s
}

type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) / 4 }

func TestWholeSmallFilesAndMergedSections(t *testing.T) {
	files := map[string][]string{
		"small": {"# 小文档", "连接池说明"},
		"big":   make([]string, 400),
	}
	for i := range files["big"] {
		files["big"][i] = fmt.Sprintf("line %d of a long runbook about 连接池", i+1)
	}
	cands := []Candidate{
		{Path: "big.md", Blob: "big", Start: 10, End: 20, Rank: 1},
		{Path: "small.md", Blob: "small", Start: 1, End: 2, Rank: 2},
		{Path: "big.md", Blob: "big", Start: 21, End: 30, Rank: 3}, // touches the first: merged
		{Path: "big.md", Blob: "big", Start: 200, End: 205, Rank: 4},
	}
	p, err := Build(cands, Options{Commit: "c", Budget: 2000, Format: Markdown, Counter: byteCounter{}, Lines: func(b string) ([]string, error) { return files[b], nil }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range p.Blocks {
		got = append(got, fmt.Sprintf("%s %s", b.Kind, b.Citation))
	}
	want := []string{"section c:big.md#L10-L30", "document c:small.md#L1-L2", "section c:big.md#L200-L205"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("blocks:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := ParseRatios("0.5,0.5,0.5"); err == nil {
		t.Error("ratios adding up to 1.5 accepted")
	}
	if r, err := ParseRatios("0.7, 0.25, 0.05"); err != nil || r.Whole != 0.7 {
		t.Errorf("ParseRatios: %+v %v", r, err)
	}
}

// TestUnreadableFileLeftOut: a file whose lines are an UnreadableError is left
// out and named in Unread; the others are packed; any other error fails
// the pack; a pack of nothing has [] blocks, not null.
func TestUnreadableFileLeftOut(t *testing.T) {
	files := map[string][]string{"ok": {"# 连接池", "连接池说明"}}
	lines := func(b string) ([]string, error) {
		if l, ok := files[b]; ok {
			return l, nil
		}
		return nil, &UnreadableError{fmt.Errorf("read blob %s: object not found", b)}
	}
	cands := []Candidate{
		{Path: "lost.md", Blob: "lost", Start: 1, End: 2, Rank: 1},
		{Path: "ok.md", Blob: "ok", Start: 1, End: 2, Rank: 2},
	}
	p, err := Build(cands, Options{Commit: "c", Budget: 2000, Format: JSON, Counter: byteCounter{}, Lines: lines})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blocks) != 1 || p.Blocks[0].Path != "ok.md" || len(p.Unread) != 1 || p.Unread[0] != "lost.md: read blob lost: object not found" {
		t.Errorf("blocks %+v, unread %q", p.Blocks, p.Unread)
	}
	p, err = Build(cands[:1], Options{Commit: "c", Budget: 2000, Format: JSON, Counter: byteCounter{}, Lines: lines})
	if err != nil || p.Blocks == nil || !strings.Contains(Render(p), `"blocks": []`) {
		t.Errorf("nothing readable: %v, %s", err, Render(p))
	}
	_, err = Build(cands, Options{Commit: "c", Budget: 2000, Format: JSON, Counter: byteCounter{}, Lines: func(string) ([]string, error) { return nil, errors.New("boom") }})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("another error: %v", err)
	}
}

// TestUnreadFilesTyped: the files left out are also listed by path with
// the Lines error itself (an UnreadableError found through wrapping), so
// a caller tells them apart by path and by error, not by the text.
func TestUnreadFilesTyped(t *testing.T) {
	errLost := errors.New("object not found")
	lines := func(b string) ([]string, error) {
		switch b {
		case "ok":
			return []string{"# 连接池", "连接池说明"}, nil
		case "lost":
			return nil, fmt.Errorf("pool.md: %w", &UnreadableError{fmt.Errorf("read blob %s: %w", b, errLost)})
		}
		return nil, &UnreadableError{errors.New("bad pack header")}
	}
	cands := []Candidate{
		{Path: "docs/a: b.md", Blob: "lost", Start: 1, End: 2, Rank: 1}, // ": " in a path
		{Path: "ok.md", Blob: "ok", Start: 1, End: 2, Rank: 2},
		{Path: "docs/a", Blob: "damaged", Start: 1, End: 2, Rank: 3},
	}
	p, err := Build(cands, Options{Commit: "c", Budget: 2000, Format: JSON, Counter: byteCounter{}, Lines: lines})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.UnreadFiles) != 2 || p.UnreadFiles[0].Path != "docs/a: b.md" || !errors.Is(p.UnreadFiles[0].Err, errLost) ||
		p.UnreadFiles[1].Path != "docs/a" || p.UnreadFiles[1].Err.Error() != "bad pack header" {
		t.Fatalf("unread files %+v", p.UnreadFiles)
	}
	if want := []string{"docs/a: b.md: read blob lost: object not found", "docs/a: bad pack header"}; !slices.Equal(p.Unread, want) {
		t.Errorf("unread %q, want %q", p.Unread, want)
	}
	if strings.Contains(Render(p), "UnreadFiles") {
		t.Errorf("the typed list is in the JSON: %s", Render(p))
	}
}
