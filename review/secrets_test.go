package review

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestReportHoldsNoSecret: a change just below a private key, whose hunk
// header git takes from the key's last body line, and a file named by a
// token: the report holds neither.
func TestReportHoldsNoSecret(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	key := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	body := strings.Split(key, "\n")[1] // one line, starting with a letter
	token := "ghp_" + strings.ReplaceAll(strings.ReplaceAll(body[:36], "+", "a"), "/", "b")
	doc := "# 部署\n\n部署用的私钥：\n\n" + key + "\n每年轮换一次。\n"
	dir := gittest.New(t, map[string]string{"deploy.md": doc})
	gittest.Commit(t, dir, "more", map[string]string{"deploy.md": doc + "\n上次轮换在五月。\n", "tokens/" + token + ".txt": "rotation log\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rev := func(r string) string { return strings.TrimSpace(gittest.Git(t, dir, "rev-parse", r)) }
	if !strings.Contains(gittest.Git(t, dir, "diff", "-U0", "HEAD~1", "HEAD", "--", "deploy.md"), "@@ "+body) {
		t.Skip("git took another line for the hunk header")
	}
	rep, err := Explain(context.Background(), Options{Repo: repo, Base: rev("HEAD~1"), Head: rev("HEAD"), Range: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep)
	for _, v := range []string{body, token} {
		if strings.Contains(string(b), v) {
			t.Errorf("the report holds %q:\n%s", v, b)
		}
	}
	if !strings.Contains(string(b), `"header":"[redacted: private-key]"`) || !strings.Contains(string(b), `"path":"tokens/[redacted: github-token].txt"`) {
		t.Errorf("want the header and the path redacted:\n%s", b)
	}
}
