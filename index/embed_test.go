package index

import (
	"context"
	"strings"
	"testing"

	"github.com/git-kb/git-kb/llm"
	"github.com/git-kb/git-kb/segment"
	"github.com/git-kb/git-kb/store"
)

// TestEmbedWritesGraphs checks the opt-in HNSW graphs: built over the
// segment table, they answer like the exact scan.
func TestEmbedWritesGraphs(t *testing.T) {
	files := map[string]string{}
	for i := range 60 {
		files[strings.Repeat("d", 1)+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".md"] = "# 文档\n\n" + strings.Repeat("数据库 连接池 重试 ", i%7+1) + strings.Repeat("回滚 ", i) + "\n"
	}
	repo := indexedRepo(t, files)
	ctx := context.Background()
	emb := &llm.HashEmbedder{Dims: 64, Terms: segment.Tiny().Terms}
	st, err := Embed(ctx, repo, EmbedOptions{Embedder: emb, GraphMin: 10})
	if err != nil {
		t.Fatal(err)
	}
	if st.Graphs != 1 || st.Tables != 1 || st.Embedded != st.Chunks || st.Chunks != 60 {
		t.Fatalf("%+v", st)
	}
	db, err := store.Open(ctx, DBDir(repo), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Graph(ModelKey(emb), 1); err != nil {
		t.Fatalf("graph of segment 1: %v", err)
	}
}

func TestEmbedDuplicateBlobsOnce(t *testing.T) {
	same := "# 许可\n\n同一份文本出现在两个路径下。\n"
	repo := indexedRepo(t, map[string]string{"a/LICENSE.md": same, "b/LICENSE.md": same})
	st, err := Embed(context.Background(), repo, EmbedOptions{Embedder: &llm.HashEmbedder{Dims: 16, Terms: segment.Tiny().Terms}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Embedded != 1 || st.Chunks != 1 {
		t.Fatalf("one blob at two paths: %+v", st)
	}
}
