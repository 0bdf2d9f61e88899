package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/gitx/gittest"
)

// TestGCRetryThatFailsEarlyWaitsAnHour: a gc --auto started for an
// unfinished gc's marker that fails before it opens the index (a disk
// too full for its compaction, CheckSpace; here an index that does not
// open) still counts as the hour's try: the marker stays and the next
// index run does not start another. The marker used to keep its old
// time, so every index run (every hook) started a gc that failed again.
func TestGCRetryThatFailsEarlyWaitsAnHour(t *testing.T) {
	dir := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
	repo, err := gitx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := Run(ctx, repo, Options{}); err != nil {
		t.Fatal(err)
	}
	kbDir := repo.KBDir()
	marker := filepath.Join(kbDir, gcMarker)
	if err := os.WriteFile(marker, []byte("git kb gc started\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatal(err)
	}
	if !gcUnfinished(kbDir) {
		t.Fatal("a marker two hours old is not seen")
	}
	manifest := filepath.Join(DBDir(repo), "MANIFEST")
	if err := os.WriteFile(manifest, []byte("not a manifest"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := GC(ctx, repo, GCOptions{Auto: true}); err == nil {
		t.Fatal("gc of an index that does not open: no error")
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the failed gc removed the marker: %v", err)
	}
	if gcUnfinished(kbDir) {
		t.Error("after a gc --auto that failed before it opened the index, the next index run starts another at once")
	}
	// A dry run is no try.
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatal(err)
	}
	GC(ctx, repo, GCOptions{Auto: true, DryRun: true})
	if !gcUnfinished(kbDir) {
		t.Error("a dry run put the retry off")
	}
}
