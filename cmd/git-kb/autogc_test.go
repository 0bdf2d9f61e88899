package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/index"
	"github.com/git-kb/git-kb/store"
)

// plantPipeline writes a one-file view of HEAD at pipeline pv into dir's
// index, as a git-kb of that pipeline version would have: what an
// upgrade (pv older) or a newer git-kb on the same repository (pv newer)
// leaves in the database.
func plantPipeline(t *testing.T, dir string, pv byte) {
	t.Helper()
	sha := func(rev string) store.SHA {
		var s store.SHA
		if _, err := hex.Decode(s[:], []byte(gittest.Git(t, dir, "rev-parse", rev))); err != nil {
			t.Fatal(err)
		}
		return s
	}
	commit, tree, blob := sha("HEAD"), sha("HEAD^{tree}"), sha("HEAD:guide.md")
	db, err := store.Open(context.Background(), filepath.Join(dir, ".git", "kb", "db"), store.Options{Pipeline: int(pv)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seg, first, err := db.AllocSegment(1)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch(pv)
	if err := b.Postings("熔断", seg, store.EncodePostings([]store.Posting{{Chunk: first, TF: [store.NumFields]uint16{1}}})); err != nil {
		t.Fatal(err)
	}
	if err := b.Blob(blob, store.BlobHeader{Seg: seg, First: first, N: 1}, &store.BlobMeta{Lang: "markdown"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	v := &store.View{Created: time.Now(), Chunks: 1, Entries: []store.ViewEntry{{Path: "guide.md", Blob: blob, Seg: seg, First: first, N: 1}}, Stats: store.ViewStats{Files: 1, Indexed: 1}}
	if err := db.Publish(pv, &store.Segment{ID: seg, First: first, N: 1}, tree, v, store.Ref{Commit: commit, Tree: tree, Indexed: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

// indexByBinary runs the real binary's git kb index --json in dir: an
// index run whose background gc is git-kb's, not this test binary's.
func indexByBinary(t *testing.T, dir string) (index.Stats, string) {
	t.Helper()
	var st index.Stats
	out := kbBin(t, dir, "index", "--json")
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &st); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return st, out
}

func otherPipelines(t *testing.T, dir string) (older, newer bool) {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(dir, ".git", "kb", "db"), store.Options{ReadOnly: true, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	older, newer, err = db.OtherPipelines(index.PipelineVersion)
	if err != nil {
		t.Fatal(err)
	}
	return older, newer
}

// TestUpgradeDropsOlderPipelineInBackground: after an upgrade of git-kb,
// the first index run rebuilds for the new pipeline and starts git kb gc
// --auto in the background (the real binary: a detached process), which
// drops the older version's records and keeps the new view.
func TestUpgradeDropsOlderPipelineInBackground(t *testing.T) {
	dir := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
	plantPipeline(t, dir, index.PipelineVersion-1)
	if older, _ := otherPipelines(t, dir); !older {
		t.Fatal("planted records not seen")
	}
	st, out := indexByBinary(t, dir)
	if !st.OlderPipelines || !st.GCBackground {
		t.Fatalf("rebuild after an upgrade: older_pipelines %v, gc_background %v\n%s", st.OlderPipelines, st.GCBackground, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if older, _ := otherPipelines(t, dir); !older {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, ".git", "kb", "gc.log"))
			t.Fatalf("the older pipeline's records are still there after 60 s; gc.log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The log is written when the background run ends; the records go
	// before it does.
	for time.Now().Before(deadline) {
		if log, _ := os.ReadFile(filepath.Join(dir, ".git", "kb", "gc.log")); strings.Contains(string(log), "freed") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, ".git", "kb", "gc.log"))
	if !strings.Contains(string(log), "an older git-kb version's index data") || !strings.Contains(string(log), "freed") {
		t.Errorf("gc.log:\n%s", log)
	}
	if r := searchJSON(t, dir, "--no-index", "熔断阈值"); len(r.Results) == 0 || r.Results[0].Path != "guide.md" {
		t.Errorf("search after the background gc: %+v", r.Results)
	}
	// Nothing older is left: the next rebuild starts nothing.
	var again index.GCReport
	kbJSON(t, dir, &again, "gc", "--auto", "--json")
	if again.Skipped == "" || again.KeysDeleted != 0 {
		t.Errorf("second gc --auto: %+v", again)
	}
}

// TestAutoGCLeavesANewerGitKBsData: when a newer git-kb uses the same
// index, --auto drops nothing (its records are not ours to judge), and
// kb.gc.auto false keeps an index run from asking for it at all.
func TestAutoGCLeavesANewerGitKBsData(t *testing.T) {
	dir := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
	plantPipeline(t, dir, index.PipelineVersion+1)
	if st := indexJSON(t, dir); st.OlderPipelines || st.GCBackground {
		t.Errorf("newer data only: %+v", st)
	}
	var rep index.GCReport
	kbJSON(t, dir, &rep, "gc", "--auto", "--json")
	if !strings.Contains(rep.Skipped, "newer") || rep.KeysDeleted != 0 {
		t.Errorf("gc --auto beside a newer git-kb: %+v", rep)
	}
	// It leaves no marker of its own; an earlier gc's stays, for the
	// newer git-kb's index runs to finish.
	marker := filepath.Join(dir, ".git", "kb", "gc-unfinished")
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("gc --auto beside a newer git-kb left a marker: %v", err)
	}
	if err := os.WriteFile(marker, []byte("git kb gc started\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kbJSON(t, dir, &rep, "gc", "--auto", "--json")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("gc --auto beside a newer git-kb removed an earlier gc's marker: %v", err)
	}
	if _, newer := otherPipelines(t, dir); !newer {
		t.Error("the newer git-kb's records went")
	}

	dir2 := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
	gittest.Git(t, dir2, "config", "kb.gc.auto", "false")
	plantPipeline(t, dir2, index.PipelineVersion-1)
	if st := indexJSON(t, dir2); st.OlderPipelines || st.GCBackground {
		t.Errorf("kb.gc.auto false: %+v", st)
	}
	if older, _ := otherPipelines(t, dir2); !older {
		t.Error("kb.gc.auto false: the older records went")
	}
}

// TestDoctorAfterUpgrade: doctor and status say an older git-kb's data
// is left until gc --auto drops it, and doctor nothing once it has: the
// index's creation pipeline (m/format) is history, not a fault to fix;
// status names it beside the pipeline of the views it lists.
func TestDoctorAfterUpgrade(t *testing.T) {
	dir := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
	// kb.gc.auto off: an in-process index run would start this test
	// binary, not git-kb, as its background gc.
	gittest.Git(t, dir, "config", "kb.gc.auto", "false")
	plantPipeline(t, dir, index.PipelineVersion-1) // creates the index as the older git-kb did
	indexJSON(t, dir)
	format := func() index.Check {
		t.Helper()
		var checks []index.Check
		kbJSON(t, dir, &checks, "doctor", "--json")
		for _, c := range checks {
			if c.Name == "format" {
				return c
			}
		}
		t.Fatalf("no format check: %+v", checks)
		return index.Check{}
	}
	if c := format(); c.Status != "warn" || !strings.Contains(c.Fix, "gc --auto") {
		t.Errorf("older data left: %+v", c)
	}
	var st index.Report
	kbJSON(t, dir, &st, "status", "--json")
	if st.Pipeline != index.PipelineVersion || st.CreatedPipeline != index.PipelineVersion-1 || !st.OlderData || st.NewerData {
		t.Errorf("status with older data left: pipeline %d, created %d, older %v, newer %v", st.Pipeline, st.CreatedPipeline, st.OlderData, st.NewerData)
	}
	if out := kbBin(t, dir, "status"); !strings.Contains(out, fmt.Sprintf("pipeline %d (this git-kb", index.PipelineVersion)) ||
		!strings.Contains(out, fmt.Sprintf("created at pipeline %d", index.PipelineVersion-1)) || !strings.Contains(out, "git kb gc drops them") {
		t.Errorf("status with older data left:\n%s", out)
	}
	var rep index.GCReport
	kbJSON(t, dir, &rep, "gc", "--auto", "--json")
	if rep.KeysDeleted == 0 {
		t.Fatalf("gc --auto dropped nothing: %+v", rep)
	}
	if c := format(); c.Status != "ok" {
		t.Errorf("after gc --auto: %+v", c)
	}
	st = index.Report{}
	kbJSON(t, dir, &st, "status", "--json")
	if st.OlderData || st.Pipeline != index.PipelineVersion {
		t.Errorf("status after gc --auto: %+v", st)
	}
}

// TestUnfinishedGCIsFinished: a gc killed half way leaves its marker
// (.git/kb/gc-unfinished); an index run an hour later starts git kb gc
// --auto in the background (the real binary), which compacts though no
// older records are left and removes the marker. A younger marker is
// left alone: a gc that keeps failing is retried hourly, not by every
// hook.
func TestUnfinishedGCIsFinished(t *testing.T) {
	dir := gittest.New(t, map[string]string{"guide.md": "# 熔断\n\n熔断阈值的配置说明。\n"})
	indexJSON(t, dir)
	marker := filepath.Join(dir, ".git", "kb", "gc-unfinished")
	if err := os.WriteFile(marker, []byte("git kb gc started\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := indexByBinary(t, dir); st.GCUnfinished || st.GCBackground {
		t.Fatalf("a marker just written: gc_unfinished %v, gc_background %v", st.GCUnfinished, st.GCBackground)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatal(err)
	}
	if st, out := indexByBinary(t, dir); !st.GCUnfinished || !st.GCBackground {
		t.Fatalf("a marker two hours old: gc_unfinished %v, gc_background %v\n%s", st.GCUnfinished, st.GCBackground, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		log, _ := os.ReadFile(filepath.Join(dir, ".git", "kb", "gc.log"))
		if _, err := os.Stat(marker); os.IsNotExist(err) && strings.Contains(string(log), "freed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background gc did not finish in 60 s; gc.log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r := searchJSON(t, dir, "--no-index", "熔断阈值"); len(r.Results) == 0 || r.Results[0].Path != "guide.md" {
		t.Errorf("search after the background gc: %+v", r.Results)
	}
	// Finished: gc --auto has nothing to do again.
	var again index.GCReport
	kbJSON(t, dir, &again, "gc", "--auto", "--json")
	if again.Skipped == "" {
		t.Errorf("gc --auto after the finished one: %+v", again)
	}
}
