package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/search"
)

// crashWords are the vocabulary of the generated documents.
var crashWords = strings.Fields(`连接池 超时 重试 回滚 发布 熔断 限流 告警 值班 备份 恢复 扩容 缩容 证书 轮换 缓存 索引 慢查询
	事务 隔离 主从 延迟 监控 日志 链路 追踪 灰度 配置 开关 容量 压测 故障 复盘 预案 演练 权限 审计 加密 密钥 网关 负载
	retry_count maxOpenConns timeout_ms circuitBreaker rateLimit ttl shard replica leader follower`)

// genDocs makes n Markdown files of a few hundred generated words each.
func genDocs(n int, seed uint64, prefix string) map[string]string {
	rng := rand.New(rand.NewPCG(seed, 7))
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s %s 手册 %d\n\n", crashWords[rng.IntN(len(crashWords))], crashWords[rng.IntN(len(crashWords))], i)
		for s := range 4 {
			fmt.Fprintf(&b, "## 第 %d 节 %s\n\n", s, crashWords[rng.IntN(len(crashWords))])
			for range 60 {
				b.WriteString(crashWords[rng.IntN(len(crashWords))])
				if rng.IntN(8) == 0 {
					b.WriteString("。\n")
				}
			}
			b.WriteString("\n\n")
		}
		files[fmt.Sprintf("%s/%03d/doc%04d.md", prefix, i%97, i)] = b.String()
	}
	return files
}

var crashQueries = []string{"连接池 超时", "retry_count", "证书 轮换 密钥"}

// resultKey is what must agree between two indexes of one commit.
func resultKey(r search.Response) string {
	var b strings.Builder
	for _, x := range r.Results {
		fmt.Fprintf(&b, "%s:%d-%d %.6f|", x.Path, x.StartLine, x.EndLine, x.Score)
	}
	return b.String()
}

// searchBin runs a search with the real binary, as a user would.
func searchBin(t *testing.T, dir string, args ...string) (search.Response, string, int) {
	t.Helper()
	cmd := exec.Command(gitKBBinary(t), append([]string{"search", "--json", "-q"}, args...)...)
	cmd.Dir, cmd.Env = dir, gittest.Env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var r search.Response
	if code == 0 {
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
	}
	return r, errb.String(), code
}

// crashRepo is a repository with an indexed commit A and an unindexed
// commit B that adds more files and changes a third of A's, plus the
// answers a clean index of B gives.
func crashRepo(t *testing.T, more int) (dir, a, b string, wantA, wantB map[string]string, cleanIndex time.Duration) {
	t.Helper()
	dir = gittest.New(t, genDocs(200, 1, "base"))
	a = gittest.Git(t, dir, "rev-parse", "HEAD")
	kbBin(t, dir, "index", "--quiet")
	changed := genDocs(more, 2, "more")
	for k, v := range genDocs(70, 3, "base") { // rewrite a third of A's files
		changed[k] = v
	}
	b = gittest.Commit(t, dir, "many docs", changed)

	wantA, wantB = map[string]string{}, map[string]string{}
	for _, q := range crashQueries {
		r, _, _ := searchBin(t, dir, "--no-index", "--rev", a, q)
		wantA[q] = resultKey(r)
	}
	// B's answers from a clean index in a fresh clone.
	clean := filepath.Join(t.TempDir(), "clean")
	gittest.Git(t, filepath.Dir(clean), "clone", "-q", dir, clean)
	t0 := time.Now()
	kbBin(t, clean, "index", "--quiet")
	cleanIndex = time.Since(t0)
	for _, q := range crashQueries {
		r, _, _ := searchBin(t, clean, "--no-index", "--rev", b, q)
		wantB[q] = resultKey(r)
	}
	return
}

