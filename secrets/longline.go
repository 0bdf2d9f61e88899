package secrets

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A line longer than longLine (a minified bundle, a base64 blob, a
// one-line JSON dump) is not searched whole by each rule whose keyword it
// holds somewhere: scanning a 70 MB base64 line whole took every rule
// that found a keyword in it about half a second a megabyte, at indexing
// and again for each search result in it. A rule's match holds one of its
// keywords (but for a rule with lineKeyword, which searches such a line
// whole), so it lies within as far as a match can reach around one of
// them: the rule searches those windows only, and finds exactly what it
// finds searching the whole line (TestLongLinesMatchAsWhole), but where a
// window is cut (maxReach). (Until rules 7 the windows were 1 KiB each
// way, and a SAS URL whose sig= came later than that after its sv=, a JWT
// with a long payload or a 4096-bit key in a service account's JSON went
// unfound.)
//
// How far a match can reach is read from the rule's regexp (reachOf): the
// most bytes its fixed parts cover, plus, for each unbounded run of one
// class of characters in it ([a-z0-9_]*, \s+, [^"]{40,}), the longest run
// of that class around the keyword (reach.around). A run that ends the
// regexp (the value of password = value) is left out: the rule finds its
// shortest form in the window and the match is then carried over the rest
// of the run, as the greedy run would have taken it. A regexp repeating
// anything else without bound searches the line whole.
const longLine = 64 << 10

// reach is what a rule's regexp can cover, read from the regexp itself.
type reach struct {
	// fixed is the most bytes a match covers outside the runs, -1 for no
	// bound (the line is searched whole).
	fixed int
	// runs are the unbounded runs of one class in the regexp (less
	// tail), each counted n times.
	runs []classRun
	// tail is the class of a greedy run ending the regexp, nil for none;
	// tailGroups are the submatches ending with it.
	tail       *charClass
	tailGroups []int
	// src is the regexp less tail's run beyond its minimum.
	src string
	// wrapped[pre|suf<<1] is src as submatch 1, after any rune when pre
	// and before any rune when suf: a window searched with the runes
	// around it sees them as the whole line does (\b, ^, $ and
	// (?:^|[^a-z]) read them), and a match cannot take them.
	wrapped [4]func() *regexp.Regexp
}

type classRun struct {
	class *charClass
	n     int
}

// charClass is a set of runes as regexp/syntax writes it: sorted
// inclusive pairs.
type charClass struct {
	ranges []rune
	ascii  [utf8.RuneSelf]bool
	wide   bool // it holds a rune beyond ASCII
}

func newClass(ranges []rune) *charClass {
	c := &charClass{ranges: ranges}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < utf8.RuneSelf; r++ {
			c.ascii[r] = true
		}
		c.wide = c.wide || ranges[i+1] >= utf8.RuneSelf
	}
	return c
}

func (c *charClass) has(r rune) bool {
	if r < utf8.RuneSelf {
		return c.ascii[r]
	}
	for i := 0; i+1 < len(c.ranges); i += 2 {
		if r >= c.ranges[i] && r <= c.ranges[i+1] {
			return true
		}
	}
	return false
}

// runEnd is the end of the run of c's runes at i in s, read as regexp
// reads s (an invalid byte is utf8.RuneError, one byte wide).
func (c *charClass) runEnd(s string, i int) int {
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if !c.ascii[b] {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if !c.has(r) {
			return i
		}
		i += w
	}
	return i
}

// longestRun is the length in bytes of the longest run of c's runes in
// s that meets s[lo:hi], or limit when that is less: it reads no further
// than limit bytes before lo, nor beyond hi once a run is as long. A byte
// beyond ASCII counts as one of c's when c holds any rune beyond ASCII.
func (c *charClass) longestRun(s string, lo, hi, limit int) int {
	in := func(b byte) bool {
		if b < utf8.RuneSelf {
			return c.ascii[b]
		}
		return c.wide
	}
	start := lo
	for start > 0 && lo-start < limit && in(s[start-1]) {
		start--
	}
	best, run := 0, lo-start
	for i := lo; i < len(s) && (i < hi || run > 0) && run < limit; i++ {
		if in(s[i]) {
			run++
		} else {
			best, run = max(best, run), 0
		}
	}
	return min(max(best, run), limit)
}

