package search

import (
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
)

// Citation is a parsed <rev>:<path>#L<start>-L<end>, the form every result
// cites. Start and End are 0 when the citation has no line range; End
// equals Start for a single line.
type Citation struct {
	Rev, Path  string
	Start, End int
}

var citationRE = regexp.MustCompile(`^([^:\s]+):(.+?)(?:#L(\d+)(?:-L?(\d+))?)?$`)

// ParseCitation parses a citation; ok is false if s is not one.
func ParseCitation(s string) (c Citation, ok bool) {
	m := citationRE.FindStringSubmatch(s)
	if m == nil {
		return c, false
	}
	c.Rev, c.Path = m[1], m[2]
	if m[3] != "" {
		c.Start, _ = strconv.Atoi(m[3])
		c.End = c.Start
		if m[4] != "" {
			c.End, _ = strconv.Atoi(m[4])
		}
	}
	return c, true
}

// ParseOrgCitation splits an org-wide search's citation,
// <repo>@<commit>:<path>#L.., into the repository's name and the local
// citation; ok is false when s is not one (the commit must be hex, so
// HEAD@{1}:x is not).
func ParseOrgCitation(s string) (repo, local string, ok bool) {
	at := strings.LastIndex(strings.SplitN(s, ":", 2)[0], "@")
	if at <= 0 {
		return "", "", false
	}
	repo, local = s[:at], s[at+1:]
	c, ok := ParseCitation(local)
	if !ok || !isHex(c.Rev) {
		return "", "", false
	}
	return repo, local, true
}

func isHex(s string) bool {
	if len(s) < 7 {
		return false
	}
	_, err := hex.DecodeString(s[:len(s)&^1])
	return err == nil
}
