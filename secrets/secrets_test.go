package secrets

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// testCase is one block of testdata/secrets/*.txt, placeholders filled.
type testCase struct {
	rule, file, text string
	values           []string // what must not survive redaction
}

var placeholder = regexp.MustCompile(`\{\{(r:(\d+):(\w)|begin:[A-Z ]+|end:[A-Z ]+|jwt|basic|derkey|derline|derescaped)\}\}`)

// derKeyBody is a fake RSA private key's body as base64: the DER header
// of a PKCS#1 key (SEQUENCE, version 0, the modulus's INTEGER), then
// random bytes, in lines of 64 characters.
func derKeyBody(rng *rand.Rand) []string {
	b := []byte{0x30, 0x82, 0x04, 0xa4, 0x02, 0x01, 0x00, 0x02, 0x82, 0x01, 0x01, 0x00}
	for len(b) < 240 {
		b = append(b, byte(rng.IntN(256)))
	}
	enc := base64.StdEncoding.EncodeToString(b)
	var lines []string
	for len(enc) > 64 {
		lines, enc = append(lines, enc[:64]), enc[64:]
	}
	return append(lines, enc)
}

var sets = map[string]string{
	"A": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	"U": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
	"2": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
	"b": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
	"u": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
	"h": "0123456789abcdef",
	"l": "abcdefghijklmnopqrstuvwxyz0123456789",
	"D": "0123456789",
}

// loadCases reads a corpus file: "### <rule> <file>" starts a case.
func loadCases(t testing.TB, name string) []testCase {
	t.Helper()
	b, err := os.ReadFile("testdata/secrets/" + name)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var out []testCase
	var cur *testCase
	var body []string
	flush := func() {
		if cur == nil {
			return
		}
		text := strings.TrimRight(strings.Join(body, "\n"), "\n") + "\n"
		cur.text = placeholder.ReplaceAllStringFunc(text, func(m string) string {
			sub := placeholder.FindStringSubmatch(m)
			switch {
			case strings.HasPrefix(sub[1], "r:"):
				n, _ := strconv.Atoi(sub[2])
				set := sets[sub[3]]
				v := make([]byte, n)
				for i := range v {
					v[i] = set[rng.IntN(len(set))]
				}
				if n >= 8 {
					cur.values = append(cur.values, string(v))
				}
				return string(v)
			case strings.HasPrefix(sub[1], "begin:"):
				return "-----" + "BEGIN " + strings.TrimPrefix(sub[1], "begin:") + "-----"
			case strings.HasPrefix(sub[1], "end:"):
				return "-----" + "END " + strings.TrimPrefix(sub[1], "end:") + "-----"
			case sub[1] == "basic": // HTTP Basic credentials
				pass := make([]byte, 14)
				for i := range pass {
					pass[i] = sets["A"][rng.IntN(62)]
				}
				v := base64.StdEncoding.EncodeToString([]byte("svc-deploy:" + string(pass)))
				cur.values = append(cur.values, v, string(pass))
				return v
			case strings.HasPrefix(sub[1], "der"):
				lines := derKeyBody(rng)
				cur.values = append(cur.values, lines...)
				switch sub[1] {
				case "derline":
					return strings.Join(lines, "")
				case "derescaped":
					return strings.Join(lines, `\n`)
				}
				return strings.Join(lines, "\n")
			default: // a JWT: header.payload.signature
				enc := base64.RawURLEncoding.EncodeToString
				sig := make([]byte, 32)
				for i := range sig {
					sig[i] = byte(rng.IntN(256))
				}
				v := enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc([]byte(fmt.Sprintf(`{"sub":"%d","name":"Demo","iat":1516239022}`, rng.IntN(1e9)))) + "." + enc(sig)
				cur.values = append(cur.values, v)
				return v
			}
		})
		for _, w := range []string{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"} {
			if strings.Contains(cur.text, w) {
				cur.values = append(cur.values, w)
			}
		}
		out = append(out, *cur)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "###" {
			flush()
			cur, body = &testCase{rule: f[1], file: f[2]}, nil
			continue
		}
		if cur == nil {
			continue // the file's own comment
		}
		body = append(body, line)
	}
	flush()
	return out
}

