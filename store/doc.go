// Package store is git-kb's on-disk index: a Badger database under
// <git common dir>/kb/db with a versioned key layout.
//
// Key layout (format 1). SHAs are opaque 20-byte strings here; pv is the
// pipeline version byte, so a new chunker/analyzer never reads stale data.
//
//	m/format            JSON FormatInfo, written in the first transaction
//	m/seq               next segment id, next chunk ordinal (2 x uint32)
//	s/<seg>             segment record: its chunk range; its presence is the
//	                    commit marker of everything written under that seg
//	b<pv><blob>         BlobHeader: which segment/chunks a blob became
//	c<pv><blob>         BlobMeta: chunk line ranges, headings, symbols; from
//	                    format 3 a JSON head, then the chunk list in JSON
//	                    compressed with S2 (EncodeBlobMeta)
//	p<pv><term>0<seg>   postings of term among the chunks of seg
//	l<pv><seg>          body length (terms) of each chunk of seg
//	v<pv><tree>         View: the indexed files of a tree and BM25 totals
//	r/<commit>          Ref: commit -> tree, and when it was indexed
//	o<pv><tree>         Origin (JSON): the remote ref a view's data was
//	                    pulled from (git kb pull); absent when indexed here
//
// Vectors (mk is a ModelKey: embedder identity + input version, 8 bytes):
//
//	M<mk>               ModelInfo JSON: embedder ID, dimension
//	e<mk><key12>        one cached embedding (float32 scale + int8 codes),
//	                    keyed by a hash of the text embedded
//	x<mk><seg>          vector table header of a segment: dim, rows, parts,
//	                    bitmap of rows present; written last (commit marker)
//	y<mk><seg><part>    the table's encoded rows, in parts of <= 4 MiB
//	g<mk><seg>          HNSW graph header (number of parts)
//	h<mk><seg><part>    the serialised graph
//
// Crash safety: an indexing run allocates a fresh segment id in its own
// transaction, writes all its data with a WriteBatch, and publishes with one
// small transaction holding s/<seg>, v/<tree> and r/<commit>. Data of a
// segment without s/<seg> is invisible: readers skip it and writers redo it.
//
// Locking: Badger's directory lock admits one read-write handle, or any
// number of read-only ones, never both. Writers therefore open the database
// only to write, and Open retries with backoff while the lock is taken.
//
// This package imports nothing of git, segment or search.
package store
