package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/mcp"
)

// recordingServer is the fake embeddings endpoint, keeping every request
// body it was sent.
type recordingServer struct {
	inner  *embeddingsServer
	mu     sync.Mutex
	bodies bytes.Buffer
}

func (s *recordingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies.Write(b)
	s.bodies.WriteByte('\n')
	s.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	s.inner.ServeHTTP(w, r)
}

func (s *recordingServer) sent() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies.String()
}

// secretFixture is a private key (PEM, generated now) and an AWS-shaped
// access key id, made at test time so none sits in the repository.
func secretFixture(t *testing.T) (key string, body []string, keyID string) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	key = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	for _, l := range strings.Split(strings.TrimSpace(key), "\n") {
		if !strings.HasPrefix(l, "-----") {
			body = append(body, l)
		}
	}
	id := []byte("AKIA")
	for range 16 {
		n, _ := rand.Int(rand.Reader, big.NewInt(32))
		id = append(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[n.Int64()])
	}
	return key, body, string(id)
}

// TestSecretsNeverLeave: a private key in key.md and an access key id in
// notes.md are neither found by search, nor shown in snippets, packs or
// MCP documents, nor sent to the embedding endpoint; .env is refused to
// agents; git kb show (the user's own terminal) shows the file as it is.
func TestSecretsNeverLeave(t *testing.T) {
	key, body, keyID := secretFixture(t)
	srv := &recordingServer{inner: &embeddingsServer{}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := gittest.New(t, map[string]string{
		"key.md":        "# 部署密钥\n\n部署机器用的 deploy key：\n\n" + key + "\n每年轮换一次。\n",
		"notes.md":      "# Notes\n\nThe access key id for the backup bucket is " + keyID + ", rotated in May.\n",
		".env":          "AWS_ACCESS_KEY_ID=" + keyID + "\n",
		"docs/guide.md": "# 指南\n\n备份桶每天凌晨备份一次。\n",
		// Named by the id: its path would be in every citation.
		"keys/" + keyID + ".md": "# 轮换记录\n\n五月轮换了桶的密钥。\n",
	})
	gittest.Git(t, dir, "config", "kb.embed.baseURL", hs.URL+"/v1")
	gittest.Git(t, dir, "config", "kb.embed.model", "fake-embed")
	gittest.Git(t, dir, "config", "kb.embed.maxRetries", "-1")
	if _, errs, code := kb(t, dir, "index", "-q"); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	leaks := func(where, text string) {
		t.Helper()
		for _, v := range append([]string{keyID}, body...) {
			if strings.Contains(text, v) {
				t.Errorf("%s holds a secret value %q:\n%s", where, v, text)
			}
		}
	}

	// Searching for the values finds nothing of them. The id is
	// recognisable, so the hybrid query that goes to the embedder is
	// redacted; a bare line of base64 is not (nothing says it is a key),
	// so that one is searched lexically only.
	for _, q := range [][]string{{keyID}, {"--mode", "lexical", body[0]}} {
		r := searchJSON(t, dir, q...)
		for _, res := range r.Results {
			leaks("search "+strings.Join(q, " ")+" snippet", res.Snippet)
		}
	}
	r := searchJSON(t, dir, "access key id backup bucket")
	if len(r.Results) == 0 || r.Results[0].Path != "notes.md" || !strings.Contains(r.Results[0].Snippet, "[redacted: aws-access-key]") {
		t.Fatalf("search for the note: %+v", r.Results)
	}
	out, _, _ := kb(t, dir, "search", "--json", "轮换记录 五月轮换")
	leaks("search for the file named by the id", out)
	r = searchJSON(t, dir, "部署密钥 deploy key")
	if len(r.Results) == 0 || r.Results[0].Path != "key.md" {
		t.Fatalf("search for the key's doc: %+v", r.Results)
	}
	leaks("search snippet", r.Results[0].Snippet)

	out, errs, code := kb(t, dir, "context", "deploy key 部署密钥")
	if code != 0 || !strings.Contains(out, "[redacted: private-key]") {
		t.Fatalf("context: exit %d %s\n%s", code, errs, out)
	}
	leaks("context pack", out)

	// The user's own terminal: the file as git has it.
	out, _, code = kb(t, dir, "show", "HEAD:key.md")
	if code != 0 || !strings.Contains(out, body[0]) {
		t.Errorf("show should print the file as it is:\n%s", out)
	}

	sent := srv.sent()
	if !strings.Contains(sent, "backup bucket") {
		t.Fatalf("the embedder saw nothing of the notes: %s", sent)
	}
	leaks("the embedding endpoint's requests", sent)

	// doctor --secrets says where, never what.
	out, errs, code = kb(t, dir, "doctor", "--secrets")
	if code != 0 || !strings.Contains(out, "notes.md:3\taws-access-key") || !strings.Contains(out, fmt.Sprintf("key.md:%s\tprivate-key", lineRange(6, 5+len(body)))) ||
		!strings.Contains(out, ".env\tnot indexed") || !strings.Contains(out, "keys/[redacted: aws-access-key].md\tnot indexed") || !strings.Contains(errs, "4 place(s) in 4 file(s)") {
		t.Errorf("doctor --secrets: exit %d %s\n%s", code, errs, out)
	}
	leaks("doctor --secrets", out)

	// A commit message holding the id: blame-context shows its subject
	// redacted.
	gittest.Commit(t, dir, "rotate the backup key to "+keyID, map[string]string{"notes.md": "# Notes\n\nThe access key id for the backup bucket was rotated.\n"})
	gittest.Commit(t, dir, "reword", map[string]string{"notes.md": "# Notes\n\nThe backup bucket's access key id was rotated.\n"})
	out, errs, code = kb(t, dir, "blame-context", "--format", "json", "HEAD")
	if code != 0 || !strings.Contains(out, "rotate the backup key to [redacted: aws-access-key]") {
		t.Errorf("blame-context: exit %d %s\n%s", code, errs, out)
	}
	leaks("blame-context", out)

	s := mcpSession(t, dir)
	var doc mcp.Document
	if msg := callTool(t, s, "get_document", map[string]any{"path": ".env"}, &doc); !strings.Contains(msg, "holds secrets") {
		t.Errorf("get_document .env: %q %+v", msg, doc)
	}
	if msg := callTool(t, s, "get_document", map[string]any{"path": "keys/" + keyID + ".md"}, &doc); msg != "keys/[redacted: aws-access-key].md holds a secret in its path: git kb does not index or serve such files" {
		t.Errorf("get_document of the file named by the id: %q %+v", msg, doc)
	}
	for _, p := range []string{"key.md", "notes.md"} {
		if msg := callTool(t, s, "get_document", map[string]any{"path": p, "rev": "HEAD~2"}, &doc); msg != "" || !strings.Contains(doc.Text, "[redacted: ") {
			t.Errorf("get_document %s: %q\n%s", p, msg, doc.Text)
		}
		leaks("get_document "+p, doc.Text)
	}
	if strings.Count(doc.Text, "\n") != 3 || doc.TotalLines != 3 {
		t.Errorf("redaction changed the lines of notes.md: %+v", doc)
	}
}

// lineRange is how doctor --secrets writes lines a to b.
func lineRange(a, b int) string {
	if b > a {
		return fmt.Sprintf("%d-%d", a, b)
	}
	return fmt.Sprint(a)
}

// TestEndpointCredentialsNotShown: an endpoint URL holding credentials
// (a proxy's user:password@) is named without them where a failure is
// reported: on stderr, and in search's JSON, which goes to MCP clients.
func TestEndpointCredentialsNotShown(t *testing.T) {
	const token = "Zq8Kp2wT0kenXyz4Lm9"
	url := "http://ci:" + token + "@127.0.0.1:1/v1" // nothing listens there
	dir := gittest.New(t, docs)
	for _, kv := range [][2]string{{"kb.embed.baseURL", url}, {"kb.embed.model", "m"}, {"kb.embed.maxRetries", "-1"},
		{"kb.rerank.baseURL", url}, {"kb.rerank.model", "m"}, {"kb.chat.baseURL", url}, {"kb.chat.model", "m"}} {
		gittest.Git(t, dir, "config", kv[0], kv[1])
	}
	for _, args := range [][]string{{"index"}, {"search", "--json", "--rerank", "endpoint", "回滚"}, {"ask", "--no-stream", "回滚"}} {
		out, errs, _ := kb(t, dir, args...)
		if strings.Contains(out+errs, token) {
			t.Errorf("%s shows the credentials:\n%s%s", strings.Join(args, " "), out, errs)
		}
		if !strings.Contains(out+errs, "http://127.0.0.1:1/v1") {
			t.Errorf("%s does not name the endpoint:\n%s%s", strings.Join(args, " "), out, errs)
		}
	}
}
