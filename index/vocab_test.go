package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/store"
)

// TestDictVocabulary: kb.dict's words are cut whole in the index, the view
// records the list it was cut with, a changed list re-derives every blob,
// and an older view keeps the list it was built with (for --rev).
func TestDictVocabulary(t *testing.T) {
	dir := gittest.New(t, map[string]string{
		"runbook.md": "# 发布\n\n发布失败后立即回滚到上一个版本，再排查慢查询。\n",
		"scale.md":   "# 扩缩容\n\n流量高峰前先扩缩容，回滚方案见 runbook。\n",
		"kb.dict":    "# the team's words\n回滚\n慢查询 5000\nTiDB\n",
	})
	gittest.Git(t, dir, "config", "kb.dict", "kb.dict")
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Run(ctx, repo, Options{}); err != nil {
		t.Fatal(err)
	}
	viewOfHead := func() *store.View {
		return readIndex(t, repo, func(db *store.DB) *store.View { return headView(t, db, dir) })
	}
	hasPosting := func(term string) bool {
		return readIndex(t, repo, func(db *store.DB) bool { return anyPosting(t, db, nil, term) })
	}

	v1 := viewOfHead()
	if v1.Vocab == "" {
		t.Fatal("the view records no word list, with kb.dict set")
	}
	vocab, err := LoadVocab(repo.KBDir(), v1.Vocab)
	if err != nil {
		t.Fatal(err)
	}
	if !vocab.Has("回滚") || !vocab.Has("慢查询") || vocab.Len() != 2 {
		t.Fatalf("loaded list: %q (TiDB is not Han text, gse knows neither word)", vocab.Encode())
	}
	// Whole words and their pieces: 回滚 was 回|滚 without the list.
	for _, term := range []string{"回滚", "回", "滚", "慢查询", "查询"} {
		if !hasPosting(term) {
			t.Errorf("no posting for %q", term)
		}
	}

	// A second run with the same list does nothing.
	st, err := Run(ctx, repo, Options{})
	if err != nil || !st.AlreadyIndexed {
		t.Fatalf("same list: %+v %v", st, err)
	}

	// A new commit is indexed from its parent's view, with the same list.
	first := gittest.Commit(t, dir, "note", map[string]string{"note.md": "# 记录\n\n上次回滚用了五分钟。\n"})
	st, err = Run(ctx, repo, Options{})
	if err != nil || st.Base == "" || st.BlobsNew != 1 {
		t.Fatalf("one new file under the same list should be a delta run of one blob: %+v %v", st, err)
	}
	if viewOfHead().Vocab != v1.Vocab {
		t.Fatal("the delta view records another list")
	}

	// Changing kb.dict re-derives every blob of the next run.
	gittest.Remove(t, dir, "drop the note", "note.md")
	gittest.WriteFile(t, dir, "kb.dict", []byte("回滚\n慢查询 5000\n扩缩容\n"))
	gittest.Commit(t, dir, "more", map[string]string{"more.md": "# 更多\n\n扩缩容之后观察。\n"})
	st, err = Run(ctx, repo, Options{})
	if err != nil || st.BlobsNew != 4 || st.Base != "" {
		t.Fatalf("a changed list should re-derive all 4 blobs: %+v %v", st, err)
	}
	// A file back as it was, last cut with the old list: cut again.
	gittest.Commit(t, dir, "the note again", map[string]string{"note.md": "# 记录\n\n上次回滚用了五分钟。\n"})
	if st, err = Run(ctx, repo, Options{}); err != nil || st.BlobsNew != 1 {
		t.Fatalf("note.md's record was cut with the old list and must be re-derived: %+v %v", st, err)
	}
	v2 := viewOfHead()
	if v2.Vocab == v1.Vocab || v2.Vocab == "" {
		t.Fatalf("the new view's list %q, the old one's %q", v2.Vocab, v1.Vocab)
	}
	if !hasPosting("扩缩容") {
		t.Error("扩缩容 not cut whole after it was added")
	}

	// The older commit's view still names the list it was cut with.
	db, err := store.Open(ctx, DBDir(repo), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := db.Ref(gitx.ParseHash(first))
	if err != nil {
		t.Fatal(err)
	}
	old, err := db.View(PipelineVersion, ref.Tree)
	db.Close()
	if err != nil || old.Vocab != v1.Vocab {
		t.Fatalf("older view's list: %q, want %q (%v)", old.Vocab, v1.Vocab, err)
	}
	if _, err := LoadVocab(repo.KBDir(), old.Vocab); err != nil {
		t.Fatal(err)
	}

	// Unsetting kb.dict goes back to no list.
	gittest.Git(t, dir, "config", "--unset", "kb.dict")
	gittest.Commit(t, dir, "less", map[string]string{"less.md": "# 少\n\n无。\n"})
	if _, err = Run(ctx, repo, Options{}); err != nil {
		t.Fatal(err)
	}
	if v := viewOfHead(); v.Vocab != "" {
		t.Fatalf("without kb.dict the view records %q", v.Vocab)
	}

	// A missing kb.dict is a clear error.
	gittest.Git(t, dir, "config", "kb.dict", "nowhere.dict")
	if _, err = Run(ctx, repo, Options{}); err == nil || !strings.Contains(err.Error(), "kb.dict") {
		t.Fatalf("missing kb.dict: %v", err)
	}
	os.Remove(filepath.Join(dir, "kb.dict"))
}

// TestLearnedVocabulary: with kb.vocab.learn the index learns words from
// its text once, and later commits reuse the list (no re-derivation).
func TestLearnedVocabulary(t *testing.T) {
	var b strings.Builder
	ctxs := []string{"发布失败", "升级出错", "配置写错", "数据异常", "版本不兼容", "监控报警", "测试没过", "磁盘写满", "网络抖动", "依赖缺失"}
	for i, c := range ctxs {
		b.WriteString(c + "，立即回滚。")
		b.WriteString("回滚" + ctxs[(i+3)%len(ctxs)] + "。")
	}
	dir := gittest.New(t, map[string]string{"ops.md": "# 运维\n\n" + b.String() + "\n", "guide.md": strings.Repeat(opsGuide, 3)})
	gittest.Git(t, dir, "config", "kb.vocab.learn", "true")
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Run(ctx, repo, Options{}); err != nil {
		t.Fatal(err)
	}
	_, fp, _ := recordedVocab(repo.KBDir())
	v, err := LoadVocab(repo.KBDir(), fp)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Has("回滚") {
		t.Fatalf("learned %q, want 回滚 among them", v.Encode())
	}
	gittest.Commit(t, dir, "more", map[string]string{"more.md": "# 更多\n\n扩容以后再回滚。\n"})
	st, err := Run(ctx, repo, Options{})
	if err != nil || st.Base == "" || st.BlobsNew != 1 {
		t.Fatalf("the learned list is kept: the next commit is a delta of one blob: %+v %v", st, err)
	}
	if _, fp2, _ := recordedVocab(repo.KBDir()); fp2 != fp {
		t.Fatalf("the list changed from %s to %s", fp, fp2)
	}
}

// opsGuide is ordinary operations prose, the background the learned word
// has to stand out of.
const opsGuide = `# 值班指南

值班同学每天早上检查监控面板，确认集群的存储节点、计算节点和调度服务都处于健康状态。
如果磁盘使用率超过八成，需要提前申请新的机器，并在业务低峰期迁移数据。
处理告警时先看告警的级别和持续时间，再查看对应服务的日志，定位问题的根本原因。
遇到无法判断的问题，及时在群里同步进展，必要时拉上负责该模块的同事一起排查。
每周五整理本周的故障记录，写清楚影响范围、处理过程和后续的改进措施。
新同学入职后先阅读部署文档和架构说明，在测试环境完成一次完整的上线演练。
`
