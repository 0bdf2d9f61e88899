package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/search"
	"github.com/git-kb/git-kb/share"
)

// shareSetup makes a bare remote holding a repository of docs and two
// clones of it: a (which indexes and pushes) and b (which pulls).
func shareSetup(t *testing.T, files map[string]string) (remote, a, b string) {
	t.Helper()
	src := gittest.New(t, files)
	remote = filepath.Join(t.TempDir(), "remote.git")
	gittest.Git(t, src, "clone", "-q", "--bare", src, remote)
	a, b = filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	gittest.Git(t, src, "clone", "-q", remote, a)
	gittest.Git(t, src, "clone", "-q", remote, b)
	// Fetched objects stay in packs (as in any real fetch of some size),
	// which a reader that cached the pack list would miss.
	gittest.Git(t, b, "config", "fetch.unpackLimit", "1")
	return remote, a, b
}

type pullJSON struct {
	share.PullResult
	Index *index.Stats `json:"index"`
}

var shareQueries = []string{"回滚", "数据库连接池", "retry count", "发布失败 错误率", "maxOpenConns"}

// sameResults checks that two search responses rank the same chunks with
// scores equal within float rounding.
func sameResults(t *testing.T, q string, x, y search.Response) {
	t.Helper()
	if len(x.Results) != len(y.Results) {
		t.Fatalf("%q: %d results vs %d", q, len(x.Results), len(y.Results))
	}
	for i := range x.Results {
		rx, ry := x.Results[i], y.Results[i]
		if rx.Citation != ry.Citation || rx.Snippet != ry.Snippet || math.Abs(rx.Score-ry.Score) > 1e-6*math.Max(1, math.Abs(rx.Score)) {
			t.Fatalf("%q rank %d: %s %.6f vs %s %.6f", q, i+1, rx.Citation, rx.Score, ry.Citation, ry.Score)
		}
	}
}

func TestPushPullTwoClones(t *testing.T) {
	files := map[string]string{}
	for k, v := range docs {
		files[k] = v
	}
	files["config/.env"] = "DB_PASSWORD=hunter2hunter2\n"
	files[".kbignore"] = "drafts/\n"
	files["drafts/secret-plan.md"] = "# 草稿\n\n还没写完的回滚方案。\n"
	files["deploy/notes.md"] = "# 部署备忘\n\n回滚时用这个令牌：ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n"
	remote, a, b := shareSetup(t, files)

	// Nothing to push before indexing: a clear error.
	if _, errs, code := kb(t, a, "push"); code != 1 || !strings.Contains(errs, "git kb index") {
		t.Fatalf("push before index: exit %d %s", code, errs)
	}
	indexJSON(t, a, "--embed", "off")
	var pr share.PushResult
	kbJSON(t, a, &pr, "push", "--json", "origin")
	if len(pr.Views) != 1 || pr.Views[0].Ref != "refs/kb/1/heads/main" || pr.Views[0].Exported == 0 || pr.Views[0].Reused != 0 {
		t.Fatalf("first push: %+v", pr)
	}
	if pr.Views[0].Withheld != 1 {
		t.Errorf("the file with a redacted token must be withheld: %+v", pr.Views[0])
	}
	// The remote has the ref; nothing of the skipped or withheld files.
	tree := gittest.Git(t, remote, "ls-tree", "-r", "--name-only", "refs/kb/1/heads/main")
	for _, p := range []string{"config/.env", "drafts/secret-plan.md", "deploy/notes.md"} {
		blob := gittest.Git(t, a, "rev-parse", "HEAD:"+p)
		if strings.Contains(tree, blob[:2]+"/"+blob[2:]) {
			t.Errorf("%s was pushed", p)
		}
	}

	// b pulls: searchable at once, and identical to a's own index.
	var pl pullJSON
	kbJSON(t, b, &pl, "pull", "--json")
	if !pl.Exact || pl.Imported != pr.Views[0].Blobs || pl.Index == nil || pl.Index.BlobsNew != 1 {
		t.Fatalf("pull: %+v index %+v", pl.PullResult, pl.Index)
	}
	// The pull recorded the policy its records were made under: the
	// view is served, not rebuilt as one of unknown policy.
	if _, err := os.Stat(filepath.Join(b, ".git", "kb", "secrets-policy")); err != nil {
		t.Errorf("no secrets policy recorded by the pull: %v", err)
	}
	if _, errs, code := kb(t, b, "search", "--no-index", "回滚"); code != 0 {
		t.Errorf("the pulled view is not served: exit %d %s", code, errs)
	}
	for _, q := range shareQueries {
		sameResults(t, q, searchJSON(t, a, q), searchJSON(t, b, q))
	}
	var rep index.Report
	kbJSON(t, b, &rep, "status", "--json")
	if len(rep.Views) != 1 || rep.Views[0].Origin == nil || rep.Views[0].Origin.Ref != "refs/kb/1/heads/main" || rep.Views[0].Origin.Local != 1 {
		t.Fatalf("status after pull: %+v", rep.Views)
	}
	var repA index.Report
	kbJSON(t, a, &repA, "status", "--json")
	if repA.Views[0].Origin != nil {
		t.Errorf("a's view was indexed there: %+v", repA.Views[0].Origin)
	}
	out, _, _ := kb(t, b, "status")
	if !strings.Contains(out, "from origin refs/kb/1/heads/main") {
		t.Errorf("status text: %s", out)
	}

	// A one-file commit: the push sends one record, the pull imports one.
	gittest.Commit(t, a, "edit", map[string]string{"docs/adr/0001-connection-pool.md": docs["docs/adr/0001-connection-pool.md"] + "\n连接池满了也可以先重启应用。\n"})
	gittest.Git(t, a, "push", "-q", "origin", "main")
	indexJSON(t, a, "--embed", "off")
	kbJSON(t, a, &pr, "push", "--json")
	v := pr.Views[0]
	if v.Exported != 1 || v.Reused != v.Blobs-1 || v.Parent == "" {
		t.Fatalf("incremental push: %+v", v)
	}
	gittest.Git(t, b, "pull", "-q", "--ff-only")
	kbJSON(t, b, &pl, "pull", "--json")
	if pl.Imported != 1 || pl.Present != v.Blobs-1 || pl.Index.BlobsNew != 0 {
		t.Fatalf("incremental pull: %+v %+v", pl.PullResult, pl.Index)
	}
	for _, q := range append(shareQueries, "重启应用") {
		sameResults(t, q, searchJSON(t, a, q), searchJSON(t, b, q))
	}
}

