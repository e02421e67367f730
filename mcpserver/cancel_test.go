package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/ctxaudit/ctx/internal/testwait"
	"github.com/ctxaudit/ctx/mcpserver"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// bigTree writes a project of n Go files, each with funcs functions:
// packing it as skeletons takes long enough to be cancelled midway.
func bigTree(t *testing.T, n, funcs int) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for f := 0; f < funcs; f++ {
		fmt.Fprintf(&b, "// F%d computes a number.\nfunc F%d(x int) int {\n\ty := x\n\tfor i := 0; i < %d; i++ {\n\t\ty += i * x\n\t}\n\treturn y\n}\n\n", f, f, f)
	}
	body := b.String()
	for i := 0; i < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%02d", i%20))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		src := fmt.Sprintf("package pkg%02d\n\n%s", i%20, body)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// packAndCancel starts a pack of the whole project as skeletons with a
// progress token, cancels it once the first progress notification
// arrives, and checks that the client's call ends with context.Canceled.
func packAndCancel(t *testing.T, cs *mcp.ClientSession, progress <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := startPack(ctx, cs)
	select {
	case <-progress:
	case err := <-done:
		t.Fatalf("pack ended before any progress: %v", err)
	case <-time.After(testwait.Limit):
		t.Fatalf("hang: no progress notification within %v\n%s", testwait.Limit, testwait.Goroutines())
	}
	cancel()
	if err := testwait.Recv(t, done, "the pack's call after its cancellation"); !errors.Is(err, context.Canceled) {
		t.Fatalf("pack after cancel: %v, want context.Canceled", err)
	}
}

// startPack calls pack on the whole project as skeletons, with a progress
// token; the call's error comes on the channel (a result is an error too:
// the call was meant to be cancelled).
func startPack(ctx context.Context, cs *mcp.ClientSession) <-chan error {
	params := &mcp.CallToolParams{Name: "pack", Arguments: map[string]any{"view": "skeleton", "max_tokens": 0}}
	params.SetProgressToken("pack-1")
	done := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(ctx, params)
		if err == nil {
			err = fmt.Errorf("the call ended without cancellation (error result %v)", res.IsError)
		}
		done <- err
	}()
	return done
}

// progressClient returns client options whose progress notifications
// signal the channel (without blocking).
func progressClient() (*mcp.ClientOptions, <-chan struct{}) {
	ch := make(chan struct{}, 1)
	return &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}}, ch
}

// gateCache is an aggregate.Cache that never has an entry and shuts from
// its gateAt-th lookup on: every lookup from there waits until the test
// opens it. A pack cannot finish while the gate is shut, so what it does
// after the gate opens shows whether it stopped or ran on.
type gateCache struct {
	gets atomic.Int64
	shut chan struct{} // closed at the first lookup that waits
	open chan struct{} // closed by the test
	once sync.Once
}

const gateAt = 20

func newGateCache() *gateCache {
	return &gateCache{shut: make(chan struct{}), open: make(chan struct{})}
}

func (c *gateCache) Get(string) ([]byte, bool) {
	if c.gets.Add(1) >= gateAt {
		c.once.Do(func() { close(c.shut) })
		<-c.open
	}
	return nil, false
}

func (c *gateCache) Put(string, []byte) {}

// ranOn fails the test when the pack looked up half the files left after
// the gate opened at gets lookups: a pack that stops at its cancellation
// finishes the few files its workers hold; one that runs on looks up every
// file left.
func (c *gateCache) ranOn(t *testing.T, gets int64, files int) {
	t.Helper()
	after := c.gets.Load() - gets
	t.Logf("%d lookups before the gate opened, %d after, of %d files", gets, after, files)
	if after >= (int64(files)-gets)/2 {
		t.Errorf("the pack ran on after its cancellation: %d lookups after the gate opened", after)
	}
}

// cancelled is receiving middleware that closes the channel when the
// context of a tools/call handler is done: the server has seen the
// cancellation.
func cancelled() (mcp.Middleware, <-chan struct{}) {
	ch := make(chan struct{})
	var once sync.Once
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				go func() {
					<-ctx.Done()
					once.Do(func() { close(ch) })
				}()
			}
			return next(ctx, method, req)
		}
	}, ch
}

// results is receiving middleware that sends the result of each
// tools/call handler on the channel.
func results() (mcp.Middleware, <-chan *mcp.CallToolResult) {
	ch := make(chan *mcp.CallToolResult, 4)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
				ch <- r
			}
			return res, err
		}
	}, ch
}

