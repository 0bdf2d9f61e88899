package main

import (
	"strings"
	"testing"
	"time"

	"github.com/git-kb/git-kb/gitx/gittest"
	"github.com/git-kb/git-kb/search"
)

func TestDocHealth(t *testing.T) {
	body := "\n# 连接池手册\n\n连接池打满时先查慢查询，再调大 maxOpenConns。\n"
	dir := gittest.New(t, map[string]string{
		"docs/old.md":     "---\nconfidence: deprecated\n---\n" + body + "连接池 连接池 连接池\n",
		"docs/current.md": "---\nlast_reviewed: " + time.Now().AddDate(0, -1, 0).Format("2006-01-02") + "\n---\n" + body,
		"docs/stale.md":   "---\nlast_reviewed: 2020-03-01\n---\n" + body,
	})
	r := searchJSON(t, dir, "连接池打满")
	health := map[string]string{}
	for _, x := range r.Results {
		health[x.Path] = x.Health
	}
	if health["docs/old.md"] != search.HealthDeprecated || health["docs/stale.md"] != search.HealthStale || health["docs/current.md"] != "" {
		t.Errorf("health: %v", health)
	}
	// The deprecated doc matches best on words, but is demoted below.
	if r.Results[len(r.Results)-1].Path != "docs/old.md" {
		t.Errorf("deprecated doc not demoted: %v", paths(r))
	}
	out, _, _ := kb(t, dir, "search", "-q", "连接池打满")
	if !strings.Contains(out, "[deprecated]") || !strings.Contains(out, "[stale: not reviewed for over 365d]") {
		t.Errorf("human output:\n%s", out)
	}
	// kb.staleAfter moves the line.
	gittest.Git(t, dir, "config", "kb.staleAfter", "3650d")
	if r := searchJSON(t, dir, "连接池打满"); strings.Contains(strings.Join(healthOf(r), ","), "stale") {
		t.Errorf("with kb.staleAfter 3650d: %v", healthOf(r))
	}
	gittest.Git(t, dir, "config", "kb.staleAfter", "soon")
	if _, errs, code := kb(t, dir, "search", "连接池"); code != 1 || !strings.Contains(errs, "kb.staleAfter") {
		t.Errorf("bad kb.staleAfter: exit %d %s", code, errs)
	}
}

func healthOf(r search.Response) []string {
	var h []string
	for _, x := range r.Results {
		h = append(h, x.Health)
	}
	return h
}

// A document both deprecated and stale says both: "health" stays the one
// word it always was (deprecated, the one that demotes), and
// "health_flags" lists every flag.
func TestDocHealthDeprecatedAndStale(t *testing.T) {
	body := "\n# 连接池手册\n\n连接池打满时先查慢查询，再调大 maxOpenConns。\n"
	dir := gittest.New(t, map[string]string{
		"docs/both.md":  "---\nstatus: deprecated\nlast_reviewed: 2020-03-01\n---\n" + body,
		"docs/stale.md": "---\nlast_reviewed: 2020-03-01\n---\n" + body,
		"docs/fresh.md": "---\nlast_reviewed: " + time.Now().Format("2006-01-02") + "\n---\n" + body,
	})
	got := map[string]search.Result{}
	for _, x := range searchJSON(t, dir, "连接池打满").Results {
		got[x.Path] = x
	}
	both, stale, fresh := got["docs/both.md"], got["docs/stale.md"], got["docs/fresh.md"]
	if both.Health != search.HealthDeprecated || strings.Join(both.HealthFlags, ",") != "deprecated,stale" {
		t.Errorf("deprecated and stale: health %q, flags %q", both.Health, both.HealthFlags)
	}
	if stale.Health != search.HealthStale || strings.Join(stale.HealthFlags, ",") != "stale" {
		t.Errorf("stale: health %q, flags %q", stale.Health, stale.HealthFlags)
	}
	if fresh.Health != "" || fresh.HealthFlags != nil {
		t.Errorf("fresh: health %q, flags %q", fresh.Health, fresh.HealthFlags)
	}
	out, _, _ := kb(t, dir, "search", "-q", "连接池打满")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "docs/both.md  L") && (!strings.Contains(line, "[deprecated]") || !strings.Contains(line, "[stale: not reviewed for over 365d]")) {
			t.Errorf("human output for both.md: %s", line)
		}
	}
	if !strings.Contains(out, "docs/both.md") {
		t.Errorf("human output has no docs/both.md:\n%s", out)
	}
}