// around is how far a match holding the keyword at line[ks:ke] can
// reach: such a match lies in line[ke-x:ks+x]. -1: further than limit
// (or without bound).
//
// A match's bytes are the fixed parts' (rc.fixed at most) and runs of
// the classes of rc.runs (as many as each counts), so the part of it
// inside any range is at most rc.fixed plus those runs' longest meeting
// the range; a match reaching beyond line[ke-x:ks+x] would have x bytes
// in it, more than that bound when the bound is under x. (A run read
// only as far as limit counts limit, and x is then over limit.)
func (rc *reach) around(line string, ks, ke, limit int) int {
	if rc.fixed < 0 {
		return -1
	}
	for x := rc.fixed + 1; x <= limit; {
		lo, hi := max(ke-x, 0), min(ks+x, len(line))
		if lo == 0 && hi == len(line) {
			return x
		}
		bound := rc.fixed
		for _, cr := range rc.runs {
			if bound >= limit {
				break
			}
			bound += cr.n * cr.class.longestRun(line, lo, hi, limit)
		}
		if bound < x {
			return x
		}
		x = max(bound+1, 2*x)
	}
	return -1
}

// reachOf reads r's reach from its regexp.
func reachOf(r *rule) *reach {
	re, err := syntax.Parse(r.re().String(), syntax.Perl)
	if err != nil {
		panic("secrets: " + r.id + ": " + err.Error())
	}
	out := &reach{}
	out.tail, out.tailGroups = cutTail(re)
	out.src = re.String()
	out.fixed, out.runs = widthOf(re)
	for i := range out.wrapped {
		src := "(" + out.src + ")"
		if i&1 != 0 {
			src = "(?s:.)" + src
		}
		if i&2 != 0 {
			src += "(?s:.)"
		}
		out.wrapped[i] = lazyRE(src)
	}
	return out
}

// cutTail cuts a greedy unbounded run of one class ending re down to its
// minimum, in place, and returns its class and the submatches ending with
// it.
func cutTail(re *syntax.Regexp) (*charClass, []int) {
	var groups []int
	for {
		switch re.Op {
		case syntax.OpConcat:
			re = re.Sub[len(re.Sub)-1]
			continue
		case syntax.OpCapture:
			groups = append(groups, re.Cap)
			re = re.Sub[0]
			continue
		case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
			if re.Flags&syntax.NonGreedy != 0 || re.Op == syntax.OpRepeat && re.Max != -1 {
				return nil, nil
			}
			c := classOf(re.Sub[0])
			if c == nil {
				return nil, nil
			}
			least := 1
			switch re.Op {
			case syntax.OpStar:
				least = 0
			case syntax.OpRepeat:
				least = re.Min
			}
			sub := re.Sub[0]
			*re = syntax.Regexp{Op: syntax.OpRepeat, Flags: re.Flags, Min: least, Max: least, Sub: []*syntax.Regexp{sub}}
			if least == 0 {
				*re = syntax.Regexp{Op: syntax.OpEmptyMatch}
			}
			return c, groups
		}
		return nil, nil
	}
}

// classOf is the class of runes re matches when it matches one rune,
// nil otherwise.
func classOf(re *syntax.Regexp) *charClass {
	switch re.Op {
	case syntax.OpCharClass:
		return newClass(re.Rune)
	case syntax.OpAnyChar:
		return newClass([]rune{0, unicode.MaxRune})
	case syntax.OpAnyCharNotNL:
		return newClass([]rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune})
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return nil
		}
		rs := []rune{re.Rune[0]}
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(re.Rune[0]); f != re.Rune[0]; f = unicode.SimpleFold(f) {
				rs = append(rs, f)
			}
		}
		slices.Sort(rs)
		var ranges []rune
		for _, r := range rs {
			ranges = append(ranges, r, r)
		}
		return newClass(ranges)
	}
	return nil
}

