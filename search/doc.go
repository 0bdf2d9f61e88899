// Package search answers queries against one indexed view: it analyzes the
// query with the same analyzer as the indexer, reads the postings of its
// terms restricted to the view's live chunks, scores them with BM25F (body,
// heading, path and symbol fields), groups hits by file and renders
// snippets and citations pinned to the commit.
//
// BM25 statistics (N, average length, document frequency) are those of the
// view searched, never of everything ever indexed.
//
// Two extensions work on top of that: an Overlay (overlay.go) numbers
// uncommitted files after the view's chunks so they are scored and shown
// like indexed ones (--worktree), and related.go follows strong matches to
// the definitions they call and the files they import or are imported by
// (--related).
//
// It must not import index, hooks, mcp, cmd or gitx: the caller passes the
// view and a function that reads blobs.
package search
