package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/git-kb/git-kb/expand"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/settings"
)

// synonymsCache holds kb.synonyms parsed, with the file version it was
// parsed from: a long-lived server (git kb mcp) sees an edited file on
// its next search, and a search reads the file once. The file is parsed
// outside the lock: a slow disk holds up no other search.
type synonymsCache struct {
	mu   sync.Mutex
	path string
	mod  time.Time
	size int64
	syn  *expand.Synonyms
}

// Synonyms is the team's synonyms file that kb.synonyms names, parsed
// (nil when the key is unset). A malformed file is an error naming the
// key, the file and the line, so a search never silently runs without
// the words its team expects. A file that does not exist (a branch from
// before it was committed) is a notice, and the search goes on without.
func (k *Engine) Synonyms() (*expand.Synonyms, error) {
	p, err := SynonymsPath(k.Repo, k.Settings)
	if p == "" || err != nil {
		return nil, err
	}
	syn, err := k.synonyms.load(p)
	if errors.Is(err, fs.ErrNotExist) {
		k.opt.note("kb.synonyms: %s does not exist (not in this checkout?); searching without the team's synonyms", p)
		return nil, nil
	}
	if err != nil {
		// The message quotes a few words of the file: redacted, as
		// anything read from the repository that may leave the terminal.
		return nil, errors.New(k.Secrets.RedactText("", "kb.synonyms: "+err.Error()))
	}
	return syn, nil
}

// SynonymsPath is the file kb.synonyms names ("" when unset): a relative
// path is from the top of the working tree, and must stay inside it
// (a committed symlink cannot make searches read ~/.aws/credentials).
func SynonymsPath(repo *gitx.Repo, set *settings.Settings) (string, error) {
	p := set.Synonyms
	if p == "" || filepath.IsAbs(p) {
		return p, nil
	}
	if repo.WorkTree == "" {
		return "", fmt.Errorf("kb.synonyms %q: a relative path needs a working tree (this repository is bare): give an absolute path", p)
	}
	full := filepath.Join(repo.WorkTree, p)
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return full, nil // missing: Synonyms says so
	}
	top, err := filepath.EvalSymlinks(repo.WorkTree)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(top, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("kb.synonyms %q leads outside the working tree (to %s): give an absolute path to use a file outside it", p, real)
	}
	return full, nil
}

// load parses the file at p unless the cache holds its current version.
func (c *synonymsCache) load(p string) (*expand.Synonyms, error) {
	fi, err := statSynonyms(p)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.syn != nil && c.path == p && c.mod.Equal(fi.ModTime()) && c.size == fi.Size() {
		syn := c.syn
		c.mu.Unlock()
		return syn, nil
	}
	c.mu.Unlock()
	syn, err := ReadSynonyms(p)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.path, c.mod, c.size, c.syn = p, fi.ModTime(), fi.Size(), syn
	c.mu.Unlock()
	return syn, nil
}

// statSynonyms checks that p is a regular file of a synonyms file's
// size: a FIFO or a device would block or never end.
func statSynonyms(p string) (fs.FileInfo, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory: name the synonyms file", p)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s): name a text file", p, fi.Mode().Type())
	case fi.Size() > expand.MaxTeamFileSize:
		return nil, fmt.Errorf("%s is %d MiB: a synonyms file lists a team's own words, at most %d MiB", p, fi.Size()>>20, expand.MaxTeamFileSize>>20)
	}
	return fi, nil
}

// ReadSynonyms parses the synonyms file at p (expand.ParseSynonyms);
// errors name it as p:LINE. Only a regular file is read, at most
// expand.MaxTeamFileSize of it.
func ReadSynonyms(p string) (*expand.Synonyms, error) {
	if _, err := statSynonyms(p); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return expand.ParseSynonyms(io.LimitReader(f, expand.MaxTeamFileSize+1), p)
}
