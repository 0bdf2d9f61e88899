package index

import (
	"os"
	"runtime"
)

// A small run (a one-file commit's: the post-commit hook's) runs on one
// core. Each core the Go scheduler uses keeps its own caches of memory
// spans, its own collector worker and its own threads, so on two cores
// such a run touched ~500 more fresh pages (~4,400 page faults, not
// ~3,900) and each unmap of Badger's files (two opens' worth of tables)
// interrupts the other core to flush its TLB: paired with a two-core run
// of the same binary, 0.88x the CPU (issue 20). A run with more to
// analyze than parallelBytes or parallelBlobs takes every core back
// before it reads: analysis runs a worker per core.

// Above these the analysis is worth a second core.
const (
	parallelBytes = 512 << 10
	parallelBlobs = 16
)

// cores is the core count a run narrowed from (0: it did not narrow).
type cores struct{ full int }

// narrow puts the process on one core, unless it is on one already or
// the user chose (GOMAXPROCS).
func narrow() *cores {
	full := runtime.GOMAXPROCS(0)
	if full <= 1 || os.Getenv("GOMAXPROCS") != "" {
		return &cores{}
	}
	runtime.GOMAXPROCS(1)
	return &cores{full: full}
}

// widen gives back the cores narrow took (nil: none taken).
func (c *cores) widen() {
	if c != nil && c.full > 1 && runtime.GOMAXPROCS(0) < c.full {
		runtime.GOMAXPROCS(c.full)
	}
}
