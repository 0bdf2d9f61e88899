package index

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// minBudget is the smallest memory budget a run is lowered to when the
// machine has less than the configured one: below it the postings spill
// so often that a run would crawl.
const minBudget = 32 << 20

// MemoryError says a big run cannot fit in the memory this process may
// use: the fixed part alone (the segmenter's full dictionary, Badger's
// tables) and the smallest budget exceed it. Refusing beats being killed
// by the kernel half way through.
type MemoryError struct {
	Budget, Available int64
	Source            string // where Available came from
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("not enough memory to index: a full run needs about %d MiB (a %d MiB buffer budget, kb.index.memoryMB, plus ~%d MiB for the dictionary and the database), and %d MiB is available (%s); free some memory or raise the limit, then run git kb index again",
		(minBudget+fixedMemory)>>20, minBudget>>20, fixedMemory>>20, e.Available>>20, e.Source)
}

// fitBudget is the budget a run can keep in avail bytes (0: unknown, the
// budget stands): the configured one when it fits beside the fixed part,
// else what is left beside it, down to minBudget; below that, an error.
func fitBudget(budget, avail int64, source string) (int64, error) {
	if avail <= 0 || budget+fixedMemory <= avail {
		return budget, nil
	}
	if left := avail - fixedMemory; left >= minBudget {
		return left, nil
	}
	return 0, &MemoryError{Budget: budget, Available: avail, Source: source}
}

// availableMemory is what this process may still use: the smaller of the
// room left under its cgroup's memory limit (v2 memory.max, v1
// memory.limit_in_bytes) and the system's MemAvailable; 0 when neither
// can be read (not Linux).
func availableMemory() (int64, string) {
	avail, source := int64(0), ""
	if v, ok := memInfoAvailable("/proc/meminfo"); ok {
		avail, source = v, "MemAvailable in /proc/meminfo"
	}
	for _, cg := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, ok1 := readBytes(cg[0])
		used, ok2 := readBytes(cg[1])
		if !ok1 || !ok2 || limit <= 0 || limit >= 1<<60 {
			continue
		}
		if room := limit - used; room >= 0 && (avail == 0 || room < avail) {
			avail, source = room, "the room left under the cgroup limit in "+cg[0]
		}
		break
	}
	return avail, source
}

// memInfoAvailable reads MemAvailable (kB) from a meminfo file, in bytes.
func memInfoAvailable(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// readBytes reads a cgroup file holding one number of bytes ("max": no
// limit, reported as not ok).
func readBytes(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}
