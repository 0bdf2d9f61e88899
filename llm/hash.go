package llm

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"unicode"
)

// HashEmbedder is the offline embedder: feature hashing of the analyzer's
// terms plus CJK character bigrams into a fixed number of signed buckets,
// L2-normalised. It needs no model and no network.
//
// It is lexical, not semantic: two texts are close when they share words
// (or, through the bigrams, parts of words the dictionary does not know),
// never because they mean the same thing in different words.
type HashEmbedder struct {
	Dims int
	// Terms is the analyzer: the same function that indexes documents.
	Terms func(string) []string
	// Fold, if set, is the analyzer's character folding (full width,
	// traditional -> simplified), applied before the bigrams are taken, so
	// 慢查詢 and 慢查询 share them as they share their terms.
	Fold func(string) string
}

// DefaultHashDims is the hash embedder's default dimension.
const DefaultHashDims = 512

// bigramWeight scales character-bigram features relative to words: they
// are a fallback for unknown words, not the main signal.
const bigramWeight = 0.5

// ID implements Embedder.
// v2: bigrams of the folded text (v1's of the text as written).
func (h *HashEmbedder) ID() string { return fmt.Sprintf("hash-v2/%d", h.Dims) }

// Dim implements Embedder.
func (h *HashEmbedder) Dim() int { return h.Dims }

// Local implements Embedder.
func (h *HashEmbedder) Local() bool { return true }

// Embed implements Embedder.
func (h *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if h.Dims <= 0 || h.Terms == nil {
		return nil, fmt.Errorf("hash embedder: dimension %d and analyzer must be set", h.Dims)
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = h.vector(t)
	}
	return out, nil
}

func (h *HashEmbedder) vector(text string) []float32 {
	tf := map[string]float64{}
	for _, t := range h.Terms(text) {
		tf["w\x00"+t]++
	}
	if h.Fold != nil {
		text = h.Fold(text)
	}
	var prev rune
	for _, r := range text {
		if unicode.Is(unicode.Han, r) {
			if prev != 0 {
				tf["b\x00"+string([]rune{prev, r})] += bigramWeight
			}
			prev = r
		} else {
			prev = 0
		}
	}
	v := make([]float32, h.Dims)
	f := fnv.New64a()
	for feat, n := range tf {
		f.Reset()
		f.Write([]byte(feat))
		x := f.Sum64()
		w := 1 + math.Log(n) // sublinear: a repeated word is evidence, not proof
		if n < 1 {
			w = n
		}
		if x>>63 == 1 {
			w = -w
		}
		v[x%uint64(h.Dims)] += float32(w)
	}
	Normalize(v)
	return v
}
