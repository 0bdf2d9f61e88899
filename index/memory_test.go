package index

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestFitBudget(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name          string
		budget, avail int64
		want          int64
		fails         bool
	}{
		{"unknown memory: the budget stands", 512 * mib, 0, 512 * mib, false},
		{"room enough", 512 * mib, 4096 * mib, 512 * mib, false},
		{"exactly enough", 512 * mib, 512*mib + fixedMemory, 512 * mib, false},
		{"a small container: lowered to what is left", 512 * mib, 400 * mib, 400*mib - fixedMemory, false},
		{"lowered to the floor", 512 * mib, minBudget + fixedMemory, minBudget, false},
		{"less than the fixed part and the floor: refused", 512 * mib, minBudget + fixedMemory - 1, 0, true},
	} {
		got, err := fitBudget(tc.budget, tc.avail, "test")
		var me *MemoryError
		if tc.fails != errors.As(err, &me) || got != tc.want {
			t.Errorf("%s: fitBudget = %d MiB, %v; want %d MiB, error %v", tc.name, got>>20, err, tc.want>>20, tc.fails)
		}
		if me != nil && (!strings.Contains(me.Error(), "kb.index.memoryMB") || !strings.Contains(me.Error(), "MiB is available (test)")) {
			t.Errorf("%s: the error does not say what is needed and what is there: %v", tc.name, me)
		}
	}
}

func TestAvailableMemoryFiles(t *testing.T) {
	dir := t.TempDir()
	meminfo := filepath.Join(dir, "meminfo")
	os.WriteFile(meminfo, []byte("MemTotal:       24683648 kB\nMemFree:         1000 kB\nMemAvailable:   2048 kB\n"), 0o644)
	if v, ok := memInfoAvailable(meminfo); !ok || v != 2048<<10 {
		t.Errorf("memInfoAvailable = %d, %v; want 2 MiB", v, ok)
	}
	limit := filepath.Join(dir, "memory.max")
	os.WriteFile(limit, []byte("max\n"), 0o644)
	if _, ok := readBytes(limit); ok {
		t.Errorf(`readBytes("max") is no limit, not a number`)
	}
	os.WriteFile(limit, []byte("536870912\n"), 0o644)
	if v, ok := readBytes(limit); !ok || v != 512<<20 {
		t.Errorf("readBytes = %d, %v", v, ok)
	}
	if runtime.GOOS == "linux" {
		if v, source := availableMemory(); v <= 0 || source == "" {
			t.Errorf("availableMemory on Linux = %d (%q): /proc/meminfo is always there", v, source)
		}
	}
}