// TestPushRefusesAViewOfOtherRules: a view made under other secret rules
// than the current ones (an index from before the rules changed, with no
// policy recorded) is not pushed under the current rules' name: its
// records may hold what those rules redact. Indexed again, it is.
func TestPushRefusesAViewOfOtherRules(t *testing.T) {
	_, a, _ := shareSetup(t, docs)
	indexJSON(t, a, "--embed", "off")
	policy := filepath.Join(a, ".git", "kb", "secrets-policy")
	os.Remove(policy) // as an older git kb left it
	if _, err := os.Stat(policy); !os.IsNotExist(err) {
		t.Fatalf("%s: %v", policy, err)
	}
	if _, errs, code := kb(t, a, "push", "origin"); code != 1 || !strings.Contains(errs, "other secret rules") {
		t.Fatalf("push of a view of unknown policy: exit %d %s", code, errs)
	}
	if _, errs, code := kb(t, a, "search", "--no-index", "回滚"); code != 1 || !strings.Contains(errs, "other secret rules") {
		t.Errorf("search --no-index of a view of unknown policy: exit %d %s", code, errs)
	}
	st := indexJSON(t, a, "--embed", "off")
	if st.AlreadyIndexed || st.BlobsNew == 0 {
		t.Errorf("the index of unknown policy should be re-derived: %+v", st)
	}
	if _, errs, code := kb(t, a, "push", "origin"); code != 0 {
		t.Errorf("push after indexing: exit %d %s", code, errs)
	}
}

// tamper replaces the remote's shared ref with a copy, made in the clone
// dir that pushed it, whose files change rewrites (nil drops a file).
func tamper(t *testing.T, dir, remote string, change func(path string, data []byte) []byte) {
	t.Helper()
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	head, err := repo.RevParse(ctx, "refs/kb/1/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	es, err := repo.ListTree(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	var fs []gitx.File
	for _, e := range es {
		data, err := repo.ReadBlob(e.Blob)
		if err != nil {
			t.Fatal(err)
		}
		if nd := change(e.Path, data); nd != nil {
			fs = append(fs, gitx.File{Path: e.Path, Data: nd})
		}
	}
	if _, err := repo.WriteCommit(ctx, "refs/kb/tampered", head, "tampered", fs); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "push", "-q", "-f", remote, "refs/kb/tampered:refs/kb/1/heads/main")
}

