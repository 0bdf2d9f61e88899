package index

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../testdata/ranking/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// One OpenAPI spec in the three forms swag writes (JSON, YAML, a Go docs
// file embedding the JSON) is recognised from its content; the handler it
// documents is not, though it talks about the same things.
func TestFileKind(t *testing.T) {
	for _, name := range []string{"swagger.json", "swagger.yaml", "docs.go.txt"} {
		if k := fileKind(fixture(t, name)); k != store.KindAPISpec {
			t.Errorf("%s: kind %q, want %q", name, k, store.KindAPISpec)
		}
	}
	notSpecs := map[string]string{
		"user.go":   fixture(t, "user.go.txt"),
		"config.md": "# 接口文档\n\n我们用 swagger 生成接口文档，openapi: 3.0 的写法见下文。\n",
		"app.yaml":  "name: user-center\nport: 8080\npaths:\n  - /users\n",
	}
	for name, text := range notSpecs {
		if k := fileKind(text); k != "" {
			t.Errorf("%s: kind %q, want none", name, k)
		}
	}
}

func analyzedSig(t *testing.T, path, text string) []byte {
	t.Helper()
	r := analyze(segment.Tiny(), &timer{m: map[string]time.Duration{}}, secrets.NewPolicy(nil), path, store.SHA{}, []byte(text))
	if r.meta == nil {
		t.Fatalf("%s not analyzed", path)
	}
	return r.meta.MinHash
}

// The spec's three renderings are near-duplicates; the handler is not.
func TestMinHashNearDuplicates(t *testing.T) {
	js := analyzedSig(t, "api/swagger.json", fixture(t, "swagger.json"))
	ym := analyzedSig(t, "api/swagger.yaml", fixture(t, "swagger.yaml"))
	gd := analyzedSig(t, "api/docs.go", fixture(t, "docs.go.txt"))
	impl := analyzedSig(t, "user/user.go", fixture(t, "user.go.txt"))
	sim := store.MinHashSimilarity
	if sim(js, ym) < 0.75 || sim(js, gd) < 0.75 || sim(ym, gd) < 0.75 {
		t.Errorf("spec renderings: similarity %.2f, %.2f, %.2f, want >= 0.75", sim(js, ym), sim(js, gd), sim(ym, gd))
	}
	if s := sim(js, impl); s >= 0.3 {
		t.Errorf("spec and handler: similarity %.2f", s)
	}
	if sim(js, js) != 1 {
		t.Errorf("a signature is not similar to itself")
	}
	if s := minHash([]string{"package", "main"}); s != nil {
		t.Errorf("tiny file got a signature, want none (too few words to say)")
	}
}

// A file whose distinct words far exceed what files of its length have
// (a message table) stands out of the tree's Heaps' law fit; ordinary
// files, long or short, do not.
func TestVocabOutliers(t *testing.T) {
	headers := map[store.SHA]store.BlobHeader{}
	var blobs []store.SHA
	add := func(i int, length, unique float64) store.SHA {
		var b store.SHA
		b[0], b[1] = byte(i), byte(i>>8)
		headers[b] = store.BlobHeader{N: 1, FieldLen: [store.NumFields]uint32{store.FieldBody: uint32(length)}, UniqueTerm: uint32(unique)}
		blobs = append(blobs, b)
		return b
	}
	for i := 0; i < 60; i++ {
		l := 100 * math.Pow(1.1, float64(i)) // 100 to ~28000 terms
		wobble := 1 + 0.1*math.Sin(float64(i))
		add(i, l, 4*math.Pow(l, 0.6)*wobble)
	}
	table := add(100, 1400, 700) // half of its words are new: a message table
	small := add(101, 60, 40)    // short files are dense too, but the fit knows it
	big := add(102, 20000, 1500) // a big implementation file repeats its words
	got := vocabOutliers(headers, blobs)
	if z := float64(got[table]) / 10; z < 6 {
		t.Errorf("message table: z %.1f, want >= 6", z)
	}
	for name, b := range map[string]store.SHA{"short file": small, "big file": big} {
		if z := float64(got[b]) / 10; z >= 6 {
			t.Errorf("%s: z %.1f, want < 6", name, z)
		}
	}
	if n := len(vocabOutliers(headers, blobs[:10])); n != 0 {
		t.Errorf("10 files: %d outliers, want none (too few to know what is normal)", n)
	}
}

// median by selection gives exactly what sorting gives, for odd and even
// counts, runs of equal values and sorted or reversed input, and leaves its
// argument as it was.
func TestMedianMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(300)
		xs := make([]float64, n)
		distinct := 1 + rng.IntN(n+1)
		for i := range xs {
			xs[i] = float64(rng.IntN(distinct)) * 0.37
			if trial%3 == 0 {
				xs[i] = rng.NormFloat64()
			}
		}
		switch trial % 7 {
		case 1:
			slices.Sort(xs)
		case 2:
			slices.Sort(xs)
			slices.Reverse(xs)
		}
		orig := slices.Clone(xs)
		s := slices.Clone(xs)
		slices.Sort(s)
		want := s[n/2]
		if n%2 == 0 {
			want = (s[n/2-1] + s[n/2]) / 2
		}
		if got := median(xs); got != want {
			t.Fatalf("median of %v = %v, want %v", orig, got, want)
		}
		if !slices.Equal(xs, orig) {
			t.Fatalf("median changed its argument")
		}
	}
}

// The spec inside a generated Go file is the object that holds the
// version key, path parameters and template placeholders included; the
// wrapper around it is left out.
func TestEmbeddedSpec(t *testing.T) {
	spec := "{\n    \"schemes\": {{ marshal .Schemes }},\n    \"swagger\": \"2.0\",\n    \"info\": {\"title\": \"{{.Title}}\"},\n    \"paths\": {\"/users/{id}\": {\"get\": {\"summary\": \"获取用户详情\"}}}\n}"
	goFile := "// Code generated by swaggo/swag. DO NOT EDIT\npackage docs\n\nimport \"github.com/swaggo/swag\"\n\nconst docTemplate = `" + spec +
		"`\n\nvar SwaggerInfo = &swag.Spec{Version: \"1.0\", LeftDelim: \"{{\", RightDelim: \"}}\"}\n\nfunc init() {\n\tswag.Register(SwaggerInfo.InstanceName(), SwaggerInfo)\n}\n"
	got, ok := embeddedSpec(goFile)
	if !ok || got != spec {
		t.Errorf("embeddedSpec = %q, %v; want the template's object", got, ok)
	}
	for _, text := range []string{
		"package docs\n\nconst x = 1\n",                                // no spec
		"const t = `\n    \"swagger\": \"2.0\",\n    \"paths\": {}\n`", // no object around the key
		"const t = `{\"swagger\": \"2.0\", \"paths\": {`",              // never closed
	} {
		if got, ok := embeddedSpec(text); ok {
			t.Errorf("embeddedSpec(%q) = %q, want none", text, got)
		}
	}
}
