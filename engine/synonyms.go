package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/git-kb/git-kb/expand"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/settings"
)

// synonymsCache holds kb.synonyms parsed, with the file version it was
// parsed from: a long-lived server (git kb mcp) sees an edited file on
// its next search, and a search reads the file once.
type synonymsCache struct {
	mu   sync.Mutex
	path string
	mod  time.Time
	size int64
	syn  *expand.Synonyms
}

// Synonyms is the team's synonyms file that kb.synonyms names, parsed
// (nil when the key is unset). A path is relative to the top of the
// working tree. A missing or malformed file is an error naming the key,
// the file and the line, so a search never silently runs without the
// words its team expects.
func (k *Engine) Synonyms() (*expand.Synonyms, error) {
	p, err := SynonymsPath(k.Repo, k.Settings)
	if p == "" || err != nil {
		return nil, err
	}
	return k.synonyms.load(p, "kb.synonyms")
}

// SynonymsPath is the file kb.synonyms names ("" when unset): a relative
// path is from the top of the working tree.
func SynonymsPath(repo *gitx.Repo, set *settings.Settings) (string, error) {
	p := set.Synonyms
	if p == "" || filepath.IsAbs(p) {
		return p, nil
	}
	if repo.WorkTree == "" {
		return "", fmt.Errorf("kb.synonyms %q: a relative path needs a working tree (this repository is bare): give an absolute path", p)
	}
	return filepath.Join(repo.WorkTree, p), nil
}

// load parses the file at p unless the cache holds its current version.
func (c *synonymsCache) load(p, what string) (*expand.Synonyms, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (unset it with: git config --unset kb.synonyms)", what, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: %s is a directory: name the synonyms file", what, p)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.syn != nil && c.path == p && c.mod.Equal(fi.ModTime()) && c.size == fi.Size() {
		return c.syn, nil
	}
	syn, err := ReadSynonyms(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	c.path, c.mod, c.size, c.syn = p, fi.ModTime(), fi.Size(), syn
	return syn, nil
}

// ReadSynonyms parses the synonyms file at p (expand.ParseSynonyms);
// errors name it as p:LINE.
func ReadSynonyms(p string) (*expand.Synonyms, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return expand.ParseSynonyms(f, p)
}
