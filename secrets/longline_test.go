package secrets

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
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

// TestLongLinesMatchAsWhole: each rule searched around its keywords (as
// on a line longer than longLine) finds exactly what it finds searching
// the whole line: every line of the corpus, put at the start, in the
// middle and at the end of a line of base64, and a secret longer than
// keywordReach (an encoded key, which makes the rule search the line
// whole).
func TestLongLinesMatchAsWhole(t *testing.T) {
	pad, half := filler(1, 3*keywordReach), filler(1, 2*keywordReach)
	var lines []string
	for _, set := range []string{"found.txt", "clean.txt"} {
		for _, c := range loadCases(t, set) {
			lines = append(lines, strings.Split(c.text, "\n")...)
		}
	}
	key := base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\n" + filler(2, 3*keywordReach) + "\n-----END RSA PRIVATE KEY-----\n"))
	lines = append(lines, "client-key-data: "+key)
	found := 0
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ll := string(lowerASCII(nil, l))
		for _, long := range []string{l + " " + pad, half + " " + l + " " + half, pad + " " + l} {
			lower := lowerASCII(nil, long)
			for _, r := range rules {
				if r.lineKeyword || !slices.ContainsFunc(r.keywords, func(k string) bool { return strings.Contains(ll, k) }) {
					continue // searched whole, or the line is no candidate for r (or only for the base64 around it)
				}
				want := r.re().FindAllStringSubmatchIndex(long, -1)
				got := matchesAround(r, long, lower)
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("line %d %q, rule %s: around keywords %v, whole line %v", i, l, r.id, got, want)
				}
				found += len(want)
			}
		}
	}
	if found < 100 {
		t.Fatalf("only %d matches in all the long lines: the test tests nothing", found)
	}
	t.Logf("%d lines, %d matches", len(lines), found)
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
// relies on), on every line of the corpus.
func TestMatchesHoldKeywords(t *testing.T) {
	n := 0
	for _, set := range []string{"found.txt", "clean.txt"} {
		for _, c := range loadCases(t, set) {
			for _, l := range strings.Split(c.text, "\n") {
				lower := string(lowerASCII(nil, l))
				for _, r := range rules {
					if r.lineKeyword {
						continue
					}
					for _, m := range r.re().FindAllStringIndex(l, -1) {
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
// and redacted, one in the middle, one longer than keywordReach, one
// further than that from its rule's keyword (curl ... -u user:password),
// and the line stays one line.
func TestLongLineRedacted(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\n" + filler(2, 3*keywordReach) + "\n-----END RSA PRIVATE KEY-----\n"))
	text := filler(4, longLine) + " id AKIAIOSFODNN7EXAMPLE " + filler(5, longLine) + " client-key-data: " + key +
		" curl --silent " + filler(6, 2*keywordReach) + " -u deploy:Zq8rT2mW9xK4 https://ci.example.com\nnext line\n"
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