func TestPullRefusesDamagedRefs(t *testing.T) {
	remote, a, b := shareSetup(t, docs)
	indexJSON(t, a, "--embed", "off")
	if _, errs, code := kb(t, a, "push", "-q"); code != 0 {
		t.Fatal(errs)
	}
	orig := gittest.Git(t, remote, "rev-parse", "refs/kb/1/heads/main")
	cases := []struct {
		name, want string
		change     func(p string, d []byte) []byte
	}{
		{"truncated record", "corrupt record", func(p string, d []byte) []byte {
			if strings.HasPrefix(p, "blobs/") {
				return d[:len(d)/2]
			}
			return d
		}},
		{"record dropped", "truncated?", func(p string, d []byte) []byte {
			if strings.HasPrefix(p, "blobs/") && strings.Contains(p, "/") && p[len(p)-1] < '8' {
				return nil
			}
			return d
		}},
		{"line range beyond the file", "lines", func(p string, d []byte) []byte {
			if !strings.HasPrefix(p, "blobs/") {
				return d
			}
			r, err := share.DecodeRecord(d)
			if err != nil {
				t.Fatal(err)
			}
			r.Meta.Chunks[len(r.Meta.Chunks)-1].End += 1000
			nd, _ := r.Encode()
			return nd
		}},
		{"size differs", "bytes, git says", func(p string, d []byte) []byte {
			if !strings.HasPrefix(p, "blobs/") {
				return d
			}
			r, _ := share.DecodeRecord(d)
			r.Size++
			nd, _ := r.Encode()
			return nd
		}},
		{"pipeline version", "pipeline", func(p string, d []byte) []byte {
			if p == "kb.json" {
				return []byte(strings.Replace(string(d), `"pipeline": `, `"pipeline": 9`, 1))
			}
			return d
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gittest.Git(t, remote, "update-ref", "refs/kb/1/heads/main", orig)
			tamper(t, a, remote, c.change)
			_, errs, code := kb(t, b, "pull", "-q")
			if code != 1 || !strings.Contains(errs, "refused") || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q (want one line with %q)", code, errs, c.want)
			}
			if _, err := os.Stat(filepath.Join(b, ".git", "kb", "db")); err == nil {
				var rep index.Report
				kbJSON(t, b, &rep, "status", "--json")
				if len(rep.Views) != 0 {
					t.Fatalf("a refused pull left a view: %+v", rep.Views)
				}
			}
		})
	}
	// The intact ref still pulls; --verify re-analyses every file.
	gittest.Git(t, remote, "update-ref", "refs/kb/1/heads/main", orig)
	var pl pullJSON
	kbJSON(t, b, &pl, "pull", "--json", "--verify")
	if pl.Verified != pl.Imported || pl.Imported == 0 {
		t.Fatalf("verified pull: %+v", pl.PullResult)
	}
	// A record whose postings were altered consistently passes the
	// structural checks but not --verify.
	tamper(t, a, remote, func(p string, d []byte) []byte {
		if !strings.HasPrefix(p, "blobs/") {
			return d
		}
		r, _ := share.DecodeRecord(d)
		r.Chunks[0][0].TF[0]++
		r.Header.FieldLen[0]++
		r.Lens[0]++
		nd, _ := r.Encode()
		return nd
	})
	b2 := filepath.Join(t.TempDir(), "b2")
	gittest.Git(t, a, "clone", "-q", remote, b2)
	if _, errs, code := kb(t, b2, "pull", "-q", "--verify"); code != 1 || !strings.Contains(errs, "re-analysis") && !strings.Contains(errs, "differ") {
		t.Fatalf("--verify on altered postings: exit %d %s", code, errs)
	}
	// Pulled without --verify, the import goes in; doctor's sample finds it.
	if _, errs, code := kb(t, b2, "pull", "-q"); code != 0 {
		t.Fatal(errs)
	}
	if out, _, code := kb(t, b2, "doctor"); code != 1 || !strings.Contains(out, "pulled view") || !strings.Contains(out, "differ") {
		t.Fatalf("doctor after a bad import: exit %d\n%s", code, out)
	}
	if out, _, code := kb(t, b, "doctor"); code != 0 || !strings.Contains(out, "sampled files re-analysed, equal") {
		t.Fatalf("doctor after a good import: exit %d\n%s", code, out)
	}
}

