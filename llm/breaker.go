package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Breaker is a circuit breaker for an endpoint, kept in a file so that the
// next process knows: after a failure, callers skip the endpoint for
// Cooldown instead of paying a timeout on every query. A user whose local
// model server is stopped gets lexical answers at lexical speed, and the
// endpoint is tried again once the cooldown has passed.
type Breaker struct {
	Path     string        // the state file (under .git/kb)
	Key      string        // the endpoint and model; state of another key is ignored
	Cooldown time.Duration // how long to skip after a failure (0: never skip)
	Now      func() time.Time
}

// breakerState is the file's content.
type breakerState struct {
	Key    string    `json:"key"`
	Failed time.Time `json:"failed"`
	Until  time.Time `json:"until"`
	Reason string    `json:"reason"`
}

// OpenError says the endpoint is being skipped, and why.
type OpenError struct {
	Reason    string
	Ago, Left time.Duration
}

func (e *OpenError) Error() string {
	return fmt.Sprintf("skipped: it failed %s ago (%s); trying it again in %s (kb.embed.cooldown)",
		e.Ago.Round(time.Second), e.Reason, max(e.Left.Round(time.Second), time.Second))
}

func (b *Breaker) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Check returns an *OpenError while the endpoint is cooling down after a
// failure, else nil. A missing or unreadable state file means closed.
func (b *Breaker) Check() error {
	if b == nil || b.Cooldown <= 0 {
		return nil
	}
	data, err := os.ReadFile(b.Path)
	if err != nil {
		return nil
	}
	var st breakerState
	if json.Unmarshal(data, &st) != nil || st.Key != b.Key {
		return nil
	}
	now := b.now()
	// The cooldown in force is the shorter of the recorded one and the
	// configured one, so lowering kb.embed.cooldown takes effect at once.
	until := st.Until
	if c := st.Failed.Add(b.Cooldown); c.Before(until) {
		until = c
	}
	if !now.Before(until) {
		return nil
	}
	return &OpenError{Reason: st.Reason, Ago: now.Sub(st.Failed), Left: until.Sub(now)}
}

// Fail records a failure, opening the breaker for Cooldown. Best effort:
// a state file that cannot be written costs the next query a timeout,
// not an answer.
func (b *Breaker) Fail(err error) {
	if b == nil || b.Cooldown <= 0 || err == nil {
		return
	}
	now := b.now()
	reason := err.Error()
	if len(reason) > 300 {
		reason = reason[:300] + "..."
	}
	data, _ := json.Marshal(breakerState{Key: b.Key, Failed: now, Until: now.Add(b.Cooldown), Reason: reason})
	if os.MkdirAll(filepath.Dir(b.Path), 0o755) != nil {
		return
	}
	tmp := fmt.Sprintf("%s.%d.tmp", b.Path, os.Getpid())
	if os.WriteFile(tmp, data, 0o644) == nil {
		if os.Rename(tmp, b.Path) != nil {
			os.Remove(tmp)
		}
	}
}

// Ok closes the breaker after a success.
func (b *Breaker) Ok() {
	if b == nil {
		return
	}
	if _, err := os.Stat(b.Path); err == nil {
		os.Remove(b.Path)
	}
}

// Unreachable says whether err means nothing answers at the endpoint's
// address: the connection was refused, the host name does not resolve, or
// the network or host is unreachable. Retrying those within one query
// only adds delay.
func Unreachable(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	for _, e := range []error{syscall.ECONNREFUSED, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.EADDRNOTAVAIL} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
