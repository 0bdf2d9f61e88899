// Package secrets finds credentials inside ordinary text and replaces each
// one with a marker such as "[redacted: aws-access-key]", so that nothing
// derived from a secret (postings, snippets, embeddings, prompts, MCP
// output) ever holds its value.
//
// The rules are our own, written in the spirit of the gitleaks and
// trufflehog rule sets: private key blocks, cloud and SaaS tokens with a
// recognisable shape, and key = value assignments whose value looks random
// enough (Shannon entropy) to be a real secret rather than a placeholder
// such as `<your password>` or `os.Getenv("PASSWORD")`.
//
// Detection runs on every blob at index time, so it is built to be cheap
// on text that holds no secret: each rule names keywords, one pass over a
// lowercased copy of the text finds the lines that hold any of them, and a
// rule's regular expression runs only on those lines.
//
// A replacement stays inside its line: line numbers, and so citations, are
// those of the file as git has it.
//
// The package knows nothing of git; callers pass a path and the text.
package secrets
