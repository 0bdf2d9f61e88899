package chunk

import (
	"regexp"
	"sync"
)

// lazyRE compiles expr on first use. Compiled at package initialisation,
// the package's patterns were the largest initialiser of every git-kb
// process (1.5 ms and 290 KB of every search's start, which never chunks
// a file); TestPatternsCompile compiles them all.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
