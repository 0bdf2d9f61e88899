package index

import (
	"context"
	"runtime"
	"testing"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// A small one-shot run narrows the process to one core while it works
// and gives the cores back when it ends; with KeepCores (a server whose
// other calls run meanwhile) it leaves the core count alone.
func TestSmallRunCores(t *testing.T) {
	t.Setenv("GOMAXPROCS", "") // narrow defers to a user's choice
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	dir := gittest.New(t, map[string]string{"notes/a.md": "# 重试\n\n连接池超时后重试三次。\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		gittest.Commit(t, dir, "edit", map[string]string{"notes/b.md": "# 笔记\n\n第 " + map[bool]string{false: "一", true: "二"}[keep] + " 次\n"})
		during := 0
		st, err := Run(context.Background(), repo, Options{MaxFileSize: testMaxSize, KeepCores: keep,
			Progress: func(Event) { during = runtime.GOMAXPROCS(0) }})
		if err != nil {
			t.Fatal(err)
		}
		if st.BlobsNew == 0 || during == 0 {
			t.Fatalf("keep %v: %d blobs new, no progress seen", keep, st.BlobsNew)
		}
		want := 1
		if keep {
			want = 2
		}
		if during != want {
			t.Errorf("KeepCores %v: %d cores while indexing, want %d", keep, during, want)
		}
		if after := runtime.GOMAXPROCS(0); after != 2 {
			t.Errorf("KeepCores %v: %d cores after the run, want the 2 it had", keep, after)
		}
	}
}
