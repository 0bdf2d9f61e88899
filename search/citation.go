package search

import (
	"regexp"
	"strconv"
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
