package engine

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestSynonymsCache: the parsed file is reused while it is unchanged and
// parsed again once it changes (git kb mcp serves many searches in one
// process), and concurrent searches share it safely (go test -race).
func TestSynonymsCache(t *testing.T) {
	p := filepath.Join(t.TempDir(), "syn.txt")
	write := func(text string, at time.Time) {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write("熔断, circuitbreaker\n", t0)
	var c synonymsCache
	first, err := c.load(SynonymsFile{Path: p})
	if err != nil || first.Len() != 2 {
		t.Fatalf("load: %v, %d keys", err, first.Len())
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s, err := c.load(SynonymsFile{Path: p}); err != nil || s != first {
				t.Errorf("unchanged file: %v, parsed again: %v", err, s != first)
			}
		}()
	}
	wg.Wait()
	write("熔断, circuitbreaker, breaker\n", t0.Add(time.Minute))
	if s, err := c.load(SynonymsFile{Path: p}); err != nil || s == first || s.Len() != 3 {
		t.Fatalf("edited file: %v, %d keys, same as before: %v", err, s.Len(), s == first)
	}
	write("熔断\n", t0.Add(2*time.Minute))
	if _, err := c.load(SynonymsFile{Path: p}); err == nil {
		t.Error("a broken edit is not an error")
	}
}
