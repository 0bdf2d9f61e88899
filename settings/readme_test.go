package settings

import (
	"os"
	"testing"
)

// TestReadmeTable: README's settings reference is Markdown(), so the docs
// say what the code reads.
func TestReadmeTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want, ok := SpliceReadme(string(b))
	if !ok {
		t.Fatal("README.md has no settings table markers")
	}
	if want != string(b) {
		t.Error("README.md's settings table differs from settings.Table: run go generate ./settings")
	}
}
