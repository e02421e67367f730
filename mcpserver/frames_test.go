package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxaudit/ctx/internal/testwait"
	"github.com/ctxaudit/ctx/mcpserver"
)

// pipeSession is Serve over pipes, driven line by line as a client
// writes to ctx mcp: what the server writes comes on lines, one message
// each, and Serve's end on done.
type pipeSession struct {
	t         *testing.T
	lines     chan []byte
	outW      *io.PipeWriter
	sends     chan string
	closeOnce sync.Once
	done      chan error
	cancel    context.CancelFunc
}

// servePipes starts Serve for srv over pipes, with a context of its own
// (cancel ends it, as SIGTERM does in ctx mcp).
func servePipes(t *testing.T, srv *mcp.Server) *pipeSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &pipeSession{t: t, outW: outW, lines: make(chan []byte, 100), sends: make(chan string, 100), done: make(chan error, 1), cancel: cancel}
	go func() { s.done <- mcpserver.Serve(ctx, srv, inR, outW) }()
	// lines are written in order by one goroutine, so that a server that
	// stops reading fails next rather than blocking the test in send
	go func() {
		defer inW.Close()
		for line := range s.sends {
			if _, err := io.WriteString(inW, line); err != nil {
				return
			}
		}
	}()
	go func() {
		defer close(s.lines)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				s.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		s.closeInput()
		inR.Close()
		outR.Close()
	})
	return s
}

// serveProject is servePipes for a server of the test project.
func serveProject(t *testing.T, o mcpserver.Options) *pipeSession {
	t.Helper()
	if o.Dir == "" {
		o.Dir = project(t)
	}
	srv, err := mcpserver.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return servePipes(t, srv)
}

// closeInput closes the server's input once the lines sent are written.
func (s *pipeSession) closeInput() { s.closeOnce.Do(func() { close(s.sends) }) }

// closeOutput ends the server's output, once Serve has returned: lines
// then ends after what was written.
func (s *pipeSession) closeOutput() { s.outW.Close() }

// send writes one line to the server (in the background).
func (s *pipeSession) send(line string) { s.sends <- line + "\n" }

// message is a JSON-RPC message as the server wrote it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw []byte
}

// next returns the next line the server wrote; it fails the test when
// Serve ends first.
func (s *pipeSession) next() message {
	s.t.Helper()
	var line []byte
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("the server's output ended (Serve: %v)", <-s.done)
		}
		line = l
	case err := <-s.done:
		s.done <- err
		s.t.Fatalf("Serve returned %v while an answer was awaited", err)
	case <-time.After(testwait.Limit):
		s.t.Fatalf("hang: no answer within %v\n%s", testwait.Limit, testwait.Goroutines())
	}
	var m message
	if bytes.HasPrefix(line, []byte("[")) {
		m.raw = line
		return m
	}
	if err := json.Unmarshal(line, &m); err != nil {
		s.t.Fatalf("the server wrote %q: %v", line, err)
	}
	m.raw = line
	return m
}

// initialize opens the session with protocol version.
func (s *pipeSession) initialize(version string) {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.next(); string(m.ID) != "1" || m.Result == nil {
		s.t.Fatalf("initialize: %s", m.raw)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// listTools asks tools/list with id and checks the answer.
func (s *pipeSession) listTools(id int) {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
	m := s.next()
	if string(m.ID) != fmt.Sprint(id) || m.Error != nil || !bytes.Contains(m.Result, []byte(`"name":"render"`)) {
		s.t.Fatalf("tools/list %d: %s", id, m.raw)
	}
}

// TestBadFrames sends what is not a JSON-RPC message, one line of each
// kind in a session of its own: each is answered with a JSON-RPC error
// (a parse error with id null for what is not JSON), and the server
// reads on: the tools/list on the next line is answered, and Serve ends
// only when its input closes.
func TestBadFrames(t *testing.T) {
	dir := project(t)
	huge := `{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 17<<20) + `"}}`
	for _, tc := range []struct {
		name, line string
		code       int
		id         string
		want       string
	}{
		{"garbage", "hello, world", -32700, "null", "parse error"},
		{"NUL byte", "\x00", -32700, "null", "parse error"},
		{"cut JSON", `{"jsonrpc":"2.0","id":7,"method":`, -32700, "null", "parse error"},
		{"batch", `[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`, -32600, "null", "batch"},
		{"nested 100,000 deep", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), -32600, "null", "nested deeper than"},
		{"17 MiB line", huge, -32600, "null", "over the 16777216 bytes"},
		{"a wrong version", `{"jsonrpc":"1.0","id":9,"method":"tools/list"}`, -32600, "9", "invalid request"},
		{"a number", `42`, -32600, "null", "invalid request"},
		{"an empty batch", `[]`, -32600, "null", "batch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serveProject(t, mcpserver.Options{Dir: dir})
			s.initialize("2025-06-18")
			s.send(tc.line)
			m := s.next()
			if m.Error == nil || m.Error.Code != tc.code || string(m.ID) != tc.id || !strings.Contains(m.Error.Message, tc.want) {
				t.Errorf("answer %.300s; want error %d with id %s and %q", m.raw, tc.code, tc.id, tc.want)
			}
			s.listTools(2)
			s.closeInput()
			if err := testwait.Recv(t, s.done, "Serve after its input closed"); err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
	// a blank line is no message, and has no answer
	s := serveProject(t, mcpserver.Options{Dir: dir})
	s.initialize("2025-06-18")
	s.send("")
	s.send(" \r")
	s.listTools(2)
}

// TestBatchUnderOldProtocol sends a batch in a session of protocol
// 2025-03-26, which has JSON-RPC batches: it is answered as one, with an
// array.
func TestBatchUnderOldProtocol(t *testing.T) {
	s := serveProject(t, mcpserver.Options{})
	s.initialize("2025-03-26")
	s.send(`[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	m := s.next()
	var batch []message
	if err := json.Unmarshal(m.raw, &batch); err != nil || len(batch) != 2 || string(batch[0].ID) != "2" || string(batch[1].ID) != "3" {
		t.Fatalf("batch answered with %.300s (%v)", m.raw, err)
	}
	// a batch with an id in use, or twice, is refused, and the server reads on
	s.send(`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
	if m := s.next(); m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("a batch with one id twice: %s", m.raw)
	}
	s.listTools(5)
}
