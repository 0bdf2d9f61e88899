package search

import (
	"slices"
	"testing"
)

// An @word that names no indexed path, and none near it, is a word of the
// question where it was typed (a MySQL user variable, a Java annotation);
// one with a / or a ., or one a path is near, stays a scope for
// checkFiles to accept or refuse.
func TestBareAtWords(t *testing.T) {
	paths := slices.Values([]string{"docs/runbook/rollback.md", "README.md", "src/Transactional.java", "docs/a/x.md"})
	for _, tc := range []struct {
		query, text string
		files       []string
	}{
		{"在会话里用 SET @uid 存的值 换连接还能读到吗", "在会话里用 SET @uid 存的值 换连接还能读到吗", nil},
		{"@Transactional 不生效", "@Transactional 不生效", nil},
		{"回滚 @runbook", "回滚", []string{"runbook"}},                             // docs/runbook/ is near: did you mean
		{"@docs 回滚", "回滚", []string{"docs"}},                                   // a directory
		{"@x.md 回滚", "回滚", []string{"x.md"}},                                   // a file name: a scope however it ends
		{"@a 回滚", "回滚", []string{"a"}},                                         // docs/a/ is near
		{"SELECT @v1, @v2 @docs/ 回滚", "SELECT @v1, @v2 回滚", []string{"docs/"}}, // "@v1," keeps its comma: the analyzer drops it
	} {
		q, err := ParseQuery(tc.query)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		text, files := q.Text, slices.Clone(q.Files)
		got := bareAtWords(q, paths)
		if got.Text != tc.text || !slices.Equal(got.Files, tc.files) {
			t.Errorf("%s: text %q files %q; want %q %q", tc.query, got.Text, got.Files, tc.text, tc.files)
		}
		if q.Text != text || !slices.Equal(q.Files, files) {
			t.Errorf("%s: the parsed query changed: %q %q", tc.query, q.Text, q.Files)
		}
	}
}
