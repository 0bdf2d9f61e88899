package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/settings"
	"github.com/git-kb/git-kb/store"
)

// SecretsPolicy is the secret rule set less what `git config --add
// kb.secrets.allow` allows (rule ids or path globs). Every reader of blob
// text that may leave the user's terminal redacts with it.
func SecretsPolicy(ctx context.Context, repo *gitx.Repo) (*secrets.Policy, error) {
	set, err := settings.Load(ctx, repo, nil)
	if err != nil {
		return nil, err
	}
	return secrets.NewPolicy(set.SecretsAllow), nil
}

// policyFile records the fingerprint of the policy the index's blobs were
// redacted under. Blob records are keyed by blob and pipeline only, so
// when kb.secrets.allow changes the next run re-derives every blob rather
// than keep values the new policy hides (or hide ones it now allows).
const policyFile = "secrets-policy"

func indexedPolicy(kbDir string) string {
	b, err := os.ReadFile(filepath.Join(kbDir, policyFile))
	if errors.Is(err, fs.ErrNotExist) {
		return secrets.NewPolicy(nil).Fingerprint() // an index from before the allow list was set
	}
	return strings.TrimSpace(string(b))
}

func recordPolicy(kbDir, fp string) error {
	if indexedPolicy(kbDir) == fp {
		return nil
	}
	tmp := filepath.Join(kbDir, policyFile+".tmp")
	if err := os.WriteFile(tmp, []byte(fp+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(kbDir, policyFile))
}

// SecretSite is a place where a secret was redacted (never its value),
// or, with Line 0, a file skipped whole for being a secrets file.
type SecretSite struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
	Rule    string `json:"rule"`
}

// SkippedSecretFile is the rule name of a file skipped by its name.
const SkippedSecretFile = "secret-file"

// SecretSites lists, for git kb doctor --secrets, where the files of a
// view had secrets redacted (consecutive lines of one rule, such as a key
// block, as one range), then the tree's files skipped as secrets files.
func SecretSites(db *store.DB, v *store.View, tree []gitx.Entry) ([]SecretSite, error) {
	var out []SecretSite
	metas := map[store.SHA]*store.BlobMeta{}
	for _, e := range v.Entries {
		m, ok := metas[e.Blob]
		if !ok {
			var err error
			if m, err = db.BlobMeta(PipelineVersion, e.Blob); err != nil {
				return nil, fmt.Errorf("metadata of %s: %w", e.Path, err)
			}
			metas[e.Blob] = m
		}
		for _, r := range m.Secrets {
			if n := len(out); n > 0 && out[n-1].Path == e.Path && out[n-1].Rule == r.Rule && out[n-1].EndLine+1 >= r.Line {
				out[n-1].EndLine = r.Line
				continue
			}
			out = append(out, SecretSite{Path: e.Path, Line: r.Line, EndLine: r.Line, Rule: r.Rule})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	for _, e := range tree {
		if e.Mode != 0o120000 && secrets.IsSecretFile(e.Path) {
			out = append(out, SecretSite{Path: e.Path, Rule: SkippedSecretFile})
		}
	}
	return out, nil
}
