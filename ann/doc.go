// Package ann finds the stored vectors nearest to a query, restricted to a
// set of live ids (the chunks of one commit's view).
//
// Vectors live once, in a Table: int8 codes with one float32 scale per
// vector (symmetric quantisation of unit vectors), contiguous so a scan is
// a straight walk through memory. Table.Search is the exact scan, split
// across the cores; it is the default and the ground truth. Graph is an
// HNSW index (Malkov & Yashunin, 2016/2018) over a Table, built
// deterministically and serialised in a compact format of our own; it
// pays off only where it is loaded once and queried many times, or above
// the size where a scan costs more than loading the graph (see
// docs/MEASURED.md).
//
// coder/hnsw v0.6.1 is not used here (its search is broken, see
// LIBRARIES.md); compare_test.go benchmarks it beside Graph so the reason
// stays visible.
//
// This package imports nothing of git-kb.
package ann
