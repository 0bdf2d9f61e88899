// Package hugeheap backs the start of git-kb's heap with transparent huge
// pages, where the kernel gives them only to memory that asks (Linux's
// THP "madvise" mode, the common default). It does its work in its
// initialiser; cmd/git-kb imports it for that alone.
//
// Why: a git-kb command is mostly a short process (a search: ~10 MB of
// heap on tidb-docs-cn, ~22 MB on Go's source), and each 4 KiB page its
// heap touches first is a page fault. In a virtual machine a fault costs
// far more than on bare metal (15-20 us of CPU each in the loaded 2-core VM
// these figures come from, against 0.5-4 us per 4 KiB inside a 2 MiB
// page), and a cold docs search took ~2,900 of them in its heap, a quarter
// of its time (issue 16). With this, ~330: a search's faults, git's
// included, 4,200 -> 1,850; CPU 0.67x on tidb-docs-cn and 0.70x on Go's
// source (bench/cold_search.py, the same run); git kb index with nothing
// to do 0.86x, git kb --version unchanged. The
// Go runtime no longer asks for huge pages itself (go.dev/issue/64332), so
// this does: as early in the start as it can run, it grows the heap by one
// Reserve-sized block (never touched, so it costs no memory), marks the
// heap around it MADV_HUGEPAGE, and collects it again; the heap's next
// allocations land in that region, 2 MiB at a time.
//
// The cost is two garbage collections of a heap of a few hundred KB at
// start (the block's allocation starts one, while it is still live; the
// second frees it), and resident memory rounded up to 2 MiB within the region (at most
// its size, for a long-running process such as git kb mcp, where
// khugepaged may fill in pages the runtime gave back). GODEBUG=disablethp=1,
// Go's own switch against huge pages for the heap, turns it off, as does a
// kernel whose THP setting is "never" (and "always" needs none of it).
//
// It imports only runtime, syscall and unsafe on purpose: Go initialises
// packages in import-path order as soon as their imports are, so this one
// runs about 17th of git-kb's ~290, before the initialisers that allocate
// (encoding/gob, blackfriday, protobuf, Weaviate's schema: ~1.8 MB).
package hugeheap

// Reserve is the size of the block the heap grows by: above what a search
// of Go's source allocates, so that a search runs in huge pages throughout.
const Reserve = 32 << 20

// Advised is the heap's range marked MADV_HUGEPAGE at start (zero when
// nothing was: not Linux in THP's madvise mode, or turned off).
var Advised struct{ Start, End uintptr }
