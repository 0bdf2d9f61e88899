package pack

import (
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// BPE counts tokens with OpenAI's cl100k_base encoding, from the
// vocabulary compiled into the binary: no download, ever. Models with
// other vocabularies (bge, Qwen) count differently; treat the budget as
// an estimate with a 10-20% margin (LIBRARIES.md).
type BPE struct{ enc *tiktoken.Tiktoken }

var (
	bpeOnce sync.Once
	bpe     *BPE
	bpeErr  error
)

// CL100K returns the shared counter (loading takes ~0.25 s, once).
func CL100K() (*BPE, error) {
	bpeOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		enc, err := tiktoken.GetEncoding("cl100k_base")
		bpe, bpeErr = &BPE{enc}, err
	})
	return bpe, bpeErr
}

// Count counts text's tokens.
func (b *BPE) Count(text string) int { return len(b.enc.Encode(text, nil, nil)) }