// TestKillNineWhileIndexing kills a real indexer with SIGKILL at 20
// random points. After each kill, searches answer from complete views
// only; after the last, an index run finishes and agrees with a clean
// index of the same commit.
func TestKillNineWhileIndexing(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a real indexer 20 times")
	}
	// B adds 600 files: each round is a real run of B's index (killed,
	// then finished), whose every stage a random kill point can reach
	// at this size as at twice it, at half the test's time.
	dir, a, b, wantA, wantB, took := crashRepo(t, 600)
	t.Logf("clean index of the big commit: %v", took)
	// A's index, to start each round from: a copy is put back instead of
	// indexing A again (the same bytes, and a third of the test's time).
	kb := filepath.Join(dir, ".git", "kb")
	indexedA := filepath.Join(t.TempDir(), "kb-a")
	if err := os.CopyFS(indexedA, os.DirFS(kb)); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(42, 42))
	consistent, killedMidway := 0, 0
	for i := range 20 {
		delay, err := killIndexer(t, dir, rng, took)
		if err != nil {
			killedMidway++
		}
		ok := true
		for _, q := range crashQueries {
			r, errs, code := searchBin(t, dir, "--no-index", "--rev", a, q)
			if code != 0 || resultKey(r) != wantA[q] {
				ok = false
				t.Errorf("kill %d after %v: search of A %q: exit %d %s", i, delay, q, code, errs)
			}
			r, errs, code = searchBin(t, dir, "--no-index", "--rev", b, q)
			switch {
			case code != 0 && strings.Contains(errs, "not indexed"):
				// B's view was not published: fine.
			case code == 0 && resultKey(r) == wantB[q]:
			default:
				ok = false
				t.Errorf("kill %d after %v: search of B %q: exit %d %s, results differ from a clean index: %v", i, delay, q, code, errs, code == 0)
			}
		}
		// The next index run finishes and agrees with a clean index.
		if code := kbIndexExit(t, dir); code != 0 {
			ok = false
			t.Errorf("index after kill %d: exit %d", i, code)
		}
		for _, q := range crashQueries {
			if r, errs, code := searchBin(t, dir, "--no-index", "--rev", b, q); code != 0 || resultKey(r) != wantB[q] {
				ok = false
				t.Errorf("kill %d: after re-indexing, %q differs from a clean index: %s", i, q, errs)
			}
		}
		if ok {
			consistent++
		}
		// Start the next round from A's state again, so each kill lands
		// in a real indexing run of B.
		if i < 19 {
			if err := os.RemoveAll(kb); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(kb, os.DirFS(indexedA)); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d of 20 kills left a consistent index (%d killed mid-run)", consistent, killedMidway)
	if consistent != 20 {
		t.Errorf("only %d of 20 kills left a consistent index", consistent)
	}
}

// killIndexer starts git kb index (with args) and kills it with SIGKILL
// after a random delay of up to 1.2 x took, a clean run's time; err is
// the run's exit (nil when it finished first).
func killIndexer(t *testing.T, dir string, rng *rand.Rand, took time.Duration, args ...string) (time.Duration, error) {
	t.Helper()
	cmd := exec.Command(gitKBBinary(t), append([]string{"index", "--quiet", "--embed", "off"}, args...)...)
	cmd.Dir, cmd.Env = dir, gittest.Env()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	delay := time.Duration(rng.Int64N(int64(took) * 12 / 10))
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGKILL)
	return delay, cmd.Wait()
}

// kbIndexExit runs one index to completion and returns its exit code.
func kbIndexExit(t *testing.T, dir string) int {
	cmd := exec.Command(gitKBBinary(t), "index", "--quiet", "--embed", "off")
	cmd.Dir, cmd.Env = dir, gittest.Env()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Logf("index: %s", out)
		return ee.ExitCode()
	}
	return 0
}

