package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/org"
	"github.com/git-kb/git-kb/org/orgtest"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/store"
)

// goSource is part of Go's own source: net/url and strings, without tests.
func goSource(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{"net/url", "strings"} {
		src := filepath.Join(runtime.GOROOT(), "src", dir)
		ents, err := os.ReadDir(src)
		if err != nil {
			t.Skipf("Go's source is not at %s: %v", src, err)
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[dir+"/"+e.Name()] = string(b)
		}
	}
	return out
}

// orgEngine makes a repository of files configured for the org index at
// url and opens its engine.
func orgEngine(t *testing.T, files map[string]string, url string, config ...string) (*Engine, string) {
	t.Helper()
	dir := gittest.New(t, files)
	gittest.Git(t, dir, "config", "kb.org.url", url)
	for i := 0; i+1 < len(config); i += 2 {
		gittest.Git(t, dir, "config", config[i], config[i+1])
	}
	return reopen(t, dir), dir
}

func reopen(t *testing.T, dir string) *Engine {
	t.Helper()
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	k, err := Open(context.Background(), repo, Options{Getenv: func(string) string { return "" }, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func orgPaths(r *search.Response) []string {
	var ps []string
	for _, x := range r.Results {
		ps = append(ps, x.Repo+" "+x.Path)
	}
	return ps
}

// TestOrgPublishAndSearch publishes two repositories (Chinese runbooks,
// and part of Go's source) to a real Weaviate and searches both: where
// the results are and what they cite, the filters, incremental
// republishing (nothing, one file, a deleted file), secrets, and a
// collection of another pipeline or layout refused.
func TestOrgPublishAndSearch(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	docFiles := map[string]string{}
	for p, s := range files {
		docFiles[p] = s
	}
	docFiles["docs/ops/keys.md"] = "# 密钥轮换\n\n测试环境的访问密钥：\n\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n\n每季度轮换一次。\n"
	docs, docsDir := orgEngine(t, docFiles, srv.URL, "kb.org.repo", "team/docs")
	gosrc, goDir := orgEngine(t, goSource(t), srv.URL)
	gittest.Git(t, goDir, "remote", "add", "origin", "https://ci:s3cret@github.com/golang/go.git")
	gosrc = reopen(t, goDir)
	if name, remote := gosrc.OrgRepoName(ctx); name != "golang/go" || remote != "https://github.com/golang/go.git" {
		t.Fatalf("repo name from origin: %q %q", name, remote)
	}

	var chunks [2]int
	for i, k := range []*Engine{docs, gosrc} {
		st, err := k.Publish(ctx, PublishRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if st.Chunks == 0 || st.Written != st.Chunks || st.Objects != st.Chunks || st.Deleted != 0 || st.WrittenFiles != st.Files {
			t.Fatalf("first publish of %s: %+v", st.Repo, st)
		}
		chunks[i] = st.Chunks
	}
	c, err := docs.OrgClient()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := c.Count(ctx, ""); err != nil || n != chunks[0]+chunks[1] {
		t.Fatalf("collection holds %d objects (%v), want %d", n, err, chunks[0]+chunks[1])
	}

	// Each repository's answer, cited at its commit, with the lines local
	// search gives.
	docsHead := gittest.Git(t, docsDir, "rev-parse", "HEAD")
	goHead := gittest.Git(t, goDir, "rev-parse", "HEAD")
	for _, tc := range []struct {
		k          *Engine
		query      string
		repo, path string
		head       string
	}{
		{docs, "发布失败后如何回滚", "team/docs", "docs/runbook/rollback.md", docsHead},
		{docs, "连接池 retry_count", "team/docs", "docs/adr/0001-connection-pool.md", docsHead},
		{gosrc, "ParseQuery", "golang/go", "net/url/url.go", goHead},
		{gosrc, "EqualFold", "golang/go", "strings/strings.go", goHead},
	} {
		r, err := gosrc.OrgSearch(ctx, OrgSearchRequest{Query: tc.query, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) == 0 || r.Results[0].Repo != tc.repo || r.Results[0].Path != tc.path || r.Results[0].Commit != tc.head {
			t.Fatalf("--org %q: %v, want %s %s first", tc.query, orgPaths(r), tc.repo, tc.path)
		}
		top := r.Results[0]
		local, err := tc.k.Search(ctx, SearchRequest{Request: search.Request{Query: tc.query, K: 20}})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, l := range local.Results {
			if l.Path == top.Path && l.StartLine == top.StartLine && l.EndLine == top.EndLine && l.Blob == top.Blob {
				found = true
				// The text is read for the results only: the same snippet.
				if l.Snippet != top.Snippet || fmt.Sprint(l.Highlights) != fmt.Sprint(top.Highlights) {
					t.Errorf("--org %q snippet %q %q, local %q %q", tc.query, top.Snippet, top.Highlights, l.Snippet, l.Highlights)
				}
			}
		}
		if !found {
			t.Errorf("--org %q cites %s, a chunk local search does not return", tc.query, top.Citation)
		}
		if want := OrgCitation(tc.repo, tc.head, tc.path, top.StartLine, top.EndLine); top.Citation != want {
			t.Errorf("citation %s, want %s", top.Citation, want)
		}
		if name, local, ok := ParseOrgCitation(top.Citation); !ok || name != tc.repo || !strings.HasPrefix(local, tc.head+":"+tc.path+"#L") {
			t.Errorf("ParseOrgCitation(%s) = %q %q %v", top.Citation, name, local, ok)
		}
		if top.Snippet == "" {
			t.Errorf("--org %q: no snippet", tc.query)
		}
	}

	// Filters run in Weaviate.
	for q, want := range map[string]string{
		"配置 repo:team/docs":          "team/docs",
		"string -repo:team/docs":     "golang/go",
		"string lang:go":             "golang/go",
		"发布 回滚 path:docs/runbook/":   "team/docs docs/runbook/rollback.md",
		"function path:strings/*.go": "golang/go strings/",
	} {
		r, err := docs.OrgSearch(ctx, OrgSearchRequest{Query: q, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Results) == 0 {
			t.Errorf("%q: no results", q)
		}
		for _, x := range r.Results {
			if !strings.HasPrefix(x.Repo+" "+x.Path, want) {
				t.Errorf("%q: %s %s does not match %q", q, x.Repo, x.Path, want)
			}
		}
	}

	// The MCP server's backend (hybrid_search with org: true).
	r0, err := NewShared(docs).OrgSearch(ctx, "发布失败后如何回滚", "docs/runbook/", "", 3)
	if err != nil || len(r0.Results) != 1 || r0.Results[0].Path != "docs/runbook/rollback.md" || r0.Results[0].Repo != "team/docs" {
		t.Fatalf("Shared.OrgSearch: %v %v", err, r0)
	}

	// The secret was redacted before it was published.
	hits, err := c.Search(ctx, org.Query{Terms: []string{"aws"}, Limit: 10, Filter: org.Filter{PathLike: []string{"docs/ops/keys.md"}}})
	if err != nil || len(hits) == 0 {
		t.Fatalf("keys.md: %v %d hits", err, len(hits))
	}
	for _, h := range hits {
		if strings.Contains(h.Text, "AKIAZ7Q3R5T2XK4M9P2L") || strings.Contains(h.Terms[0], "akiaz7q3r5t2xk4m9p2l") || !strings.Contains(h.Text, "[redacted: ") {
			t.Fatalf("published text of keys.md: %q", h.Text)
		}
	}

	// Narrowed to one repository, --org ranks as local search does: the
	// same stages over the candidates Weaviate returns, with the
	// repository's own statistics.
	for _, tc := range []struct {
		k     *Engine
		repo  string
		query string
	}{
		{docs, "team/docs", "发布失败后如何回滚"},
		{docs, "team/docs", "连接池 配置 超时"},
		{docs, "team/docs", "rollback 回滚 deploy"},
		{gosrc, "golang/go", "parse query string escape"},
		{gosrc, "golang/go", "字符串 大小写 比较"},
		{gosrc, "golang/go", "Builder grow buffer"},
	} {
		local, err := tc.k.Search(ctx, SearchRequest{Request: search.Request{Query: tc.query, K: 10, Mode: search.ModeLexical}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := docs.OrgSearch(ctx, OrgSearchRequest{Query: tc.query + " repo:" + tc.repo, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		var lp, op []string
		for _, x := range local.Results {
			lp = append(lp, x.Path+"#"+strconv.Itoa(x.StartLine))
		}
		for _, x := range r.Results {
			op = append(op, x.Path+"#"+strconv.Itoa(x.StartLine))
		}
		if strings.Join(lp, " ") != strings.Join(op, " ") {
			t.Errorf("%q: --org ranks\n%v\nlocal search\n%v", tc.query, op, lp)
		}
	}

	// Publishing again writes nothing.
	st, err := docs.Publish(ctx, PublishRequest{})
	if err != nil || st.Written != 0 || st.Deleted != 0 || st.Objects != chunks[0] {
		t.Fatalf("republish: %+v %v", st, err)
	}
	if n, err := c.Count(ctx, ""); err != nil || n != chunks[0]+chunks[1] {
		t.Fatalf("after republishing, %d objects (%v)", n, err)
	}

	// A one-file commit rewrites that file's chunks only.
	oldADR := docFiles["docs/adr/0001-connection-pool.md"]
	gittest.Commit(t, docsDir, "adr", map[string]string{"docs/adr/0001-connection-pool.md": oldADR + "\n## 监控\n\n连接池使用率超过八成时告警，值班同学检查慢查询日志。\n"})
	st, err = docs.Publish(ctx, PublishRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.WrittenFiles != 1 || st.DeletedFiles != 1 || st.Written < 1 || st.Deleted < 1 || st.Objects != chunks[0]-st.Deleted+st.Written || st.Objects != st.Chunks {
		t.Fatalf("one-file commit: %+v", st)
	}
	r, err := docs.OrgSearch(ctx, OrgSearchRequest{Query: "连接池使用率 告警", K: 3})
	if err != nil || len(r.Results) == 0 || r.Results[0].Path != "docs/adr/0001-connection-pool.md" || r.Results[0].Commit != gittest.Git(t, docsDir, "rev-parse", "HEAD") {
		t.Fatalf("the changed file at the new commit: %v %v", err, orgPaths(r))
	}

	// A deleted file disappears.
	gittest.Remove(t, docsDir, "rm", "README.md")
	if st, err = docs.Publish(ctx, PublishRequest{}); err != nil || st.WrittenFiles != 0 || st.DeletedFiles != 1 {
		t.Fatalf("deleting a file: %+v %v", st, err)
	}
	r, err = docs.OrgSearch(ctx, OrgSearchRequest{Query: "Demo service small tests", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range r.Results {
		if x.Repo == "team/docs" && x.Path == "README.md" {
			t.Fatalf("deleted README.md still found: %v", orgPaths(r))
		}
	}

	// Another pipeline's terms do not match ours: refused.
	other, err := org.Dial(org.Config{URL: srv.URL, Pipeline: index.PipelineVersion + 1})
	if err != nil {
		t.Fatal(err)
	}
	var mm *org.MismatchError
	if err := other.Ensure(ctx, true, org.Options{}, nil); !errors.As(err, &mm) || !strings.Contains(err.Error(), "pipeline") {
		t.Fatalf("another pipeline: %v", err)
	}
	// So is a collection git kb did not make.
	foreign := rawClass(t, srv.URL, "Foreign")
	gittest.Git(t, docsDir, "config", "kb.org.collection", foreign)
	if _, err := reopen(t, docsDir).Publish(ctx, PublishRequest{}); !errors.As(err, &mm) || !strings.Contains(err.Error(), "not made by git kb publish") {
		t.Fatalf("a foreign collection: %v", err)
	}
	if _, err := reopen(t, docsDir).OrgSearch(ctx, OrgSearchRequest{Query: "回滚"}); err == nil {
		t.Fatal("--org on a foreign collection answered")
	}
}

// rawClass makes a collection git kb did not make.
func rawClass(t *testing.T, url, name string) string {
	t.Helper()
	body := `{"class":"` + name + `","vectorizer":"none","properties":[{"name":"body","dataType":["text"]}]}`
	resp, err := http.Post(url+"/v1/schema", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("creating %s: HTTP %d", name, resp.StatusCode)
	}
	return name
}

// TestOrgEndpointDown: an endpoint that refuses or hangs is a clear error
// within the timeout, and local search still answers.
func TestOrgEndpointDown(t *testing.T) {
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer hang.Close()
	for _, url := range []string{closed, hang.URL} {
		k, _ := orgEngine(t, files, url, "kb.org.timeoutMs", "500")
		start := time.Now()
		_, err := k.OrgSearch(ctx, OrgSearchRequest{Query: "回滚"})
		if err == nil || !strings.Contains(err.Error(), "org endpoint "+url) {
			t.Fatalf("%s: %v", url, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%s: failed after %s", url, d)
		}
		if _, err := k.Publish(ctx, PublishRequest{}); err == nil || !strings.Contains(err.Error(), "org endpoint") {
			t.Fatalf("publish to %s: %v", url, err)
		}
		if r, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: "发布失败后如何回滚", K: 3}}); err != nil || len(r.Results) == 0 {
			t.Fatalf("local search with the org endpoint down: %v", err)
		}
	}
	k, _ := orgEngine(t, files, "")
	if _, err := k.OrgSearch(ctx, OrgSearchRequest{Query: "回滚"}); err == nil || !strings.Contains(err.Error(), "kb.org.url") {
		t.Fatalf("no kb.org.url: %v", err)
	}
}

func TestRepoNames(t *testing.T) {
	for remote, want := range map[string]string{
		"https://github.com/team/svc.git":        "team/svc",
		"git@gitlab.example.com:group/sub/x.git": "group/sub/x",
		"ssh://git@host:2222/a/b":                "a/b",
		"/srv/git/tools.git":                     "tools",
		"":                                       "",
	} {
		if got := repoFromRemote(cleanRemote(remote)); got != want {
			t.Errorf("%q: %q, want %q", remote, got, want)
		}
	}
	if got := cleanRemote("https://user:tok@github.com/a/b.git"); got != "https://github.com/a/b.git" {
		t.Errorf("credentials kept: %s", got)
	}
	if got := cleanRemote("deploy@host.example:a/b.git"); got != "host.example:a/b.git" {
		t.Errorf("scp-like: %s", got)
	}
	for _, p := range [][2]string{{"docs/", "docs docs/*"}, {"*.go", "*.go */*.go"}, {"docs/**/*.md", "docs/*.md"}} {
		if got := strings.Join(likePatterns([]string{p[0]}), " "); got != p[1] {
			t.Errorf("likePatterns(%s) = %s, want %s", p[0], got, p[1])
		}
	}
	for s, ok := range map[string]bool{"team/a@0123456789abcdef0123456789abcdef01234567:x.go#L1-L2": true, "HEAD:x.go": false, "HEAD@{1}:x.go": false, "a@HEAD:x.go": false} {
		if _, _, got := ParseOrgCitation(s); got != ok {
			t.Errorf("ParseOrgCitation(%s) = %v", s, got)
		}
	}
}

// TestOrgChunksOfHugeLines: a file of one huge line (a generated table)
// is many chunks; each is published with its own text, not the whole
// line (which stalled Weaviate's tokenizer for a minute per object).
func TestOrgChunksOfHugeLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nvar table = [...]byte{")
	for i := 0; b.Len() < 300<<10; i++ {
		fmt.Fprintf(&b, "0x%x, ", (i*2654435761)&0xff)
	}
	b.WriteString("}\n")
	af, skip := index.AnalyzeBlob(nil, "p/table.go", store.SHA{1}, []byte(b.String()))
	if af == nil {
		t.Fatalf("not analyzed: %s", skip)
	}
	chunks := OrgChunks(af, 0, "r", "", "c")
	if len(chunks) < 5 {
		t.Fatalf("%d chunks of a 300 KB line", len(chunks))
	}
	texts := map[string]bool{}
	for _, ch := range chunks {
		if len(ch.Text) > maxOrgText || ch.Text == "" {
			t.Fatalf("chunk %d: %d bytes of text", ch.Ordinal, len(ch.Text))
		}
		texts[ch.Text] = true
	}
	if len(texts) < len(chunks)/2 {
		t.Errorf("%d chunks share %d texts", len(chunks), len(texts))
	}
	// An ordinary file keeps its lines as they are.
	af, _ = index.AnalyzeBlob(nil, "docs/a.md", store.SHA{2}, []byte("# 标题\n\n第一段。\n"))
	if ch := OrgChunks(af, 0, "r", "", "c"); len(ch) != 1 || ch[0].Text != "# 标题\n\n第一段。" {
		t.Errorf("ordinary file: %+v", ch)
	}
}

// TestOrgChunksLeaveOutSummary: a page's front-matter summary is a field
// the org schema lacks: a word only the summary says is not published
// (no candidate in org search), one the text says too keeps its own
// counts.
func TestOrgChunksLeaveOutSummary(t *testing.T) {
	af, skip := index.AnalyzeBlob(nil, "pipelined-dml.md", store.SHA{3},
		[]byte("---\ntitle: Pipelined DML\nsummary: with Pipelined DML a transaction is unlimited by memory\n---\n# Pipelined DML\n\nUse it for a large transaction.\n"))
	if af == nil {
		t.Fatalf("not analyzed: %s", skip)
	}
	if tf := af.Chunks[0]["unlimited"]; tf[store.FieldAbout] == 0 {
		t.Fatalf("the index holds no summary field for unlimited: %v", tf)
	}
	ch := OrgChunks(af, 0, "r", "", "c")[0]
	for _, terms := range []string{ch.ChunkTerms, ch.FileTerms, strings.Join(ch.Terms[:], " ")} {
		if slices.Contains(strings.Fields(terms), "unlimited") {
			t.Errorf("a word only the summary says is published: %q", terms)
		}
	}
	if !slices.Contains(strings.Fields(ch.ChunkTerms), "transaction") || !slices.Contains(strings.Fields(ch.Terms[store.FieldBody]), "transaction") {
		t.Errorf("transaction (text and summary): chunk terms %q, body %q", ch.ChunkTerms, ch.Terms[store.FieldBody])
	}
}

// TestOrgPublishVectors: an embedded repository's chunks are published
// with their vectors (the model named in its statistics); vectors that
// appear after a publish are written by the next one, and a publish with
// nothing new writes nothing.
func TestOrgPublishVectors(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	k, dir := orgEngine(t, files, srv.URL, "kb.org.repo", "team/vec", "kb.embed.provider", "hash")
	if k.Dense == nil {
		t.Fatalf("dense off with the hash embedder: %s", k.Embed.Off)
	}
	// Indexed, not embedded yet: published without vectors.
	ist, err := IndexCommit(ctx, k.Repo, "HEAD", Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := k.Publish(ctx, PublishRequest{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := k.OrgClient()
	if err != nil {
		t.Fatal(err)
	}
	rs, _, err := c.Stats(ctx, "team/vec")
	if err != nil || rs.Vectors != 0 || rs.Model != "" || st.Written != st.Chunks {
		t.Fatalf("publish before embedding: %+v, stats %+v (%v)", st, rs, err)
	}
	if n := vectorObjects(t, srv.URL, c.Collection()); n != 0 {
		t.Fatalf("%d objects with vectors before embedding", n)
	}
	// No vectors published: an org search with an embedder here is
	// lexical, and says why.
	r, err := k.OrgSearch(ctx, OrgSearchRequest{Query: "发布失败后如何回滚", K: 4})
	if err != nil || r.Mode != search.ModeLexical || !strings.Contains(r.Degraded, "no vectors published") || len(r.Results) == 0 {
		t.Fatalf("org search before vectors: %v %+v", err, r)
	}
	// Ranked as a lexical search is, with the same statistics.
	lex, err := k.OrgSearch(ctx, OrgSearchRequest{Query: "发布失败后如何回滚", K: 4, Mode: search.ModeLexical, Explain: true})
	r2, err2 := k.OrgSearch(ctx, OrgSearchRequest{Query: "发布失败后如何回滚", K: 4, Explain: true})
	if err != nil || err2 != nil || len(lex.Results) != len(r2.Results) || lex.Results[0].Score != r2.Results[0].Score {
		t.Fatalf("lexical %v %+v, hybrid fallen back %v %+v", err, lex, err2, r2)
	}
	// Embedded now: the next publish writes the vectors.
	if err := EmbedAfterIndex(ctx, k.Repo, k.Embed, ist, "sync", Options{}); err != nil {
		t.Fatal(err)
	}
	k = reopen(t, dir)
	st2, err := k.Publish(ctx, PublishRequest{})
	if err != nil {
		t.Fatal(err)
	}
	rs, _, err = c.Stats(ctx, "team/vec")
	if err != nil || st2.Written != st.Chunks || rs.Vectors != st.Chunks || rs.Model != OrgModel(k.Dense.Embedder.ID()) || rs.Dim == 0 {
		t.Fatalf("publish after embedding: %+v, stats %+v (%v)", st2, rs, err)
	}
	if n := vectorObjects(t, srv.URL, c.Collection()); n != st.Chunks {
		t.Fatalf("%d objects with vectors, want %d", n, st.Chunks)
	}
	// Nothing changed: nothing written.
	st3, err := k.Publish(ctx, PublishRequest{})
	if err != nil || st3.Written != 0 || st3.Deleted != 0 || st3.Objects != st.Chunks {
		t.Fatalf("republish: %+v (%v)", st3, err)
	}

	// Hybrid: the query embedded here, Weaviate's nearest chunks fused
	// with the lexical side as local hybrid search fuses its own.
	const query = "发布失败后如何回滚"
	local, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: query, K: 4, Mode: search.ModeHybrid}})
	if err != nil || local.Mode != search.ModeHybrid {
		t.Fatalf("local hybrid: %v %+v", err, local)
	}
	for _, fusion := range []string{"", search.FusionRRF} {
		r, err := k.OrgSearch(ctx, OrgSearchRequest{Query: query, K: 4, Fusion: fusion})
		want := fusion
		if want == "" {
			want = OrgFusionWeaviate
		}
		if err != nil || r.Mode != search.ModeHybrid || r.Fusion != want || r.Degraded != "" || r.Dense == nil ||
			r.Dense.Model != OrgModel(k.Dense.Embedder.ID()) || r.Dense.Vectors != st.Chunks || len(r.Results) == 0 ||
			r.Results[0].Path != "docs/runbook/rollback.md" || r.Results[0].Repo != "team/vec" {
			t.Fatalf("org hybrid (%s): %v %+v %v", want, err, r, orgPaths(r))
		}
		if fusion == search.FusionRRF && fmt.Sprint(paths(r)) != fmt.Sprint(paths(local)) {
			t.Errorf("org hybrid ranks %v, local hybrid %v", paths(r), paths(local))
		}
	}
	r, err = k.OrgSearch(ctx, OrgSearchRequest{Query: query, K: 4, Mode: search.ModeDense})
	if err != nil || r.Mode != search.ModeDense || len(r.Results) == 0 || r.Results[0].DenseRank != 1 {
		t.Fatalf("org dense: %v %+v", err, r)
	}

	// Another repository's vectors of another model with the same
	// dimension (its statistics say so): refused, that repository
	// searched lexically only, the dense side kept to this one's.
	otherFiles := map[string]string{"ops/rollback.md": "# 回滚\n\n发布失败后回滚到上一个版本。\n"}
	other, otherDir := orgEngine(t, otherFiles, srv.URL, "kb.org.repo", "team/other", "kb.embed.provider", "hash")
	ost, err := IndexCommit(ctx, other.Repo, "HEAD", Options{})
	if err == nil {
		err = EmbedAfterIndex(ctx, other.Repo, other.Embed, ost, "sync", Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reopen(t, otherDir).Publish(ctx, PublishRequest{}); err != nil {
		t.Fatal(err)
	}
	ors, _, err := c.Stats(ctx, "team/other")
	if err != nil || ors.Vectors == 0 {
		t.Fatalf("team/other published no vectors: %+v %v", ors, err)
	}
	ors.Model = "bge-m3|input-v1"
	if err := c.WriteStats(ctx, "team/other", ors); err != nil {
		t.Fatal(err)
	}
	// Weaviate's fusion cannot leave them out: lexical, said so.
	r, err = k.OrgSearch(ctx, OrgSearchRequest{Query: query, K: 4})
	if err != nil || r.Mode != search.ModeLexical || !strings.Contains(r.Degraded, "team/other (bge-m3") || !strings.Contains(r.Degraded, "answered lexically") {
		t.Fatalf("org hybrid (Weaviate's fusion) beside another model: %v %+v", err, r)
	}
	r, err = k.OrgSearch(ctx, OrgSearchRequest{Query: query, K: 4, Fusion: search.FusionRRF})
	if err != nil || r.Mode != search.ModeHybrid || !strings.Contains(r.Degraded, "team/other (bge-m3") || !strings.Contains(r.Degraded, "searched lexically only") {
		t.Fatalf("org hybrid beside another model: %v %+v", err, r)
	}
	repos := map[string]bool{}
	for _, x := range r.Results {
		repos[x.Repo] = true
		if x.DenseRank > 0 && x.Repo != "team/vec" {
			t.Errorf("a vector of another model was compared with the query: %+v", x)
		}
	}
	if !repos["team/other"] || !repos["team/vec"] {
		t.Errorf("both repositories should be found (one lexically): %v", orgPaths(r))
	}
	// An embedder of another dimension here: every published vector
	// refused, the answer lexical; publishing its vectors is refused too
	// (a collection holds one dimension), its chunks published without.
	small, smallDir := orgEngine(t, otherFiles, srv.URL, "kb.org.repo", "team/small", "kb.embed.provider", "hash", "kb.embed.dimensions", "128")
	r, err = small.OrgSearch(ctx, OrgSearchRequest{Query: query + " repo:team/vec", K: 4})
	if err != nil || r.Mode != search.ModeLexical || !strings.Contains(r.Degraded, "team/vec (hash-v2/512") || len(r.Results) == 0 {
		t.Fatalf("org search of another dimension's vectors only: %v %+v", err, r)
	}
	sst, err := IndexCommit(ctx, small.Repo, "HEAD", Options{})
	if err == nil {
		err = EmbedAfterIndex(ctx, small.Repo, small.Embed, sst, "sync", Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reopen(t, smallDir).Publish(ctx, PublishRequest{}); err != nil {
		t.Fatalf("publishing vectors of another dimension: %v", err)
	}
	if srs, ok, err := c.Stats(ctx, "team/small"); err != nil || !ok || srs.Vectors != 0 || srs.Chunks == 0 {
		t.Fatalf("team/small: %+v %v %v", srs, ok, err)
	}
	// No embedder here: lexical, and an explicit hybrid says why.
	plain, _ := orgEngine(t, map[string]string{"a.md": "# a\n"}, srv.URL)
	if r, err = plain.OrgSearch(ctx, OrgSearchRequest{Query: query, K: 4}); err != nil || r.Mode != search.ModeLexical || r.Degraded != "" {
		t.Fatalf("org search without an embedder: %v %+v", err, r)
	}
	if r, err = plain.OrgSearch(ctx, OrgSearchRequest{Query: query, K: 4, Mode: search.ModeHybrid}); err != nil || r.Mode != search.ModeLexical || !strings.Contains(r.Degraded, "no embedder") {
		t.Fatalf("org hybrid without an embedder: %v %+v", err, r)
	}
}

// vectorObjects counts the collection's objects that carry a vector
// (statistics objects have none).
func vectorObjects(t *testing.T, url, class string) int {
	t.Helper()
	return vectorObjectsOf(t, url, class, "")
}

// vectorObjectsOf counts repo's objects that carry a vector ("": every
// repository's).
func vectorObjectsOf(t *testing.T, url, class, repo string) int {
	t.Helper()
	resp, err := http.Get(url + "/v1/objects?class=" + class + "&include=vector&limit=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Objects []struct {
			Vector     []float32 `json:"vector"`
			Properties struct {
				Repo string `json:"repo"`
			} `json:"properties"`
		} `json:"objects"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range r.Objects {
		if len(o.Vector) > 0 && (repo == "" || o.Properties.Repo == repo) {
			n++
		}
	}
	return n
}

// TestOrgRankSharedBlob: the same file published by two repositories,
// with other chunks of it found in each (Weaviate's hybrid ranking returns
// chunks, not files), ranks both copies with their own lines. The
// searcher keeps one chunk list per blob: each copy must carry all of them
// (a copy with fewer once made the other's chunk "missing from its
// metadata").
func TestOrgRankSharedBlob(t *testing.T) {
	blob := strings.Repeat("ab", 20)
	chunk := func(repo string, ord int) org.Chunk {
		text := fmt.Sprintf("回滚 步骤 %d\n第二行", ord)
		return org.Chunk{Repo: repo, Commit: strings.Repeat("c", 40), Blob: blob, Path: "docs/rollback.md", Ordinal: ord,
			Start: 1 + 2*ord, End: 2 + 2*ord, Title: "回滚", Lang: "markdown", Text: text,
			Terms: [4]string{"回滚 步骤", "", "docs rollback md", ""}, BodyLen: 2, FileLen: 6}
	}
	a0, a2, b2 := chunk("team/a", 0), chunk("team/a", 2), chunk("team/b", 2)
	for _, fused := range []string{OrgFusionWeaviate, ""} {
		dense := &orgDense{model: "m", vectors: 6, chunks: 6, fused: fused, hits: []org.Hit{{Chunk: b2, Score: 0.9}, {Chunk: a0, Score: 0.8}}}
		q, err := search.ParseQuery("回滚 步骤")
		if err != nil {
			t.Fatal(err)
		}
		req := search.Request{Query: "回滚 步骤", Parsed: q, K: 10, PerFile: 1, Mode: search.ModeHybrid, Fusion: search.FusionRRF}
		corpus := &org.Corpus{Repos: map[string]org.RepoStats{"team/a": {Chunks: 3, Files: 1, BodyLen: 6}, "team/b": {Chunks: 3, Files: 1, BodyLen: 6}},
			DF: map[string]int{"回滚": 6, "步骤": 6}, FileDF: map[string]int{"回滚": 2, "步骤": 2}}
		r, err := orgRank(context.Background(), req, &search.Response{Results: []search.Result{}}, corpus, []org.Chunk{a2}, dense, nil, nil, time.Now())
		if err != nil {
			t.Fatalf("fusion %q: %v", fused, err)
		}
		got := map[string]string{}
		for _, x := range r.Results {
			got[x.Repo] = x.Citation
		}
		if len(got) != 2 || !strings.HasPrefix(got["team/a"], "team/a@") || !strings.HasPrefix(got["team/b"], "team/b@") ||
			!strings.HasSuffix(got["team/a"], "#L1-L2") || !strings.HasSuffix(got["team/b"], "#L5-L6") {
			t.Errorf("fusion %q: %v", fused, got)
		}
	}
}

// A repository whose embedder changed dimension publishes again: the
// collection's vector index keeps the dimension of its first vectors
// (even once they are deleted), which the statistics objects do not
// always tell (this repository's own, or a deleted repository's), and
// refuses the new ones. The chunks are then published without vectors,
// said so, instead of failing every publish ("publish again to go on").
func TestOrgPublishDimensionChange(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	k, dir := orgEngine(t, files, srv.URL, "kb.org.repo", "team/vec", "kb.embed.provider", "hash")
	embedded := func() *Engine {
		t.Helper()
		ist, err := IndexCommit(ctx, k.Repo, "HEAD", Options{})
		if err == nil {
			err = EmbedAfterIndex(ctx, k.Repo, k.Embed, ist, "sync", Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		repo, err := gitx.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		k, err := Open(ctx, repo, Options{Getenv: func(string) string { return "" }, Version: "test",
			Note: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { t.Log(notes) })
		return k
	}
	k = embedded()
	if _, err := k.Publish(ctx, PublishRequest{}); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "config", "kb.embed.dimensions", "128")
	k = reopen(t, dir)
	k = embedded()
	st, err := k.Publish(ctx, PublishRequest{})
	if err != nil {
		t.Fatalf("publish after a change of dimension: %v", err)
	}
	c, err := k.OrgClient()
	if err != nil {
		t.Fatal(err)
	}
	rs, _, err := c.Stats(ctx, "team/vec")
	if err != nil || rs.Vectors != 0 || rs.Dim != 0 || st.Objects != st.Chunks {
		t.Fatalf("published %+v, statistics %+v (%v)", st, rs, err)
	}
	r, err := k.OrgSearch(ctx, OrgSearchRequest{Query: "发布失败后如何回滚", K: 4})
	if err != nil || r.Mode != search.ModeLexical || len(r.Results) == 0 || r.Results[0].Path != "docs/runbook/rollback.md" {
		t.Fatalf("org search: %v %+v", err, r)
	}
}

// TestOrgPublishStaleVectors: a repository whose vectors can no longer be
// published as they were (another dimension than the collection's, or no
// embedder any more) keeps none of its old vectors in Weaviate, where its
// statistics say it has none: its files are written again without them
// (before, the files the commit did not change kept them, and Weaviate's
// hybrid and nearVector queries scored them).
func TestOrgPublishStaleVectors(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	embedded := func(dir string) *Engine {
		t.Helper()
		k := reopen(t, dir)
		ist, err := IndexCommit(ctx, k.Repo, "HEAD", Options{})
		if err == nil && k.Embed != nil {
			err = EmbedAfterIndex(ctx, k.Repo, k.Embed, ist, "sync", Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		return reopen(t, dir)
	}
	_, dirA := orgEngine(t, files, srv.URL, "kb.org.repo", "team/a", "kb.embed.provider", "hash")
	_, dirB := orgEngine(t, map[string]string{"ops/rollback.md": "# 回滚\n\n发布失败后回滚到上一个版本。\n", "ops/scale.md": "# 扩容\n\n流量高峰前扩容。\n"},
		srv.URL, "kb.org.repo", "team/b", "kb.embed.provider", "hash")
	publish := func(dir string) *PublishStats {
		t.Helper()
		st, err := embedded(dir).Publish(ctx, PublishRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	a, b := publish(dirA), publish(dirB)
	c, err := reopen(t, dirA).OrgClient()
	if err != nil {
		t.Fatal(err)
	}
	if na, nb := vectorObjectsOf(t, srv.URL, c.Collection(), "team/a"), vectorObjectsOf(t, srv.URL, c.Collection(), "team/b"); na != a.Chunks || nb != b.Chunks {
		t.Fatalf("vectors published: team/a %d of %d, team/b %d of %d", na, a.Chunks, nb, b.Chunks)
	}
	// team/b re-embedded with 128 dimensions while team/a's are 512:
	// published without vectors, and none of its 512 are left.
	gittest.Git(t, dirB, "config", "kb.embed.dimensions", "128")
	b2 := publish(dirB)
	rs, _, err := c.Stats(ctx, "team/b")
	if err != nil || rs.Vectors != 0 || b2.Objects != b.Chunks {
		t.Fatalf("team/b at 128 dims: %+v, statistics %+v (%v)", b2, rs, err)
	}
	if n := vectorObjectsOf(t, srv.URL, c.Collection(), "team/b"); n != 0 {
		t.Errorf("team/b's statistics say no vectors, Weaviate holds %d of its old ones", n)
	}
	// Nothing changed since: nothing written.
	if b3 := publish(dirB); b3.Written != 0 {
		t.Errorf("publish again: %+v", b3)
	}
	// team/a without an embedder now: its vectors go too.
	gittest.Git(t, dirA, "config", "kb.embed.provider", "off")
	a2 := publish(dirA)
	if rs, _, err := c.Stats(ctx, "team/a"); err != nil || rs.Vectors != 0 || a2.Written != a.Chunks {
		t.Fatalf("team/a without an embedder: %+v, statistics %+v (%v)", a2, rs, err)
	}
	if n := vectorObjects(t, srv.URL, c.Collection()); n != 0 {
		t.Errorf("%d objects keep vectors no statistics count", n)
	}
}

// TestOrgCommonWordFileDF: a query whose added word is common (读取 adds
// read, held by most files here) ranks in the org index as local search
// ranks it. Local search adds a common added word only to chunks the
// query's other words found and counts its files among theirs; the org
// search counted it in every file of the collection, a lower weight on
// each file's own BM25F (the "file" part of --explain), which reordered
// Go's source at the tail of the top 10.
func TestOrgCommonWordFileDF(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	fs := map[string]string{
		"csvio/reader.go": "package csvio\n\n// Reader 读取 CSV 字段, read quoted fields.\nfunc Read() {}\n",
		"csvio/writer.go": "package csvio\n\n// Writer writes CSV fields.\nfunc Write() {}\n",
		"table/field.go":  "package table\n\n// 读取 a field; read it again.\nfunc Field() {}\n",
		"table/row.go":    "package table\n\n// Row holds fields.\nfunc Row() {}\n",
	}
	for i := range 540 {
		fs[fmt.Sprintf("pkg/f%03d.go", i)] = fmt.Sprintf("package pkg\n\n// F%d reads the input: read, then parse.\nfunc F%d() {}\n", i, i)
	}
	k, _ := orgEngine(t, fs, srv.URL, "kb.org.repo", "team/common")
	if _, err := k.Publish(ctx, PublishRequest{}); err != nil {
		t.Fatal(err)
	}
	const query = "读取 CSV 字段"
	// The top 3: the fourth, table/row.go, has only 字段's translation
	// (field), and Weaviate's BM25 over every term of the query ranks the
	// 540 files saying read above it, so it is not among the org search's
	// candidates (README: what is left of the overlap on Go's source).
	local, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: query, K: 3, Mode: search.ModeLexical, Explain: true}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := k.OrgSearch(ctx, OrgSearchRequest{Query: query, K: 3, Mode: search.ModeLexical, Explain: true})
	parts := func(r *search.Response) string {
		var out []string
		for _, x := range r.Results {
			out = append(out, fmt.Sprintf("%s file %.4f score %.4f", x.Path, x.Explain.File, x.Score))
		}
		return strings.Join(out, "\n")
	}
	if len(local.Results) != 3 || parts(r) != parts(local) {
		t.Fatalf("org search:\n%s\nlocal search:\n%s", parts(r), parts(local))
	}
}

// TestOrgOverviewPrior: a Markdown page that links to more pages than
// link to it gets local search's overview prior in an org search too (its
// in-links counted in the org index), and a page linked to as much as it
// links out none.
func TestOrgOverviewPrior(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	fs := map[string]string{
		"docs/overview.md": "# 回滚总览\n\n回滚的步骤见 [回滚](rollback.md)、[扩容](scale.md)、[发布](deploy.md) 和 [监控](monitor.md)。\n",
		"docs/rollback.md": "# 回滚\n\n发布失败后回滚到上一个版本，见 [发布](deploy.md)。\n",
		"docs/deploy.md":   "# 发布\n\n发布前检查，失败时回滚，见 [回滚](rollback.md)。\n",
		"docs/scale.md":    "# 扩容\n\n流量高峰前扩容。\n",
		"docs/monitor.md":  "# 监控\n\n回滚后看监控。\n",
		"other/deploy.md":  "# 另一个发布\n\n与回滚无关的同名文件。\n",
	}
	k, _ := orgEngine(t, fs, srv.URL, "kb.org.repo", "team/links")
	if _, err := k.Publish(ctx, PublishRequest{}); err != nil {
		t.Fatal(err)
	}
	const query = "回滚"
	local, err := k.Search(ctx, SearchRequest{Request: search.Request{Query: query, K: 6, Mode: search.ModeLexical, Explain: true}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := k.OrgSearch(ctx, OrgSearchRequest{Query: query, K: 6, Mode: search.ModeLexical, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	priors := func(r *search.Response) string {
		var out []string
		for _, x := range r.Results {
			out = append(out, fmt.Sprintf("%s %v", x.Path, x.Priors))
		}
		return strings.Join(out, "\n")
	}
	if !strings.Contains(priors(local), "overview") || priors(r) != priors(local) {
		t.Fatalf("org search:\n%s\nlocal search:\n%s", priors(r), priors(local))
	}
}

// TestOrgPublishDryRun: a dry run writes nothing and counts what a publish
// would write, also against an endpoint without the collection yet
// (everything, and the collection created).
func TestOrgPublishDryRun(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	k, dir := orgEngine(t, files, srv.URL, "kb.org.repo", "team/dry")
	st, err := k.Publish(ctx, PublishRequest{DryRun: true})
	if err != nil || !st.DryRun || !st.CreatesCollection || st.Written != st.Chunks || st.Chunks == 0 || st.WrittenFiles != st.Files || st.Objects != 0 {
		t.Fatalf("dry run without a collection: %+v (%v)", st, err)
	}
	c, err := k.OrgClient()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ensure(ctx, false, org.Options{}, nil); !errors.Is(err, org.ErrNoCollection) {
		t.Fatalf("a dry run made the collection (or: %v)", err)
	}
	full, err := k.Publish(ctx, PublishRequest{})
	if err != nil || full.Written != st.Written {
		t.Fatalf("publish after the dry run: %+v (%v), the dry run said %d", full, err, st.Written)
	}
	gittest.Commit(t, dir, "edit", map[string]string{"docs/runbook/rollback.md": "# 回滚\n\n先暂停发布，再回滚。\n"})
	k = reopen(t, dir)
	st, err = k.Publish(ctx, PublishRequest{DryRun: true})
	if err != nil || st.CreatesCollection || st.WrittenFiles != 1 || st.Written == 0 || st.Objects != full.Objects {
		t.Fatalf("dry run of a one-file commit: %+v (%v)", st, err)
	}
	if n, err := c.Count(ctx, "team/dry"); err != nil || n != full.Objects {
		t.Fatalf("the dry run wrote: %d objects, %d before (%v)", n, full.Objects, err)
	}
}

// A secret in an org search's query (a key pasted from a log) does not
// reach Weaviate: the query is redacted before its terms are sent, as
// the published text was.
func TestOrgQuerySecretRedacted(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	proxy, sent := recordingProxy(t, srv.URL)
	docFiles := map[string]string{"docs/ops/keys.md": "# 密钥轮换\n\n测试环境的访问密钥：\n\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n\n每季度轮换一次。\n"}
	k, _ := orgEngine(t, docFiles, proxy, "kb.org.repo", "team/docs")
	if _, err := k.Publish(ctx, PublishRequest{}); err != nil {
		t.Fatal(err)
	}
	r, err := k.OrgSearch(ctx, OrgSearchRequest{Query: "访问密钥 AKIAIOSFODNN7EXAMPLE 轮换", K: 4})
	if err != nil || len(r.Results) == 0 || r.Results[0].Path != "docs/ops/keys.md" {
		t.Fatalf("org search: %v %+v", err, r)
	}
	for _, s := range sent() {
		if strings.Contains(strings.ToLower(s), "akiaiosfodnn7example") || strings.Contains(strings.ToLower(s), "iosfodnn7") {
			t.Errorf("the query's secret was sent to Weaviate: %s", s)
		}
	}
}

// TestOrgCountsUnavailable: a replicated collection with a node down
// refuses Weaviate's aggregations (they read at a quorum of each shard,
// and shards then resolve to quorums of one and of two), while searches
// read at consistency ONE. --org still answers, ranked by the
// candidates' own counts, and says so. The node down is played by a
// proxy that answers every aggregation with Weaviate's error
// (bench/weaviate_cluster.sh stops a real node).
func TestOrgCountsUnavailable(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "Aggregate") && strings.Contains(string(b), "meta") && !strings.Contains(string(b), "Not") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data":{},"errors":[{"message":"inconsistent consistency levels: shard A resolved to 1, shard B resolved to 2"}]}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	docFiles := map[string]string{
		"runbooks/rollback.md": "# 发布回滚\n\n发布失败后，先回滚到上一个版本，再排查原因。\n",
		"runbooks/oncall.md":   "# 值班\n\n值班同学负责告警响应。\n",
	}
	k, dir := orgEngine(t, docFiles, srv.URL, "kb.org.repo", "team/docs")
	if _, err := k.Publish(ctx, PublishRequest{}); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "config", "kb.org.url", proxy.URL)
	k = reopen(t, dir)
	r, err := k.OrgSearch(ctx, OrgSearchRequest{Query: "发布失败 回滚", K: 4, Mode: search.ModeLexical})
	if err != nil || len(r.Results) == 0 || r.Results[0].Path != "runbooks/rollback.md" {
		t.Fatalf("org search with the counts refused: %v %+v", err, r)
	}
	if !strings.Contains(r.Degraded, "document frequencies could not be counted") {
		t.Errorf("degraded does not say the counts were refused: %q", r.Degraded)
	}
}

// recordingProxy is a proxy in front of the Weaviate at backend that records
// every request (URL and body); sent returns them.
func recordingProxy(t *testing.T, backend string) (proxyURL string, sent func() []string) {
	t.Helper()
	var mu sync.Mutex
	var reqs []string
	target, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, r.URL.String()+" "+string(b))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	return proxy.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), reqs...)
	}
}

// TestOrgAlpha: kb.org.alpha is the weight Weaviate's hybrid fusion is
// asked for, OrgSearchRequest.Alpha (--alpha) overrides it for one search,
// and a weight outside 0..1 is refused before anything is sent.
func TestOrgAlpha(t *testing.T) {
	srv := orgtest.Start(t)
	ctx := context.Background()
	proxy, sent := recordingProxy(t, srv.URL)
	k, dir := orgEngine(t, files, proxy, "kb.org.repo", "team/alpha", "kb.embed.provider", "hash", "kb.org.alpha", "0.6")
	ist, err := IndexCommit(ctx, k.Repo, "HEAD", Options{})
	if err == nil {
		err = EmbedAfterIndex(ctx, k.Repo, k.Embed, ist, "sync", Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	k = reopen(t, dir)
	if _, err := k.Publish(ctx, PublishRequest{}); err != nil {
		t.Fatal(err)
	}
	hybrid := func(alpha *float64) (*search.Response, []string) {
		t.Helper()
		n := len(sent())
		r, err := k.OrgSearch(ctx, OrgSearchRequest{Query: "发布失败后如何回滚", K: 4, Alpha: alpha})
		if err != nil || r.Mode != search.ModeHybrid || r.Fusion != OrgFusionWeaviate || len(r.Results) == 0 {
			t.Fatalf("org hybrid (alpha %v): %v %+v", alpha, err, r)
		}
		var alphas []string
		for _, s := range sent()[n:] {
			for _, m := range regexp.MustCompile(`alpha: ?([0-9.e-]+)`).FindAllStringSubmatch(s, -1) {
				alphas = append(alphas, m[1])
			}
		}
		return r, alphas
	}
	if _, got := hybrid(nil); fmt.Sprint(got) != "[0.6]" {
		t.Errorf("kb.org.alpha 0.6: Weaviate was asked for alpha %v", got)
	}
	zero, one := 0.0, 1.0
	bm25, got := hybrid(&zero)
	if fmt.Sprint(got) != "[0]" {
		t.Errorf("alpha 0: Weaviate was asked for alpha %v", got)
	}
	vec, got := hybrid(&one)
	if fmt.Sprint(got) != "[1]" {
		t.Errorf("alpha 1: Weaviate was asked for alpha %v", got)
	}
	// BM25 alone and vectors alone rank by different evidence: their
	// results score differently (each side's best is 1 in Weaviate's
	// relative-score fusion; the others differ).
	scores := func(r *search.Response) string {
		var out []string
		for _, x := range r.Results {
			out = append(out, fmt.Sprintf("%s %.4f", x.Path, x.Score))
		}
		return strings.Join(out, ", ")
	}
	if scores(bm25) == scores(vec) {
		t.Errorf("alpha 0 and 1 scored alike (%s): the weight did not reach the fusion", scores(bm25))
	}
	n := len(sent())
	bad := 1.5
	if _, err := k.OrgSearch(ctx, OrgSearchRequest{Query: "回滚", Alpha: &bad}); err == nil || !strings.Contains(err.Error(), "0 (BM25 only) to 1") {
		t.Errorf("alpha 1.5: %v", err)
	}
	if len(sent()) != n {
		t.Errorf("alpha 1.5 was sent to Weaviate")
	}
}

// TestMain stops the Weaviate server the org tests share (orgtest.Start).
func TestMain(m *testing.M) {
	code := m.Run()
	orgtest.StopShared()
	os.Exit(code)
}

// TestOrgRemoteCredentialsDropped: origin's credentials never reach the
// remote field published with every chunk, also when Go's URL parser
// refuses the URL (a password with a bare %, a space or a #).
func TestOrgRemoteCredentialsDropped(t *testing.T) {
	_, dir, _ := open(t)
	for raw, want := range map[string]string{
		"https://ci:Zq8%zzKp2w@git.example.com/team/svc.git":       "https://git.example.com/team/svc.git",
		"https://oauth2:glpat-Zq8 Kp2w@gitlab.example.com/a/b.git": "https://gitlab.example.com/a/b.git",
		"https://ci:Zq8#Kp2w@git.example.com/team/svc.git":         "https://git.example.com/team/svc.git",
		"https://ci:s3cret@github.com/golang/go.git":               "https://github.com/golang/go.git",
	} {
		gittest.Git(t, dir, "config", "remote.origin.url", raw)
		name, remote := reopen(t, dir).OrgRepoName(context.Background())
		if remote != want || strings.Contains(name, "Zq8") {
			t.Errorf("%s: published as %q, remote %q; want remote %q", raw, name, remote, want)
		}
	}
}
