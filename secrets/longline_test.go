package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// filler is n bytes of base64 of random bytes: a blob's text, which holds
// some rules' keywords (aws, pwd, eyj...) here and there.
func filler(seed uint64, n int) string {
	raw := make([]byte, n)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range raw {
		raw[i] = byte(rng.IntN(256))
	}
	return base64.StdEncoding.EncodeToString(raw)[:n]
}

// stretched are secrets whose match reaches further from its rule's
// keyword than a fixed window around it would: a SAS URL whose sig= comes
// 1.5 KiB after its sv=, a JWT with a 2 KiB payload, a 4096-bit key in a
// service account's JSON and as an escaped PEM block, a password value and
// an AWS secret key's blanks beyond 1 KiB.
func stretched() []string {
	body := filler(9, 3200)
	return []string{
		`https://acct.blob.core.windows.net/c/f?sv=2022-11-02&rscd=` + strings.Repeat("attachment", 150) + `&sig=` + filler(10, 43) + `%3D`,
		`token=eyJ` + filler(11, 30) + `.eyJ` + strings.NewReplacer("+", "-", "/", "_").Replace(filler(12, 2000)) + `.` + strings.NewReplacer("+", "-", "/", "_").Replace(filler(13, 43)),
		`{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\n` + body + `\n-----END PRIVATE KEY-----\n", "client_email": "a@b.iam"}`,
		`{"k": "-----BEGIN RSA PRIVATE KEY-----\n` + body + `\n-----END RSA PRIVATE KEY-----\n"}`,
		`db_password = "` + strings.NewReplacer("+", "9", "/", "x").Replace(filler(14, 1500)) + `"`,
		`aws_secret_access_key =` + strings.Repeat(" ", 1100) + `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`,
		`secret_accesskey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"` + strings.Repeat(" x", 600) + ` aws`,
		`access_keysecret = "` + strings.NewReplacer("+", "a", "/", "b").Replace(filler(15, 30)) + `"` + strings.Repeat(" x", 600) + ` AccessKeySecret`,
		`{"auth-key": "` + filler(16, 32) + `"}` + strings.Repeat(" x", 600) + ` token`,
	}
}

// TestLongLinesMatchAsWhole: each rule searched around its keywords (as
// on a line longer than longLine) finds exactly what it finds searching
// the whole line: every line of the corpus and the stretched secrets, put
// at the start, in the middle and at the end of a line of base64, and a
// secret longer than the base64 (an encoded key, which makes the rule
// search the line whole).
func TestLongLinesMatchAsWhole(t *testing.T) {
	pad, half := filler(1, 3<<10), filler(1, 2<<10)
	var lines []string
	for _, set := range []string{"found.txt", "clean.txt"} {
		for _, c := range loadCases(t, set) {
			lines = append(lines, strings.Split(c.text, "\n")...)
		}
	}
	key := base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\n" + filler(2, 3<<10) + "\n-----END RSA PRIVATE KEY-----\n"))
	lines = append(lines, "client-key-data: "+key)
	lines = append(lines, stretched()...)
	found, around := 0, 0
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ll := string(lowerASCII(nil, l))
		for _, long := range []string{l + " " + pad, half + " " + l + " " + half, pad + " " + l, pad + "é" + l + "\xe2\x82" + half} {
			lower := lowerASCII(nil, long)
			for _, r := range rules {
				if r.lineKeyword || !slices.ContainsFunc(r.keywords, func(k string) bool { return strings.Contains(ll, k) }) {
					continue // searched whole, or the line is no candidate for r (or only for the base64 around it)
				}
				ws, ok := keywordWindows(r, long, lower)
				if !ok {
					continue // searched whole
				}
				want := r.re().FindAllStringSubmatchIndex(long, -1)
				got := matchesIn(r, long, ws)
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("line %d %.200q, rule %s: around keywords %v, whole line %v", i, l, r.id, got, want)
				}
				found += len(want)
				around++
			}
		}
	}
	if found < 100 || around < 500 {
		t.Fatalf("only %d matches in all the long lines, %d searches around keywords: the test tests nothing", found, around)
	}
	t.Logf("%d lines, %d matches, %d searches around keywords", len(lines), found, around)
}

