// Package llm holds git-kb's model clients: text embedders behind one
// interface (an OpenAI-compatible HTTP endpoint on go-openai, and an
// offline feature-hashing embedder), with batching, throttling, retries
// and normalisation done here so callers only see unit vectors or a clear
// error.
//
// It imports nothing of git-kb: callers pass in what they need (the hash
// embedder takes the analyzer as a function).
package llm
