package search

import "testing"

// An org citation's commit is hex throughout: the last digit of an odd
// length is checked too, so a path like me@cafebaz:notes.md (or a
// branch) is not taken for repository me at a commit.
func TestParseOrgCitationWantsHexCommit(t *testing.T) {
	for s, ok := range map[string]bool{
		"team/a@abcdef1:x.md#L1-L2": true,
		"team/a@ABCDEF12:x.md":      true,
		"team/a@abcdefg:x.md":       false, // 7 runes, the last no hex digit
		"me@cafebaz:notes.md":       false,
		"team/a@abc:x.md":           false, // too short for a commit
	} {
		if _, _, got := ParseOrgCitation(s); got != ok {
			t.Errorf("ParseOrgCitation(%q) = %v, want %v", s, got, ok)
		}
	}
}