// TestLongLineFindsWhatShortFinds: every line of the corpus (each rule's
// examples) and each stretched secret has the same findings at the same
// places in a line longer than longLine as in a short one (at its start,
// in its middle, at its end: pypirc's password = starts a line). The
// padding is digits, + and /, which spell no keyword (the rules' keywords
// in base64 are TestLongLinesMatchAsWhole's), so that each line is
// searched around its own keywords only.
func TestLongLineFindsWhatShortFinds(t *testing.T) {
	pad, short := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r == '+' || r == '/' {
			return r
		}
		return '0' + r%10
	}, filler(7, longLine/2)), "0000"
	if fs := (*Policy)(nil).Find("x", pad+" "+pad+" "+pad); len(fs) > 0 {
		t.Fatalf("the padding alone has findings %v", fs)
	}
	type example struct{ rule, file, line string }
	var examples []example
	for _, set := range []string{"found.txt", "clean.txt"} {
		for _, c := range loadCases(t, set) {
			for _, l := range strings.Split(c.text, "\n") {
				examples = append(examples, example{c.rule, c.file, l})
			}
		}
	}
	for _, l := range stretched() {
		examples = append(examples, example{"stretched", "a.json", l})
	}
	var p *Policy
	rulesFound := map[string]bool{}
	for _, ex := range examples {
		for _, place := range []func(pad string) string{
			func(pad string) string { return ex.line + " " + pad + pad },
			func(pad string) string { return pad + " " + ex.line + " " + pad },
			func(pad string) string { return pad + pad + " " + ex.line },
		} {
			long := place(pad)
			if len(long) <= longLine {
				t.Fatalf("%d bytes: not a long line", len(long))
			}
			got, want := p.Find(ex.file, long), p.Find(ex.file, place(short))
			at := strings.Index(long, ex.line) - strings.Index(place(short), ex.line)
			for i := range want {
				rulesFound[want[i].Rule] = true
				want[i].Start += at
				want[i].End += at
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s %s: %.200q in a long line: findings %+v, in a short one %+v", ex.rule, ex.file, ex.line, got, want)
			}
		}
	}
	for _, id := range Rules() {
		if !rulesFound[id] {
			t.Errorf("no example line of rule %s has a finding", id)
		}
	}
}

// BenchmarkFindLongLine: finding the secrets of one long line of base64,
// base64url, or hex with a keyword in it costs time in proportion to its
// length, at a fraction of searching the whole line with every rule
// whose keyword it holds (about 0.5 s a megabyte before). In base64url
// and hex, password-assignment's [a-z0-9_\-] runs as long as the line.
func BenchmarkFindLongLine(b *testing.B) {
	for _, kind := range []string{"base64", "base64url", "hex"} {
		for _, mb := range []int{1, 4, 16} {
			text := longText(kind, mb<<20)
			b.Run(fmt.Sprintf("%s/MB=%d", kind, mb), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				var p *Policy
				for b.Loop() {
					p.Find("blob.txt", text)
				}
			})
		}
	}
}

// longText is a line of n bytes of base64, base64url, or hex with token
// in its middle.
func longText(kind string, n int) string {
	switch kind {
	case "base64url":
		return strings.NewReplacer("+", "-", "/", "_").Replace(filler(3, n))
	case "hex":
		h := hex.EncodeToString([]byte(filler(3, n/2)))
		return h[:n/2] + "token" + h[n/2+5:]
	}
	return filler(3, n)
}

