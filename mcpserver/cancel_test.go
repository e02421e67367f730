package mcpserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/ctxaudit/ctx/mcpserver"
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
// arrives, and checks that the call ends promptly with context.Canceled.
func packAndCancel(t *testing.T, cs *mcp.ClientSession, progress <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
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
	select {
	case <-progress:
	case err := <-done:
		t.Fatalf("pack ended before any progress: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no progress notification within a minute")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("pack after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("pack still running 10s after its cancellation")
	}
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

// TestCancelPack cancels a long pack over an in-memory transport. The
// client's call ends at once with context.Canceled; on the server the
// handler stops too, with the cancellation as its result, well before the
// pack could have finished; the server still answers; and once the
// session is closed none of its goroutines (the aggregate workers
// included) is left.
func TestCancelPack(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: writes a tree of 1,500 files")
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := bigTree(t, 1500, 30)
	// the server side of each tools/call: when it ended and how
	type end struct {
		at  time.Time
		res *mcp.CallToolResult
	}
	ends := make(chan end, 4)
	mw := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
				ends <- end{time.Now(), r}
			}
			return res, err
		}
	}
	opts, progress := progressClient()
	cs := connect(t, dir, opts, mw)

	cancelled := time.Now()
	packAndCancel(t, cs, progress)
	select {
	case e := <-ends:
		text := strings.Join(texts(t, e.res), "\n")
		if !e.res.IsError || !strings.Contains(text, "context canceled") {
			t.Errorf("the server's pack ended with %q, not with the cancellation", text)
		}
		if took := e.at.Sub(cancelled); took > 2*time.Second {
			t.Errorf("the server's pack ended %v after the cancellation", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server's pack did not end within 10s of the cancellation")
	}

	// the server still answers
	res := call(t, cs, "stats", map[string]any{"paths": []string{"pkg00"}, "top": 1})
	ok(t, "stats", res)
	<-ends
	// close the session now, so that goleak sees every goroutine end
	cs.Close()
}

// TestServeCancelsCalls ends Serve (its context cancelled, as SIGTERM
// does in ctx mcp) while a long pack runs: the pack stops with the
// cancellation as its result, and Serve returns promptly instead of
// waiting for the pack to finish.
func TestServeCancelsCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: writes a tree of 1,500 files")
	}
	dir := bigTree(t, 1500, 30)
	srv, err := mcpserver.New(mcpserver.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	results := make(chan *mcp.CallToolResult, 1)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
				results <- r
			}
			return res, err
		}
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer inW.Close()
	defer outR.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mcpserver.Serve(ctx, srv, inR, outW) }()
	progress := make(chan struct{}, 1)
	go func() {
		// read every message, so that the server never blocks on its output
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"notifications/progress"`) {
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		}
	}()
	go func() {
		for _, msg := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pack","arguments":{"view":"skeleton","max_tokens":0},"_meta":{"progressToken":"p"}}}`,
		} {
			inW.Write([]byte(msg + "\n"))
		}
	}()
	select {
	case <-progress:
	case <-time.After(time.Minute):
		t.Fatal("no progress notification within a minute")
	}
	cancel()
	start := time.Now()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve still running 30s after its context was cancelled")
	}
	res := <-results
	if text := strings.Join(texts(t, res), "\n"); !res.IsError || !strings.Contains(text, "context canceled") {
		t.Errorf("the pack ran on after Serve's context was cancelled: error %v, %.200q", res.IsError, text)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Serve returned %v after its context was cancelled", took)
	}
	outW.Close()
}
