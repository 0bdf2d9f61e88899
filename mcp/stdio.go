package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the SDK's stdio transport (newline-delimited JSON-RPC) behind a
// line filter. The SDK's reader ends the session at the first line that
// is not a JSON-RPC message, and v1.8.0 has no option to answer instead;
// Stdio answers such a line with a JSON-RPC error, as the specification
// asks (-32700 parse error for what is not JSON, -32600 invalid request
// for JSON that is no JSON-RPC message, id null unless the line's id can
// be read), skips it, and keeps the session. Blank lines are skipped.
//
// The SDK also ends the session when its input ends, dropping the calls
// still running: `printf '%s\n' REQUEST... | git kb mcp` would get some
// replies and not others. Stdio holds the end of input back from the SDK
// until every request passed on has been answered (or cancelled by the
// client), for at most DrainTimeout.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	// MaxLineLength bounds a line (0: the SDK's DefaultMaxLineLength); a
	// longer one is answered with a parse error and skipped.
	MaxLineLength int
	// DrainTimeout bounds the wait for replies once In ends (0:
	// DefaultDrainTimeout).
	DrainTimeout time.Duration
}

// DefaultDrainTimeout is how long Stdio waits, once its input has ended,
// for the replies to requests still running: long enough for a first
// search that indexes a large repository.
const DefaultDrainTimeout = 5 * time.Minute

// Connect implements sdk.Transport.
func (t *Stdio) Connect(ctx context.Context) (sdk.Connection, error) {
	limit := t.MaxLineLength
	if limit <= 0 {
		limit = sdk.DefaultMaxLineLength
	}
	wait := t.DrainTimeout
	if wait <= 0 {
		wait = DefaultDrainTimeout
	}
	calls := newInflight()
	out := &lockedWriter{w: t.Out, calls: calls}
	pr, pw := io.Pipe()
	go func() {
		err := filterLines(t.In, pw, out, limit, calls)
		if err == nil {
			calls.drain(wait)
		}
		pw.CloseWithError(err)
	}()
	// The filter passes on only lines within limit: the SDK's own cap
	// would end the session instead.
	return (&sdk.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter makes each Write whole: the SDK writes a message in one
// Write, and so does the filter, from another goroutine. It tells calls
// of each reply written. Close leaves the underlying writer (stdout)
// open, as the SDK's stdio transport does, and tells calls the session
// has ended.
type lockedWriter struct {
	mu    sync.Mutex
	w     io.Writer
	calls *inflight
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if err == nil && l.calls != nil {
		l.calls.answered(p)
	}
	return n, err
}

func (l *lockedWriter) Close() error {
	if l.calls != nil {
		l.calls.close()
	}
	return nil
}

// inflight counts the requests passed to the SDK by id until their
// replies are written.
type inflight struct {
	mu      sync.Mutex
	ids     map[string]int
	changed chan struct{} // a token after each change
	done    chan struct{} // closed when the session ends
	once    sync.Once
}

func newInflight() *inflight {
	return &inflight{ids: map[string]int{}, changed: make(chan struct{}, 1), done: make(chan struct{})}
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// sent records msgs, about to be passed on: a call waits for its reply;
// a cancellation (notifications/cancelled) ends the wait for the call it
// names, which gets none.
func (f *inflight) sent(msgs []jsonrpc.Message) {
	if f == nil {
		return
	}
	for _, m := range msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		if req.IsCall() {
			f.add(idKey(req.ID), 1)
			continue
		}
		if req.Method != "notifications/cancelled" {
			continue
		}
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			continue
		}
		if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
			f.add(idKey(id), -1)
		}
	}
}