// TestCancelPack cancels a long pack over an in-memory transport, while
// the pack waits at a shut cache: the client's call ends with
// context.Canceled; on the server the handler stops too, with the
// cancellation as its result, after a few more files instead of the 1,500
// of the project; the server still answers; and once the session is
// closed none of its goroutines (the aggregate workers included) is left.
func TestCancelPack(t *testing.T) {
	testlane.Slow(t, "writes a tree of 1,500 files")
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const files = 1500
	dir := bigTree(t, files, 30)
	gate := newGateCache()
	seen, seenCancel := cancelled()
	record, ends := results()
	cs := connectWith(t, mcpserver.Options{Dir: dir, Cache: gate}, nil, record, seen)

	ctx, cancel := context.WithCancel(context.Background())
	done := startPack(ctx, cs)
	testwait.Recv(t, gate.shut, "the pack at the gate")
	cancel()
	if err := testwait.Recv(t, done, "the pack's call after its cancellation"); !errors.Is(err, context.Canceled) {
		t.Fatalf("pack after cancel: %v, want context.Canceled", err)
	}
	testwait.Recv(t, seenCancel, "the server's handler seeing the cancellation")
	gets := gate.gets.Load()
	close(gate.open)
	res := testwait.Recv(t, ends, "the server's pack after the cancellation")
	if text := strings.Join(texts(t, res), "\n"); !res.IsError || !strings.Contains(text, "context canceled") {
		t.Errorf("the server's pack ended with %q, not with the cancellation", text)
	}
	gate.ranOn(t, gets, files)

	// the server still answers
	ok(t, "stats", call(t, cs, "stats", map[string]any{"paths": []string{"pkg00"}, "top": 1}))
	testwait.Recv(t, ends, "the stats call")
	// close the session now, so that goleak sees every goroutine end
	cs.Close()
}

// TestServeCancelsCalls ends Serve (its context cancelled, as SIGTERM
// does in ctx mcp) while a long pack waits at a shut cache: the pack stops
// with the cancellation as its result, after a few more files, Serve
// returns instead of waiting for the pack to finish, and the pack's
// result is not sent.
func TestServeCancelsCalls(t *testing.T) {
	testlane.Slow(t, "writes a tree of 1,500 files")
	const files = 1500
	record, ends := results()
	s, gate := packOverPipes(t, files, record)
	s.cancel()
	// the handler's context ends with Serve's, in a goroutine of its own:
	// the pack may look at a few more files before it sees it
	gets := gate.gets.Load()
	close(gate.open)
	if err := testwait.Recv(t, s.done, "Serve after its context was cancelled"); err != nil {
		t.Errorf("Serve: %v", err)
	}
	res := testwait.Recv(t, ends, "the pack's result")
	if text := strings.Join(texts(t, res), "\n"); !res.IsError || !strings.Contains(text, "context canceled") {
		t.Errorf("the pack ran on after Serve's context was cancelled: error %v, %.200q", res.IsError, text)
	}
	gate.ranOn(t, gets, files)
	s.closeOutput()
	s.noAnswerTo2()
}

// packOverPipes starts Serve over pipes for a project of files whose
// pack waits at a shut cache, and calls pack (id 2) once initialized; it
// returns when the pack is at the gate.
func packOverPipes(t *testing.T, files int, mw ...mcp.Middleware) (*pipeSession, *gateCache) {
	t.Helper()
	dir := bigTree(t, files, 30)
	gate := newGateCache()
	srv, err := mcpserver.New(mcpserver.Options{Dir: dir, Cache: gate})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddReceivingMiddleware(mw...)
	s := servePipes(t, srv)
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pack","arguments":{"view":"skeleton","max_tokens":0},"_meta":{"progressToken":"p"}}}`)
	testwait.Recv(t, gate.shut, "the pack at the gate")
	return s, gate
}

// noAnswerTo2 collects what the server wrote until its output ends, and
// fails the test on an answer to request 2, the cancelled one.
func (s *pipeSession) noAnswerTo2() []message {
	s.t.Helper()
	var out []message
	for line := range s.lines {
		var m message
		if json.Unmarshal(line, &m) == nil && string(m.ID) == "2" {
			s.t.Errorf("the cancelled request was answered: %.300s", line)
		}
		out = append(out, m)
	}
	return out
}

// TestCancelledGetsNoAnswer cancels a long pack with
// notifications/cancelled: the pack stops, and the server sends no
// answer to it (the protocol says the receiver should not), but answers
// the request after it.
func TestCancelledGetsNoAnswer(t *testing.T) {
	testlane.Slow(t, "writes a tree of 1,500 files")
	seen, seenCancel := cancelled()
	record, ends := results()
	s, gate := packOverPipes(t, 1500, record, seen)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user stopped it"}}`)
	testwait.Recv(t, seenCancel, "the server's handler seeing the cancellation")
	close(gate.open)
	if res := testwait.Recv(t, ends, "the pack's end"); !res.IsError {
		t.Error("the pack ran to its end after its cancellation")
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	m := s.next()
	for m.ID == nil { // progress notifications
		m = s.next()
	}
	if string(m.ID) != "3" {
		t.Errorf("the first answer after the cancellation: %.300s, want the answer to 3", m.raw)
	}
	// Serve returns once every answer is written
	s.closeInput()
	if err := testwait.Recv(t, s.done, "Serve after its input closed"); err != nil {
		t.Errorf("Serve: %v", err)
	}
	s.closeOutput()
	s.noAnswerTo2()
}
