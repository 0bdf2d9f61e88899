// Package eval measures retrieval quality. It reads query sets (JSONL:
// id, query, relevant paths, optional lang and kind), scores ranked
// result lists at file level exactly as the team's scorer
// (testdata/eval/score.py) does, and aggregates Recall@k, Hit@k, MRR@10,
// nDCG@10 and latency, overall and per lang and kind. It does not search:
// the caller hands it a function that does, so one run can compare any
// modes and flags of the search without this package knowing them.
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Query is one labelled question.
type Query struct {
	ID       string   `json:"id"`
	Text     string   `json:"query"`
	Relevant []string `json:"relevant"` // paths from the repository root
	Lang     string   `json:"lang,omitempty"`
	Kind     string   `json:"kind,omitempty"`
	// Where is FILE:LINE, for messages.
	Where string `json:"-"`
}

// Load reads query sets, in order. A bad line fails the whole load with
// FILE:LINE and what is wrong, so a typo is fixed before anything runs;
// an id repeated across the files is refused too (its metrics would be
// counted twice under one name).
func Load(paths ...string) ([]Query, error) {
	var all []Query
	seen := map[string]string{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("query file: %w", err)
		}
		qs, err := Parse(f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			if first, ok := seen[q.ID]; ok {
				return nil, fmt.Errorf("%s: id %q is already used at %s", q.Where, q.ID, first)
			}
			seen[q.ID] = q.Where
		}
		all = append(all, qs...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no queries (want one JSON object a line: {\"id\": ..., \"query\": ..., \"relevant\": [...]})", strings.Join(paths, ", "))
	}
	return all, nil
}

// Parse reads one JSONL query set; name is used in messages. Blank lines
// are skipped; unknown fields are ignored, as score.py ignores them; a
// UTF-8 byte-order mark and CRLF line ends are read past.
func Parse(r io.Reader, name string) ([]Query, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var out []Query
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			// A byte-order mark, as Windows editors save UTF-8.
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) == 0 {
			continue
		}
		where := fmt.Sprintf("%s:%d", name, n)
		q, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		q.Where = where
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// parseLine checks one object field by field, so the message names the
// field and what it should be rather than a Go type.
func parseLine(line []byte) (Query, error) {
	var q Query
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return q, fmt.Errorf("bad JSON: %v (want one object a line)", err)
	}
	str := func(key string, required bool) (string, error) {
		v, ok := raw[key]
		if !ok || string(v) == "null" {
			if required {
				return "", fmt.Errorf("missing %q", key)
			}
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", fmt.Errorf("%q must be a string, not %s", key, v)
		}
		if required && strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("%q is empty", key)
		}
		return s, nil
	}
	var err error
	if q.ID, err = str("id", true); err != nil {
		return q, err
	}
	if q.Text, err = str("query", true); err != nil {
		return q, err
	}
	if q.Lang, err = str("lang", false); err != nil {
		return q, err
	}
	if q.Kind, err = str("kind", false); err != nil {
		return q, err
	}
	v, ok := raw["relevant"]
	if !ok {
		return q, fmt.Errorf("missing \"relevant\" (the paths that answer the query)")
	}
	if err := json.Unmarshal(v, &q.Relevant); err != nil || len(q.Relevant) == 0 {
		return q, fmt.Errorf("\"relevant\" must be a list of one or more paths, not %s", v)
	}
	for i, p := range q.Relevant {
		if q.Relevant[i] = NormPath(p); q.Relevant[i] == "" {
			return q, fmt.Errorf("\"relevant\" has an empty path")
		}
	}
	return q, nil
}

// NormPath is score.py's norm_path for repository-relative paths:
// forward slashes, no leading "./" or "/".
func NormPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return strings.TrimLeft(p, "/")
}
