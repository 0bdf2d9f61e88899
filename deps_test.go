package gitkb_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection enforces ARCHITECTURE.md's arrows: leaf packages
// stay free of git and of the layers above them.
func TestDependencyDirection(t *testing.T) {
	const mod = "github.com/git-kb/git-kb/"
	forbidden := map[string][]string{
		"store":   {mod + "gitx", "github.com/go-git/", mod + "segment", mod + "index", mod + "search", mod + "cmd"},
		"segment": {mod + "store", mod + "gitx", mod + "index", mod + "search"},
		"chunk":   {mod + "store", mod + "gitx", mod + "segment"},
		"gitx":    {mod + "store", mod + "segment", mod + "index", mod + "search"},
		"search":  {mod + "index", mod + "gitx", mod + "cmd", mod + "mcp"},
		// expand looks words up where the query's analyzer cut them
		// (464154b), so it sits between search and segment.
		"expand":  {mod + "store", mod + "gitx", mod + "index", mod + "search", mod + "cmd"},
		"index":   {mod + "search", mod + "cmd", mod + "mcp"},
		"mcp":     {mod + "cmd", "github.com/urfave/"},
		"engine":  {mod + "cmd", mod + "mcp", "github.com/urfave/"},
		"ask":     {mod + "store", mod + "gitx", mod + "index", mod + "search", mod + "cmd"},
		"rerank":  {mod + "gitx", mod + "index", mod + "cmd"},
		"pack":    {mod + "store", mod + "gitx", mod + "index", mod + "search", mod + "cmd"},
		"review":  {mod + "cmd", mod + "mcp", mod + "index"},
		"hooks":   {mod + "cmd", mod + "index", mod + "search", mod + "store", mod + "gitx"},
		"llm":     {mod + "store", mod + "gitx", mod + "segment", mod + "index", mod + "search", mod + "ann", mod + "cmd"},
		"eval":    {mod + "store", mod + "gitx", mod + "segment", mod + "index", mod + "search", mod + "cmd", "github.com/urfave/"},
		"secrets": {mod + "store", mod + "gitx", "github.com/go-git/", mod + "segment", mod + "chunk", mod + "index", mod + "search", mod + "cmd"},
		"org":     {mod + "store", mod + "gitx", "github.com/go-git/", mod + "index", mod + "search", mod + "engine", mod + "cmd", mod + "mcp"},
		"ann":     {mod + "store", mod + "gitx", mod + "segment", mod + "index", mod + "search", mod + "llm", mod + "cmd"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "./"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				if strings.HasPrefix(dep, b) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// TestNoCompiledBinariesTracked keeps test binaries (go test -c writes
// PKG.test) and the git-kb binary out of the repository: they are megabytes
// of noise in every clone, and .gitignore says so.
func TestNoCompiledBinariesTracked(t *testing.T) {
	out, err := exec.Command("git", "ls-files").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a checkout)", err)
	}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		base := f[strings.LastIndex(f, "/")+1:]
		if strings.HasSuffix(base, ".test") || base == "git-kb" || strings.HasSuffix(base, ".exe") {
			t.Errorf("%s is a compiled binary and is tracked: git rm --cached it (.gitignore covers it)", f)
		}
	}
}
