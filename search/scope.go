package search

import (
	"fmt"
	"regexp"
	"strings"
)

// PathScope compiles a comma-separated list of path patterns into a filter
// for Request.Scope. A pattern without wildcards is a file or a directory
// ("docs", "docs/", "README.md"); one with them is a glob where * and ?
// stay within a path segment and ** crosses segments ("docs/**/*.md"); a
// glob without a slash matches the file name in any directory ("*.go").
// A path matches when any pattern does.
func PathScope(patterns string) (func(path string) bool, error) {
	var tests []func(string) bool
	for _, p := range strings.Split(patterns, ",") {
		// docs\runbook\ is docs/runbook/ written the Windows way, as
		// get_document reads paths: a backslash is no glob escape here.
		orig := strings.TrimSpace(p)
		p = strings.TrimSpace(strings.TrimPrefix(strings.ReplaceAll(orig, `\`, "/"), "./"))
		if p == "" {
			continue
		}
		if strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || isDrive(p) {
			return nil, fmt.Errorf("path pattern %q: paths are relative to the repository root", orig)
		}
		if !strings.ContainsAny(p, "*?[") {
			dir := strings.TrimSuffix(p, "/") + "/"
			file := strings.TrimSuffix(p, "/")
			tests = append(tests, func(path string) bool { return path == file || strings.HasPrefix(path, dir) })
			continue
		}
		re, err := globRegexp(p)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(p, "/") {
			tests = append(tests, func(path string) bool { return re.MatchString(path[strings.LastIndexByte(path, '/')+1:]) })
		} else {
			tests = append(tests, re.MatchString)
		}
	}
	if len(tests) == 0 {
		return nil, fmt.Errorf("empty path pattern")
	}
	return func(path string) bool {
		for _, t := range tests {
			if t(path) {
				return true
			}
		}
		return false
	}, nil
}

// isDrive says p (slashes forward) starts with a Windows drive, C:/; a
// colon alone is no drive (a:b.md is a file git tracks).
func isDrive(p string) bool {
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z')
}

func globRegexp(p string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				i++
				if i+1 < len(p) && p[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?") // "**/": zero or more directories
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("path pattern %q: unclosed [", p)
			}
			b.WriteString(p[i : i+j+1])
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("path pattern %q: %v", p, err)
	}
	return re, nil
}
