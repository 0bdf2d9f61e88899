package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-kb/git-kb/chunk"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/settings"
	"github.com/git-kb/git-kb/store"
)

// The repository's own vocabulary (issue 13): the words of kb.dict and,
// with kb.vocab.learn, the words learned from the indexed text, that the
// analyzer cuts whole (segment.Vocab). Postings are only comparable when
// documents and queries are cut with the same words, so:
//
//   - the word list is kept in .git/kb/vocab/<fingerprint>, and each view
//     records the fingerprint it was cut with (store.View.Vocab); a search
//     of a view loads that list back (LoadVocab), whatever the current
//     settings say, so --rev of an older view stays consistent;
//   - .git/kb/vocab/current records what the list was made from (the
//     inputs: kb.dict's text, whether learning is on, the learner's
//     version) and its fingerprint. When the inputs change, the next run
//     makes the list again (learning reads the whole tree); when the list
//     changes, every blob is re-derived, as for the secrets policy;
//   - a learned list is kept until its inputs change, not re-learned per
//     commit: a list that moved with every commit would re-derive every
//     blob every time.

// learnerVersion changes when the learner's thresholds or method change,
// so that indexes re-learn.
const learnerVersion = 1

const vocabDir = "vocab"

// vocabInputs is what a repository's vocabulary is made from.
type vocabInputs struct {
	user  *segment.Vocab // kb.dict's words (nil: no kb.dict)
	learn bool
	fp    string // "" when there is no kb.dict and no learning
}

