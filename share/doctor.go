package share

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
)

// CheckPulled is git kb doctor's look at pulled data: for each view whose
// data came from a remote, it re-analyses up to n of its files (chosen at
// random each run) and compares what the index holds for them, postings,
// lengths and metadata, with what this machine makes.
func CheckPulled(ctx context.Context, repo *gitx.Repo, n int, wait time.Duration) ([]index.Check, error) {
	db, err := store.Open(ctx, index.DBDir(repo), store.Options{ReadOnly: true, Wait: wait})
	if errors.Is(err, store.ErrNoIndex) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type sample struct {
		name string
		o    *store.Origin
		es   []store.ViewEntry
		recs map[store.SHA]*Record
	}
	var samples []sample
	err = func() error {
		defer db.Close()
		refs, err := db.Refs()
		if err != nil {
			return err
		}
		segs, err := db.Segments()
		if err != nil {
			return err
		}
		seen := map[store.SHA]bool{}
		for _, r := range refs {
			if seen[r.Tree] {
				continue
			}
			seen[r.Tree] = true
			o, err := db.Origin(index.PipelineVersion, r.Tree)
			if err != nil {
				continue // indexed here
			}
			v, err := db.View(index.PipelineVersion, r.Tree)
			if err != nil {
				continue
			}
			es := v.ChunkEntries(nil)
			rand.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
			es = es[:min(n, len(es))]
			blobs := make([]store.SHA, len(es))
			sizes := map[store.SHA]int64{}
			for i, e := range es {
				blobs[i] = e.Blob
			}
			info, err := repo.Objects(ctx, hashes(blobs))
			if err != nil {
				return err
			}
			headers, err := db.BlobHeaders(index.PipelineVersion, blobs, segs)
			if err != nil {
				return err
			}
			metas := map[store.SHA]*store.BlobMeta{}
			for _, b := range blobs {
				sizes[b] = info[hashOf(b)].Size
				if metas[b], err = db.BlobMeta(index.PipelineVersion, b); err != nil {
					return err
				}
			}
			recs, err := exportRecords(db, blobs, headers, metas, sizes)
			if err != nil {
				return err
			}
			samples = append(samples, sample{"pulled view " + hex.EncodeToString(r.Commit[:6]), o, es, recs})
		}
		return nil
	}()
	if err != nil || len(samples) == 0 {
		return nil, err
	}
	an, err := index.NewAnalyzer(ctx, repo, false)
	if err != nil {
		return nil, err
	}
	var out []index.Check
	for _, s := range samples {
		path := map[store.SHA]string{}
		blobs := make([]store.SHA, len(s.es))
		for i, e := range s.es {
			path[e.Blob], blobs[i] = e.Path, e.Blob
		}
		bad := ""
		err := repo.ReadBlobs(ctx, hashes(blobs), func(h gitx.Hash, data []byte) error {
			b := store.SHA(h)
			if d := Differs(an, path[b], b, data, s.recs[b]); d != "" && bad == "" {
				bad = path[b] + ": " + d
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		from := fmt.Sprintf("from %s %s (commit %s)", s.o.Remote, s.o.Ref, s.o.KBCommit[:min(12, len(s.o.KBCommit))])
		if bad != "" {
			out = append(out, index.Check{Name: s.name, Status: "error", Detail: from + ": " + bad,
				Fix: "run: git kb pull --verify (refuses bad data), or move " + index.DBDir(repo) + " away and run git kb index"})
			continue
		}
		out = append(out, index.Check{Name: s.name, Status: "ok", Detail: fmt.Sprintf("%s: %d sampled files re-analysed, equal to the index", from, len(s.es))})
	}
	return out, nil
}

func hashes(bs []store.SHA) []gitx.Hash {
	hs := make([]gitx.Hash, len(bs))
	for i, b := range bs {
		hs[i] = hashOf(b)
	}
	return hs
}
