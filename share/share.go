// Package share carries the index between machines through git: `git kb
// push` writes the index data of a commit's view as ordinary git objects
// under refs/kb/<version>/... and pushes them with the git binary; `git
// kb pull` fetches them, verifies them against the repository and imports
// them into the local store, so a fresh clone searches (and, with the same
// embedding model, searches densely) without indexing or embedding.
//
// Layout of one shared view, the tree of a commit on refs/kb/1/<name>:
//
//	kb.json                      Manifest: versions, source commit, models
//	blobs/<aa>/<38 hex>          Record of the source blob aa...: what it
//	                             became (chunks, terms, lengths)
//	vectors/<model>/<aa>/<38>    Vectors of its chunks under one model
//
// One git blob per source blob, so git's own dedup makes a push after a
// one-file commit carry one record, one vector record and the few trees
// on their paths. Records are derived data: a pull trusts none of it. It
// checks versions and the model against the local configuration, decodes
// every record whole, checks each source blob exists with the recorded
// size and that chunk line ranges fit it, and vector shapes; any failure
// refuses the whole pull before anything local is written. Citations and
// snippets are read from git as always: records hold no text.
//
// What a local filter skips (secret-looking paths, .kbignore, size), and
// blobs in which secrets were redacted, are never pushed.
//
// The package knows the record layout through store's API and the
// pipeline through index's; it prints nothing.
package share

import (
	"github.com/git-kb/git-kb/secrets"

	"encoding/hex"
	"fmt"
	"strings"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
)

// Version is the layout version of shared refs (refs/kb/<Version>/...).
const Version = 1

// RefPrefix is where shared views live, locally and on remotes.
var RefPrefix = fmt.Sprintf("refs/kb/%d/", Version)

// TrackingPrefix is where pulled views of remote are kept locally.
func TrackingPrefix(remote string) string {
	return fmt.Sprintf("refs/kb/remotes/%s/%d/", remoteRefName(secrets.RedactURL(remote)), Version)
}

// remoteRefName makes a remote name or URL usable inside a ref name.
func remoteRefName(remote string) string {
	var b strings.Builder
	for _, r := range remote {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Manifest is kb.json: what a shared view is and what made it.
type Manifest struct {
	Share    int    `json:"share"`
	Format   int    `json:"store_format"`
	Pipeline int    `json:"pipeline"`
	Secrets  string `json:"secrets_policy"` // fingerprint of kb.secrets.allow's policy
	// SecretsRules is the version of the secret rules the records were
	// made under (0: not recorded, a pusher from before it was).
	SecretsRules int `json:"secrets_rules,omitempty"`
	// Vocab is the fingerprint of the word list the records were cut with
	// (kb.dict, kb.vocab.learn; "" none): records cut with other words
	// do not mix with this machine's.
	Vocab  string `json:"vocab,omitempty"`
	Commit string `json:"commit"` // the commit whose view this is
	// CommitTime is the commit's committer date, Unix seconds (0: not
	// recorded): a clone without the commit still orders two views by it.
	CommitTime int64  `json:"commit_time,omitempty"`
	Tree       string `json:"tree"`
	Name       string `json:"name"` // heads/main, tags/v1, commits/<sha>
	Blobs      int    `json:"blobs"`
	// Withheld counts blobs of the view not shared: secrets were redacted
	// in them. Every clone indexes those itself.
	Withheld  int     `json:"withheld_secrets"`
	Filtered  int     `json:"filtered"` // files the pusher's filters skip now
	Models    []Model `json:"models,omitempty"`
	CreatedBy string  `json:"created_by"`
}

// Model is one embedding space of a shared view.
type Model struct {
	Key   string `json:"key"` // hex store.ModelKey: embedder ID + input version
	ID    string `json:"id"`
	Dim   int    `json:"dim"`
	Input int    `json:"input_version"`
	Blobs int    `json:"blobs"` // blobs with vectors for every chunk
}

func (m *Manifest) model(key string) *Model {
	for i := range m.Models {
		if m.Models[i].Key == key {
			return &m.Models[i]
		}
	}
	return nil
}

func modelHex(mk store.ModelKey) string { return hex.EncodeToString(mk[:]) }

func recordPath(blob store.SHA) string {
	h := hex.EncodeToString(blob[:])
	return "blobs/" + h[:2] + "/" + h[2:]
}

func vectorPath(mk string, blob store.SHA) string {
	h := hex.EncodeToString(blob[:])
	return "vectors/" + mk + "/" + h[:2] + "/" + h[2:]
}

// parsePath reads a path of the layout: kind "blobs" or "vectors" (with
// its model), the source blob. ok is false for anything else.
func parsePath(p string) (kind, model string, blob store.SHA, ok bool) {
	parts := strings.Split(p, "/")
	var hx string
	switch {
	case len(parts) == 3 && parts[0] == "blobs":
		kind, hx = "blobs", parts[1]+parts[2]
	case len(parts) == 4 && parts[0] == "vectors" && len(parts[1]) == 16:
		kind, model, hx = "vectors", parts[1], parts[2]+parts[3]
	default:
		return "", "", blob, false
	}
	if len(parts[len(parts)-2]) != 2 || len(hx) != 40 {
		return "", "", blob, false
	}
	if _, err := hex.Decode(blob[:], []byte(hx)); err != nil {
		return "", "", blob, false
	}
	return kind, model, blob, true
}

// compatible says why a manifest's data cannot be used here, or "".
func compatible(m *Manifest, secretsFP, vocabFP string) string {
	switch {
	case m.Share != Version:
		return fmt.Sprintf("shared with layout %d, this git-kb reads %d", m.Share, Version)
	case m.Format != store.SharedFormat:
		return fmt.Sprintf("made with index format %d, this git-kb uses %d", m.Format, store.SharedFormat)
	case m.Pipeline != index.PipelineVersion:
		return fmt.Sprintf("made by pipeline %d (%s), this git-kb uses pipeline %d: push again with this version, or index locally", m.Pipeline, m.CreatedBy, index.PipelineVersion)
	case m.Secrets != secretsFP:
		return "made under another secrets policy (git config kb.secrets.allow differs): records would hide or show other values than yours"
	case m.Vocab != vocabFP:
		return "cut with another word list (git config kb.dict or kb.vocab.learn, or the kb.dict file, differs): its terms would not meet yours"
	}
	return ""
}

// hashOf turns a store SHA into a git one.
func hashOf(s store.SHA) gitx.Hash { return gitx.Hash(s) }
