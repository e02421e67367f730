package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxaudit/ctx/internal/testwait"
)

// TestMCPExitCodes: errors before serving exit 2 and write nothing to
// stdout, where a client reads the protocol.
func TestMCPExitCodes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ctx.toml"), []byte("agent = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mcp", "-C", filepath.Join(dir, "missing")},
		{"mcp", "-C", ""},
		{"mcp", "-C", dir},
		{"mcp", "--config", filepath.Join(dir, "none.toml")},
		{"mcp", "--bogus"},
		{"mcp", "arg"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"ctx"}, args...), strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || stdout.Len() > 0 || !strings.HasPrefix(stderr.String(), "ctx: error: ") {
			t.Errorf("ctx %v: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, ctx: error: on stderr", args, code, stdout.String(), stderr.String())
		}
	}
}

// TestMCPServesStreams runs ctx mcp on the command's own streams: it
// answers initialize and tools/list, and exits 0 when its input ends.
func TestMCPServesStreams(t *testing.T) {
	dir := t.TempDir()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n"
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout syncBuffer
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), []string{"ctx", "mcp", "-C", dir}, r, &stdout, &stderr) }()
	if _, err := w.WriteString(in); err != nil {
		t.Fatal(err)
	}
	// close the input once both answers are out
	testwait.Until(t, "the tools/list answer", func() bool {
		select {
		case code := <-done:
			t.Fatalf("ctx mcp ended early (exit %d): %s %s", code, stdout.String(), stderr.String())
		default:
		}
		return strings.Contains(stdout.String(), `"id":2`)
	})
	w.Close()
	if code := <-done; code != exitOK || stderr.Len() > 0 {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	for _, want := range []string{`"serverInfo":{"name":"ctx"`, `"name":"audit"`, `"name":"pack"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %s: %s", want, stdout.String())
		}
	}
}

// syncBuffer is a bytes.Buffer that the server writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mcpCall runs ctx mcp with args on the command's streams, calls tool with
// the JSON object arguments, and returns what it wrote once the answer is
// out; the input is then closed and ctx mcp must exit 0.
func mcpCall(t *testing.T, args []string, tool, arguments string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout syncBuffer
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), append([]string{"ctx", "mcp"}, args...), r, &stdout, &stderr)
	}()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + arguments + `}}`,
	}, "\n") + "\n"
	if _, err := w.WriteString(in); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the answer to the call", func() bool {
		select {
		case code := <-done:
			t.Fatalf("ctx mcp ended early (exit %d): %s %s", code, stdout.String(), stderr.String())
		default:
		}
		return strings.Contains(stdout.String(), `"id":2`)
	})
	w.Close()
	if code := <-done; code != exitOK || stderr.Len() > 0 {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	return stdout.String()
}

// The tools redact by default; redact: false is refused unless ctx mcp
// was started with --allow-unredacted.
func TestMCPAllowUnredacted(t *testing.T) {
	const key = "AKIAJPJOMKEFOIUC5LGT"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# Rules\naws_access_key_id = "+key+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AGENTS_GLOBAL_MD", "")
	if out := mcpCall(t, []string{"-C", dir}, "render", `{}`); strings.Contains(out, key) || !strings.Contains(out, "1 credential redacted (aws-access-token)") {
		t.Errorf("render by default: %s", out)
	}
	if out := mcpCall(t, []string{"-C", dir}, "render", `{"redact":false}`); strings.Contains(out, key) || !strings.Contains(out, `"isError":true`) || !strings.Contains(out, "--allow-unredacted") {
		t.Errorf("render redact false without --allow-unredacted: %s", out)
	}
	if out := mcpCall(t, []string{"-C", dir, "--allow-unredacted"}, "render", `{"redact":false}`); !strings.Contains(out, key) || strings.Contains(out, `"isError":true`) {
		t.Errorf("render redact false with --allow-unredacted: %s", out)
	}
	if out := mcpCall(t, []string{"-C", dir, "--allow-unredacted"}, "pack", `{}`); strings.Contains(out, key) {
		t.Errorf("pack with --allow-unredacted, by default: %s", out)
	}
}
