package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of the messages Serve reads (see [Serve]).
const (
	// MaxFrameBytes bounds one line of input, one JSON-RPC message, not
	// counting its line end: the most the Go SDK reads (16 MiB). A longer
	// line is read to its end and dropped, never held whole.
	MaxFrameBytes = mcp.DefaultMaxLineLength
	// MaxFrameDepth bounds the nesting of arrays and objects in a message.
	MaxFrameDepth = 1000
)

// The protocol versions whose sessions take JSON-RPC batches: 2025-03-26
// added them and 2025-06-18 removed them.
const (
	batchesFrom  = "2025-03-26"
	batchesUntil = "2025-06-18"
)

// errEnded is the error of a write after Serve's context is done.
var errEnded = errors.New("ctx mcp is ending: nothing more is sent")

// transport is the stdio transport of Serve: the SDK's newline-delimited
// JSON transport ([mcp.IOTransport]) behind a [frameFilter], which
// answers every line that is not a message the SDK can take with a
// JSON-RPC error, where the SDK would end the session, and a [conn], which
// sends nothing for a request that was cancelled, nor anything once done
// is closed.
type transport struct {
	in   io.Reader
	out  io.Writer
	done <-chan struct{}
}

func (t *transport) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &lockedWriter{w: t.out}
	c := &conn{done: t.done, live: map[jsonrpc.ID]bool{}, cancelled: map[jsonrpc.ID]bool{}, batched: map[jsonrpc.ID]bool{}}
	f := &frameFilter{lines: newLineReader(t.in, MaxFrameBytes), out: out, state: c}
	// the filter bounds every line: the SDK's own bound would end the
	// session where the filter answers
	inner, err := (&mcp.IOTransport{Reader: io.NopCloser(f), Writer: nopCloser{out}, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	c.inner = inner
	return c, nil
}

// lockedWriter serializes the writes of the SDK's connection and of the
// filter's answers, each one whole line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// lineReader reads lines of at most max bytes (not counting the line end)
// with a fixed buffer: a longer line is read to its end and discarded.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line end ("\n" or "\r\n"), valid
// until the next call; for a line over max bytes, nil and its length.
// The last line of the input needs no line end; after it, io.EOF.
func (l *lineReader) next() (line []byte, skipped int64, err error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		switch {
		case skipped > 0:
			skipped += int64(len(chunk))
		case len(l.buf)+len(chunk) > l.max+2: // room for "\r\n"
			skipped = int64(len(l.buf) + len(chunk))
			l.buf = l.buf[:0]
		default:
			l.buf = append(l.buf, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return nil, 0, err
		case err != nil && skipped == 0 && len(l.buf) == 0:
			return nil, 0, io.EOF
		}
		if skipped > 0 {
			return nil, skipped, nil
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(l.buf, []byte("\n")), []byte("\r"))
		if len(line) > l.max {
			return nil, int64(len(l.buf)), nil
		}
		return line, 0, nil
	}
}

// frameFilter is the reader the SDK's transport reads: the lines of the
// input that are JSON-RPC messages (or, in a session that takes them,
// batches of them), each with its line end. Any other line gets a
// JSON-RPC error on out and is dropped: one that is not JSON a parse
// error (-32700), one that is too long, too deep, not a message, or a
// batch where none is taken, an invalid request (-32600); the id is the
// request's when it can be told, else null. A blank line is dropped.
type frameFilter struct {
	lines   *lineReader
	out     io.Writer
	state   *conn
	pending []byte
}

func (f *frameFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, skipped, err := f.lines.next()
		if err != nil {
			return 0, err
		}
		code, id, msg := f.check(line, skipped)
		if code == 0 {
			if len(bytes.TrimSpace(line)) > 0 {
				f.pending = append(line, '\n')
			}
			continue
		}
		if err := f.answer(code, id, msg); err != nil {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// answer writes the JSON-RPC error of a dropped line; nothing once the
// session is ending.
func (f *frameFilter) answer(code int64, id json.RawMessage, msg string) error {
	if f.state.ending() {
		return nil
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return err
	}
	_, err = f.out.Write(append(b, '\n'))
	return err
}

// check returns the error code, id and message of the answer to line;
// code 0 passes the line on.
func (f *frameFilter) check(line []byte, skipped int64) (int64, json.RawMessage, string) {
	if skipped > 0 {
		return jsonrpc.CodeInvalidRequest, nil, fmt.Sprintf("invalid request: the message is %d bytes, over the %d bytes (16 MiB) that one line may hold; it was skipped", skipped, MaxFrameBytes)
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return 0, nil, ""
	}
	if tooDeep(trimmed, MaxFrameDepth) {
		return jsonrpc.CodeInvalidRequest, nil, fmt.Sprintf("invalid request: the message is nested deeper than %d arrays and objects; it was skipped", MaxFrameDepth)
	}
	var raw json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return jsonrpc.CodeParseError, nil, "parse error: the line is not JSON (" + err.Error() + "); each line must hold one JSON-RPC message"
	}
	if trimmed[0] != '[' {
		if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
			return jsonrpc.CodeInvalidRequest, requestID(trimmed), "invalid request: not a JSON-RPC 2.0 message: " + err.Error()
		}
		return 0, nil, ""
	}
	if v := f.state.version(); v < batchesFrom || v >= batchesUntil {
		if v == "" {
			v = "none yet (the session is not initialized)"
		}
		return jsonrpc.CodeInvalidRequest, nil, "invalid request: JSON-RPC batches are not taken in this session (protocol version " + v + "; only " + batchesFrom + " has them): send one message per line"
	}
	return f.checkBatch(trimmed)
}

// checkBatch checks a batch as the SDK's transport takes it: not empty,
// every element a message, no request id twice nor one of a request of
// another batch still unanswered. Its request ids are then in use.
func (f *frameFilter) checkBatch(data []byte) (int64, json.RawMessage, string) {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil || len(elems) == 0 {
		return jsonrpc.CodeInvalidRequest, nil, "invalid request: an empty batch"
	}
	var ids []jsonrpc.ID
	seen := map[jsonrpc.ID]bool{}
	for i, e := range elems {
		msg, err := jsonrpc.DecodeMessage(e)
		if err != nil {
			return jsonrpc.CodeInvalidRequest, nil, fmt.Sprintf("invalid request: element %d of the batch is not a JSON-RPC 2.0 message: %v", i, err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if seen[req.ID] {
				return jsonrpc.CodeInvalidRequest, nil, fmt.Sprintf("invalid request: the batch holds request id %v twice", req.ID.Raw())
			}
			seen[req.ID] = true
			ids = append(ids, req.ID)
		}
	}
	if id, ok := f.state.addBatch(ids); !ok {
		return jsonrpc.CodeInvalidRequest, nil, fmt.Sprintf("invalid request: request id %v of the batch is in use by a request not yet answered", id.Raw())
	}
	return 0, nil, ""
}

// requestID is the id of a message that could not be decoded, as written,
// when it is a string or a number; nil otherwise.
func requestID(data []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(data, &v) != nil || len(v.ID) == 0 {
		return nil
	}
	if c := v.ID[0]; c == '"' || c == '-' || c >= '0' && c <= '9' {
		return v.ID
	}
	return nil
}

// tooDeep reports whether the arrays and objects of data (JSON or not)
// nest deeper than max, without decoding it.
func tooDeep(data []byte, max int) bool {
	depth := 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > max {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// conn is the connection of [transport]: the SDK's, and what it must not
// send. A response to a request that notifications/cancelled cancelled
// is dropped (the protocol says the receiver should not answer it), as is
// every message once done is closed. It also learns the session's
// protocol version from the answer to initialize, for the filter.
type conn struct {
	inner mcp.Connection
	done  <-chan struct{}

	mu        sync.Mutex
	initID    *jsonrpc.ID
	protocol  string
	live      map[jsonrpc.ID]bool // requests read and not yet answered
	cancelled map[jsonrpc.ID]bool // of those, the ones cancelled
	batched   map[jsonrpc.ID]bool // requests of batches not yet answered
}

func (c *conn) SessionID() string { return "" }

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.inner.Read(ctx)
	if err != nil {
		return nil, err
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return msg, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.IsCall():
		c.live[req.ID] = true
		if req.Method == "initialize" {
			id := req.ID
			c.initID = &id
		}
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && c.live[id] && !c.batched[id] {
				// a request of a batch is answered in the batch's array,
				// which the SDK sends once every request has its answer
				c.cancelled[id] = true
			}
		}
	}
	return msg, nil
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if c.ending() {
		return errEnded
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.inner.Write(ctx, msg)
	}
	c.mu.Lock()
	if c.cancelled[resp.ID] {
		delete(c.cancelled, resp.ID)
		delete(c.live, resp.ID)
		c.mu.Unlock()
		return nil
	}
	delete(c.live, resp.ID)
	if c.initID != nil && *c.initID == resp.ID && resp.Error == nil {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(resp.Result, &r) == nil {
			c.protocol = r.ProtocolVersion
		}
		c.initID = nil
	}
	batched := c.batched[resp.ID]
	c.mu.Unlock()
	err := c.inner.Write(ctx, msg)
	if batched {
		// the SDK has let go of the id only now
		c.mu.Lock()
		delete(c.batched, resp.ID)
		c.mu.Unlock()
	}
	return err
}

func (c *conn) Close() error { return c.inner.Close() }

// ending reports whether done is closed.
func (c *conn) ending() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// version is the session's protocol version, "" before initialize is
// answered.
func (c *conn) version() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.protocol
}

// addBatch records the request ids of a batch as in use, unless one is
// already: then it returns that one and false.
func (c *conn) addBatch(ids []jsonrpc.ID) (jsonrpc.ID, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if c.batched[id] {
			return id, false
		}
	}
	for _, id := range ids {
		c.batched[id] = true
	}
	return jsonrpc.ID{}, true
}