func TestPullVectorsWithoutEmbedding(t *testing.T) {
	srvA, srvB := &embeddingsServer{}, &embeddingsServer{}
	hsA, hsB := httptest.NewServer(srvA), httptest.NewServer(srvB)
	defer hsA.Close()
	defer hsB.Close()
	_, a, b := shareSetup(t, docs)
	for dir, url := range map[string]string{a: hsA.URL, b: hsB.URL} {
		gittest.Git(t, dir, "config", "kb.embed.baseURL", url+"/v1")
		gittest.Git(t, dir, "config", "kb.embed.model", "fake-embed")
	}
	st := indexJSON(t, a)
	if st.Embed == nil || st.Embed.Embedded == 0 {
		t.Fatalf("a embedded nothing: %+v", st.Embed)
	}
	var pr share.PushResult
	kbJSON(t, a, &pr, "push", "--json")
	if pr.Views[0].Vectors != pr.Views[0].Blobs {
		t.Fatalf("vectors pushed for %d of %d files", pr.Views[0].Vectors, pr.Views[0].Blobs)
	}

	// b's model differs: refused, nothing imported.
	gittest.Git(t, b, "config", "kb.embed.model", "other-embed")
	if _, errs, code := kb(t, b, "pull", "-q"); code != 1 || !strings.Contains(errs, "openai/fake-embed/native") || !strings.Contains(errs, "--no-vectors") {
		t.Fatalf("model mismatch: exit %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(b, ".git", "kb", "db")); err == nil {
		t.Fatal("a refused pull created an index")
	}
	gittest.Git(t, b, "config", "kb.embed.model", "fake-embed")

	var pl pullJSON
	kbJSON(t, b, &pl, "pull", "--json")
	if pl.Vectors == 0 || pl.Index.Embed == nil || pl.Index.Embed.Embedded != 0 {
		t.Fatalf("pull with vectors: %+v embed %+v", pl.PullResult, pl.Index.Embed)
	}
	// The one withheld-free file b indexed itself is all it embedded:
	// nothing here, since every file was shared.
	if n := srvB.inputs.Load(); n != 0 {
		t.Fatalf("b's embedder got %d texts after the pull, want 0", n)
	}
	for _, q := range shareQueries {
		x, y := searchJSON(t, a, q), searchJSON(t, b, q)
		if y.Mode != search.ModeHybrid {
			t.Fatalf("%q: mode %s degraded %q", q, y.Mode, y.Degraded)
		}
		sameResults(t, q, x, y)
	}
}

func TestShareSetupKeepsOtherConfig(t *testing.T) {
	_, a, _ := shareSetup(t, docs)
	gittest.Git(t, a, "config", "--add", "remote.origin.fetch", "+refs/notes/*:refs/notes/*")
	before := gittest.Git(t, a, "config", "--get-all", "remote.origin.fetch")
	for i := 0; i < 2; i++ { // twice: the second changes nothing
		if out, errs, code := kb(t, a, "share", "setup", "origin"); code != 0 {
			t.Fatalf("setup: %s %s", out, errs)
		}
	}
	after := gittest.Git(t, a, "config", "--get-all", "remote.origin.fetch")
	if after != before+"\n+refs/kb/1/*:refs/kb/remotes/origin/1/*" {
		t.Fatalf("fetch refspecs after setup:\n%s", after)
	}
	if r := gittest.Git(t, a, "config", "kb.share.remote"); r != "origin" {
		t.Fatalf("kb.share.remote = %q", r)
	}
	if _, errs, code := kb(t, a, "share", "setup", "nosuch"); code != 1 || !strings.Contains(errs, "no remote named") {
		t.Fatalf("unknown remote: %d %s", code, errs)
	}
	if _, errs, code := kb(t, a, "share", "remove", "origin"); code != 0 {
		t.Fatal(errs)
	}
	if got := gittest.Git(t, a, "config", "--get-all", "remote.origin.fetch"); got != before {
		t.Fatalf("after remove:\n%s\nwant\n%s", got, before)
	}
	if out := gitConfig(t, a, "kb.share.remote"); out != "" {
		t.Fatalf("kb.share.remote still set: %q", out)
	}
}

// gitConfig reads a config value ("" when unset).
func gitConfig(t *testing.T, dir, key string) string {
	t.Helper()
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := repo.Config(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestConcurrentPullAndSearch(t *testing.T) {
	_, a, b := shareSetup(t, docs)
	indexJSON(t, a, "--embed", "off")
	if _, errs, code := kb(t, a, "push", "-q"); code != 0 {
		t.Fatal(errs)
	}
	// The searches are processes, as a user's are: the CLI's flag
	// definitions are one process's, not to share between goroutines.
	bin := gitKBBinary(t)
	var wg sync.WaitGroup
	errsCh := make(chan string, 20)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 4; j++ {
				cmd := exec.Command(bin, "search", "--json", "-q", "回滚")
				cmd.Dir, cmd.Env = b, gittest.Env()
				if out, err := cmd.CombinedOutput(); err != nil {
					errsCh <- fmt.Sprintf("%v: %s", err, out)
				}
			}
		}()
	}
	_, perrs, pcode := kb(t, b, "pull", "-q")
	wg.Wait()
	close(errsCh)
	for e := range errsCh {
		t.Errorf("search during pull failed: %s", e)
	}
	if pcode != 0 {
		t.Fatalf("pull during searches: %s", perrs)
	}
	sameResults(t, "回滚", searchJSON(t, a, "回滚"), searchJSON(t, b, "回滚"))
	var out json.RawMessage
	kbJSON(t, b, &out, "status", "--json")
}

func TestHooksPullInTheBackground(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("hooks run under sh")
	}
	_, a, b := shareSetup(t, docs)
	indexJSON(t, a, "--embed", "off")
	if _, errs, code := kb(t, a, "push", "-q"); code != 0 {
		t.Fatal(errs)
	}
	kbBin(t, b, "hooks", "install")
	kbBin(t, b, "share", "setup", "origin")

	// a moves on and shares; b's git pull returns at once, and the runner
	// pulls the shared view of the new HEAD before indexing.
	gittest.Commit(t, a, "more", map[string]string{"docs/new.md": "# 新文档\n\n扩容步骤：先加节点，再迁移数据。\n"})
	gittest.Git(t, a, "push", "-q", "origin", "main")
	indexJSON(t, a, "--embed", "off")
	if _, errs, code := kb(t, a, "push", "-q"); code != 0 {
		t.Fatal(errs)
	}
	gittest.Git(t, b, "pull", "-q", "--ff-only")
	if got := gittest.Git(t, b, "rev-parse", "refs/kb/remotes/origin/1/heads/main"); got == "" {
		t.Fatal("git fetch did not bring refs/kb after share setup")
	}
	waitIndexed(t, b, "git pull")
	waitLogged(t, filepath.Join(b, ".git"), "pulled refs/kb/1/heads/main from origin", "the hook runner did not pull the shared view")
	var rep index.Report
	kbJSON(t, b, &rep, "status", "--json")
	for _, v := range rep.Views {
		if v.IsHead && (v.Origin == nil || v.Origin.Local != 0) {
			t.Fatalf("HEAD's view: %+v", v.Origin)
		}
	}
	sameResults(t, "扩容", searchJSON(t, a, "扩容"), searchJSON(t, b, "扩容"))
}

