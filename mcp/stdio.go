package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

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
type Stdio struct {
	In  io.Reader
	Out io.Writer
	// MaxLineLength bounds a line (0: the SDK's DefaultMaxLineLength); a
	// longer one is answered with a parse error and skipped.
	MaxLineLength int
}

// Connect implements sdk.Transport.
func (t *Stdio) Connect(ctx context.Context) (sdk.Connection, error) {
	limit := t.MaxLineLength
	if limit <= 0 {
		limit = sdk.DefaultMaxLineLength
	}
	out := &lockedWriter{w: t.Out}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(filterLines(t.In, pw, out, limit)) }()
	// The filter passes on only lines within limit: the SDK's own cap
	// would end the session instead.
	return (&sdk.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter makes each Write whole: the SDK writes a message in one
// Write, and so does the filter, from another goroutine. Close leaves the
// underlying writer (stdout) open, as the SDK's stdio transport does.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// filterLines copies in's JSON-RPC lines to pass and answers the others on
// reply, until in ends (nil) or pass is closed.
func filterLines(in io.Reader, pass io.Writer, reply io.Writer, limit int) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, limit)
		if len(line) > 0 || tooLong {
			var code int
			var msg string
			var id json.RawMessage
			if tooLong {
				code, msg = jsonrpc.CodeParseError, fmt.Sprintf("parse error: a line longer than %d bytes", limit)
			} else {
				code, msg, id = check(line)
			}
			if code == 0 {
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
// batch) to pass on, else the error's code, message and the id to name.
func check(line []byte) (code int, msg string, id json.RawMessage) {
	if !json.Valid(line) {
		err := json.Unmarshal(line, new(json.RawMessage))
		return jsonrpc.CodeParseError, "parse error: " + err.Error(), nil
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return jsonrpc.CodeInvalidRequest, "invalid request: an empty batch", nil
		}
		for i, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: batch item %d: %v", i+1, err), nil
			}
		}
		return 0, "", nil
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &head) == nil && len(head.ID) > 0 && len(head.ID) <= 200 && (head.ID[0] == '"' || head.ID[0] == '-' || head.ID[0] >= '0' && head.ID[0] <= '9') {
			id = head.ID
		}
		return jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error(), id
	}
	return 0, "", nil
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
