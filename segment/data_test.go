package segment

import (
	"encoding/base64"
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
