package index

import (
	"encoding/binary"
	"math"
	"regexp"

	"github.com/git-kb/git-kb/store"
)

// What search treats apart is decided here, from the content, never from
// a repository's file names: a generated API spec is recognised by its
// version key, whatever it is called and whichever format it is in.

var (
	// "swagger": "2.0" / "openapi": "3.0.1" in JSON or inside a generated
	// Go (or other) source file that embeds the JSON.
	specJSON = regexp.MustCompile(`"(?:swagger|openapi)"\s*:\s*"[23]\.\d`)
	// swagger: "2.0" / openapi: 3.0.3 at the top level of YAML.
	specYAML = regexp.MustCompile(`(?m)^(?:swagger|openapi):\s*["']?[23]\.\d`)
	// A generated spec also has paths with operations.
	specPaths = regexp.MustCompile(`(?m)"paths"\s*:|^paths:`)
)

// fileKind classifies a file's content for search (store.BlobMeta.Kind).
func fileKind(text string) string {
	if (specJSON.MatchString(text) || specYAML.MatchString(text)) && specPaths.MatchString(text) {
		return store.KindAPISpec
	}
	return ""
}

// embeddedSpec is the JSON object of an OpenAPI/Swagger spec embedded in
// another file (swag's docs.go holds it in a Go template string), from
// the brace that opens the object holding the version key to the one
// that closes it. Its MinHash is taken over these words only: the
// generator's wrapper (package docs, SwaggerInfo, LeftDelim, template
// placeholders) is a few dozen words a small spec does not outweigh —
// swag's docs.go for a ten-endpoint API shared an estimated 0.71 of its
// words with its own swagger.json (below the 0.75 that folds renderings)
// and 0.50 with another API's docs.go. Braces are counted as they come:
// a spec's are balanced, path parameters ("/users/{id}") and template
// placeholders ({{.Title}}) included. false when there is no such object.
func embeddedSpec(text string) (string, bool) {
	loc := specJSON.FindStringIndex(text)
	if loc == nil {
		return "", false
	}
	start, depth := -1, 0
	for i := loc[0] - 1; i >= 0 && start < 0; i-- {
		switch text[i] {
		case '}':
			depth++
		case '{':
			if depth == 0 {
				start = i
			}
			depth--
		}
	}
	if start < 0 {
		return "", false
	}
	depth = 0
	for i := start; i < len(text); i++ {
		switch text[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return text[start : i+1], true
			}
		}
	}
	return "", false
}