// TestRecall: every fake secret of the corpus is found by its rule and
// none of its value survives redaction, with lines kept.
func TestRecall(t *testing.T) {
	cases := loadCases(t, "found.txt")
	if len(cases) < 40 {
		t.Fatalf("corpus has %d cases, want at least 40", len(cases))
	}
	var p *Policy
	found := 0
	for _, c := range cases {
		red, fs := p.Redact(c.file, c.text)
		ok := false
		for _, f := range fs {
			ok = ok || f.Rule == c.rule
		}
		leaked := ""
		for _, v := range c.values {
			if strings.Contains(red, v) {
				leaked = v
			}
		}
		switch {
		case !ok:
			t.Errorf("%s (%s): rule not found; findings %v\n%s", c.rule, c.file, fs, c.text)
		case leaked != "":
			t.Errorf("%s (%s): %q survives redaction:\n%s", c.rule, c.file, leaked, red)
		case strings.Count(red, "\n") != strings.Count(c.text, "\n"):
			t.Errorf("%s (%s): lines changed:\n%s", c.rule, c.file, red)
		case !strings.Contains(red, Marker(c.rule)):
			t.Errorf("%s (%s): no marker %s:\n%s", c.rule, c.file, Marker(c.rule), red)
		default:
			found++
		}
	}
	t.Logf("recall: %d of %d fake secrets found and redacted", found, len(cases))
}

// TestNoFalsePositives: talk about secrets, placeholders and code that
// reads a secret from elsewhere are left alone.
func TestNoFalsePositives(t *testing.T) {
	for _, c := range loadCases(t, "clean.txt") {
		var p *Policy
		for _, f := range p.Find(c.file, c.text) {
			line := strings.Split(c.text, "\n")[f.Line-1]
			t.Errorf("%s: %s hit on line %d: %q", c.file, f.Rule, f.Line, line)
		}
	}
}

// TestAllow: kb.secrets.allow by rule id and by path glob.
func TestAllow(t *testing.T) {
	text := "id AKIAIOSFODNN7EXAMPLE\nDATABASE_URL=postgres://app:Zq8rT2mW9xK4@db/app\n"
	rulesOf := func(p *Policy, file string) []string {
		var out []string
		for _, f := range p.Find(file, text) {
			out = append(out, f.Rule)
		}
		return out
	}
	if got := rulesOf(nil, "a.md"); strings.Join(got, ",") != "aws-access-key,connection-string-password" {
		t.Fatalf("default policy found %v", got)
	}
	if got := rulesOf(NewPolicy([]string{"aws-access-key"}), "a.md"); strings.Join(got, ",") != "connection-string-password" {
		t.Errorf("allow aws-access-key: found %v", got)
	}
	for _, glob := range []string{"docs/**", "*.md", "docs/a.md", "/docs/*.md"} {
		if got := rulesOf(NewPolicy([]string{glob}), "docs/a.md"); len(got) != 0 {
			t.Errorf("allow %q: docs/a.md still has %v", glob, got)
		}
	}
	if got := rulesOf(NewPolicy([]string{"docs/**"}), "src/a.md"); len(got) != 2 {
		t.Errorf("allow docs/**: src/a.md has %v, want both", got)
	}
	if NewPolicy(nil).Fingerprint() == NewPolicy([]string{"jwt"}).Fingerprint() {
		t.Error("the allow list does not change the fingerprint")
	}
	if NewPolicy([]string{"jwt", "a/**"}).Fingerprint() != NewPolicy([]string{"a/**", "jwt"}).Fingerprint() {
		t.Error("the fingerprint depends on the allow list's order")
	}
}

// TestFindingLines: findings carry 1-based line numbers and the marker
// replaces the span inside its line.
func TestFindingLines(t *testing.T) {
	text := "one\ntwo AKIAIOSFODNN7EXAMPLE end\nthree\n"
	red, fs := (*Policy)(nil).Redact("x.md", text)
	if len(fs) != 1 || fs[0].Line != 2 || fs[0].Rule != "aws-access-key" {
		t.Fatalf("findings %+v", fs)
	}
	if want := "one\ntwo [redacted: aws-access-key] end\nthree\n"; red != want {
		t.Errorf("redacted %q, want %q", red, want)
	}
}