// widthOf is the most bytes a match of re covers outside its unbounded
// runs of one class, and those runs; -1 when re repeats anything else
// without bound.
func widthOf(re *syntax.Regexp) (int, []classRun) {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += runeWidth(r, re.Flags&syntax.FoldCase != 0)
		}
		return n, nil
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		n := 0
		if c := classOf(re); len(c.ranges) > 0 {
			n = runeWidth(c.ranges[len(c.ranges)-1], false)
		}
		return n, nil
	case syntax.OpCapture, syntax.OpQuest:
		return widthOf(re.Sub[0])
	case syntax.OpConcat, syntax.OpAlternate:
		// An alternation counts every branch's runs: more than any one
		// branch can take, never less.
		total := 0
		var runs []classRun
		for _, sub := range re.Sub {
			n, rs := widthOf(sub)
			if n < 0 {
				return -1, nil
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
			runs = append(runs, rs...)
		}
		return total, runs
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		if re.Op != syntax.OpRepeat || re.Max < 0 {
			if c := classOf(re.Sub[0]); c != nil {
				return 0, []classRun{{c, 1}}
			}
			return -1, nil
		}
		n, rs := widthOf(re.Sub[0])
		if n < 0 {
			return -1, nil
		}
		for i := range rs {
			rs[i].n *= re.Max
		}
		return n * re.Max, rs
	}
	return 0, nil // empty-width: ^, $, \b, (?:)
}

// runeWidth is the most bytes r takes in UTF-8, or any rune it folds to
// with fold.
func runeWidth(r rune, fold bool) int {
	w := utf8.RuneLen(r)
	if w < 0 {
		w = utf8.UTFMax
	}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			w = max(w, utf8.RuneLen(f))
		}
	}
	return w
}

// matches returns r's submatch indexes in line (lower is line with ASCII
// lowercased), as FindAllStringSubmatchIndex returns them.
func matches(r *rule, line string, lower []byte) [][]int {
	if len(line) > longLine && !r.lineKeyword {
		if ws, ok := keywordWindows(r, line, lower); ok {
			return matchesIn(r, line, ws)
		}
	}
	return r.re().FindAllStringSubmatchIndex(line, -1)
}

// matchesIn is matches for a long line, r searching windows ws only.
func matchesIn(r *rule, line string, ws []window) [][]int {
	rc := r.reach()
	var out [][]int
	at := 0 // the end of the last match: the next starts there or later
	for _, w := range ws {
		for from := max(w.lo, at); from < w.hi; {
			// A cut window's edges are read as the line's ends: a match
			// that touches one may run on beyond it, and then the rule
			// searches the whole line after all.
			edgeLo, edgeHi := w.cut && from == w.lo && from > 0, w.cut && w.hi < len(line)
			m := rc.find(line, from, w.hi, from > 0 && !edgeLo, w.hi < len(line) && !edgeHi)
			if m == nil {
				break
			}
			if m[1] == m[0] || edgeLo && m[0] == from || edgeHi && m[1] == w.hi {
				// (An empty match, which no rule makes: FindAll's
				// rules for them are not worth copying here.)
				return r.re().FindAllStringSubmatchIndex(line, -1)
			}
			if rc.tail != nil {
				end := rc.tail.runEnd(line, m[1])
				m[1] = end
				for _, g := range rc.tailGroups {
					m[2*g+1] = end
				}
			}
			out = append(out, m)
			from, at = m[1], m[1]
		}
	}
	return out
}

// find is the first match of rc.src in line that starts at from or later
// and ends by to, as searching the whole line from from would find it,
// reading the rune before from when pre and the rune at to when suf (else
// from and to are read as the line's ends): from and to are rune
// boundaries.
func (rc *reach) find(line string, from, to int, pre, suf bool) []int {
	lo, hi, v := from, to, 0
	if pre {
		_, w := utf8.DecodeLastRuneInString(line[:from])
		lo, v = from-w, v|1
	}
	if suf {
		_, w := utf8.DecodeRuneInString(line[to:])
		hi, v = to+w, v|2
	}
	m := rc.wrapped[v]().FindStringSubmatchIndex(line[lo:hi])
	if m == nil {
		return nil
	}
	m = m[2:]
	for i := range m {
		if m[i] >= 0 {
			m[i] += lo
		}
	}
	return m
}