// TestMatchesHoldKeywords: a rule without lineKeyword finds only matches
// that hold one of its keywords (what searching a long line around them
// relies on), on every line of the corpus and the stretched secrets.
func TestMatchesHoldKeywords(t *testing.T) {
	n := 0
	var texts []string
	for _, set := range []string{"found.txt", "clean.txt"} {
		for _, c := range loadCases(t, set) {
			texts = append(texts, c.text)
		}
	}
	texts = append(texts, stretched()...)
	for _, text := range texts {
		for _, l := range strings.Split(text, "\n") {
			lower := string(lowerASCII(nil, l))
			for _, r := range rules {
				if r.lineKeyword {
					continue
				}
				// And so does a match cut short of a run that ends
				// the regexp (reach), which is what a window holds.
				for _, re := range []*regexp.Regexp{r.re(), r.reach().wrapped[0]()} {
					for _, m := range re.FindAllStringIndex(l, -1) {
						n++
						if !slices.ContainsFunc(r.keywords, func(k string) bool { return strings.Contains(lower[m[0]:m[1]], k) }) {
							t.Errorf("%s matches %q in %q, which holds none of %q: give the rule lineKeyword", r.id, l[m[0]:m[1]], l, r.keywords)
						}
					}
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d matches in the corpus", n)
	}
}

// TestLongLineRedacted: secrets in a line longer than longLine are found
// and redacted, one in the middle, one 3 KiB long, one 2 KiB from its
// rule's keyword (curl ... -u user:password), and the line stays one
// line.
func TestLongLineRedacted(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\n" + filler(2, 3<<10) + "\n-----END RSA PRIVATE KEY-----\n"))
	text := filler(4, longLine) + " id AKIAIOSFODNN7EXAMPLE " + filler(5, longLine) + " client-key-data: " + key +
		" curl --silent " + filler(6, 2<<10) + " -u deploy:Zq8rT2mW9xK4 https://ci.example.com\nnext line\n"
	var p *Policy
	red, fs := p.Redact("config.txt", text)
	var rules []string
	for _, f := range fs {
		rules = append(rules, f.Rule)
		if f.Line != 1 {
			t.Errorf("finding %+v: want line 1", f)
		}
	}
	if !slices.Equal(rules, []string{"aws-access-key", privateKeyRule, "basic-auth"}) {
		t.Errorf("rules %v, want aws-access-key, %s and basic-auth", rules, privateKeyRule)
	}
	if strings.Contains(red, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(red, key[len(key)/2:len(key)/2+64]) || strings.Contains(red, "Zq8rT2mW9xK4") {
		t.Errorf("a secret survives redaction")
	}
	if strings.Count(red, "\n") != 2 || !strings.HasSuffix(red, "\nnext line\n") {
		t.Errorf("lines changed")
	}
}

// TestLongRunsCutWindows: in a line of base64url or hex, where
// password-assignment's [a-z0-9_\-] runs as long as the line, the rule
// reads windows around its keywords (it read the whole line, 0.65 s a
// megabyte), and every rule finds there what it finds in the whole line:
// secrets beside a keyword in such a run (whose match starts where the
// run does), a 100 KiB value, a JWT with a 3 KiB payload beside a long
// base64url run.
func TestLongRunsCutWindows(t *testing.T) {
	url := func(seed uint64, n int) string {
		return strings.NewReplacer("+", "-", "/", "_").Replace(filler(seed, n))
	}
	hexOf := func(seed uint64, n int) string { return hex.EncodeToString([]byte(filler(seed, n)))[:n] }
	jwt := "eyJ" + url(11, 30) + ".eyJ" + url(12, 3<<10) + "." + url(13, 43)
	plain := []string{longText("base64url", 256<<10), longText("hex", 256<<10)}
	lines := append(plain,
		hexOf(20, 100<<10)+"token=s3cr3tV4lue "+hexOf(21, 100<<10),
		url(22, 100<<10)+"_token: abc123XYZ "+url(23, 100<<10),
		url(24, 100<<10)+"token="+hexOf(25, 100<<10),
		`{"blob": "`+url(26, 200<<10)+`", "jwt": "`+jwt+`"}`,
		"db_secret = "+hexOf(27, 80<<10)+" "+url(28, 80<<10),
	)
	var p *rule
	for _, r := range rules {
		if r.id == "password-assignment" && r.reach().fixed >= 0 {
			p = r
		}
	}
	for _, l := range plain {
		ws, ok := keywordWindows(p, l, lowerASCII(nil, l))
		n := 0
		for _, w := range ws {
			n += w.hi - w.lo
		}
		if !ok || n > len(l)/4 {
			t.Errorf("%s in %.20q...: %d windows of %d bytes (ok %v) in a line of %d", p.id, l, len(ws), n, ok, len(l))
		}
	}
	found, cut := 0, 0
	for i, l := range lines {
		lower := lowerASCII(nil, l)
		for _, r := range rules {
			if r.lineKeyword || !slices.ContainsFunc(r.keywords, func(k string) bool { return bytes.Contains(lower, []byte(k)) }) {
				continue
			}
			ws, ok := keywordWindows(r, l, lower)
			if !ok {
				continue
			}
			for _, w := range ws {
				if w.cut {
					cut++
				}
			}
			want := r.re().FindAllStringSubmatchIndex(l, -1)
			if got := matchesIn(r, l, ws); !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("line %d, rule %s: around keywords %v, whole line %v", i, r.id, got, want)
			}
			found += len(want)
		}
	}
	if found < 5 || cut < 10 {
		t.Fatalf("%d matches, %d cut windows: the test tests nothing", found, cut)
	}
}

// TestWindowsHoldEachReach: the windows hold the whole reach of each
// keyword, also when a later keyword reaches further back than an earlier
// one (token_bbb...=val after pwd: merging the windows in the order of
// their keywords lost the start of token's).
func TestWindowsHoldEachReach(t *testing.T) {
	line := filler(30, 70<<10) + " pwd " + filler(31, 1000) + " token_" + strings.Repeat("b", 5000) + "=val " + filler(32, 2<<10)
	lower := lowerASCII(nil, line)
	far := 0
	for _, r := range rules {
		if r.lineKeyword || r.reach().fixed < 0 {
			continue
		}
		ws, ok := keywordWindows(r, line, lower)
		if !ok {
			t.Fatalf("%s searches the whole line", r.id)
		}
		for _, k := range r.keywords {
			for at := 0; ; {
				i := bytes.Index(lower[at:], []byte(k))
				if i < 0 {
					break
				}
				ks, ke := at+i, at+i+len(k)
				at = ks + 1
				x := r.reach().around(line, ks, ke, max(maxReach, 2*r.reach().fixed))
				if x < 0 {
					continue // cut
				}
				lo, hi := max(ke-x, 0), min(ks+x, len(line))
				if !slices.ContainsFunc(ws, func(w window) bool { return w.lo <= lo && hi <= w.hi }) {
					t.Errorf("%s: %q at %d reaches %d..%d, outside windows %v", r.id, k, ks, lo, hi, ws)
				}
				if x > 5000 {
					far++
				}
			}
		}
	}
	if far == 0 {
		t.Fatal("no keyword reaches far: the test tests nothing")
	}
}

// TestMergeWindows: windows out of order by start merge into those
// holding all of them, and one holding a cut window is cut.
func TestMergeWindows(t *testing.T) {
	got := mergeWindows([]window{{990, 1010, false}, {505, 1510, false}, {2000, 2100, true}, {1500, 1600, false}, {2100, 2200, false}})
	want := []window{{505, 1600, false}, {2000, 2200, true}}
	if !slices.Equal(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
}
