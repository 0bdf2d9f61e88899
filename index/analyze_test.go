package index

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// refAnalysis is what analyzeKeep must produce for a text, counted the
// plain way (a map per chunk, a map of the file's terms, hash/fnv for the
// MinHash): its reference.
type refAnalysis struct {
	chunks   [][]termTF // each sorted by term
	lens     []uint32
	fieldLen [store.NumFields]uint32
	unique   uint32
	terms    int
	hashes   []string
	minHash  []byte
}

func referenceAnalysis(an *segment.Analyzer, path, text string) refAnalysis {
	var ref refAnalysis
	doc := chunk.Split(path, text)
	pathTerms := an.Terms(path)
	aboutTerms := an.Terms(doc.About())
	unique := map[string]bool{}
	bodyTF := map[string]int{}
	for _, c := range doc.Chunks {
		sum := sha256.Sum256([]byte(c.Text))
		ref.hashes = append(ref.hashes, hex.EncodeToString(sum[:12]))
		tf := map[string]*[store.NumFields]uint16{}
		count := func(field int, terms []string) int {
			for _, t := range terms {
				p := tf[t]
				if p == nil {
					p = new([store.NumFields]uint16)
					tf[t] = p
				}
				if p[field] < 65535 {
					p[field]++
				}
			}
			return len(terms)
		}
		body := count(store.FieldBody, an.Terms(c.Text))
		lens := [store.NumFields]int{store.FieldBody: body}
		lens[store.FieldHeading] = count(store.FieldHeading, an.Terms(doc.Title+"\n"+c.Heading))
		lens[store.FieldPath] = count(store.FieldPath, pathTerms)
		lens[store.FieldAbout] = count(store.FieldAbout, aboutTerms)
		if len(c.Symbols) > 0 {
			lens[store.FieldSymbol] = count(store.FieldSymbol, an.Terms(joinSymbols(c.Symbols)))
		}
		var terms []termTF
		for t, p := range tf {
			terms = append(terms, termTF{t, *p})
			unique[t] = true
			if p[store.FieldBody] > 0 {
				bodyTF[t] += int(p[store.FieldBody])
			}
		}
		slices.SortFunc(terms, func(a, b termTF) int { return strings.Compare(a.term, b.term) })
		ref.chunks = append(ref.chunks, terms)
		ref.lens = append(ref.lens, uint32(body))
		for f, l := range lens {
			ref.fieldLen[f] += uint32(l)
		}
		ref.terms += body
	}
	ref.unique = uint32(len(unique))
	// A spec inside another file is hashed over the spec's words alone.
	if spec, ok := embeddedSpec(text); ok && fileKind(text) == store.KindAPISpec && doc.Lang != "json" && doc.Lang != "yaml" {
		bodyTF = map[string]int{}
		for _, t := range an.Terms(spec) {
			bodyTF[t]++
		}
	}
	if len(bodyTF) >= minHashMinTerms {
		var mins [store.MinHashSize]uint32
		for i := range mins {
			mins[i] = math.MaxUint32
		}
		h := fnv.New64a()
		for t := range bodyTF {
			h.Reset()
			h.Write([]byte(t))
			x := h.Sum64()
			h1, h2 := uint32(x), uint32(x>>32)|1
			for i := range mins {
				mins[i] = min(mins[i], h1+uint32(i)*h2)
			}
		}
		for _, m := range mins {
			ref.minHash = append(ref.minHash, byte(m), byte(m>>8), byte(m>>16), byte(m>>24))
		}
	}
	return ref
}

// analyzeKeep counts terms with reused scratch space and no map per
// chunk, and hashes for the MinHash without hash/fnv: every count, length,
// chunk hash, distinct-term total and signature must be those of the
// plain way, on real files of every kind the indexer meets (this
// repository's Go, Markdown and fixtures, and a sample of Go's source).
func TestAnalyzeMatchesReference(t *testing.T) {
	var paths []string
	for _, pat := range []string{"../README.md", "../*/*.go", "../testdata/ranking/*", "../testdata/ranking/swag/*", "../testdata/eval/*"} {
		m, _ := filepath.Glob(pat)
		paths = append(paths, m...)
	}
	goroot := runtime.GOROOT()
	for _, rel := range []string{"net/http/server.go", "go/parser/parser.go", "runtime/proc.go", "strings/strings.go", "fmt/doc.go", "cmd/go/alldocs.go", "unicode/tables.go"} {
		paths = append(paths, filepath.Join(goroot, "src", rel))
	}
	an := segment.Tiny()
	pol := secrets.NewPolicy(nil)
	tm := &timer{m: map[string]time.Duration{}}
	checked := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		path := strings.TrimPrefix(filepath.ToSlash(p), "../")
		r, text, _ := analyzeKeep(an, tm, pol, path, store.SHA{}, b)
		if r.meta == nil {
			continue
		}
		ref := referenceAnalysis(an, path, text)
		got := make([][]termTF, len(r.chunks))
		for i, c := range r.chunks {
			got[i] = slices.Clone(c)
			slices.SortFunc(got[i], func(a, b termTF) int { return strings.Compare(a.term, b.term) })
		}
		var hashes []string
		for _, c := range r.meta.Chunks {
			hashes = append(hashes, c.Hash)
		}
		switch {
		case !reflect.DeepEqual(got, ref.chunks):
			t.Errorf("%s: chunk terms differ from the reference", path)
		case !slices.Equal(r.lens, ref.lens) || r.header.FieldLen != ref.fieldLen || r.terms != ref.terms:
			t.Errorf("%s: lengths %v %v %d, reference %v %v %d", path, r.lens, r.header.FieldLen, r.terms, ref.lens, ref.fieldLen, ref.terms)
		case r.header.UniqueTerm != ref.unique:
			t.Errorf("%s: %d distinct terms, reference %d", path, r.header.UniqueTerm, ref.unique)
		case !slices.Equal(hashes, ref.hashes):
			t.Errorf("%s: chunk hashes differ from the reference", path)
		case !slices.Equal(r.meta.MinHash, ref.minHash):
			t.Errorf("%s: MinHash %x, reference %x", path, r.meta.MinHash, ref.minHash)
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("only %d files analyzed", checked)
	}
}
