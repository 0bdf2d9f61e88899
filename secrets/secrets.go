package secrets

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Finding is one redacted span. It never holds the value.
type Finding struct {
	Rule string `json:"rule"`
	Line int    `json:"line"` // from 1
	// Start and End are byte offsets of the span in the text.
	Start int `json:"-"`
	End   int `json:"-"`
}

// Marker is what a span of rule becomes.
func Marker(rule string) string { return "[redacted: " + rule + "]" }

// Policy is the rule set less what kb.secrets.allow allows. The zero
// value and nil both redact everything the rules find.
type Policy struct {
	allowRules map[string]bool
	allowPaths []string
	allow      []string
}

// NewPolicy reads kb.secrets.allow entries: each is a rule id (see Rules)
// or a path glob (path.Match syntax on the whole path, or on the base name
// when it has no '/'; "dir/**" for everything under dir).
func NewPolicy(allow []string) *Policy {
	p := &Policy{allowRules: map[string]bool{}}
	ids := map[string]bool{}
	for _, id := range Rules() {
		ids[id] = true
	}
	for _, a := range allow {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		p.allow = append(p.allow, a)
		if ids[a] {
			p.allowRules[a] = true
		} else {
			p.allowPaths = append(p.allowPaths, strings.TrimPrefix(a, "/"))
		}
	}
	sort.Strings(p.allow)
	return p
}