func TestPushAllBranchesAndRevs(t *testing.T) {
	remote, a, _ := shareSetup(t, docs)
	indexJSON(t, a, "--embed", "off")
	gittest.Git(t, a, "checkout", "-q", "-b", "feature")
	gittest.Commit(t, a, "feature work", map[string]string{"docs/feature.md": "# 新功能\n\n灰度发布的开关。\n"})
	gittest.Git(t, a, "branch", "-q", "unindexed")
	gittest.Git(t, a, "tag", "v1", "main")
	indexJSON(t, a, "--embed", "off")
	var pr share.PushResult
	kbJSON(t, a, &pr, "push", "--json", "--all-branches")
	refs := map[string]bool{}
	for _, v := range pr.Views {
		refs[v.Ref] = true
	}
	// unindexed points at feature's commit, which is indexed: it is pushed
	// too; nothing is skipped.
	if !refs["refs/kb/1/heads/main"] || !refs["refs/kb/1/heads/feature"] || !refs["refs/kb/1/heads/unindexed"] || len(pr.Skipped) != 0 {
		t.Fatalf("--all-branches: %+v skipped %v", refs, pr.Skipped)
	}
	kbJSON(t, a, &pr, "push", "--json", "--rev", "v1")
	// Main's records again, byte for byte: git sends only kb.json, the
	// root tree and the commit.
	if len(pr.Views) != 1 || pr.Views[0].Ref != "refs/kb/1/tags/v1" || pr.Objects > 3 {
		t.Fatalf("--rev v1: %+v, %d objects sent", pr.Views, pr.Objects)
	}
	if got := gittest.Git(t, remote, "for-each-ref", "--format=%(refname)", "refs/kb/"); strings.Count(got, "\n") != 3 {
		t.Fatalf("remote refs:\n%s", got)
	}
	gittest.Commit(t, a, "not indexed", map[string]string{"x.md": "# x\n"})
	if _, errs, code := kb(t, a, "push", "--rev", "HEAD"); code != 1 || !strings.Contains(errs, "not indexed") {
		t.Fatalf("unindexed HEAD: %d %s", code, errs)
	}
	kbJSON(t, a, &pr, "push", "--json", "--all-branches")
	if len(pr.Skipped) != 1 || pr.Skipped[0] != "feature" || pr.SkippedWhy["feature"] != "it is not indexed (git kb index --rev feature)" {
		t.Fatalf("skipped: %v %v", pr.Skipped, pr.SkippedWhy)
	}
}

// TestPullWithTheTeamsWords: a shared index cut with kb.dict's words is
// taken by a clone with the same list, and searches there as at the
// pusher's; a clone with another list (or none) refuses it.
func TestPullWithTheTeamsWords(t *testing.T) {
	files := map[string]string{"kb.dict": "回滚\n慢查询\n"}
	for k, v := range docs {
		files[k] = v
	}
	_, a, b := shareSetup(t, files)
	gittest.Git(t, a, "config", "kb.dict", "kb.dict")
	indexJSON(t, a, "--embed", "off")
	var pr share.PushResult
	kbJSON(t, a, &pr, "push", "--json")

	// b has no kb.dict: the records would not meet its queries' terms.
	if _, errs, code := kb(t, b, "pull", "-q"); code != 1 || !strings.Contains(errs, "word list") {
		t.Fatalf("pull without the list: exit %d %s", code, errs)
	}
	gittest.Git(t, b, "config", "kb.dict", "kb.dict")
	var pl pullJSON
	kbJSON(t, b, &pl, "pull", "--json")
	if pl.Imported != pr.Views[0].Blobs {
		t.Fatalf("pull with the list: %+v", pl.PullResult)
	}
	for _, q := range append(shareQueries, "立即回滚到上一个版本") {
		x, y := searchJSON(t, a, q), searchJSON(t, b, q)
		sameResults(t, q, x, y)
		if q == "回滚" && (len(y.Terms) != 3 || y.Terms[0] != "回滚") {
			t.Fatalf("b cuts 回滚 as %q, want the word and its pieces", y.Terms)
		}
	}
}

// TestShareRemoteCredentialsNotShown: a remote URL holding a token (given,
// or configured as kb.share.remote) is named without it in push's and
// pull's messages and errors, as git's own messages name it.
func TestShareRemoteCredentialsNotShown(t *testing.T) {
	const token = "Zq8Kp2wT0kenXyz4Lm9"
	dir := gittest.New(t, docs)
	indexJSON(t, dir, "--embed", "off")
	url := "https://ci:" + token + "@127.0.0.1:1/team/docs.git" // nothing listens there
	out, errs, code := kb(t, dir, "push", url)
	if code == 0 || strings.Contains(out+errs, token) || !strings.Contains(errs, "https://127.0.0.1:1/team/docs.git") {
		t.Errorf("push: exit %d\n%s%s", code, out, errs)
	}
	gittest.Git(t, dir, "config", "kb.share.remote", url)
	out, errs, code = kb(t, dir, "pull")
	if code == 0 || strings.Contains(out+errs, token) {
		t.Errorf("pull: exit %d\n%s%s", code, out, errs)
	}
}

