package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestFilterLines: JSON-RPC lines pass on byte for byte; every other
// non-blank line gets one JSON-RPC error, in order, naming the request's
// id when it can be read.
func TestFilterLines(t *testing.T) {
	tests := []struct {
		name, line string
		pass       bool
		code       int
		id         string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true, 0, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, true, 0, ""},
		{"response", `{"jsonrpc":"2.0","id":"a","result":{}}`, true, 0, ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`, true, 0, ""},
		{"crlf and spaces", "  {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"} \r", true, 0, ""},
		{"text", `hello`, false, -32700, "null"},
		{"half an object", `{"jsonrpc":"2.0","id":4,"method":`, false, -32700, "null"},
		{"two values", `{} {}`, false, -32700, "null"},
		{"not utf-8 json", "\xff\xfe", false, -32700, "null"},
		{"no version", `{"id":7,"method":"ping"}`, false, -32600, "7"},
		{"string id", `{"id":"q-1","method":"ping","jsonrpc":"1.0"}`, false, -32600, `"q-1"`},
		{"object id", `{"id":{"a":1},"method":"ping"}`, false, -32600, "null"},
		{"number", `42`, false, -32600, "null"},
		{"empty batch", `[]`, false, -32600, "null"},
		{"bad batch item", `[{"jsonrpc":"2.0","id":1,"method":"ping"},5]`, false, -32600, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pass, reply bytes.Buffer
			in := "\n" + tt.line + "\n\n"
			if err := filterLines(strings.NewReader(in), &pass, &reply, 1<<10, nil); err != nil {
				t.Fatal(err)
			}
			if tt.pass {
				if want := strings.TrimSpace(tt.line) + "\n"; pass.String() != want || reply.Len() != 0 {
					t.Fatalf("passed %q, replied %q; want %q passed", pass.String(), reply.String(), want)
				}
				return
			}
			if pass.Len() != 0 {
				t.Fatalf("passed %q", pass.String())
			}
			var e struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if strings.Count(reply.String(), "\n") != 1 || json.Unmarshal(reply.Bytes(), &e) != nil {
				t.Fatalf("reply %q: want one JSON line", reply.String())
			}
			if e.JSONRPC != "2.0" || e.Error.Code != tt.code || string(e.ID) != tt.id || e.Error.Message == "" {
				t.Errorf("reply %q: want code %d, id %s", reply.String(), tt.code, tt.id)
			}
		})
	}
}

// A line over the limit is answered and dropped whole; the lines around
// it pass, however the reads split them.
func TestFilterLinesTooLong(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	long := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("长", 200) + `"}}`
	in := ok + "\n" + long + "\n" + ok + "\r\n"
	var pass, reply bytes.Buffer
	if err := filterLines(iotestOneByte(strings.NewReader(in)), &pass, &reply, 100, nil); err != nil {
		t.Fatal(err)
	}
	if pass.String() != ok+"\n"+ok+"\n" {
		t.Errorf("passed %q", pass.String())
	}
	if !strings.Contains(reply.String(), `"code":-32700`) || !strings.Contains(reply.String(), "longer than 100 bytes") || strings.Count(reply.String(), "\n") != 1 {
		t.Errorf("replied %q", reply.String())
	}
}

// iotestOneByte reads one byte at a time, as a slow pipe may deliver.
func iotestOneByte(r io.Reader) io.Reader { return &oneByte{r} }

type oneByte struct{ r io.Reader }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// TestStdioSessionSurvivesGarbage: the SDK's server over Stdio answers a
// line that is not JSON with a parse error and goes on serving the
// session: the calls after it are answered. (Over the SDK's own stdio
// transport the first such line ended the session.)
func TestStdioSessionSurvivesGarbage(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	server := NewServer("test", []Repo{{Name: "r"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, &Stdio{In: inR, Out: outW}) }()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatalf("write %q: %v", s, err)
		}
	}
	// next is the next line the server writes that has want in it.
	next := func(want string) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the server ended its output waiting for %s (run: %v)", want, <-done)
				}
				if strings.Contains(l, want) {
					return l
				}
			case <-ctx.Done():
				t.Fatalf("no %s", want)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	next(`"id":1,"result"`)
	send(`Content-Length: 52`) // an LSP-style header: a client of another protocol
	next(`"code":-32700`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"id":5,"method":"tools/list"}`)
	next(`"id":5,"error":{"code":-32600`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if l := next(`"id":2`); !strings.Contains(l, `"hybrid_search"`) {
		t.Errorf("tools/list after the bad lines: %.200s", l)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil && err != io.EOF {
			t.Logf("run ended: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the server did not end when its input did")
	}
}

// TestInflightDrain: once input ends, Stdio waits for the replies to the
// calls passed on: a reply (alone or in a batch) or the client's
// cancellation ends the wait for a call, the session's end ends it for
// all, and it never lasts longer than its bound.
func TestInflightDrain(t *testing.T) {
	send := func(f *inflight, line string) {
		t.Helper()
		code, msg, _, msgs := check([]byte(line))
		if code != 0 {
			t.Fatalf("%s: %s", line, msg)
		}
		f.sent(msgs)
	}
	took := func(f *inflight, max time.Duration) time.Duration {
		began := time.Now()
		f.drain(max)
		return time.Since(began)
	}
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"hybrid_search","arguments":{"query":"x"}}}`
	}

	f := newInflight()
	send(f, call("7"))
	send(f, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if d := took(f, 200*time.Millisecond); d < 200*time.Millisecond {
		t.Fatalf("drain with a call unanswered returned after %v", d)
	}
	send(f, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"x"}}`)
	if d := took(f, 10*time.Second); d > time.Second {
		t.Fatalf("drain after the call was cancelled took %v", d)
	}

	send(f, call(`"x"`))
	send(f, `[`+call("1")+`,`+call("2")+`]`)
	f.answered([]byte(`{"jsonrpc":"2.0","id":"x","result":{}}` + "\n"))
	f.answered([]byte(`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m"}}]` + "\n"))
	if d := took(f, 10*time.Second); d > time.Second {
		t.Fatalf("drain after every call was answered took %v", d)
	}

	send(f, call("9"))
	time.AfterFunc(50*time.Millisecond, f.close)
	if d := took(f, 10*time.Second); d > time.Second {
		t.Fatalf("drain after the session ended took %v", d)
	}
}