func TestIsSecretFile(t *testing.T) {
	for p, want := range map[string]bool{".env": true, "app/.env.production": true, "certs/server.pem": true, "id_rsa.pub": true,
		"README.md": false, "env.go": false, "docs/keys.md": false, "secrets.yaml": true} {
		if IsSecretFile(p) != want {
			t.Errorf("IsSecretFile(%q) = %v", p, !want)
		}
	}
}

// TestRulesCompile compiles every rule's pattern, which the package
// otherwise does only when a line needs it (lazyRE).
func TestRulesCompile(t *testing.T) {
	for _, r := range rules {
		func() {
			defer func() {
				if e := recover(); e != nil {
					t.Errorf("rule %s: %v", r.id, e)
				}
			}()
			if r.re().NumSubexp() < r.group {
				t.Errorf("rule %s: group %d, but the pattern has %d", r.id, r.group, r.re().NumSubexp())
			}
		}()
	}
}

// RedactLineRange gives the lines RedactText gives, for every range of
// lines of every corpus case, of all the cases as one file (private key
// blocks among other secrets), and with a rule allowed.
func TestRedactLineRangeMatchesRedactText(t *testing.T) {
	cases := append(loadCases(t, "found.txt"), loadCases(t, "clean.txt")...)
	var all []string
	for _, c := range cases {
		all = append(all, c.text)
	}
	cases = append(cases, testCase{file: "all.env", text: strings.Join(all, "\n")}, testCase{file: "all.env", text: strings.TrimSuffix(strings.Join(all, "\n"), "\n")})
	allowed := &Policy{allowRules: map[string]bool{"password-assignment": true}}
	for _, p := range []*Policy{nil, allowed} {
		for _, c := range cases {
			want := strings.Split(p.RedactText(c.file, c.text), "\n")
			n := len(want)
			step := max(1, n/40) // the joined file: a sample of ranges
			for from := 0; from < n; from += step {
				for to := from + 1; to <= n+1; to += step {
					got := p.RedactLineRange(c.file, c.text, from, to)
					w := want[from:min(to, n)]
					if strings.Join(got, "\n") != strings.Join(w, "\n") || len(got) != len(w) {
						t.Fatalf("%s lines %d-%d:\ngot  %q\nwant %q", c.file, from, to, got, w)
					}
				}
			}
		}
	}
	if got := (*Policy)(nil).RedactLineRange("a", "x\ny", 3, 5); got != nil {
		t.Fatalf("range past the end: %q", got)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://ci:tok@github.com/a/b.git": "https://github.com/a/b.git",
		"https://ghp_x@github.com/a/b.git":  "https://github.com/a/b.git",
		"https://ci:a%zz b#c@host:8080/v1":  "https://host:8080/v1",
		"http://127.0.0.1:8080/v1":          "http://127.0.0.1:8080/v1",
		"https://host/npm/@scope/x.git":     "https://host/npm/@scope/x.git",
		"git@github.com:a/b.git":            "git@github.com:a/b.git",
		"origin":                            "origin",
		"file:///srv/git/x.git":             "file:///srv/git/x.git",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestValueOnly: the new command-line, Basic and environment rules
// redact the value alone; the command, its flags and the name stay
// searchable.
func TestValueOnly(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("svc:Zq8rT2mW9xK4"))
	for _, tt := range []struct{ in, want string }{
		{"mysql -h db -u app -pZq8rT2mW9xK4 -e 'select 1'", "mysql -h db -u app -p[redacted: cli-password] -e 'select 1'"},
		{"mysqldump --user=bk --password='Zq8rT2mW' db", "mysqldump --user=bk --password='[redacted: cli-password]' db"},
		{`curl -u "svc:Zq8rT2mW" https://ci/api`, `curl -u "svc:[redacted: basic-auth]" https://ci/api`},
		{"Authorization: Basic " + basic, "Authorization: Basic [redacted: basic-auth]"},
		{"DB_PASS=Zq8rT2mW # the app's", "DB_PASS=[redacted: password-assignment] # the app's"},
		{"  MYSQL_PWD: Zq8rT2mW", "  MYSQL_PWD: [redacted: password-assignment]"},
	} {
		if got := (*Policy)(nil).RedactText("a.md", tt.in); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