// TestSearchWhileIndexing: a search of the commit being indexed answers at
// once from the last complete view and says so; a second indexer waits
// for the first and both succeed.
func TestSearchWhileIndexing(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a few thousand files")
	}
	dir, a, b, wantA, _, _ := crashRepo(t, 1200)
	first := exec.Command(gitKBBinary(t), "index", "--embed", "off")
	second := exec.Command(gitKBBinary(t), "index", "--embed", "off")
	var secondErr bytes.Buffer
	first.Dir, first.Env = dir, gittest.Env()
	second.Dir, second.Env, second.Stderr = dir, gittest.Env(), &secondErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	kbDir := filepath.Join(dir, ".git", "kb")
	deadline := time.Now().Add(10 * time.Second)
	for !index.Running(kbDir) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	if index.Running(kbDir) {
		t0 := time.Now()
		r, errs, code := searchBin(t, dir, crashQueries[0])
		took := time.Since(t0)
		if code != 0 {
			t.Fatalf("search during indexing: exit %d: %s", code, errs)
		}
		if r.Stale != nil {
			if r.Stale.Requested != b || r.Commit != a || resultKey(r) != wantA[crashQueries[0]] || !strings.Contains(r.Stale.Reason, "being indexed") {
				t.Errorf("stale answer for %s from %s: %+v", r.Stale.Requested, r.Commit, *r.Stale)
			}
			t.Logf("search during indexing answered from the last view in %v", took)
		} else if r.Commit != b {
			t.Errorf("search during indexing answered for %s, neither stale nor B", r.Commit)
		}
	} else {
		t.Log("the indexer finished before the search could start; stale path not exercised")
	}
	if err := first.Wait(); err != nil {
		t.Errorf("first indexer: %v", err)
	}
	if err := second.Wait(); err != nil {
		t.Errorf("second indexer: %v: %s", err, secondErr.String())
	}
	if r, _, code := searchBin(t, dir, "--no-index", crashQueries[0]); code != 0 || r.Commit != b || r.Stale != nil {
		t.Errorf("after indexing: exit %d %+v", code, r)
	}
}

// TestKillNineWhileIndexingFromParent kills indexers that build a
// commit's view from its parent's (a few files changed: the view is
// written as a delta over the last full one) at 6 random points. After
// each kill the commit indexed before answers exactly as before, the
// killed commit answers as a clean index does or not at all, and the next
// run finishes from the parent's view and agrees with a clean index.
func TestKillNineWhileIndexingFromParent(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a real indexer 6 times")
	}
	dir := gittest.New(t, genDocs(300, 4, "base"))
	kbBin(t, dir, "index", "--quiet", "--embed", "off")
	var commits []string
	for c := range 6 {
		commits = append(commits, gittest.Commit(t, dir, fmt.Sprintf("edit %d", c), genDocs(20, uint64(100+c), "base")))
	}
	// Each commit's answers from a clean index in a fresh clone.
	clean := filepath.Join(t.TempDir(), "clean")
	gittest.Git(t, filepath.Dir(clean), "clone", "-q", dir, clean)
	want := map[string]string{}
	var took time.Duration
	for i, c := range commits {
		t0 := time.Now()
		kbBin(t, clean, "index", "--quiet", "--embed", "off", "--rev", c)
		if i == 0 {
			took = time.Since(t0)
		}
		for _, q := range crashQueries {
			r, _, _ := searchBin(t, clean, "--no-index", "--rev", c, q)
			want[c+q] = resultKey(r)
		}
	}
	rng := rand.New(rand.NewPCG(43, 43))
	for i, c := range commits {
		delay, _ := killIndexer(t, dir, rng, took, "--json", "--rev", c)
		for _, earlier := range commits[max(0, i-1):i] {
			for _, q := range crashQueries {
				if r, errs, code := searchBin(t, dir, "--no-index", "--rev", earlier, q); code != 0 || resultKey(r) != want[earlier+q] {
					t.Fatalf("kill %d after %v: %s %q: exit %d %s, or results differ from a clean index", i, delay, earlier[:8], q, code, errs)
				}
			}
		}
		for _, q := range crashQueries {
			r, errs, code := searchBin(t, dir, "--no-index", "--rev", c, q)
			if !(code != 0 && strings.Contains(errs, "not indexed") || code == 0 && resultKey(r) == want[c+q]) {
				t.Fatalf("kill %d after %v: search of the killed commit %q: exit %d %s, results differ from a clean index: %v", i, delay, q, code, errs, code == 0)
			}
		}
		out := kbBin(t, dir, "index", "--quiet", "--embed", "off", "--json", "--rev", c)
		var st index.Stats
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if !st.AlreadyIndexed && st.Base == "" {
			t.Fatalf("commit %d was indexed by listing its tree, not from its parent's view", i)
		}
		for _, q := range crashQueries {
			if r, errs, code := searchBin(t, dir, "--no-index", "--rev", c, q); code != 0 || resultKey(r) != want[c+q] {
				t.Fatalf("kill %d: after re-indexing, %q differs from a clean index: %s", i, q, errs)
			}
		}
	}
	kbBin(t, dir, "doctor") // exits 1 when anything is inconsistent
}
