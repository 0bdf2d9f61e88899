package index

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/secrets"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// FakeKeyPEM returns a freshly generated private key as PEM: real enough
// for the rules, made at test time so no key sits in the repository.
func fakeKeyPEM(t testing.TB) string {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// fakeAWSKeyID is AKIA and 16 random base32 characters.
func fakeAWSKeyID(t testing.TB) string {
	const b32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	id := []byte("AKIA")
	for range 16 {
		n, err := rand.Int(rand.Reader, big.NewInt(32))
		if err != nil {
			t.Fatal(err)
		}
		id = append(id, b32[n.Int64()])
	}
	return string(id)
}

// recorder is an embedder that keeps every text it was asked to embed.
type recorder struct {
	llm.HashEmbedder
	mu    sync.Mutex
	texts []string
}

func (r *recorder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	return r.HashEmbedder.Embed(ctx, texts)
}

// TestSecretsRedactedAtIndexTime: postings, chunk metadata and embedding
// inputs hold markers, never the values; where they were is recorded; and
// a changed kb.secrets.allow re-derives the blobs.
func TestSecretsRedactedAtIndexTime(t *testing.T) {
	key, keyID := fakeKeyPEM(t), fakeAWSKeyID(t)
	body := strings.Split(strings.TrimSpace(key), "\n")[1] // first base64 line of the key
	dir := gittest.New(t, map[string]string{
		"key.md":   "# Deploy\n\nThe deploy key:\n\n" + key + "\nRotate it yearly.\n",
		"notes.md": "# Notes\n\nOur access key id is " + keyID + " (rotated in May).\n",
		".env":     "AWS_ACCESS_KEY_ID=" + keyID + "\n",
	})
	repo, st := indexDir(t, dir)
	ctx := context.Background()
	if st.Skipped[SkipSecret] != 1 || st.Indexed != 2 {
		t.Fatalf("want .env skipped as a secret file and two files indexed: %+v", st)
	}
	an := segment.Tiny()
	hasPosting := func(word string) bool {
		return readIndex(t, repo, func(db *store.DB) bool { return anyPosting(t, db, nil, an.Terms(word)...) })
	}
	if hasPosting(keyID) {
		t.Errorf("the access key id %s has postings", keyID)
	}
	// Only the body's own terms say whether it was indexed: a random
	// "Md" in the base64 meets key.md's path term (a 1% flake).
	rest := map[string]bool{}
	for _, w := range an.Terms("key.md notes.md Deploy The deploy key: Rotate it yearly. Notes Our access key id is (rotated in May). " +
		secrets.Marker("private-key") + secrets.Marker("aws-access-key")) {
		rest[w] = true
	}
	for _, w := range an.Terms(body) {
		if !rest[w] && hasPosting(w) {
			t.Errorf("the key body's term %q has postings", w)
		}
	}
	if !hasPosting("rotated") || !hasPosting("redacted") {
		t.Errorf("the rest of the text, and the marker, should be searchable")
	}

	db, err := store.Open(ctx, DBDir(repo), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := db.View(PipelineVersion, gitx.ParseHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD^{tree}"))))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range v.Entries {
		m, err := db.BlobMeta(PipelineVersion, e.Blob)
		if err != nil {
			t.Fatal(err)
		}
		got[e.Path] = fmt.Sprint(m.Secrets)
	}
	db.Close()
	if got["notes.md"] != "[{3 aws-access-key}]" || !strings.HasPrefix(got["key.md"], "[{6 private-key}") {
		t.Errorf("recorded redactions: %v", got)
	}

	emb := &recorder{HashEmbedder: llm.HashEmbedder{Dims: 16, Terms: an.Terms}}
	if _, err := Embed(ctx, repo, EmbedOptions{Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(emb.texts, "\n")
	if len(emb.texts) == 0 || strings.Contains(all, keyID) || strings.Contains(all, body) || !strings.Contains(all, "[redacted: aws-access-key]") {
		t.Errorf("embedding inputs:\n%s", all)
	}

	// Allowing the rule re-derives the blobs: the id becomes searchable.
	gittest.Git(t, dir, "config", "--add", "kb.secrets.allow", "aws-access-key")
	st, err = Run(ctx, repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.AlreadyIndexed || st.BlobsNew != 2 {
		t.Fatalf("after kb.secrets.allow changed: %+v", st)
	}
	if !hasPosting(keyID) {
		t.Errorf("allowed aws-access-key, but the id has no postings")
	}
	if st, err = Run(ctx, repo, Options{}); err != nil || !st.AlreadyIndexed {
		t.Fatalf("a second run with the same policy should do nothing: %+v %v", st, err)
	}
}

// TestTightenedPolicyReachesOldBranches: a blob analyzed while a rule was
// allowed is not reused once the rule is no longer allowed, even in a
// later run whose own policy did not change (an old branch checked out
// again): the view of that branch is re-derived, its postings hold the
// marker and never the value.
func TestTightenedPolicyReachesOldBranches(t *testing.T) {
	keyID := fakeAWSKeyID(t)
	dir := gittest.New(t, map[string]string{"readme.md": "# Readme\n\nNothing secret here.\n"})
	gittest.Git(t, dir, "branch", "-M", "main")
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func() {
		t.Helper()
		if _, err := Run(ctx, repo, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	// The old branch, indexed while aws-access-key was allowed.
	gittest.Git(t, dir, "config", "--add", "kb.secrets.allow", "aws-access-key")
	gittest.Git(t, dir, "checkout", "-q", "-b", "old")
	gittest.Commit(t, dir, "notes", map[string]string{"notes.md": "# Notes\n\nOur access key id is " + keyID + " (rotated in May).\n"})
	run()
	// Back on main, the rule is no longer allowed: main is re-derived.
	gittest.Git(t, dir, "checkout", "-q", "main")
	gittest.Git(t, dir, "config", "--unset-all", "kb.secrets.allow")
	run()
	run() // a run with an unchanged policy
	gittest.Git(t, dir, "checkout", "-q", "old")
	run()

	found := func(word string) bool {
		return readIndex(t, repo, func(db *store.DB) bool {
			return anyPosting(t, db, headView(t, db, dir).Segments(), segment.Tiny().Terms(word)...)
		})
	}
	if found(keyID) {
		t.Errorf("the old branch's view holds the access key id, analyzed under the old policy")
	}
	if !found("redacted") {
		t.Errorf("the old branch's view lacks the redaction marker")
	}
}

// TestHiddenKeysRedacted: a private key commented out (# , // ), quoted
// (> ) or base64-encoded (a kubeconfig's client-key-data) is redacted
// like a bare one: none of its body's terms has postings.
func TestHiddenKeysRedacted(t *testing.T) {
	key := fakeKeyPEM(t)
	lines := strings.Split(strings.TrimSpace(key), "\n")
	prefixed := func(mark string) string {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(mark + l + "\n")
		}
		return b.String()
	}
	encoded := base64.StdEncoding.EncodeToString([]byte(key))
	dir := gittest.New(t, map[string]string{
		"deploy.yaml":     "host: example.com\n# the old key, rotated:\n" + prefixed("# ") + "port: 22\n",
		"keys.go":         "package keys\n\n// testKey is the fixture key:\n" + prefixed("// ") + "var testKey = 1\n",
		"notes.md":        "# 笔记\n\n> 旧私钥（已作废）：\n>\n" + prefixed("> ") + "\n轮换完成。\n",
		"kubeconfig.yaml": "users:\n- name: admin\n  user:\n    client-key-data: " + encoded + "\n",
	})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), repo, Options{}); err != nil {
		t.Fatal(err)
	}
	an := segment.Tiny()
	rest := map[string]bool{}
	for _, w := range an.Terms("deploy.yaml keys.go notes.md kubeconfig.yaml host example.com the old key, rotated port 22 package keys testKey is the fixture key var 1 " +
		"笔记 旧私钥（已作废） 轮换完成。 users name admin user client-key-data " + lines[0] + " " + lines[len(lines)-1] + " " + secrets.Marker("private-key")) {
		rest[w] = true
	}
	secret := map[string]bool{}
	for _, l := range append(lines[1:len(lines)-1], encoded) {
		for _, w := range an.Terms(l) {
			if !rest[w] {
				secret[w] = true
			}
		}
	}
	readIndex(t, repo, func(db *store.DB) bool {
		for w := range secret {
			if anyPosting(t, db, nil, w) {
				t.Errorf("the key's term %q has postings", w)
			}
		}
		for _, e := range headView(t, db, dir).Entries {
			m, err := db.BlobMeta(PipelineVersion, e.Blob)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Secrets) == 0 || m.Secrets[0].Rule != "private-key" {
				t.Errorf("%s: recorded redactions %v, want the private key", e.Path, m.Secrets)
			}
		}
		return true
	})
}

// TestSecretInPathKeepsFileOut: a file whose path holds a secret (a token
// as its name) is skipped like a secrets file, committed or untracked: its
// path would be in every posting, citation, pack and prompt. Allowing the
// rule indexes it.
func TestSecretInPathKeepsFileOut(t *testing.T) {
	keyID := fakeAWSKeyID(t)
	token := "ghp_" + strings.ToLower(keyID) + keyID[4:] // 36 characters after ghp_
	dir := gittest.New(t, map[string]string{
		"notes/" + keyID + ".md":   "# 备份凭据\n\n备份桶的轮换记录。\n",
		"tokens/" + token + ".txt": "rotation log for the bot\n",
		"docs/guide.md":            "# 指南\n\n备份桶每天备份一次。\n",
	})
	repo, st := indexDir(t, dir)
	ctx := context.Background()
	if st.Skipped[SkipSecret] != 2 || st.Indexed != 1 {
		t.Errorf("want the two files named by a secret skipped: %+v", st)
	}
	an := segment.Tiny()
	readIndex(t, repo, func(db *store.DB) bool {
		for _, w := range append(an.Terms(keyID), an.Terms(token)...) {
			if anyPosting(t, db, nil, w) {
				t.Errorf("the secret's term %q has postings", w)
			}
		}
		for _, e := range headView(t, db, dir).Entries {
			if e.Path != "docs/guide.md" {
				t.Errorf("the view holds %s", e.Path)
			}
		}
		return true
	})
	// doctor --secrets lists them, never their values.
	tree, err := repo.ListTree(ctx, gitx.ParseHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD^{tree}"))))
	if err != nil {
		t.Fatal(err)
	}
	sites := readIndex(t, repo, func(db *store.DB) []SecretSite {
		sites, err := SecretSites(db, headView(t, db, dir), tree, secrets.NewPolicy(nil))
		if err != nil {
			t.Fatal(err)
		}
		return sites
	})
	if got := fmt.Sprint(sites); got != "[{notes/[redacted: aws-access-key].md 0 0 secret-file} {tokens/[redacted: github-token].txt 0 0 secret-file}]" {
		t.Errorf("secret sites: %s", got)
	}
	skip, err := Filter(ctx, repo, gitx.ParseHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD"))))
	if err != nil || skip("tokens/"+token+".txt", 0o100644, 10) != SkipSecret {
		t.Errorf("the push filter does not keep the file home: %v", err)
	}

	// Untracked, for --worktree.
	if err := os.WriteFile(filepath.Join(dir, "draft-"+keyID+".md"), []byte("# 草稿\n\n轮换。\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wt, err := Worktree(ctx, repo, func(string) (store.SHA, bool) { return store.SHA{}, false }, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range wt.Files {
		t.Errorf("the working tree's %s is searched", f.Path)
	}
	if len(wt.Gone) != 0 || wt.Skipped[SkipSecret] != 1 {
		t.Errorf("the working tree's file named by the id: gone %v, skipped %v", wt.Gone, wt.Skipped)
	}

	gittest.Git(t, dir, "config", "--add", "kb.secrets.allow", "aws-access-key")
	if st, err = Run(ctx, repo, Options{}); err != nil || st.Indexed != 2 {
		t.Errorf("with aws-access-key allowed, notes/%s.md should be indexed: %+v %v", keyID, st, err)
	}
}

// TestChinesePasswordRedacted: a password written the Chinese way
// (数据库密码：value，...) or in a notebook's escaped JSON has no postings.
func TestChinesePasswordRedacted(t *testing.T) {
	keyID := fakeAWSKeyID(t)
	pw := "Kq8+" + keyID[4:] + "/z9" // random enough for the rule
	nb := "Zx7+" + strings.ToLower(keyID[4:]) + "/q2"
	dir := gittest.New(t, map[string]string{
		"docs/部署.md": "# 部署\n\n生产数据库密码：" + pw + "，请勿外传。\n",
		"demo.ipynb": "{\"cells\": [{\"source\": [\"db_password = \\\"" + nb + "\\\"\\n\"]}]}\n",
	})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), repo, Options{}); err != nil {
		t.Fatal(err)
	}
	readIndex(t, repo, func(db *store.DB) bool {
		for _, v := range []string{pw, nb} {
			if anyPosting(t, db, nil, segment.Tiny().Terms(v)...) {
				t.Errorf("%s has postings", v)
			}
		}
		return true
	})
}

// TestIndexOfUnknownPolicy: an index with no policy file was built by a
// git kb that wrote one only when kb.secrets.allow changed, so under
// rules that may be older than these: none of its views is served and
// the next run re-derives its records. (The allow list stands in for the
// older rules here: a value they let through, the current ones redact.)
func TestIndexOfUnknownPolicy(t *testing.T) {
	keyID := fakeAWSKeyID(t)
	dir := gittest.New(t, map[string]string{"notes.md": "# Notes\n\nOur access key id is " + keyID + " (rotated in May).\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gittest.Git(t, dir, "config", "--add", "kb.secrets.allow", "aws-access-key")
	if _, err := Run(ctx, repo, Options{}); err != nil {
		t.Fatal(err)
	}
	found := func() bool {
		return readIndex(t, repo, func(db *store.DB) bool {
			return anyPosting(t, db, headView(t, db, dir).Segments(), segment.Tiny().Terms(keyID)...)
		})
	}
	if !found() {
		t.Fatalf("the allowed id should have postings")
	}
	// What an index built by the older git kb looks like under the new
	// rules: its records hold the value, and no file says under what.
	gittest.Git(t, dir, "config", "--unset-all", "kb.secrets.allow")
	if err := os.Remove(filepath.Join(repo.KBDir(), policyFile)); err != nil {
		t.Fatal(err)
	}
	current := secrets.NewPolicy(nil).Fingerprint()
	served := readIndex(t, repo, func(db *store.DB) bool { return ViewsUnderPolicy(repo.KBDir(), current)(headView(t, db, dir)) })
	if served {
		t.Errorf("a view of an index of unknown policy is served")
	}
	st, err := Run(ctx, repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.AlreadyIndexed || st.BlobsNew != 1 {
		t.Errorf("the run should re-derive the blob: %+v", st)
	}
	if found() {
		t.Errorf("the re-derived view still holds the access key id")
	}
	served = readIndex(t, repo, func(db *store.DB) bool { return ViewsUnderPolicy(repo.KBDir(), current)(headView(t, db, dir)) })
	if !served || indexedPolicy(repo.KBDir()) != current {
		t.Errorf("after the run: served %v, recorded policy %q, want %q", served, indexedPolicy(repo.KBDir()), current)
	}
	if st, err := Run(ctx, repo, Options{}); err != nil || !st.AlreadyIndexed {
		t.Errorf("a second run should find it indexed: %+v %v", st, err)
	}
}

// TestAdoptPolicy: a pull into an empty index records the policy its
// records were made under, so the run after it keeps them.
func TestAdoptPolicy(t *testing.T) {
	kb := t.TempDir()
	fp := secrets.NewPolicy(nil).Fingerprint()
	if indexedPolicy(kb) != "" {
		t.Fatalf("no file: policy %q, want unknown", indexedPolicy(kb))
	}
	if err := AdoptPolicy(kb, fp); err != nil {
		t.Fatal(err)
	}
	if indexedPolicy(kb) != fp || ViewsUnderPolicy(kb, fp)(&store.View{Filter: "made-before"}) {
		t.Errorf("adopted: policy %q; a view not made since is served", indexedPolicy(kb))
	}
	if err := recordPolicy(kb, fp, "made-since"); err != nil {
		t.Fatal(err)
	}
	if !ViewsUnderPolicy(kb, fp)(&store.View{Filter: "made-since"}) {
		t.Errorf("a view made since is not served")
	}
}
