package secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpus reads the text files under $GIT_KB_SECRETS_CORPUS (e.g. a copy of
// $(go env GOROOT)/src or a docs checkout), skipping what the indexer
// skips by name, binary files and files over 1 MiB.
func corpus(tb testing.TB) (paths, texts []string) {
	dir := os.Getenv("GIT_KB_SECRETS_CORPUS")
	if dir == "" {
		tb.Skip("set GIT_KB_SECRETS_CORPUS to a directory of text files")
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 || IsSecretFile(rel) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || strings.IndexByte(string(b[:min(len(b), 8000)]), 0) >= 0 || !utf8.Valid(b) {
			return nil
		}
		paths = append(paths, rel)
		texts = append(texts, string(b))
		return nil
	})
	return paths, texts
}

// TestCorpusFindings lists every finding in a real corpus, to count false
// positives by eye:
//
//	GIT_KB_SECRETS_CORPUS=$(go env GOROOT)/src go test ./secrets -run TestCorpusFindings -v
func TestCorpusFindings(t *testing.T) {
	paths, texts := corpus(t)
	n, bytes := 0, 0
	perRule := map[string]int{}
	for i, text := range texts {
		bytes += len(text)
		for _, f := range (*Policy)(nil).Find(paths[i], text) {
			n++
			perRule[f.Rule]++
			ls := strings.LastIndexByte(text[:f.Start], '\n') + 1
			le := strings.IndexByte(text[f.End:], '\n')
			if le < 0 {
				le = len(text) - f.End
			}
			line := text[ls:f.Start] + "<<" + text[f.Start:f.End] + ">>" + text[f.End:f.End+le]
			if len(line) > 200 {
				line = line[:200]
			}
			t.Logf("%s:%d %s %s", paths[i], f.Line, f.Rule, strings.TrimSpace(line))
		}
	}
	t.Logf("%d findings in %d files (%d MB): %v", n, len(texts), bytes>>20, perRule)
}

// BenchmarkFind measures detection over a real corpus, per byte:
//
//	GIT_KB_SECRETS_CORPUS=/tmp/gosrc go test ./secrets -run - -bench Find
func BenchmarkFind(b *testing.B) {
	paths, texts := corpus(b)
	total := 0
	for _, t := range texts {
		total += len(t)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for i, t := range texts {
			(*Policy)(nil).Find(paths[i], t)
		}
	}
}