// Fingerprint names the rules and the allow list: derived data built under
// another fingerprint redacted differently.
func (p *Policy) Fingerprint() string {
	h := sha256.New()
	h.Write([]byte("rules " + strconv.Itoa(RulesVersion) + "\n"))
	if p != nil {
		for _, a := range p.allow {
			h.Write([]byte(a + "\n"))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Allowed says a whole path is exempt from redaction.
func (p *Policy) Allowed(file string) bool {
	if p == nil {
		return false
	}
	for _, g := range p.allowPaths {
		if strings.HasSuffix(g, "/**") && strings.HasPrefix(file, strings.TrimSuffix(g, "**")) {
			return true
		}
		target := file
		if !strings.Contains(g, "/") {
			target = path.Base(file)
		}
		if ok, _ := path.Match(g, target); ok {
			return true
		}
	}
	return false
}

func (p *Policy) ruleOn(id string) bool { return p == nil || !p.allowRules[id] }

// lowerPool holds the lowercased copies the prefilter scans.
var lowerPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// Find returns the secrets in text, in order.
func (p *Policy) Find(file, text string) []Finding {
	if text == "" || p.Allowed(file) {
		return nil
	}
	bp := lowerPool.Get().(*[]byte)
	lower := lowerASCII((*bp)[:0], text)
	defer func() { *bp = lower[:0]; lowerPool.Put(bp) }()

	var blocks []Finding
	if p.ruleOn(privateKeyRule) {
		blocks = append(privateKeyBlocks(text, lower), derKeys(text)...)
	}
	out := p.find(file, text, lower, blocks)
	line, at := 1, 0
	for i := range out {
		line += strings.Count(text[at:out[i].Start], "\n")
		at = out[i].Start
		out[i].Line = line
	}
	return out
}

// find runs the line rules over text (whole lines; lower is text with
// ASCII lowercased) and merges what they find with blocks, the private
// key blocks found in it. Findings carry no line numbers.
func (p *Policy) find(file, text string, lower []byte, blocks []Finding) []Finding {
	base := path.Base(file)
	var spans []Finding
	order := map[string]int{}
	cands := candidateLines(lower)
	for ri, r := range rules {
		if !p.ruleOn(r.id) || r.file != nil && !r.file(base) {
			continue
		}
		if _, ok := order[r.id]; !ok {
			order[r.id] = ri
		}
		for _, lineStart := range cands[ri] {
			end := strings.IndexByte(text[lineStart:], '\n')
			if end < 0 {
				end = len(text) - lineStart
			}
			line := text[lineStart : lineStart+end]
			for _, m := range matches(r, line, lower[lineStart:lineStart+end]) {
				s, e := m[2*r.group], m[2*r.group+1]
				if s < 0 {
					continue
				}
				v := line[s:e]
				if r.minEntropy > 0 && entropy(v) < r.minEntropy || r.valid != nil && !r.valid(v) || r.check != nil && !r.check(line, m, v) {
					continue
				}
				if r.group > 0 && r.valid != nil {
					// A validator may trim a value's tail (a closing
					// bracket); redact what it kept.
					e = s + len(strings.TrimRight(v, ".)]}>"))
				}
				spans = append(spans, Finding{Rule: r.id, Start: lineStart + s, End: lineStart + e})
			}
		}
	}
	if p.ruleOn(privateKeyRule) {
		order[privateKeyRule] = -1
		spans = append(spans, blocks...)
	}
	if len(spans) == 0 {
		return nil
	}
	// Overlapping spans become one, named by the most specific rule.
	// (Spans never cross a line, so a line's findings merge alike
	// whether the whole text or a range of its lines was searched.)
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.Start < last.End {
			if s.End > last.End {
				last.End = s.End
			}
			if order[s.Rule] < order[last.Rule] {
				last.Rule = s.Rule
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// RedactLineRange returns lines from..to-1 (0-based) of text, split at
// '\n', redacted exactly as RedactText redacts them, having looked only at
// those lines (and, for private key blocks, which span lines, at the text
// around them). A search shows a few lines of each result's file: redacting
// the whole file for them was a tenth of a cold search's CPU on the docs
// corpus (issue 16). from and to are clamped to the text's lines.
func (p *Policy) RedactLineRange(file, text string, from, to int) []string {
	lo := 0 // byte offset of line from
	for i := 0; i < from; i++ {
		nl := strings.IndexByte(text[lo:], '\n')
		if nl < 0 {
			return nil
		}
		lo += nl + 1
	}
	hi := lo // end of line to-1, before its '\n'
	for i := from; i < to; i++ {
		nl := strings.IndexByte(text[hi:], '\n')
		if nl < 0 {
			hi = len(text)
			break
		}
		if hi += nl; i+1 < to {
			hi++
		}
	}
	if to <= from {
		return nil
	}
	sub := text[lo:hi]
	if sub == "" || p.Allowed(file) {
		return strings.Split(sub, "\n")
	}
	var blocks []Finding
	if p.ruleOn(privateKeyRule) {
		var whole []Finding
		if strings.Contains(text, "-----") {
			bp := lowerPool.Get().(*[]byte)
			lower := lowerASCII((*bp)[:0], text)
			whole = privateKeyBlocks(text, lower)
			*bp = lower[:0]
			lowerPool.Put(bp)
		}
		for _, b := range append(whole, derKeys(text)...) {
			if b.Start >= lo && b.End <= hi {
				blocks = append(blocks, Finding{Rule: b.Rule, Start: b.Start - lo, End: b.End - lo})
			}
		}
	}
	bp := lowerPool.Get().(*[]byte)
	lower := lowerASCII((*bp)[:0], sub)
	fs := p.find(file, sub, lower, blocks)
	*bp = lower[:0]
	lowerPool.Put(bp)
	return strings.Split(redact(sub, fs), "\n")
}

// Redact returns text with each secret replaced by its marker, and where.
// Lines stay where they were.
func (p *Policy) Redact(file, text string) (string, []Finding) {
	fs := p.Find(file, text)
	if len(fs) == 0 {
		return text, nil
	}
	return redact(text, fs), fs
}

// redact replaces each finding's span of text by its marker.
func redact(text string, fs []Finding) string {
	if len(fs) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, f := range fs {
		b.WriteString(text[at:f.Start])
		b.WriteString(Marker(f.Rule))
		at = f.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// RedactText is Redact without the findings.
func (p *Policy) RedactText(file, text string) string {
	t, _ := p.Redact(file, text)
	return t
}

// RedactLines redacts a file held as lines, in place; a span never crosses
// a line, so each line is looked at alone only when the joined text has
// a finding.
func (p *Policy) RedactLines(file string, lines []string) []string {
	text := strings.Join(lines, "\n")
	red, fs := p.Redact(file, text)
	if len(fs) == 0 {
		return lines
	}
	return strings.Split(red, "\n")
}

// keywordIndex maps the first two bytes of each keyword to the rules
// that name it, so one pass over the text finds every rule's lines.
type keywordHit struct {
	rule    int
	keyword []byte
}

var (
	// keywordSlot[two] is 1 + the index in keywordsAt of the keywords
	// starting with those two bytes, 0 for none.
	keywordSlot [1 << 16]uint8
	keywordsAt  [][]keywordHit
)

func init() {
	for ri, r := range rules {
		for _, k := range r.keywords {
			if len(k) < 2 || strings.ToLower(k) != k {
				panic("secrets: keyword " + k + " of " + r.id + " must be lowercase and 2+ bytes")
			}
			two := uint16(k[0])<<8 | uint16(k[1])
			if keywordSlot[two] == 0 {
				keywordsAt = append(keywordsAt, nil)
				keywordSlot[two] = uint8(len(keywordsAt))
			}
			at := keywordSlot[two] - 1
			keywordsAt[at] = append(keywordsAt[at], keywordHit{ri, []byte(k)})
		}
	}
}

// candidateLines returns, per rule, the start offsets of the lines holding
// one of its keywords, in order, without repeats: one pass over the text.
func candidateLines(lower []byte) [][]int {
	out := make([][]int, len(rules))
	lineStart := 0
	for i := 0; i+1 < len(lower); i++ {
		c := lower[i]
		if c == '\n' {
			lineStart = i + 1
			continue
		}
		slot := keywordSlot[uint16(c)<<8|uint16(lower[i+1])]
		if slot == 0 {
			continue
		}
		for _, h := range keywordsAt[slot-1] {
			if bytes.HasPrefix(lower[i:], h.keyword) {
				if l := out[h.rule]; len(l) == 0 || l[len(l)-1] != lineStart {
					out[h.rule] = append(l, lineStart)
				}
			}
		}
	}
	return out
}

// lowerASCII appends s with ASCII letters lowercased (enough for the
// keywords, which are ASCII, and byte offsets stay those of s).
func lowerASCII(dst []byte, s string) []byte {
	dst = append(dst, s...)
	for i, c := range dst {
		if c >= 'A' && c <= 'Z' {
			dst[i] = c + 32
		}
	}
	return dst
}

// privateKeyBlocks finds PEM, OpenSSH and PGP private key blocks over
// several lines and returns one span per line of their body (the BEGIN
// and END lines stay: they say what was there, not what it was).
func privateKeyBlocks(text string, lower []byte) []Finding {
	var out []Finding
	at := 0
	for {
		i := bytes.Index(lower[at:], []byte("-----begin "))
		if i < 0 {
			return out
		}
		i += at
		lineEnd := indexFrom(lower, i, '\n')
		head := lower[i:lineEnd]
		at = lineEnd
		if !bytes.Contains(head, []byte("private key")) || bytes.Contains(head, []byte("-----end")) {
			continue // a certificate or public key, or a key on one line (a rule)
		}
		// A key commented out or quoted ("# ", "// ", "> " before
		// BEGIN) has that mark before each line of its body too.
		mark := commentMark(text[bytes.LastIndexByte(lower[:i], '\n')+1 : i])
		// Body lines up to the END line. Without one (a truncated
		// paste), the body ends at the first line that is not base64 or
		// a header.
		for ls := lineEnd + 1; ls < len(text); {
			le := indexFrom(lower, ls, '\n')
			l := text[ls:le]
			off, l := unmark(l, mark)
			trimmed := strings.TrimSpace(l)
			if strings.HasPrefix(trimmed, "-----END") || strings.HasPrefix(strings.TrimLeft(trimmed, `"'+ `), "-----END") {
				at = le
				break
			}
			if trimmed == "" {
				if _, next := unmark(nextLine(text, lower, le), mark); !base64Line(strings.TrimSpace(next)) {
					at = le
					break
				}
			}
			if trimmed != "" {
				if !base64Line(trimmed) && !strings.Contains(trimmed, ":") {
					at = ls
					break
				}
				s := ls + off + strings.Index(l, trimmed)
				out = append(out, Finding{Rule: privateKeyRule, Start: s, End: s + len(trimmed)})
			}
			at = le
			ls = le + 1
		}
	}
}

// derKeys finds private keys written as base64 DER outside a block
// privateKeyBlocks knows: a PEM body whose BEGIN line is gone or names no
// private key (Go's tests write "RSA TESTING KEY" and swap the word at
// run time), or a key on one line (a JSON string, \n-escaped or not). A
// base64 run of 40 or more characters whose first bytes decode as the
// start of a private key (derPrivateKey), or an OpenSSH key's magic, is
// one; the base64 lines right after it, the rest of the body, go with it.
func derKeys(text string) []Finding {
	var out []Finding
	next := 0 // the text before it is looked at
	for _, j := range derStarts(text) {
		if j < next || j > 0 && b64Char(text[j-1]) {
			continue
		}
		e := b64Run(text, j)
		if e-j < 40 || !strings.HasPrefix(text[j:], openSSHMagic) && !derPrivateKey(text[j:e]) {
			continue
		}
		out = append(out, Finding{Rule: privateKeyRule, Start: j, End: e})
		next = e
		// A run that ends its line (but for a closing quote or a +) is
		// a body's first line: the base64 lines after it, marked as it
		// is (a comment, a quote), are the rest.
		ls := strings.LastIndexByte(text[:j], '\n') + 1
		mark := commentMark(text[ls:j])
		le := lineEnd(text, ls)
		if strings.Trim(text[e:le], "\"'+,; \t\r\\") != "" {
			continue
		}
		for le < len(text) {
			ns := le + 1
			ne := lineEnd(text, ns)
			off, l := unmark(text[ns:ne], mark)
			trimmed := strings.TrimSpace(l)
			if !base64Line(trimmed) {
				break
			}
			s := ns + off + strings.Index(l, trimmed)
			out = append(out, Finding{Rule: privateKeyRule, Start: s, End: s + len(trimmed)})
			le, next = ne, ne
		}
	}
	return out
}

// derStarts are the offsets, in order, where a base64 private key may
// start: where the bytes of its DER version field (INTEGER 0 or 1) fall,
// in each length form, found with a fast substring search rather than at
// every 'M' (a tenth of the detection's time on Go's source). Base64 of
// 30 82 LL LL 02 01 0v is "MII" ?? "IBA" (RSA, large PKCS#8); of
// 30 81 LL 02 01 0v, "MI[GH]?AgE" (EC PKCS#8, SEC1 P-384 and up); of
// 30 LL 02 01 0v, "M[C-H]??AQ" (Ed25519, SEC1 P-256). And an OpenSSH key's
// magic.
func derStarts(text string) []int {
	var out []int
	find := func(pat string, back int, ok func(j int) bool) {
		for i := 0; ; {
			k := strings.Index(text[i:], pat)
			if k < 0 {
				return
			}
			k += i
			i = k + 1
			if j := k - back; j >= 0 && ok(j) {
				out = append(out, j)
			}
		}
	}
	find("IBA", 6, func(j int) bool { return strings.HasPrefix(text[j:], "MII") })
	find("AgE", 4, func(j int) bool { return text[j] == 'M' && text[j+1] == 'I' && (text[j+2] == 'G' || text[j+2] == 'H') })
	find("AQ", 4, func(j int) bool { return text[j] == 'M' && text[j+1] >= 'C' && text[j+1] <= 'H' })
	find(openSSHMagic, 0, func(int) bool { return true })
	sort.Ints(out)
	return out
}

// lineEnd is the offset of the '\n' ending the line at i, or len(text).
func lineEnd(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(text)
}

// openSSHMagic is "openssh-key-v1" base64-encoded: the start of every
// OpenSSH private key's body (public keys have another format).
const openSSHMagic = "b3BlbnNzaC1rZXktdjE"

func b64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// b64Run is the end of the base64 run starting at j, within its line,
// over '=' padding and \n, \r escapes (a key inlined in a string).
func b64Run(text string, j int) int {
	k := j
	for k < len(text) {
		switch c := text[k]; {
		case b64Char(c) || c == '=':
			k++
		case c == '\\' && k+1 < len(text) && (text[k+1] == 'n' || text[k+1] == 'r'):
			k += 2
		default:
			return k
		}
	}
	return k
}

// derPrivateKey says the base64 run v starts with a private key's DER
// encoding: a SEQUENCE holding the version INTEGER 0 or 1, then the
// modulus (PKCS#1 RSA, DSA), an AlgorithmIdentifier (PKCS#8) or the key's
// 24 to 66 bytes (SEC1 EC). Certificates, public keys and signatures
// start otherwise.
func derPrivateKey(v string) bool {
	if len(v) < 16 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(v[:16])
	if err != nil || b[0] != 0x30 {
		return false
	}
	h := 2
	switch {
	case b[1] == 0x81:
		h = 3
	case b[1] == 0x82:
		h = 4
	case b[1] < 0x2e || b[1] >= 0x80: // under an Ed25519 key's 46 bytes
		return false
	}
	if b[h] != 0x02 || b[h+1] != 0x01 || b[h+2] > 1 {
		return false
	}
	switch b[h+3] {
	case 0x02:
		return b[h+2] == 0 && (b[h+4] == 0x81 || b[h+4] == 0x82)
	case 0x30:
		return b[h+5] == 0x06
	case 0x04:
		return b[h+2] == 1 && b[h+4] >= 24 && b[h+4] <= 66
	}
	return false
}

// commentMark returns what comments out or quotes a line, given the text
// before -----BEGIN on it ("# ", "  // ", "> ", " * "), or "" when that
// text is something else (a string's opening quote, a key name).
func commentMark(before string) string {
	m := strings.TrimSpace(before)
	if m == "" || strings.Trim(m, "#/;*>!%-") != "" {
		return ""
	}
	return m
}

// unmark strips mark, and the blanks before it, from the start of line,
// and says how many bytes went.
func unmark(line, mark string) (int, string) {
	if mark == "" {
		return 0, line
	}
	t := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(t, mark) {
		return 0, line
	}
	return len(line) - len(t) + len(mark), t[len(mark):]
}

func indexFrom(b []byte, from int, c byte) int {
	if from >= len(b) {
		return len(b)
	}
	if j := bytes.IndexByte(b[from:], c); j >= 0 {
		return from + j
	}
	return len(b)
}

func nextLine(text string, lower []byte, le int) string {
	if le+1 >= len(text) {
		return ""
	}
	return strings.TrimSpace(text[le+1 : indexFrom(lower, le+1, '\n')])
}

// base64Line: a line of a key body, possibly quoted or concatenated in
// code ("MIIE..." +).
func base64Line(l string) bool {
	l = strings.Trim(l, `"'+,; \`)
	l = strings.TrimSuffix(l, `\n`)
	if len(l) < 4 {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// entropy is the Shannon entropy of s, in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			f := float64(c) / n
			h -= f * math.Log2(f)
		}
	}
	return h
}

// RedactURL is a URL as messages, logs and records show it: without its
// user:password@ (a token in a git remote or in an endpoint's URL goes
// to no message, JSON, log or index record), as git's own messages show
// a remote. Anything else (a remote's name, an scp-like address) stays
// as it is.
func RedactURL(remote string) string {
	scheme, rest, ok := strings.Cut(remote, "://")
	if !ok {
		return remote
	}
	// The userinfo ends at the last @ before the path, whatever the
	// password holds.
	auth, _, _ := strings.Cut(rest, "/")
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		return scheme + "://" + rest[at+1:]
	}
	return remote
}
