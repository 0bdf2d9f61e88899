package review

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParsePatch(t *testing.T) {
	patch := `diff --git a/x.go b/x.go
index 1111111..2222222 100644
--- a/x.go
+++ b/x.go
@@ -3 +3 @@ func A() {
-	return 1
+	return 2
@@ -10,0 +11,2 @@ func B() {
+	x++
+	y++
@@ -20,3 +22,0 @@
-a
-b
-c
diff --git a/logo.png b/logo.png
new file mode 100644
index 0000000..3333333
Binary files /dev/null and b/logo.png differ
diff --git a/old.md b/new.md
similarity index 100%
rename from old.md
rename to new.md
`
	secs, err := parsePatch([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 3 || !secs[1].Binary || len(secs[2].Hunks) != 0 {
		t.Fatalf("sections: %+v", secs)
	}
	h := secs[0].Hunks
	want := []hunk{
		{OldStart: 3, OldLines: 1, NewStart: 3, NewLines: 1, Header: "func A() {", Removed: []string{"\treturn 1"}, Added: []string{"\treturn 2"}},
		{OldStart: 10, OldLines: 0, NewStart: 11, NewLines: 2, Header: "func B() {", Added: []string{"\tx++", "\ty++"}},
		{OldStart: 20, OldLines: 3, NewStart: 22, NewLines: 0, Removed: []string{"a", "b", "c"}},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("hunks:\n%+v\nwant\n%+v", h, want)
	}
	if _, err := parsePatch([]byte("diff --git a/x b/x\n@@ -a +1 @@\n")); err == nil {
		t.Error("bad hunk header accepted")
	}
}

func TestParsePorcelain(t *testing.T) {
	out := strings.Join([]string{
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1 10 2",
		"author Alice",
		"author-time 1700000000",
		"summary first change (#7)",
		"filename x.go",
		"\tline ten",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 2 11",
		"\tline eleven",
		"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 5 12 1",
		"author Bob",
		"author-time 1700086400",
		"summary second",
		"boundary",
		"filename x.go",
		"\tline twelve",
	}, "\n")
	lines, commits := parsePorcelain([]byte(out))
	if lines[10] != strings.Repeat("a", 40) || lines[11] != strings.Repeat("a", 40) || lines[12] != strings.Repeat("b", 40) || len(lines) != 3 {
		t.Errorf("lines %v", lines)
	}
	a := commits[strings.Repeat("a", 40)]
	if a.Author != "Alice" || a.Summary != "first change (#7)" || a.Time.Format("2006-01-02") != "2023-11-14" {
		t.Errorf("commit a: %+v", a)
	}
	if commits[strings.Repeat("b", 40)].Author != "Bob" {
		t.Errorf("commit b: %+v", commits)
	}
}

func TestRefsAndTerms(t *testing.T) {
	msg := "pool: fix leak (#123)\n\nSee OPS-42 and !7; not a&#39; or x#5 or 2024-01.\nFixes gh #9"
	var got []string
	for _, m := range refRE.FindAllStringSubmatch(msg, -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, ",") != "#123,OPS-42,!7,#9" {
		t.Errorf("refs %v", got)
	}
	terms := changeTerms([]string{
		"\tc.MaxPoolSize = cfg.Get(\"db.max_pool_size\") // 连接池上限",
		"\tif err != nil { return err }",
		"\tc.MaxPoolSize++",
	})
	if terms[0] != "c.MaxPoolSize" || !contains(terms, "db.max_pool_size") || contains(terms, "err") || !contains(terms, "连接池上限") {
		t.Errorf("terms %q", terms)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestFitDropsDeepestFirst(t *testing.T) {
	r := &Report{Files: []File{
		{Path: "a", History: make([]Commit, 5), Docs: make([]Ref, 3)},
		{Path: "b", History: make([]Commit, 1), Code: make([]Ref, 2)},
	}}
	sizes := func(r *Report) int {
		n := 0
		for _, f := range r.Files {
			n += len(f.History) + len(f.Docs) + len(f.Code)
		}
		return n
	}
	ok, err := Fit(r, 5, func(r *Report) ([]byte, error) { return make([]byte, sizes(r)), nil })
	if err != nil || !ok || sizes(r) != 5 || r.Dropped != 6 || !r.Truncated {
		t.Fatalf("fit: ok %v, %d items, dropped %d", ok, sizes(r), r.Dropped)
	}
	// Each file keeps its best items: a's history was the longest list.
	if len(r.Files[0].History) != 2 || len(r.Files[1].History) != 1 {
		t.Errorf("after fit: %+v", r.Files)
	}
}

// TestFitLargeReport: a report of hundreds of files (a long range) is fit
// with a few renders, not one per dropped item (whose cost grows with the
// square of the report: hours for a few hundred files), and it drops what
// one item at a time would: the fewest items that make it fit.
func TestFitLargeReport(t *testing.T) {
	mk := func() *Report {
		r := &Report{Range: "A..B"}
		for i := range 300 {
			f := File{Path: fmt.Sprintf("pkg%d/file%d.go", i%7, i), Status: "modified", Added: i, Hunks: []Hunk{{NewStart: 1, NewLines: i % 9}}, Symbols: []string{"Fn"}}
			for j := range 3 + i%8 {
				f.History = append(f.History, Commit{SHA: strings.Repeat("ab", 20), Subject: fmt.Sprintf("change %d of %d", j, i), Author: "Test"})
			}
			for j := range i % 5 {
				f.Docs = append(f.Docs, Ref{Path: fmt.Sprintf("docs/%d.md", j), Snippet: strings.Repeat("文档", 10+j)})
			}
			for j := range i % 4 {
				f.Code = append(f.Code, Ref{Path: fmt.Sprintf("code/%d.go", j), Snippet: strings.Repeat("x", 40+j)})
			}
			r.Files = append(r.Files, f)
		}
		return r
	}
	// dropped is a report with its first n items dropped, one at a time.
	dropped := func(n int) []byte {
		r := mk()
		for range n {
			dropOne(r)
		}
		r.Truncated, r.Dropped = n > 0, n
		out, _ := JSON(r)
		return out
	}
	for _, max := range []int{200000, 60000, 20000, 1000} {
		got, renders := mk(), 0
		fits, err := Fit(got, max, func(r *Report) ([]byte, error) { renders++; return JSON(r) })
		if err != nil {
			t.Fatal(err)
		}
		gotJSON, _ := JSON(got)
		switch {
		case string(gotJSON) != string(dropped(got.Dropped)):
			t.Errorf("max %d: the result is not the report with its first %d items dropped", max, got.Dropped)
		case fits && (len(gotJSON) > max || len(dropped(got.Dropped-1)) <= max):
			t.Errorf("max %d: %d bytes after %d drops: not the fewest drops that fit", max, len(gotJSON), got.Dropped)
		case !fits && dropOne(got):
			t.Errorf("max %d: does not fit, yet items are left to drop", max)
		}
		if renders > 20 {
			t.Errorf("max %d: %d renders to drop %d items", max, renders, got.Dropped)
		}
	}
}