// TestPushNothingNewAndAnotherClonesPush: a push with nothing new makes no
// commit on the remote and says so; a clone whose last look at the remote
// is stale does not replace the view another clone pushed since, and once
// it has pulled, its push of the same view is again a no-op.
func TestPushNothingNewAndAnotherClonesPush(t *testing.T) {
	remote, a, b := shareSetup(t, docs)
	const ref = "refs/kb/1/heads/main"
	onRemote := func() (tip string, commits string) {
		t.Helper()
		return gittest.Git(t, remote, "rev-parse", ref), gittest.Git(t, remote, "rev-list", "--count", ref)
	}
	indexJSON(t, a, "--embed", "off")
	var first share.PushResult
	kbJSON(t, a, &first, "push", "--json")
	if first.UpToDate || len(first.Views) != 1 || first.Views[0].Unchanged {
		t.Fatalf("first push: %+v", first)
	}
	tip, n := onRemote()

	// Nothing new: no commit, the same ref, and it says so.
	var again share.PushResult
	kbJSON(t, a, &again, "push", "--json")
	if !again.UpToDate || len(again.Views) != 1 || !again.Views[0].Unchanged || again.Views[0].KBCommit != first.Views[0].KBCommit || again.Objects != 0 {
		t.Fatalf("push with nothing new: %+v", again)
	}
	out, errs, code := kb(t, a, "push")
	if code != 0 || !strings.HasPrefix(out, "nothing new to push: origin already has") || strings.Count(out, "\n") != 1 {
		t.Fatalf("push with nothing new: exit %d\n%s%s", code, out, errs)
	}
	if tip2, n2 := onRemote(); tip2 != tip || n2 != n {
		t.Fatalf("remote ref moved from %s (%s commits) to %s (%s commits) with nothing new", tip, n, tip2, n2)
	}

	// b pulls a's view, then a shares a newer commit's.
	kbJSON(t, b, &pullJSON{}, "pull", "--json")
	gittest.Commit(t, a, "edit", map[string]string{"docs/adr/0001-connection-pool.md": docs["docs/adr/0001-connection-pool.md"] + "\n连接池满了也可以先重启应用。\n"})
	gittest.Git(t, a, "push", "-q", "origin", "main")
	indexJSON(t, a, "--embed", "off")
	var newer share.PushResult
	kbJSON(t, a, &newer, "push", "--json")
	tip, n = onRemote()
	if tip != newer.Views[0].KBCommit {
		t.Fatalf("a's newer view is not on the remote: %s vs %+v", tip, newer.Views[0])
	}

	// b, still at the old commit and with a stale view of the remote,
	// pushes: refused, a's view stays.
	indexJSON(t, b, "--embed", "off")
	out, errs, code = kb(t, b, "push")
	if code != 1 || !strings.Contains(errs, "git kb pull origin") || !strings.Contains(errs, "another clone pushed") {
		t.Fatalf("push over another clone's view: exit %d\n%s%s", code, out, errs)
	}
	if tip2, n2 := onRemote(); tip2 != tip || n2 != n {
		t.Fatalf("b replaced a's view: %s (%s commits), was %s (%s commits)", tip2, n2, tip, n)
	}

	// Pulled up to date, b has nothing new to push: a's view stays as it is.
	gittest.Git(t, b, "pull", "-q", "--ff-only")
	kbJSON(t, b, &pullJSON{}, "pull", "--json")
	var fromB share.PushResult
	kbJSON(t, b, &fromB, "push", "--json")
	if !fromB.UpToDate || fromB.Objects != 0 {
		t.Fatalf("b's push of the view it pulled: %+v", fromB)
	}
	if tip2, n2 := onRemote(); tip2 != tip || n2 != n {
		t.Fatalf("b's push of the same view moved the remote ref: %s (%s commits), was %s (%s commits)", tip2, n2, tip, n)
	}
}

