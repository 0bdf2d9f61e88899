package secrets

import (
	"encoding/base64"
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

// BenchmarkFindLongLine: finding the secrets of one long line of base64
// costs time in proportion to its length, at a fraction of searching the
// whole line with every rule whose keyword it holds (about 0.5 s a
// megabyte before).
func BenchmarkFindLongLine(b *testing.B) {
	for _, mb := range []int{1, 4, 16} {
		text := filler(3, mb<<20)
		b.Run(fmt.Sprintf("MB=%d", mb), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var p *Policy
			for b.Loop() {
				p.Find("blob.b64", text)
			}
		})
	}
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