// answered records the replies in one message (or batch) written out.
func (f *inflight) answered(p []byte) {
	p = bytes.TrimSpace(p)
	// Only a message's id and method are read: a reply's result (a search's
	// snippets) is skipped, not decoded a second time.
	var heads []replyHead
	if len(p) > 0 && p[0] == '[' {
		if json.Unmarshal(p, &heads) != nil {
			return
		}
	} else {
		var h replyHead
		if json.Unmarshal(p, &h) != nil {
			return
		}
		heads = []replyHead{h}
	}
	for _, h := range heads {
		if h.Method != "" || h.ID == nil {
			continue // a request or notification of the server's, not a reply
		}
		if id, err := jsonrpc.MakeID(h.ID); err == nil && id.IsValid() {
			f.add(idKey(id), -1)
		}
	}
}

// replyHead is what answered reads of a message written out.
type replyHead struct {
	ID     any    `json:"id"`
	Method string `json:"method"`
}

func (f *inflight) add(key string, d int) {
	f.mu.Lock()
	n, ok := f.ids[key]
	switch {
	case d > 0:
		f.ids[key] = n + d
	case ok && n > 1:
		f.ids[key] = n - 1
	case ok:
		delete(f.ids, key)
	}
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *inflight) close() { f.once.Do(func() { close(f.done) }) }

// drain waits until no call is waiting for its reply, the session has
// ended, or max has passed.
func (f *inflight) drain(max time.Duration) {
	timer := time.NewTimer(max)
	defer timer.Stop()
	for {
		f.mu.Lock()
		n := len(f.ids)
		f.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-f.changed:
		case <-f.done:
			return
		case <-timer.C:
			return
		}
	}
}

// filterLines copies in's JSON-RPC lines to pass and answers the others on
// reply, until in ends (nil) or pass is closed. calls (nil: none) learns
// of each message passed on.
func filterLines(in io.Reader, pass io.Writer, reply io.Writer, limit int, calls *inflight) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, limit)
		if len(line) > 0 || tooLong {
			var code int
			var msg string
			var id json.RawMessage
			var msgs []jsonrpc.Message
			if tooLong {
				code, msg = jsonrpc.CodeParseError, fmt.Sprintf("parse error: a line longer than %d bytes", limit)
			} else {
				code, msg, id, msgs = check(line)
			}
			if code == 0 {
				calls.sent(msgs) // before the SDK can answer
				if _, werr := pass.Write(append(line, '\n')); werr != nil {
					return nil // the session is closed
				}
			} else if _, werr := reply.Write(errorLine(id, code, msg)); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line without its end, trimmed of spaces; tooLong
// says it was over limit (and was read to its end and dropped).
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(part) > limit+2 { // +2: the line's \r\n
				tooLong, line = true, nil
			} else {
				line = append(line, part...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSpace(line), tooLong, err
	}
}

// check is how to answer line: code 0 when it is a JSON-RPC message (or
// batch) to pass on, with its messages; else the error's code, message
// and the id to name.
func check(line []byte) (code int, msg string, id json.RawMessage, msgs []jsonrpc.Message) {
	if !json.Valid(line) {
		err := json.Unmarshal(line, new(json.RawMessage))
		return jsonrpc.CodeParseError, "parse error: " + err.Error(), nil, nil
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return jsonrpc.CodeInvalidRequest, "invalid request: an empty batch", nil, nil
		}
		for i, m := range batch {
			dm, err := jsonrpc.DecodeMessage(m)
			if err != nil {
				return jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: batch item %d: %v", i+1, err), nil, nil
			}
			msgs = append(msgs, dm)
		}
		return 0, "", nil, msgs
	}
	dm, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &head) == nil && len(head.ID) > 0 && len(head.ID) <= 200 && (head.ID[0] == '"' || head.ID[0] == '-' || head.ID[0] >= '0' && head.ID[0] <= '9') {
			id = head.ID
		}
		return jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error(), id, nil
	}
	return 0, "", nil, []jsonrpc.Message{dm}
}

// rpcError is a JSON-RPC error response.
type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorBody    `json:"error"`
}

type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// errorLine is a JSON-RPC error response, newline-terminated.
func errorLine(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	b, _ := json.Marshal(rpcError{JSONRPC: "2.0", ID: id, Error: rpcErrorBody{code, msg}}) // plain fields: cannot fail
	return append(b, '\n')
}