// TestPushKeepsANewerView: a clone whose look at the remote is current
// (it has pulled) still does not replace the remote's view with an older
// one of its own: not with the view of a commit the remote's view
// descends from, whether the clone has that commit yet or not, nor with a
// view made by an older pipeline; --force does. A rewritten branch's
// commit replaces the view of the commit it rewrote when it was committed
// later, not when earlier.
func TestPushKeepsANewerView(t *testing.T) {
	remote, a, b := shareSetup(t, docs)
	const ref = "refs/kb/1/heads/main"
	onRemote := func() string { t.Helper(); return gittest.Git(t, remote, "rev-parse", ref) }
	indexJSON(t, b, "--embed", "off") // b's view of the first commit
	indexJSON(t, a, "--embed", "off")
	second := gittest.Commit(t, a, "edit", map[string]string{"docs/adr/0001-connection-pool.md": docs["docs/adr/0001-connection-pool.md"] + "\n连接池满了也可以先重启应用。\n"})
	gittest.Git(t, a, "push", "-q", "origin", "main")
	indexJSON(t, a, "--embed", "off")
	kbJSON(t, a, &share.PushResult{}, "push", "--json")
	tip := onRemote()

	// b pulls: the fetch brings a's view (of a commit b has not fetched);
	// b's push of its older view is refused, a's view stays.
	kb(t, b, "pull", "-q")
	if got := gittest.Git(t, b, "rev-parse", "refs/kb/remotes/origin/1/heads/main"); got != tip {
		t.Fatalf("b's pull did not fetch a's view: %s, remote %s", got, tip)
	}
	out, errs, code := kb(t, b, "push")
	if code != 1 || !strings.Contains(errs, "is newer than this clone's") || !strings.Contains(errs, "does not have") || !strings.Contains(errs, "--force") {
		t.Fatalf("b's push of an older view (a's commit not fetched): exit %d\n%s%s", code, out, errs)
	}
	if onRemote() != tip {
		t.Fatal("b replaced a's newer view")
	}
	// With a's commit fetched, b knows its own is an ancestor of it.
	gittest.Git(t, b, "fetch", "-q", "origin")
	out, errs, code = kb(t, b, "push")
	if code != 1 || !strings.Contains(errs, "descends from yours") || !strings.Contains(errs, second[:12]) {
		t.Fatalf("b's push of an older view (a's commit fetched): exit %d\n%s%s", code, out, errs)
	}
	if onRemote() != tip {
		t.Fatal("b replaced a's newer view")
	}

	// A view of b's very commit, made by a newer pipeline: kept, until
	// --force.
	gittest.Git(t, b, "merge", "-q", "--ff-only", "origin/main")
	indexJSON(t, b, "--embed", "off")
	tamper(t, a, remote, func(p string, data []byte) []byte {
		if p != "kb.json" {
			return data
		}
		var m share.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		m.Pipeline = index.PipelineVersion + 1
		nd, _ := json.Marshal(m)
		return nd
	})
	tip = onRemote()
	kb(t, b, "pull", "-q") // refused (another pipeline), but fetched
	out, errs, code = kb(t, b, "push")
	if code != 1 || !strings.Contains(errs, fmt.Sprintf("made by pipeline %d", index.PipelineVersion+1)) {
		t.Fatalf("b's push over a newer pipeline's view: exit %d\n%s%s", code, out, errs)
	}
	if onRemote() != tip {
		t.Fatal("b replaced a newer pipeline's view")
	}
	var forced share.PushResult
	kbJSON(t, b, &forced, "push", "--json", "--force")
	if onRemote() != forced.Views[0].KBCommit || forced.Views[0].KBCommit == tip {
		t.Fatalf("--force did not replace the view: remote %s, pushed %+v", onRemote(), forced.Views[0])
	}

	// a rewrites the branch's last commit: committed before the one it
	// rewrites, its view is refused; committed after, it replaces it.
	amend := func(date string) {
		t.Helper()
		cmd := exec.Command("git", "commit", "-q", "--amend", "-m", "edit, amended "+date)
		cmd.Dir = a
		cmd.Env = append(gittest.Env(), "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("amend: %v\n%s", err, out)
		}
		indexJSON(t, a, "--embed", "off")
	}
	kb(t, a, "pull", "-q")
	tip = onRemote()
	amend("2025-06-01T00:00:00Z")
	out, errs, code = kb(t, a, "push")
	if code != 1 || !strings.Contains(errs, "not in the history of yours") {
		t.Fatalf("a's push of a rewrite committed earlier: exit %d\n%s%s", code, out, errs)
	}
	if onRemote() != tip {
		t.Fatal("a's earlier rewrite replaced the view")
	}
	amend("2026-06-01T00:00:00Z")
	var rewritten share.PushResult
	kbJSON(t, a, &rewritten, "push", "--json")
	if onRemote() != rewritten.Views[0].KBCommit || rewritten.Views[0].Commit != gittest.Git(t, a, "rev-parse", "HEAD") {
		t.Fatalf("a's later rewrite was not pushed: remote %s, pushed %+v", onRemote(), rewritten.Views[0])
	}
}

// featureMovedOn: a shares views of main and of a feature branch; b
// then commits on feature and shares its newer view of it. a is left on
// feature.
func featureMovedOn(t *testing.T, a, b string) {
	t.Helper()
	indexJSON(t, a, "--embed", "off")
	gittest.Git(t, a, "checkout", "-q", "-b", "feature")
	gittest.Commit(t, a, "feature work", map[string]string{"docs/feature.md": "# 新功能\n\n灰度发布的开关。\n"})
	gittest.Git(t, a, "push", "-q", "origin", "feature")
	indexJSON(t, a, "--embed", "off")
	kbJSON(t, a, &share.PushResult{}, "push", "--json", "--all-branches")

	// b shares a newer view of feature.
	gittest.Git(t, b, "fetch", "-q", "origin")
	gittest.Git(t, b, "checkout", "-q", "-b", "feature", "origin/feature")
	gittest.Commit(t, b, "more feature work", map[string]string{"docs/feature.md": "# 新功能\n\n灰度发布的开关，默认关闭。\n"})
	gittest.Git(t, b, "push", "-q", "origin", "feature")
	kb(t, b, "pull", "-q")
	indexJSON(t, b, "--embed", "off")
	kbJSON(t, b, &share.PushResult{}, "push", "--json")
}