// readVocabInputs reads kb.dict and kb.vocab.learn.
func readVocabInputs(repo *gitx.Repo, set *settings.Settings) (*vocabInputs, error) {
	in := &vocabInputs{learn: set.VocabLearn}
	dictText := ""
	if set.Dict != "" {
		p := set.Dict
		if !filepath.IsAbs(p) {
			if repo.WorkTree == "" {
				return nil, fmt.Errorf("kb.dict %q: a relative path needs a working tree (this repository is bare): give an absolute path", set.Dict)
			}
			p = filepath.Join(repo.WorkTree, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("kb.dict: %w (unset it with: git config --unset kb.dict)", err)
		}
		dictText = string(b)
		v, _, err := segment.ParseVocab(dictText)
		if err != nil {
			return nil, fmt.Errorf("kb.dict %s: %w", p, err)
		}
		in.user = v
	}
	if in.user.Len() == 0 && !in.learn {
		return in, nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "learn=%v/%d\x00%s", in.learn, learnerVersion, in.user.Encode())
	in.fp = hex.EncodeToString(h.Sum(nil)[:8])
	return in, nil
}

// recordedVocab returns the inputs and the fingerprint of the vocabulary
// the index was last built with ("", "" before any), and since: blob
// records in segments before it were cut with an earlier list (0: none
// were), so a run re-derives them rather than reuse them (a file of an
// old branch, unchanged since, last indexed before the list changed).
func recordedVocab(kbDir string) (inputs, fp string, since uint32) {
	b, err := os.ReadFile(filepath.Join(kbDir, vocabDir, "current"))
	if err != nil {
		return "", "", 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return "", "", 0
	}
	for i := range f {
		if f[i] == "-" {
			f[i] = ""
		}
	}
	if len(f) > 2 {
		n, _ := strconv.ParseUint(f[2], 10, 32)
		since = uint32(n)
	}
	return f[0], f[1], since
}

// freshHeaders drops the records of headers made before segment since
// (recordedVocab): they were cut with another word list.
func freshHeaders(headers map[store.SHA]store.BlobHeader, since uint32) {
	if since == 0 {
		return
	}
	for b, h := range headers {
		if h.Seg < since {
			delete(headers, b)
		}
	}
}

// recordVocab saves v's word list under its fingerprint and records it as
// the one made from inputs.
func recordVocab(kbDir, inputs string, v *segment.Vocab, since uint32) error {
	dir := filepath.Join(kbDir, vocabDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fp := v.Fingerprint()
	if fp != "" {
		if err := writeAtomic(filepath.Join(dir, fp), []byte(v.Encode())); err != nil {
			return err
		}
	} else {
		fp = "-"
	}
	if inputs == "" {
		inputs = "-"
	}
	return writeAtomic(filepath.Join(dir, "current"), []byte(fmt.Sprintf("%s %s %d\n", inputs, fp, since)))
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// LoadVocab reads the word list a view records (store.View.Vocab); "" is
// no vocabulary (nil). The list is stored with its frequencies, so it
// re-reads to the same fingerprint; a list that does not is reported.
func LoadVocab(kbDir, fp string) (*segment.Vocab, error) {
	if fp == "" {
		return nil, nil
	}
	b, err := os.ReadFile(filepath.Join(kbDir, vocabDir, fp))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the view's word list %s is missing from %s (re-index with: git kb index --full)", fp, filepath.Join(kbDir, vocabDir))
	}
	if err != nil {
		return nil, err
	}
	v, _, err := segment.ParseVocab(string(b))
	if err != nil {
		return nil, fmt.Errorf("word list %s: %w", fp, err)
	}
	if v.Fingerprint() != fp {
		return nil, fmt.Errorf("word list %s does not match its name (it reads as %s): re-index with: git kb index --full", fp, v.Fingerprint())
	}
	return v, nil
}

// learnVocab reads the text of files (decoded, secrets redacted) and
// learns the words the corpus treats as units (segment.Learner).
func learnVocab(ctx context.Context, repo *gitx.Repo, tm *timer, pol *secrets.Policy, files []gitx.Entry) ([]segment.VocabWord, error) {
	t0 := time.Now()
	defer tm.since("learn words", t0)
	pathOf := map[gitx.Hash]string{}
	var blobs []gitx.Hash
	for _, e := range files {
		if _, dup := pathOf[e.Blob]; !dup {
			pathOf[e.Blob] = e.Path
			blobs = append(blobs, e.Blob)
		}
	}
	l := &segment.Learner{}
	err := repo.ReadBlobs(ctx, blobs, func(h gitx.Hash, data []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if l.Runes() >= segment.DefaultLearnLimit {
			return nil
		}
		text, _, binary := chunk.Decode(data)
		if binary || segment.HanBytes(text) == 0 {
			return nil
		}
		text, _ = pol.Redact(pathOf[h], text)
		l.Add(text)
		return nil
	})
	var missing *gitx.MissingObjectsError
	if err != nil && !errors.As(err, &missing) {
		return nil, err
	}
	return l.Words(segment.LearnOptions{}), nil
}

// VocabInForce is the word list this repository's index is cut with, or
// will be by its next run (nil: none): the recorded list when kb.dict and
// kb.vocab.learn are as they were, else kb.dict's words. With
// kb.vocab.learn on and nothing learned for the current settings yet, it
// is not known before a run reads the tree: an error says so.
func VocabInForce(ctx context.Context, repo *gitx.Repo) (*segment.Vocab, error) {
	set, err := settings.Load(ctx, repo, nil)
	if err != nil {
		return nil, err
	}
	in, err := readVocabInputs(repo, set)
	if err != nil {
		return nil, err
	}
	if in.fp == "" {
		return nil, nil
	}
	if recIn, recFP, _ := recordedVocab(repo.KBDir()); recIn == in.fp {
		if v, err := LoadVocab(repo.KBDir(), recFP); err == nil {
			return v, nil
		}
	}
	if in.learn {
		return nil, errors.New("kb.vocab.learn is on and this index has not learned its words for the current settings yet: run git kb index first")
	}
	return in.user, nil
}

// KeepVocab stores v's word list (not recording it as the one in force),
// so that views that name it can be searched.
func KeepVocab(kbDir string, v *segment.Vocab) error {
	if v.Fingerprint() == "" {
		return nil
	}
	dir := filepath.Join(kbDir, vocabDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, v.Fingerprint()), []byte(v.Encode()))
}
