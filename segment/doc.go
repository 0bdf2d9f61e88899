// Package segment turns text into index terms. It is the one analyzer used
// for both documents and queries, so a query term always meets the same form
// the indexer stored.
//
// Chinese runs go to gse in search mode; ASCII words and code identifiers are
// lower-cased, kept whole and split (retryCount -> retry, count); full-width
// characters fold to half-width; stop words are dropped.
//
// The dictionary is the cost to manage: gse needs ~1 s and ~200 MB to load it
// whole, which a per-query CLI process cannot pay. The sorted word table
// (zhdict.txt, generated from gse's own dictionary) is embedded and binary
// searched in place, so a Tiny analyzer builds a gse dictionary holding only
// the words that occur inside the text at hand, plus one filler entry that
// keeps gse's total frequency unchanged. Because gse's shortest-path costs
// depend only on each word's frequency and that total, the tiny dictionary
// segments the text exactly as the full one does (segment_test.go proves it on
// real sentences). Big indexing runs load the full table once instead.
//
// A repository's own words (Vocab: kb.dict, and words a Learner finds in
// its text) join the dictionary: each is cut whole and still yields the
// pieces the built-in dictionary would have cut it into, so it adds a term
// and removes none. The tiny dictionary carries them too, and the filler
// keeps the total of the full dictionary plus the vocabulary's words.
//
// This package imports nothing of git, storage or search.
package segment

//go:generate go run ./internal/gendict zhdict.txt