// distinct is terms without repeats, in first-seen order.
func distinct(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := terms[:0:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// minHash is a MinHash signature of a file's distinct body terms
// (store.MinHashSize values, each the least of one hash over the terms,
// little-endian): the share of equal values estimates the Jaccard
// similarity of two files' vocabularies, so one spec rendered as JSON,
// YAML and a generated Go file (the same words, a little syntax apart)
// is seen as one. Too few distinct terms to say: nil. terms are
// distinct; their order does not matter.
func minHash(terms []string) []byte {
	if len(terms) < minHashMinTerms {
		return nil
	}
	var mins [store.MinHashSize]uint32
	for i := range mins {
		mins[i] = math.MaxUint32
	}
	for _, t := range terms {
		// FNV-1a, 64 bits (hash/fnv's, without a copy of each term).
		x := uint64(fnvOffset64)
		for i := 0; i < len(t); i++ {
			x ^= uint64(t[i])
			x *= fnvPrime64
		}
		// Kirsch-Mitzenmacher: the i-th hash is h1 + i*h2, from one FNV.
		h1, h2 := uint32(x), uint32(x>>32)|1
		for i := range mins {
			if v := h1 + uint32(i)*h2; v < mins[i] {
				mins[i] = v
			}
		}
	}
	out := make([]byte, 0, 4*store.MinHashSize)
	for _, m := range mins {
		out = binary.LittleEndian.AppendUint32(out, m)
	}
	return out
}

// FNV-1a's 64-bit constants (hash/fnv).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// minHashMinTerms: below this many distinct words, small files that
// share boilerplate (a licence header, package clauses) would look alike.
const minHashMinTerms = 40

// vocabOutliers measures, for each blob of a tree, how far its count of
// distinct terms lies above what files of its length have in the same
// tree: a least-squares fit of Heaps' law (log distinct = a + b log
// length) over the tree's files, then the residual's robust z-score
// (median and MAD). A message table, a glossary or a schema dump holds a
// word or two of everything and matches every question weakly; an
// implementation file of the same length repeats its words. Returned x10
// and capped at 255; files below the fit or shorter than 50 terms get 0.
func vocabOutliers(headers map[store.SHA]store.BlobHeader, blobs []store.SHA) map[store.SHA]uint8 {
	pts := make([]vocabPoint, len(blobs))
	for i, b := range blobs {
		h := headers[b]
		pts[i] = vocabPoint{body: h.FieldLen[store.FieldBody], unique: h.UniqueTerm, skip: h.Skip != store.SkipNone}
	}
	out := map[store.SHA]uint8{}
	for i, s := range vocabScores(pts) {
		if s > 0 {
			out[blobs[i]] = s
		}
	}
	return out
}

// vocabPoint is what vocabScores needs of one blob.
type vocabPoint struct {
	body, unique uint32 // body terms, distinct terms
	skip         bool   // not indexed
}

// vocabScores is vocabOutliers over points in order: one score per point.
func vocabScores(blobs []vocabPoint) []uint8 {
	type pt struct {
		i    int
		x, y float64
	}
	out := make([]uint8, len(blobs))
	pts := make([]pt, 0, len(blobs))
	for i, h := range blobs {
		if h.skip || h.body < 50 || h.unique == 0 {
			continue
		}
		pts = append(pts, pt{i, math.Log(float64(h.body)), math.Log(float64(h.unique))})
	}
	if len(pts) < 20 {
		return out // too few files to know what is normal here
	}
	var mx, my float64
	for _, p := range pts {
		mx += p.x
		my += p.y
	}
	mx /= float64(len(pts))
	my /= float64(len(pts))
	var sxy, sxx float64
	for _, p := range pts {
		sxy += (p.x - mx) * (p.y - my)
		sxx += (p.x - mx) * (p.x - mx)
	}
	if sxx == 0 {
		return out
	}
	slope := sxy / sxx
	res := make([]float64, len(pts))
	for i, p := range pts {
		res[i] = p.y - (my + slope*(p.x-mx))
	}
	med := median(res)
	dev := make([]float64, len(res))
	for i, r := range res {
		dev[i] = math.Abs(r - med)
	}
	mad := median(dev)
	if mad == 0 {
		return out
	}
	for i, p := range pts {
		if z := (res[i] - med) / mad; z > 0 {
			out[p.i] = uint8(math.Min(255, math.Round(z*10)))
		}
	}
	return out
}

// median is the middle value of xs (the mean of the two middle values for
// an even count; xs is left as it is), found by selection in linear time
// rather than by a sort: vocabScores takes two medians over every file of
// a view on every commit, 46k files at 4x Go's source (issue 20).
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	n := len(s)
	k := n / 2
	hi := selectKth(s, k)
	if n%2 == 1 {
		return hi
	}
	lo := s[0] // s[:k] holds the k smallest: the largest of them is next below
	for _, x := range s[1:k] {
		lo = max(lo, x)
	}
	return (lo + hi) / 2
}

// selectKth reorders s so that s[k] is its k-th smallest value (from 0)
// and every value before it is no larger, and returns it (quickselect
// with a median-of-three pivot and a three-way partition, so runs of
// equal values, common among small files, cost one pass).
func selectKth(s []float64, k int) float64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		a, b, c := s[lo], s[lo+(hi-lo)/2], s[hi]
		p := c
		switch {
		case (a <= b) == (b <= c):
			p = b
		case (b <= a) == (a <= c):
			p = a
		}
		lt, i, gt := lo, lo, hi // [lo,lt) < p, [lt,i) == p, (gt,hi] > p
		for i <= gt {
			switch {
			case s[i] < p:
				s[lt], s[i] = s[i], s[lt]
				lt++
				i++
			case s[i] > p:
				s[i], s[gt] = s[gt], s[i]
				gt--
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return p
		}
	}
	return s[k]
}