// TestPushAllBranchesIsAtomic: when one view of a --all-branches push is
// refused (another clone pushed that branch's view since), none is
// pushed: the remote keeps every ref as it was.
func TestPushAllBranchesIsAtomic(t *testing.T) {
	remote, a, b := shareSetup(t, docs)
	refs := func() string { t.Helper(); return gittest.Git(t, remote, "for-each-ref", "refs/kb/") }
	featureMovedOn(t, a, b)
	before := refs()

	// a, with a new main and a stale look at feature's view: nothing moves.
	gittest.Git(t, a, "checkout", "-q", "main")
	gittest.Commit(t, a, "main work", map[string]string{"docs/main.md": "# 主线\n\n发布前先跑回归。\n"})
	indexJSON(t, a, "--embed", "off")
	out, errs, code := kb(t, a, "push", "--all-branches")
	if code != 1 || !strings.Contains(errs, "refs/kb/1/heads/feature (stale info)") {
		t.Fatalf("--all-branches with feature's view moved: exit %d\n%s%s", code, out, errs)
	}
	if after := refs(); after != before {
		t.Fatalf("the remote's refs changed:\n%s\nwas\n%s", after, before)
	}
	// main alone goes.
	var pr share.PushResult
	kbJSON(t, a, &pr, "push", "--json")
	if got := gittest.Git(t, remote, "rev-parse", "refs/kb/1/heads/main"); len(pr.Views) != 1 || got != pr.Views[0].KBCommit {
		t.Fatalf("push of main: %+v, remote at %s", pr.Views, got)
	}
}

// TestPushAllBranchesSkipsANewerView: a clone that has pulled, whose
// local feature branch is behind the view another clone pushed of it,
// still pushes its other views with --all-branches: feature's is skipped
// and said why (the remote's is newer), not pushed over, and the advice
// is to force that one view, not every view. Alone, it is refused.
func TestPushAllBranchesSkipsANewerView(t *testing.T) {
	remote, a, b := shareSetup(t, docs)
	const mainRef, featureRef = "refs/kb/1/heads/main", "refs/kb/1/heads/feature"
	onRemote := func(ref string) string { t.Helper(); return gittest.Git(t, remote, "rev-parse", ref) }
	featureMovedOn(t, a, b)
	bFeature := onRemote(featureRef)

	// a works on main and pulls: its look at feature's view is current,
	// its feature branch is not.
	gittest.Git(t, a, "checkout", "-q", "main")
	gittest.Commit(t, a, "main work", map[string]string{"docs/main.md": "# 主线\n\n发布前先跑回归。\n"})
	indexJSON(t, a, "--embed", "off")
	kb(t, a, "pull", "-q")
	out, errs, code := kb(t, a, "push", "--all-branches")
	if code != 0 || !strings.Contains(errs, "feature is not pushed: the view "+featureRef) || !strings.Contains(errs, "is newer than this clone's") ||
		!strings.Contains(errs, "git kb push --rev feature --force") || strings.Contains(errs, "git kb push --force") {
		t.Fatalf("--all-branches with a newer view of feature: exit %d\n%s%s", code, out, errs)
	}
	if got, want := onRemote(mainRef), gittest.Git(t, a, "rev-parse", mainRef); got != want {
		t.Fatalf("a's new view of main was not pushed: remote %s, a's %s", got, want)
	}
	if onRemote(featureRef) != bFeature {
		t.Fatal("a's older view of feature replaced b's")
	}
	var pr share.PushResult
	kbJSON(t, a, &pr, "push", "--json", "--all-branches")
	if len(pr.Views) != 1 || pr.Views[0].Ref != mainRef || !pr.Views[0].Unchanged || len(pr.Skipped) != 1 || pr.Skipped[0] != "feature" ||
		!strings.Contains(pr.SkippedWhy["feature"], "is newer than this clone's") {
		t.Fatalf("--json --all-branches: views %+v, skipped %v %v", pr.Views, pr.Skipped, pr.SkippedWhy)
	}

	// Every revision skipped: nothing pushed, and said so.
	if out, errs, code := kb(t, a, "push", "--rev", "feature", "--rev", "feature"); code != 0 || !strings.Contains(out, "nothing pushed") || onRemote(featureRef) != bFeature {
		t.Fatalf("push of feature's view twice: exit %d\n%s%s", code, out, errs)
	}
	// Alone, feature's view is refused as before; the advice forces it.
	out, errs, code = kb(t, a, "push", "--rev", "feature")
	if code != 1 || !strings.Contains(errs, "is newer than this clone's") || !strings.Contains(errs, "git kb push --force") || onRemote(featureRef) != bFeature {
		t.Fatalf("push --rev feature: exit %d\n%s%s", code, out, errs)
	}
	kbJSON(t, a, &pr, "push", "--json", "--rev", "feature", "--force")
	if got := onRemote(featureRef); len(pr.Views) != 1 || got != pr.Views[0].KBCommit || got == bFeature || onRemote(mainRef) != gittest.Git(t, a, "rev-parse", mainRef) {
		t.Fatalf("push --rev feature --force: %+v, remote at %s", pr.Views, got)
	}
}
