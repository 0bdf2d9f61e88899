package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/git-kb/git-kb/segment"
	"path"
	"strings"

	"github.com/git-kb/git-kb/secrets"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// DefaultMaxFileSize is the size above which files are skipped unless
// `git config kb.maxFileSize` says otherwise.
const DefaultMaxFileSize = 1 << 20

// Skip reasons, as reported in stats.
const (
	SkipTooLarge = "too-large"
	SkipVendored = "vendored"
	SkipSecret   = "secret"
	SkipBinary   = "binary"
	SkipIgnored  = "kbignore"
	SkipSymlink  = "symlink"
	SkipEmpty    = "empty"
	SkipFailed   = "failed"           // the chunker hit a bug on this file; see PipelineVersion
	SkipMissing  = "missing from git" // a partial clone, or a lost object (git fsck)
)

var vendoredDirs = map[string]bool{"vendor": true, "node_modules": true, "third_party": true, "bower_components": true, ".git": true}

var lockFiles = map[string]bool{
	"package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "go.sum": true, "cargo.lock": true,
	"poetry.lock": true, "gemfile.lock": true, "composer.lock": true, "pipfile.lock": true, "npm-shrinkwrap.json": true,
}

// binaryExts are skipped without reading them.
var binaryExts = setOf(`.png .jpg .jpeg .gif .bmp .ico .webp .tif .tiff .psd .svg .pdf .zip .gz .tgz .bz2 .xz .zst .7z .rar .tar
		.jar .war .class .so .dll .exe .o .a .lib .dylib .wasm .woff .woff2 .ttf .otf .eot .mp3 .mp4 .wav .ogg .mov .avi .mkv .webm
		.pyc .pyo .bin .dat .db .sqlite .parquet .avro .orc .onnx .pt .safetensors .docx .xlsx .pptx .doc .xls .ppt .syso`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// filter decides, from the path alone, whether a tree entry is indexed.
type filter struct {
	maxSize  int64
	ignore   gitignore.Matcher // from .kbignore; nil when absent
	kbignore string
	policy   string // the secrets policy's fingerprint, for fingerprint
	// pol finds secrets in paths; nil finds every rule's.
	pol *secrets.Policy
	// vocab is the word list the view's files are cut with (vocab.go);
	// its fingerprint is part of the filter's, as a view cut with other
	// words is no base for the next.
	vocab *segment.Vocab
	since uint32 // records of segments before it were cut with another list
}

func newFilter(maxSize int64, kbignore string) *filter {
	f := &filter{maxSize: maxSize, kbignore: kbignore}
	if kbignore != "" {
		var ps []gitignore.Pattern
		for _, line := range strings.Split(kbignore, "\n") {
			line = strings.TrimRight(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			ps = append(ps, gitignore.ParsePattern(line, nil))
		}
		f.ignore = gitignore.NewMatcher(ps)
	}
	return f
}

// fingerprint names the filter's rules (the size limit and .kbignore; the
// built-in ones change with PipelineVersion) and the secrets policy,
// recorded in each view: a view is the base of the next one only under
// the same rules, else a file it left out (or kept) might now be kept (or
// left out), and its files' chunks might hide or show other values.
func (f *filter) fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00%s", f.maxSize, f.kbignore, f.policy)
	if vfp := f.vocab.Fingerprint(); vfp != "" {
		fmt.Fprintf(h, "\x00%s", vfp) // none: the fingerprint views had before
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// skip returns why p is not indexed, or "".
func (f *filter) skip(p string, mode uint32, size int64) string {
	if mode == 0o120000 {
		return SkipSymlink
	}
	parts := strings.Split(p, "/")
	for _, d := range parts[:len(parts)-1] {
		if vendoredDirs[strings.ToLower(d)] {
			return SkipVendored
		}
	}
	base := strings.ToLower(parts[len(parts)-1])
	ext := path.Ext(base)
	switch {
	case secrets.IsSecretFile(base), f.pol.InPath(p):
		return SkipSecret
	case lockFiles[base], strings.HasSuffix(base, ".min.js"), strings.HasSuffix(base, ".min.css"), strings.HasSuffix(base, ".map"):
		return SkipVendored
	case binaryExts[ext]:
		return SkipBinary
	}
	if f.ignore != nil && f.ignore.Match(parts, false) {
		return SkipIgnored
	}
	if size > f.maxSize {
		return SkipTooLarge
	}
	if size == 0 {
		return SkipEmpty
	}
	return ""
}
