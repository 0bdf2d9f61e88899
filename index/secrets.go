package index

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/secrets"
)

// SecretsPolicy is the secret rule set less what `git config --add
// kb.secrets.allow` allows (rule ids or path globs). Every reader of blob
// text that may leave the user's terminal redacts with it.
func SecretsPolicy(ctx context.Context, repo *gitx.Repo) (*secrets.Policy, error) {
	allow, err := repo.ConfigAll(ctx, "kb.secrets.allow")
	if err != nil {
		return nil, err
	}
	return secrets.NewPolicy(allow), nil
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
