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
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/secrets"
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
	f, err := SynonymsFileOf(k.Repo, k.Settings)
	if f.Path == "" || err != nil {
		return nil, err
	}
	syn, err := k.synonyms.load(f)
	if errors.Is(err, fs.ErrNotExist) {
		k.opt.note("kb.synonyms: %s does not exist (not in this checkout?); searching without the team's synonyms", f.Path)
		return nil, nil
	}
	return syn, synonymsError(k.Secrets, err)
}

// fillSynonyms gives req the team's synonyms that load reads
// (kb.synonyms) where req brings none and leaves expansion on.
func fillSynonyms(req *search.Request, load func() (*expand.Synonyms, error)) error {
	if req.NoExpand || req.NoSynonyms || req.Synonyms != nil || load == nil {
		return nil
	}
	syn, err := load()
	req.Synonyms = syn
	return err
}

// synonymsError names kb.synonyms in an error reading its file, redacted:
// the message quotes a few words of the file, and may leave the terminal
// (an MCP client) like anything read from the repository.
func synonymsError(pol *secrets.Policy, err error) error {
	if err == nil {
		return nil
	}
	return errors.New(pol.RedactText("", "kb.synonyms: "+err.Error()))
}

// SynonymsFile is a synonyms file to read: its path, and the directory
// it must resolve inside (the working tree, for a relative kb.synonyms:
// a committed symlink cannot make searches read ~/.aws/credentials).
type SynonymsFile struct {
	Path, Within string
}

// SynonymsFileOf is the file kb.synonyms names (Path "" when unset); a
// relative path is from the top of the working tree.
func SynonymsFileOf(repo *gitx.Repo, set *settings.Settings) (SynonymsFile, error) {
	p := set.Synonyms
	if p == "" || filepath.IsAbs(p) {
		return SynonymsFile{Path: p}, nil
	}
	if repo.WorkTree == "" {
		return SynonymsFile{}, fmt.Errorf("kb.synonyms %q: a relative path needs a working tree (this repository is bare): give an absolute path", p)
	}
	return SynonymsFile{Path: filepath.Join(repo.WorkTree, p), Within: repo.WorkTree}, nil
}

// CheckSynonyms reads kb.synonyms as a search would, for git kb doctor:
// the file (Path "" when unset), its keys, and the error a search would
// meet (fs.ErrNotExist for a missing file, which a search goes on
// without; anything else redacted under pol).
func CheckSynonyms(repo *gitx.Repo, set *settings.Settings, pol *secrets.Policy) (f SynonymsFile, keys int, err error) {
	if f, err = SynonymsFileOf(repo, set); f.Path == "" || err != nil {
		return f, 0, err
	}
	syn, err := f.Read()
	if errors.Is(err, fs.ErrNotExist) {
		return f, 0, err
	}
	return f, syn.Len(), synonymsError(pol, err)
}

// load parses f unless the cache holds its current version.
func (c *synonymsCache) load(f SynonymsFile) (*expand.Synonyms, error) {
	fi, err := statSynonyms(f.Path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.syn != nil && c.path == f.Path && c.mod.Equal(fi.ModTime()) && c.size == fi.Size() {
		syn := c.syn
		c.mu.Unlock()
		return syn, nil
	}
	c.mu.Unlock()
	syn, err := f.parse()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.path, c.mod, c.size, c.syn = f.Path, fi.ModTime(), fi.Size(), syn
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

// Read parses the file (expand.ParseSynonyms); errors name it as
// PATH:LINE. Only a regular file is read, at most
// expand.MaxTeamFileSize of it.
func (f SynonymsFile) Read() (*expand.Synonyms, error) {
	if _, err := statSynonyms(f.Path); err != nil {
		return nil, err
	}
	return f.parse()
}

// parse reads the file statSynonyms has passed.
func (f SynonymsFile) parse() (*expand.Synonyms, error) {
	if f.Within != "" {
		if err := resolvesWithin(f.Path, f.Within); err != nil {
			return nil, err
		}
	}
	r, err := os.Open(f.Path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return expand.ParseSynonyms(io.LimitReader(r, expand.MaxTeamFileSize+1), f.Path)
}

// resolvesWithin checks that p, symlinks resolved, is inside dir.
func resolvesWithin(p, dir string) error {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	top, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(top, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s leads outside the working tree (to %s): give kb.synonyms an absolute path to use a file outside it", p, real)
	}
	return nil
}
