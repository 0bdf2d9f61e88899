package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Embedder turns texts into unit-length vectors, one per text, in order.
type Embedder interface {
	// Embed returns one L2-normalised vector per text.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// ID names the model and everything that changes its vectors
	// (provider, model, dimensions). Vectors with different IDs are
	// never mixed; the ID keys the embedding cache.
	ID() string
	// Dim is the vector length, or 0 while unknown (before the first call
	// to an endpoint whose model dimension was not configured).
	Dim() int
	// Local says whether embedding is a local computation (no network, no
	// cost), so caching a query's vector is not worth a disk write.
	Local() bool
}

// ErrDimension reports vectors of the wrong length.
var ErrDimension = errors.New("embedding dimension mismatch")

// DimensionError says which two lengths disagree.
type DimensionError struct {
	Model     string
	Got, Want int
	Source    string // where Want comes from
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("%s: model %s returned %d-dimensional vectors, but %s is %d", ErrDimension, e.Model, e.Got, e.Source, e.Want)
}

func (e *DimensionError) Unwrap() error { return ErrDimension }

// Normalize scales v to unit length in place. A zero vector stays zero.
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}
