package search

import (
	"errors"
	"fmt"
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
		// Lines count from 1: #L0 is the first line, not "no range"
		// (which a Start of 0 would say).
		c.Start, c.End = max(c.Start, 1), max(c.End, 1)
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

// isHex says s is an abbreviated commit: 7 or more hex digits, each one
// checked (an odd length too).
func isHex(s string) bool {
	if len(s) < 7 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// ErrNotCitation means an argument is neither a citation nor a path.
var ErrNotCitation = errors.New("not a citation")

// Cited is the file ReadCited read: the citation it took, what read
// returned for it, and a note when the argument read two ways.
type Cited[T any] struct {
	Citation
	File T
	// Note says which reading was taken, and how to ask for the other,
	// when the argument named a file both ways (or the revision before
	// its colon had no such path). Empty when the reading was plain.
	Note string
}

// ReadCited reads what arg names, with read: a citation <rev>:<path>#L..,
// or a path (#L.. optional) at rev ("" = HEAD). A path may hold a colon
// itself (a:b.md, notes/12:30.md), which the citation form splits at, so
// an argument with a colon is tried both ways:
//
//   - the path wins when the text before the colon is no revision, or is
//     one without that path (the note says so);
//   - when both name a file, <rev>:<path> wins, so a citation keeps
//     meaning what it says, and the note says to write <rev>:<arg> for
//     the other;
//   - when neither does, the error names both readings.
//
// read's errors are told apart by methods of the git layer's errors in
// their chain (gitx's; search does not import it): NoRevision() true, no
// revision before the colon; NoPath() true, no such file at that
// revision. When rev is given
// and the text before the colon is another revision, arg is read only as
// a path at rev: the caller named the revision already.
//
// It is the one place both git kb show and the MCP server's get_document
// decide what an argument names.
func ReadCited[T any](arg, rev string, read func(Citation) (T, error)) (Cited[T], error) {
	at := rev
	if at == "" {
		at = "HEAD"
	}
	asPath, pathOK := ParseCitation("HEAD:" + arg)
	asPath.Rev = at
	if !strings.Contains(arg, ":") {
		if !pathOK {
			return Cited[T]{}, fmt.Errorf("%q is %w or a path; expected <commit>:<path>#L<start>-L<end>, <repo>@<commit>:<path>#L.. (an org search's) or a file path", arg, ErrNotCitation)
		}
		f, err := read(asPath)
		return Cited[T]{Citation: asPath, File: f}, err
	}
	cit, ok := ParseCitation(arg)
	if ok && rev != "" && cit.Rev != rev {
		f, err := read(asPath)
		if noPath(err) {
			err = fmt.Errorf("%w; if %s is a citation, its revision %q contradicts rev %q: pass one or the other", err, arg, cit.Rev, rev)
		}
		return Cited[T]{Citation: asPath, File: f}, err
	}
	var (
		fromRev, fromPath Cited[T]
		revErr, pathErr   = ErrNotCitation, ErrNotCitation
	)
	if ok {
		fromRev.Citation = cit
		fromRev.File, revErr = read(cit)
	}
	if pathOK {
		fromPath.Citation = asPath
		fromPath.File, pathErr = read(asPath)
	}
	switch {
	case revErr == nil && pathErr == nil:
		fromRev.Note = fmt.Sprintf("%s reads two ways: showing %s at revision %s, not %s's file %s (write %s:%s for that one)", arg, cit.Path, cit.Rev, at, asPath.Path, at, asPath.Path)
		return fromRev, nil
	case revErr == nil:
		return fromRev, nil
	case pathErr == nil:
		switch {
		case !ok || noRevision(revErr):
			// No revision before the colon: a path, plainly.
		case noPath(revErr):
			fromPath.Note = fmt.Sprintf("%s: showing %s's file %s, since revision %s has no %s", arg, at, asPath.Path, cit.Rev, cit.Path)
		default:
			fromPath.Note = fmt.Sprintf("%s: showing %s's file %s, since reading %s at revision %s failed: %v", arg, at, asPath.Path, cit.Path, cit.Rev, revErr)
		}
		return fromPath, nil
	case !ok:
		if pathOK && !noPath(pathErr) {
			return Cited[T]{}, pathErr
		}
		return Cited[T]{}, fmt.Errorf("%q is %w, nor a file at %s; expected <commit>:<path>#L<start>-L<end>, <repo>@<commit>:<path>#L.. (an org search's) or a file path", arg, ErrNotCitation, at)
	case noRevision(revErr) && noPath(pathErr):
		// Neither reading names anything: say both, with the path's
		// own words (and suggestions).
		return Cited[T]{}, fmt.Errorf("%w; nor is %s a file at %s (%v)", revErr, asPath.Path, at, pathErr)
	default:
		return Cited[T]{}, revErr
	}
}

// noRevision says err is a read's for a revision (the text before a
// colon) that names no commit: the git layer's error for that has a
// NoRevision method saying so (search does not import it).
func noRevision(err error) bool {
	var m interface{ NoRevision() bool }
	return errors.As(err, &m) && m.NoRevision()
}

// noPath says err is a read's for a path its revision has not got: the
// git layer's error for that has a NoPath method saying so.
func noPath(err error) bool {
	var m interface{ NoPath() bool }
	return errors.As(err, &m) && m.NoPath()
}
