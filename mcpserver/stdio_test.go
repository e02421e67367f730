package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxaudit/ctx/internal/testwait"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// mcpCommand is `ctx mcp -C dir`, with a cache directory of its own,
// whose entries (cacheEntries) show how many files a pack reached. A
// binary built with -race sleeps 1s before it exits (GORACE
// atexit_sleep_ms), which is turned off.
func mcpCommand(t *testing.T, dir string) (*exec.Cmd, string) {
	cache := filepath.Join(t.TempDir(), "cache")
	cmd := exec.Command(ctxBinary(t), "mcp", "-C", dir)
	cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"), "CTX_CACHE_DIR="+cache)
	return cmd, cache
}

// cacheEntries counts the entries of a cache directory: a view of a file
// is one, so a pack of n files that ran to its end leaves n or more.
func cacheEntries(t *testing.T, cache string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") && d.Name() != "size" {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// stoppedEarly fails the test when the pack of a project of files left
// an entry in the cache for each: it ran to its end instead of stopping.
func stoppedEarly(t *testing.T, cache string, files int) {
	t.Helper()
	n := cacheEntries(t, cache)
	t.Logf("%d cache entries for %d files", n, files)
	if n >= files {
		t.Errorf("the pack ran to its end: %d cache entries for %d files", n, files)
	}
}

// startCtx starts `ctx mcp -C dir` as a child process and connects to it
// over its standard input and output.
// The transport ends the process with SIGTERM only after twice
// testwait.Limit, so that a server that does not end when its input closes
// fails closeSession instead.
func startCtx(t *testing.T, dir string, opts *mcp.ClientOptions) (*mcp.ClientSession, *exec.Cmd, *bytes.Buffer, string) {
	t.Helper()
	cmd, cache := mcpCommand(t, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ctx-test", Version: "1"}, opts).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * testwait.Limit}, nil)
	if err != nil {
		t.Fatalf("ctx mcp: %v\n%s", err, stderr.Bytes())
	}
	t.Cleanup(func() { cs.Close() })
	return cs, cmd, &stderr, cache
}

// closeSession closes the session, which closes the server's input: the
// server must end by itself, not by the transport's SIGTERM.
func closeSession(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cs.Close() }()
	if err := testwait.Recv(t, done, "ctx mcp after its input closed"); err != nil {
		t.Errorf("close: %v", err)
	}
}

// TestStdio drives a real `ctx mcp` process: initialize, list the tools,
// call each one (the audit compared with `ctx audit --format json`), error
// results, a resource, and the end of the process when its input closes.
func TestStdio(t *testing.T) {
	dir := project(t)
	runCtx(t, "manifest", "--relative", "-o", filepath.Join(dir, "ctx.manifest.json"), "-C", dir)
	cs, cmd, stderr, _ := startCtx(t, dir, nil)
	if info := cs.InitializeResult().ServerInfo; info.Name != "ctx" {
		t.Errorf("server %+v", info)
	}
	byName := tools(t, cs)
	var names []string
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"audit", "pack", "render", "stats", "verify"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	res := call(t, cs, "audit", nil)
	want := runCtx(t, "audit", "--format", "json", "-C", dir)
	if got := ok(t, "audit", res); got[0] != string(want) {
		t.Errorf("audit over stdio differs from ctx audit --format json:\n--- tool\n%s\n--- ctx\n%s", got[0], want)
	}
	validOutput(t, byName["audit"], res)
	for name, args := range map[string]map[string]any{
		"render": {"max_tokens": 30},
		"pack":   {"paths": []string{"src/*.py"}, "view": "skeleton"},
		"verify": nil,
		"stats":  {"top": 3},
	} {
		res := call(t, cs, name, args)
		ok(t, name, res)
		validOutput(t, byName[name], res)
	}
	md := runCtx(t, "aggregate", "--stdout", "--no-history", "--quiet", "--view", "skeleton", "--max-tokens", "400", "-C", dir, "src/*.py")
	if got := ok(t, "pack", call(t, cs, "pack", map[string]any{"paths": []string{"src/*.py"}, "view": "skeleton"})); got[0] != string(md) {
		t.Errorf("pack over stdio differs from ctx aggregate --stdout")
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"pack", map[string]any{"paths": []string{"../outside/secret.txt"}}, "outside the project directory"},
		{"pack", map[string]any{"paths": []string{"src"}, "view": "bogus"}, "view: enum: bogus"},
	} {
		res := call(t, cs, tc.tool, tc.args)
		if got := strings.Join(texts(t, res), "\n"); !res.IsError || !strings.Contains(got, tc.want) {
			t.Errorf("%s %v: %v %q, want an error result with %q", tc.tool, tc.args, res.IsError, got, tc.want)
		}
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "ctx://manifest"})
	if err != nil {
		t.Fatal(err)
	}
	if want := runCtx(t, "manifest", "-C", dir); rr.Contents[0].Text != string(want) {
		t.Error("ctx://manifest over stdio differs from ctx manifest")
	}

	// closing stdin ends the server
	closeSession(t, cs)
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("ctx mcp ended with %v", cmd.ProcessState)
	}
	if stderr.Len() > 0 {
		t.Errorf("ctx mcp wrote to stderr: %s", stderr.Bytes())
	}
}

