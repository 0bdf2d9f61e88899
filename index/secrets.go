package index

import (
	"context"
	"fmt"
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
// redacted under (the rules' version and kb.secrets.allow). Blob records
// are keyed by blob and pipeline only, so when either changes the next
// run re-derives every blob rather than keep values the new policy hides
// (or hide ones it now allows). Every run that publishes a view writes
// it, and so does a pull into an empty index (AdoptPolicy). An index
// without one was built by a git kb that wrote it only once the allow
// list changed, under rules that may be older than these: its policy is
// unknown, no view of it is served and the next run re-derives it.
//
// Once the policy has changed, the file also lists, under a "views:"
// line, the filter fingerprints (store.View.Filter) of the views made
// under it: a view of an older branch made under the old policy is then
// known as such, and searches index its commit again rather than answer
// from postings of values the policy now hides (ViewsUnderPolicy). An index
// whose policy never changed has no list, and all its views stand.
const policyFile = "secrets-policy"

// policyRecord is policyFile read: the policy and, when listed, the
// filters of the views made under it.
type policyRecord struct {
	policy  string
	listed  bool
	filters map[string]bool
}

func readPolicy(kbDir string) policyRecord {
	rec := policyRecord{}
	b, err := os.ReadFile(filepath.Join(kbDir, policyFile))
	if err != nil {
		return rec // none, or unreadable: unknown, matches no policy, so all is re-derived
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	rec.policy = strings.TrimSpace(lines[0])
	for i, l := range lines[1:] {
		if i == 0 && l == "views:" {
			rec.listed, rec.filters = true, map[string]bool{}
		} else if rec.listed && l != "" {
			rec.filters[l] = true
		}
	}
	return rec
}

func indexedPolicy(kbDir string) string { return readPolicy(kbDir).policy }

// recordPolicy records that a view with filter fingerprint filter was made
// under policy fp: a new policy starts a new list; an unchanged one adds
// the filter to its list, if it keeps one.
func recordPolicy(kbDir, fp, filter string) error {
	rec := readPolicy(kbDir)
	switch {
	case rec.policy != fp:
		rec = policyRecord{policy: fp, listed: true, filters: map[string]bool{}}
	case !rec.listed || rec.filters[filter]:
		return nil
	}
	rec.filters[filter] = true
	return writePolicy(kbDir, rec)
}

// AdoptPolicy records that the index's records were made under the
// secrets policy fp, with no view made yet: what a pull into an empty
// index does once it imported records made under fp (share.Pull checks
// the shared view's policy is the local one), so that the run indexing
// the pulled commit keeps them rather than re-derive an index of unknown
// policy.
func AdoptPolicy(kbDir, fp string) error {
	return writePolicy(kbDir, policyRecord{policy: fp, listed: true, filters: map[string]bool{}})
}

func writePolicy(kbDir string, rec policyRecord) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nviews:\n", rec.policy)
	fs := make([]string, 0, len(rec.filters))
	for f := range rec.filters {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	for _, f := range fs {
		fmt.Fprintf(&b, "%s\n", f)
	}
	tmp := filepath.Join(kbDir, policyFile+".tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(kbDir, policyFile))
}

// ViewsUnderPolicy returns whether a view was made under the secrets
// policy fp (the current one, secrets.Policy.Fingerprint): no view when the
// index was last built under another policy, else those among the views
// made since the policy changed (all of them when it never did). The
// policy file is read once, here. Searches answer only from views it
// accepts, so a rule no longer allowed never matches through an old view.
func ViewsUnderPolicy(kbDir, fp string) func(v *store.View) bool {
	rec := readPolicy(kbDir)
	return func(v *store.View) bool {
		return rec.policy == fp && (!rec.listed || rec.filters[v.Filter])
	}
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
// block, as one range), then the tree's files skipped as secrets files
// or for a secret in their path (shown redacted by pol).
func SecretSites(db *store.DB, v *store.View, tree []gitx.Entry, pol *secrets.Policy) ([]SecretSite, error) {
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
		if e.Mode != 0o120000 && (secrets.IsSecretFile(e.Path) || pol.InPath(e.Path)) {
			out = append(out, SecretSite{Path: pol.RedactText(e.Path, e.Path), Rule: SkippedSecretFile})
		}
	}
	return out, nil
}
