package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/git-kb/git-kb/index"
)

// progress draws a one-line bar on stderr; it is a no-op when disabled
// (stderr not a terminal, or --quiet).
type progress struct {
	w       io.Writer
	on      bool
	mu      sync.Mutex
	start   time.Time
	last    time.Time
	drawn   bool
	lastLen int
}

func newProgress(w io.Writer, on bool) *progress {
	return &progress{w: w, on: on, start: time.Now()}
}

func (p *progress) update(ev index.Event) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond && ev.Done != ev.Total {
		return
	}
	p.last = now
	var line string
	switch ev.Phase {
	case "write":
		line = fmt.Sprintf("writing index %s %d/%d terms", bar(ev.Done, ev.Total), ev.Done, ev.Total)
	case "embed":
		el := now.Sub(p.start).Seconds()
		rate := float64(ev.Done) / max(el, 0.001)
		eta := ""
		if ev.Done > 0 && ev.Done < ev.Total {
			eta = fmt.Sprintf(" ETA %s", (time.Duration(float64(ev.Total-ev.Done)/rate) * time.Second).Round(time.Second))
		}
		line = fmt.Sprintf("embedding %s %d/%d chunks %.0f chunks/s%s", bar(ev.Done, ev.Total), ev.Done, ev.Total, rate, eta)
	default:
		el := now.Sub(p.start).Seconds()
		rate := float64(ev.Bytes) / (1 << 20) / max(el, 0.001)
		eta := ""
		if ev.Done > 0 && ev.Done < ev.Total {
			eta = fmt.Sprintf(" ETA %s", (time.Duration(el/float64(ev.Done)*float64(ev.Total-ev.Done)) * time.Second).Round(time.Second))
		}
		line = fmt.Sprintf("indexing %s %d/%d files %.0f files/s %.1f MiB/s %s%s", bar(ev.Done, ev.Total), ev.Done, ev.Total,
			float64(ev.Done)/max(el, 0.001), rate, memoryInUse(), eta)
	}
	pad := ""
	if n := p.lastLen - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	p.lastLen = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.drawn = true
}

func (p *progress) done() {
	if p.on && p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.lastLen))
	}
}

// memoryInUse is what the Go runtime holds from the system now (heap,
// stacks, its own structures; not Badger's memory-mapped files), for the
// progress line: "mem 412 MiB". runtime.ReadMemStats, not runtime/metrics:
// that package's initialiser builds its table of metrics in every start of
// git kb, a search's too (issue 16); Sys is /memory/classes/total:bytes.
func memoryInUse() string {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fmt.Sprintf("mem %d MiB", (m.Sys-m.HeapReleased)>>20)
}

func bar(done, total int) string {
	const width = 24
	n := 0
	if total > 0 {
		n = done * width / total
	}
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}
