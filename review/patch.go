package review

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// hunk is one -U0 hunk: the old lines it replaces and the new lines.
type hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Header             string // git's function context after the second @@
	Removed, Added     []string
}

// section is one file's part of a patch.
type section struct {
	Binary bool
	Hunks  []hunk
}

// parsePatch splits a -U0 patch into per-file sections, in patch order.
func parsePatch(patch []byte) ([]section, error) {
	var out []section
	var cur *section
	var h *hunk
	for _, line := range bytes.Split(patch, []byte("\n")) {
		s := string(line)
		switch {
		case strings.HasPrefix(s, "diff --git ") || strings.HasPrefix(s, "diff --cc ") || strings.HasPrefix(s, "diff --combined "):
			out = append(out, section{})
			cur, h = &out[len(out)-1], nil
		case cur == nil:
			// Nothing before the first file header matters.
		case strings.HasPrefix(s, "@@ "):
			hk, err := parseHunkHeader(s)
			if err != nil {
				return nil, err
			}
			cur.Hunks = append(cur.Hunks, hk)
			h = &cur.Hunks[len(cur.Hunks)-1]
		case h == nil:
			if strings.HasPrefix(s, "Binary files ") || s == "GIT binary patch" {
				cur.Binary = true
			}
		case strings.HasPrefix(s, "-"):
			h.Removed = append(h.Removed, s[1:])
		case strings.HasPrefix(s, "+"):
			h.Added = append(h.Added, s[1:])
		}
	}
	return out, nil
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@ header".
func parseHunkHeader(s string) (hunk, error) {
	var h hunk
	rest := strings.TrimPrefix(s, "@@ ")
	ranges, header, ok := strings.Cut(rest, " @@")
	if !ok {
		return h, fmt.Errorf("bad hunk header %q", s)
	}
	h.Header = strings.TrimSpace(header)
	old, nw, ok := strings.Cut(ranges, " ")
	if !ok || !strings.HasPrefix(old, "-") || !strings.HasPrefix(nw, "+") {
		return h, fmt.Errorf("bad hunk header %q", s)
	}
	var err error
	if h.OldStart, h.OldLines, err = parseRange(old[1:]); err != nil {
		return h, fmt.Errorf("hunk header %q: %w", s, err)
	}
	if h.NewStart, h.NewLines, err = parseRange(nw[1:]); err != nil {
		return h, fmt.Errorf("hunk header %q: %w", s, err)
	}
	return h, nil
}

func parseRange(s string) (start, n int, err error) {
	a, b, hasCount := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	n = 1
	if hasCount {
		if n, err = strconv.Atoi(b); err != nil {
			return 0, 0, err
		}
	}
	return start, n, nil
}
