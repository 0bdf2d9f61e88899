package mcp

import (
	"strings"
	"testing"
)

// TestRedactWindow: get_document of lines inside a key block, whose BEGIN
// line is above the range asked for, still comes back redacted, and the
// line count does not change.
func TestRedactWindow(t *testing.T) {
	lines := []string{"# Keys", "-----" + "BEGIN RSA PRIVATE KEY-----"}
	for i := range 30 {
		lines = append(lines, strings.Repeat(string(rune('A'+i%26)), 20)+"abcdEFGH0123456789+/abcdEFGH0123456789+/")
	}
	lines = append(lines, "-----"+"END RSA PRIVATE KEY-----", "after")
	body := lines[12]
	n := len(lines)
	redactWindow(nil, "keys.md", lines, 10, 14)
	if len(lines) != n {
		t.Fatalf("line count changed: %d -> %d", n, len(lines))
	}
	for i := 10; i <= 14; i++ {
		if lines[i-1] != "[redacted: private-key]" {
			t.Errorf("line %d: %q", i, lines[i-1])
		}
	}
	if lines[12] == body || lines[n-1] != "after" {
		t.Errorf("lines: %q", lines)
	}
}