// TestStdioCancel cancels a long pack in a real `ctx mcp` process: the
// call ends with context.Canceled and the server goes on answering. The
// client's call ends at once whatever the server does; that the server
// stopped the pack shows once its input closes: it waits for the calls
// still running before it exits, and its cache holds the views of a few
// files, not of all 3,000.
func TestStdioCancel(t *testing.T) {
	testlane.Slow(t, "writes a tree of 3,000 files")
	const files = 3000
	dir := bigTree(t, files, 30)
	opts, progress := progressClient()
	cs, cmd, _, cache := startCtx(t, dir, opts)
	packAndCancel(t, cs, progress)
	ok(t, "stats", call(t, cs, "stats", map[string]any{"paths": []string{"pkg00"}, "top": 1}))
	closeSession(t, cs)
	stoppedEarly(t, cache, files)
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("ctx mcp ended with %v", cmd.ProcessState)
	}
}

// TestStdioSignal ends `ctx mcp` with SIGTERM while its input is open: it
// exits 143, at once, as every ctx command does.
func TestStdioSignal(t *testing.T) {
	signalServer(t, project(t), "", 0)
}

// TestStdioSignalDuringCall sends SIGTERM to `ctx mcp` while a long pack
// runs: the pack is cancelled and the server exits 143 at once, not after
// the pack (nor after the 3s that ctx gives an interrupted run).
func TestStdioSignalDuringCall(t *testing.T) {
	testlane.Slow(t, "writes a tree of 3,000 files")
	// no progress token: a notification that fails to go out after the
	// signal would end the call anyway
	const files = 3000
	signalServer(t, bigTree(t, files, 30), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pack","arguments":{"view":"skeleton","max_tokens":0}}}`, files)
}

// signalServer starts `ctx mcp -C dir`, initializes it, sends call (if
// any) and waits for its first cache entry (the pack of a project of
// files is under way), then sends SIGTERM and checks that the server exits
// 0, with nothing on stderr, and (for a call) before the pack could have
// reached every file.
func signalServer(t *testing.T, dir, call string, files int) {
	t.Helper()
	cmd, cache := mcpCommand(t, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	// wait until it serves
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	line, err := out.ReadString('\n')
	if err != nil || !strings.Contains(line, `"result"`) {
		t.Fatalf("initialize: %q, %v", line, err)
	}
	if call != "" {
		if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + call + "\n")); err != nil {
			t.Fatal(err)
		}
		testwait.Until(t, "the first cache entry of the pack", func() bool { return cacheEntries(t, cache) > 0 })
	}
	rest := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(out)
		rest <- b
	}()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := testwait.ExitCode(t, testwait.Wait(t, cmd, "ctx mcp after SIGTERM")); code != 143 {
		t.Errorf("ctx mcp after SIGTERM: exit %d, want 143 (stderr %q)", code, stderr.String())
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "ctx: error: interrupted (terminated)") {
		t.Errorf("ctx mcp after SIGTERM wrote to stderr: %q", got)
	}
	// the call the signal cancelled is not answered
	if b := testwait.Recv(t, rest, "the output of ctx mcp"); bytes.Contains(b, []byte(`"id":2,`)) {
		t.Errorf("ctx mcp answered the call after SIGTERM: %.300s", b)
	}
	if call != "" {
		stoppedEarly(t, cache, files)
	}
}

// TestTypeScriptClient drives `ctx mcp` with the TypeScript SDK from npm
// (installed into a temporary directory) and compares the audit it gets
// with `ctx audit --format json`, byte for byte. It is skipped when node
// or npm is missing or the package cannot be installed (offline), and
// with -short.
func TestTypeScriptClient(t *testing.T) {
	const sdk = "@modelcontextprotocol/sdk@1.32.2"
	testlane.Program(t, "installs "+sdk+" with npm")
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the TypeScript client test needs %s, which is not installed", tool)
		}
	}
	bin := ctxBinary(t)
	modules := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefer-offline",
		"--loglevel=error", "--prefix", modules, sdk)
	install.Dir = modules
	install.Env = origEnv // the user's npm cache, not the test's home
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("cannot install %s with npm (%v), so the TypeScript client test is skipped:\n%s", sdk, err, out)
	}
	script, err := filepath.Abs("testdata/node/audit.cjs")
	if err != nil {
		t.Fatal(err)
	}
	dir := project(t)
	node := exec.CommandContext(ctx, "node", script, bin, dir)
	node.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(modules, "node_modules"))
	var stderr bytes.Buffer
	node.Stderr = &stderr
	out, err := node.Output()
	if err != nil {
		t.Fatalf("node audit.cjs: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Server     string   `json:"server"`
		Tools      []string `json:"tools"`
		IsError    bool     `json:"isError"`
		Text       string   `json:"text"`
		Structured string   `json:"structured"`
		BadIsError bool     `json:"badIsError"`
		BadText    string   `json:"badText"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("audit.cjs printed %q: %v", out, err)
	}
	if got.Server != "ctx" || !slices.Equal(got.Tools, []string{"audit", "pack", "render", "stats", "verify"}) || got.IsError {
		t.Errorf("TypeScript client: server %q, tools %v, error %v", got.Server, got.Tools, got.IsError)
	}
	want := string(runCtx(t, "audit", "--format", "json", "-C", dir))
	if got.Text != want {
		t.Errorf("the audit text the TypeScript client got differs from ctx audit --format json:\n--- client\n%s\n--- ctx\n%s", got.Text, want)
	}
	if got.Structured != want {
		t.Errorf("the audit's structured content, as the TypeScript client serialises it, differs from ctx audit --format json:\n--- client\n%s\n--- ctx\n%s", got.Structured, want)
	}
	if !got.BadIsError || !strings.Contains(got.BadText, "outside the project directory") {
		t.Errorf("a path outside the project: error %v, %q", got.BadIsError, got.BadText)
	}
}