// A window reaches as far around its keyword as a match holding it can
// reach, up to maxReach. A run of a rule's class can be as long as the
// line (password-assignment's [a-z0-9_\-] in base64url or hex, where its
// keywords turn up every few dozen kilobytes): searching as far as such
// runs reach was searching the whole line, about 0.65 s a megabyte. A
// window that would reach further is cut: it reaches len(line)/16 over
// the number of cut windows, but no less than minCutReach (or twice the
// rule's fixed parts) and no more than maxCutReach, so that cut windows
// hold an eighth of the line at most (but for more than 16 of them a
// megabyte: base64url holds a few dozen of password-assignment's
// keywords). A cut window is searched as if its edges were the line's
// ends, and a match touching one makes the rule search the whole line,
// as a match reaching further would: such a window finds what the whole
// line does but for a match that reaches further than the cut from its
// keyword without touching the window's edge (a run of its class before
// a JWT's second dot or password's = longer than that, beside a run of
// over maxReach/2 or so).
const (
	maxReach    = 64 << 10
	minCutReach = 4 << 10
	maxCutReach = 16 << 10
)

// window is a range of a long line that a rule searches; cut: its reach
// was cut (maxReach), and a match holding its keywords may run on
// beyond it.
type window struct {
	lo, hi int
	cut    bool
}

// keywordWindows returns the ranges of line around r's keywords (found
// in lower) that hold every match of r: as far around each as a match
// holding it can reach (or cut, maxReach), merged, in order, widened to
// rune boundaries. Not ok: r searches the whole line (its regexp repeats
// something else than a class without bound, or its keywords are so
// many that reading around each costs more than that).
func keywordWindows(r *rule, line string, lower []byte) ([]window, bool) {
	var hits [][2]int
	for _, k := range r.keywords {
		for at := 0; ; {
			i := bytes.Index(lower[at:], []byte(k))
			if i < 0 {
				break
			}
			hits = append(hits, [2]int{at + i, at + i + len(k)})
			at += i + 1
		}
	}
	rc := r.reach()
	if rc.fixed < 0 && len(hits) > 0 {
		return nil, false
	}
	least := max(minCutReach, 2*rc.fixed)
	limit := max(maxReach, least)
	xs := make([]int, len(hits))
	spent, cuts := 0, 0 // bytes read by around: a window of 2x or so, limit or so when cut
	for i, h := range hits {
		x := rc.around(line, h[0], h[1], limit)
		if x < 0 {
			cuts++
			spent += limit
		} else {
			spent += 2 * x
		}
		if spent > 4*len(line) {
			return nil, false
		}
		xs[i] = x
	}
	cutAt := 0
	if cuts > 0 {
		cutAt = max(least, min(maxCutReach, len(line)/(16*cuts)))
	}
	ws := make([]window, len(hits))
	for i, h := range hits {
		x := xs[i]
		if x < 0 {
			x = cutAt
		}
		ws[i] = window{runeStart(lower, max(h[1]-x, 0)), runeEnd(lower, min(h[0]+x, len(lower))), xs[i] < 0}
	}
	return mergeWindows(ws), true
}

// mergeWindows sorts ws by start and merges those that meet or overlap
// (each reaches its own way around its keyword, so a later keyword's
// window may start before an earlier one's); a window holding a cut one
// is cut.
func mergeWindows(ws []window) []window {
	slices.SortFunc(ws, func(a, b window) int { return a.lo - b.lo })
	var out []window
	for _, w := range ws {
		if n := len(out); n > 0 && w.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, w.hi)
			out[n-1].cut = out[n-1].cut || w.cut
			continue
		}
		out = append(out, w)
	}
	return out
}

// runeStart is i, or the start of the rune i falls inside: a place where
// reading s from its start steps (a continuation byte more than three
// bytes after the last other byte is a rune of its own).
func runeStart(s []byte, i int) int {
	for j := i; j > 0 && j > i-utf8.UTFMax; j-- {
		if j == len(s) || utf8.RuneStart(s[j]) {
			return j
		}
	}
	return i
}

// runeEnd is i, or the end of the rune i falls inside.
func runeEnd(s []byte, i int) int {
	for j := i; j < len(s); j++ {
		if utf8.RuneStart(s[j]) || j == i+utf8.UTFMax-1 {
			return j
		}
	}
	return len(s)
}

// Each rule's reach is read on first use.
func init() {
	for _, r := range rules {
		r.reach = sync.OnceValue(func() *reach { return reachOf(r) })
	}
}
