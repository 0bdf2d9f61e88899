// Package index is the indexing pipeline: the tree of a commit -> filter ->
// blobs never indexed before -> decode -> chunk -> analyze -> one new store
// segment -> a published view of the tree.
//
// Work is content-addressed: a blob is chunked and analyzed once per
// pipeline version, whatever path, branch or commit it appears under, so
// re-indexing a commit reads nothing and a one-file commit reads one blob.
//
// The database is held read-write only to write the new segment and
// publish the view, so searches keep answering from the previous view for
// all but that short window. A lock file keeps indexers one at a time.
//
// Secrets found in a blob's text (package secrets) are replaced by a
// marker before chunking, so no posting, chunk hash or embedding input holds
// one; the blob's metadata records where (line and rule, not the value).
//
// Worktree analyzes a working tree's uncommitted files the same way, in
// memory only, for searching them on top of HEAD's view.
//
// It must not import search, mcp, hooks or cmd. Progress is reported through
// Options.Progress; the package never prints.
package index

// PipelineVersion changes whenever chunking or analysis output changes, so
// that derived data of an older pipeline is never mixed with the new one.
//
//	1: initial chunker (markdown/go/patterns/windows) and gse analyzer
//	2: secrets redacted after decoding (a change of the rules or of
//	   kb.secrets.allow re-derives through the recorded policy
//	   fingerprint, not through this version)
//	3: blob metadata records the file kind (generated, data table)
//	4: API-spec kind and MinHash in the blob metadata, vocabulary
//	   outliers in the view (search priors and duplicate folding)
//	5: a Markdown file's count of links to other documents in the blob
//	   metadata (search prior on overview pages)
//	6: a table entry's trailing comment no longer hides it from the
//	   data-table kind (chunk.ContentKind: the BSDs' zsysnum_* tables)
//	7: the string-table kind (chunk.KindStrings: source whose Chinese is
//	   all in string literals), a hub prior in search
//	8: a Go struct tag's Chinese (gorm:"comment:...") no longer counts
//	   as string text for that kind
//	9: the reference kind (chunk.KindReference: a Markdown page of
//	   sections headed by code names), a search prior
//	10: an API spec embedded in another file (swag's docs.go) takes its
//	   MinHash from the spec's words alone, so it folds with its JSON
//	   and YAML renderings
//	11: a fifth field, what a Markdown page says it is about (its
//	   front-matter summary and description), in every chunk's postings;
//	   front-matter block scalars (description: >) are read
//	12: traditional Chinese characters are analyzed as simplified ones
//	   (segment.Normalize), so questions and docs in either script meet
//	13: a run of more than 1,000 base64 or hex characters (segment.MaxDataRun)
//	   is encoded data and yields no terms; a declaration's heading is
//	   cut between runes
//	14: so is a block of such lines wrapped at one width (a PEM body at
//	   64 columns, MIME base64 at 76) of more than 1,000 characters
//	15: but not a block of hex lines of a digest's width (a list of
//	   SHA-1 or SHA-256 hashes): each line keeps its term
const PipelineVersion = 15
