package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctxaudit/ctx/mcpserver"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// TestMain removes the ctx binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	// origEnv is the environment before any test changed HOME: the go
	// command finds its build and module caches there.
	origEnv = os.Environ()

	buildOnce sync.Once
	binDir    string
	binPath   string
	binErr    error
)

// ctxBinary builds the ctx command once for the package's tests, with the
// race detector when the tests have it (so the build reuses their
// compiled packages), as examples/runtime does.
func ctxBinary(t *testing.T) string {
	t.Helper()
	testlane.Program(t, "builds ctx")
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to build ctx")
	}
	buildOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "ctx-mcp-test-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "ctx")
		args := []string{"build", "-o", binPath}
		if testlane.Race {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, "github.com/ctxaudit/ctx/cmd/ctx")...)
		cmd.Env = append(origEnv, "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// project writes testdata/project.txtar into a temporary directory, with
// a hermetic home (HOME, XDG_CONFIG_HOME, no shared file), a link from
// the project to a directory outside it, and returns the project
// directory (links resolved).
func project(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/project.txtar")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(root, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("AGENTS_GLOBAL_MD", "")
	dir := filepath.Join(home, "project")
	if err := os.Symlink(filepath.Join(home, "outside"), filepath.Join(dir, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runCtx runs the ctx command and returns its standard output; exit
// status 1 (a check that failed, as verify on drift) is not an error.
func runCtx(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(ctxBinary(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("ctx %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// connect starts the server for dir over an in-memory transport and
// returns a connected client session; both end with the test. mw are
// added to the server's receiving middleware.
func connect(t *testing.T, dir string, opts *mcp.ClientOptions, mw ...mcp.Middleware) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, mcpserver.Options{Dir: dir}, opts, mw...)
}

// connectWith is connect with the server's options given.
func connectWith(t *testing.T, o mcpserver.Options, opts *mcp.ClientOptions, mw ...mcp.Middleware) *mcp.ClientSession {
	t.Helper()
	srv, err := mcpserver.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv.AddReceivingMiddleware(mw...)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ctx-test", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok returns the text blocks of a successful result.
func ok(t *testing.T, name string, res *mcp.CallToolResult) []string {
	t.Helper()
	texts := texts(t, res)
	if res.IsError {
		t.Fatalf("%s: error result: %s", name, strings.Join(texts, "\n"))
	}
	return texts
}

func texts(t *testing.T, res *mcp.CallToolResult) []string {
	t.Helper()
	var out []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		out = append(out, tc.Text)
	}
	return out
}

// decode decodes JSON into a generic value, for comparisons that do not
// depend on key order or spacing.
func decode(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, data)
	}
	return v
}

// structuredJSON returns the structured content of res as JSON.
func structuredJSON(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	if res.StructuredContent == nil {
		t.Fatal("no structured content")
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// validOutput checks the structured content of res against the tool's
// output schema.
func validOutput(t *testing.T, tool *mcp.Tool, res *mcp.CallToolResult) {
	t.Helper()
	raw, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: output schema: %v", tool.Name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: output schema: %v", tool.Name, err)
	}
	v := decode(t, structuredJSON(t, res))
	if err := rs.Validate(v); err != nil {
		t.Errorf("%s: output does not match its schema: %v", tool.Name, err)
	}
}
