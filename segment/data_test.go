package segment

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// randomBase64 is n characters of base64 of random bytes: encoded data
// whose pieces (split at + and /, then camelCase) are nearly all distinct.
func randomBase64(n int) string {
	raw := make([]byte, n)
	rand.New(rand.NewSource(1)).Read(raw)
	return base64.StdEncoding.EncodeToString(raw)[:n]
}

// TestDataRunsHaveNoTerms: a run of base64 or hex characters longer than
// MaxDataRun yields no terms; the words around it and shorter runs still
// do, and Spans cuts such text as Terms does.
func TestDataRunsHaveNoTerms(t *testing.T) {
	blob := randomBase64(MaxDataRun + 1)
	short := randomBase64(MaxDataRun)
	fullWidth := strings.Repeat("ＡＢ", MaxDataRun/2+1) // folds to ASCII letters
	tests := []struct {
		name, in string
		want     []string // exactly these terms
	}{
		{"blob alone", blob, nil},
		{"blob between words", "retryCount " + blob + " 连接池打满", Tiny().Terms("retryCount 连接池打满")},
		{"data URI", `![logo](data:image/png;base64,` + blob + `) caption`, []string{"logo", "data", "image", "png", "base64", "caption"}},
		{"hex dump", "sum " + strings.Repeat("deadbeef", MaxDataRun/8+1) + " end", []string{"sum", "end"}},
		{"digits", "pi = 3." + strings.Repeat("1415926535", MaxDataRun/10+1), []string{"pi"}}, // 3.1415... is one word
		{"full width", "x " + fullWidth, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, an := range []*Analyzer{Tiny(), Full()} {
				if got := an.Terms(tt.in); !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
					t.Errorf("Terms = %q, want %q", got, tt.want)
				}
				var spans []string
				for _, s := range an.Spans(tt.in) {
					spans = append(spans, s.Term)
				}
				if !slices.Equal(spans, an.Terms(tt.in)) {
					t.Errorf("Spans %q, Terms %q", spans, an.Terms(tt.in))
				}
			}
		})
	}
	// A run of MaxDataRun characters is still words: its terms are what
	// they always were.
	if got := Tiny().Terms(short); len(got) == 0 {
		t.Errorf("a run of %d characters has no terms", len(short))
	}
	// Words that only touch a long run through punctuation other than
	// + / = _ - keep their terms: a minified line is words.
	js := strings.Repeat("function retryCount(a,b){return a.b+1};", 100)
	if got := Tiny().Terms(js); !slices.Contains(got, "retrycount") || len(got) < 400 {
		t.Errorf("minified code lost its terms: %d terms", len(got))
	}
}

// wrap cuts s into lines of width characters, each line prefixed by
// indent and ended by eol.
func wrap(s string, width int, indent, eol string) string {
	var b strings.Builder
	for len(s) > 0 {
		n := min(width, len(s))
		b.WriteString(indent + s[:n] + eol)
		s = s[n:]
	}
	return b.String()
}

// TestWrappedDataHasNoTerms: base64 or hex wrapped into lines of one
// width (PEM at 64 columns, MIME at 76, a hex dump at 60) is encoded data
// once the block holds more than MaxDataRun characters, as one long run
// is; a shorter block, and lines that are not all of one width or not
// all data, keep their terms.
func TestWrappedDataHasNoTerms(t *testing.T) {
	long := randomBase64(MaxDataRun + 100)
	hex := strings.Repeat("0123456789abcdef", MaxDataRun/16+2)
	short := randomBase64(MaxDataRun - 100)
	none := []string{}
	pem := "-----BEGIN CERTIFICATE-----\n" + wrap(long, 64, "", "\n") + "-----END CERTIFICATE-----\n"
	tests := []struct {
		name, in string
		want     []string // nil: some terms, none of the data's
	}{
		{"PEM", pem, []string{"begin", "certificate", "end", "certificate"}},
		{"MIME CRLF", "Content-Transfer-Encoding: base64\r\n\r\n" + wrap(long, 76, "", "\r\n") + "\r\n--boundary--\r\n",
			[]string{"content", "transfer", "encoding", "content-transfer-encoding", "base64", "boundary"}},
		{"YAML indented", "tls.crt: |\n" + wrap(long, 64, "    ", "\n") + "kind: Secret\n", []string{"tls.crt", "tls", "crt", "kind", "secret"}},
		{"hex dump", wrap(hex, 60, "", "\n"), none},
		{"last line only", wrap(long, 64, "", "\n")[:64*16+10], none},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, an := range []*Analyzer{Tiny(), Full()} {
				got := an.Terms(tt.in)
				if len(tt.want) == 0 && len(got) > 0 || len(tt.want) > 0 && !slices.Equal(sorted(got), sorted(tt.want)) {
					t.Errorf("Terms = %q, want %q", got, tt.want)
				}
				var spans []string
				for _, s := range an.Spans(tt.in) {
					spans = append(spans, s.Term)
				}
				if !slices.Equal(spans, got) {
					t.Errorf("Spans %q, Terms %q", spans, got)
				}
			}
		})
	}
	// Not a wrapped block of more than MaxDataRun: each keeps the terms
	// of its lines. A list of hashes (hex lines of a digest's width) is
	// names to search for, not data wrapped into lines.
	var sha1s, sha256s strings.Builder
	for i := range 40 {
		fmt.Fprintf(&sha1s, "%x\n", sha1.Sum([]byte{byte(i)}))
		fmt.Fprintf(&sha256s, "%x\n", sha256.Sum256([]byte{byte(i)}))
	}
	for name, in := range map[string]string{
		"SHA-1 list":   "# .git-blame-ignore-revs\n" + sha1s.String(),
		"SHA-256 list": sha256s.String(),
		"short block":  wrap(short, 64, "", "\n"),
		"widths vary":  wrap(long[:500], 64, "", "\n") + wrap(long[500:], 60, "", "\n"),
		"narrow lines": wrap(long, 30, "", "\n"),
		"quoted lines": wrap(long, 64, `"`, `" +`+"\n"),
	} {
		var want []string
		for _, l := range strings.Split(in, "\n") {
			want = append(want, Tiny().Terms(l)...)
		}
		if got := Tiny().Terms(in); len(want) < 20 || !slices.Equal(got, want) {
			t.Errorf("%s: %d terms, want the %d of its lines", name, len(got), len(want))
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
