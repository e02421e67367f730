package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ctxaudit/ctx/internal/testlane"
	"github.com/ctxaudit/ctx/mcpserver"
)

// buildCtx builds the ctx command once, with the race detector when this
// test has it, so the build reuses the test's compiled packages.
func buildCtx(t *testing.T) string {
	t.Helper()
	testlane.Program(t, "builds ctx")
	bin := filepath.Join(t.TempDir(), "ctx")
	args := []string{"build", "-o", bin}
	if testlane.Race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "github.com/ctxaudit/ctx/cmd/ctx")...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestSameBytesAsCommand runs the example and the ctx command on fixture
// projects that use [files], [screenshots], [history], budgets, natives,
// extra sources, a profile and an allowlist, and compares their output
// byte for byte; the audit of ctx mcp's server too.
func TestSameBytesAsCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("fixtures use Unix paths")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is needed to build ctx")
	}
	ctx := buildCtx(t)
	archives, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, a := range archives {
		name := strings.TrimSuffix(filepath.Base(a), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(a)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
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
			dir := filepath.Join(home, "project")
			t.Setenv("HOME", home)
			t.Setenv("AGENTS_GLOBAL_MD", "")
			for _, tc := range []struct {
				what string
				args []string
			}{
				{"manifest", []string{"manifest"}},
				{"render", []string{"render"}},
				{"audit", []string{"audit", "--format", "json"}},
			} {
				var got bytes.Buffer
				if err := run(context.Background(), dir, tc.what, &got); err != nil {
					t.Fatalf("%s: %v", tc.what, err)
				}
				cmd := exec.Command(ctx, append(tc.args, "-C", dir)...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				want, err := cmd.Output()
				if err != nil {
					t.Fatalf("ctx %s: %v\n%s", strings.Join(tc.args, " "), err, stderr.Bytes())
				}
				if len(want) == 0 {
					t.Fatalf("ctx %s printed nothing", tc.what)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("%s differs from ctx %s:\n--- example\n%s\n--- ctx\n%s", tc.what, strings.Join(tc.args, " "), got.Bytes(), want)
				}
				if tc.what == "audit" && name == "allowlist" {
					// the allowlisted key is left out, the other reported
					if !strings.Contains(string(want), `"source_id": "file:app/conf.py",
      "code": "secret"`) || strings.Count(string(want), `"code": "secret"`) != 1 {
						t.Errorf("the audit does not apply the allowlist:\n%s", want)
					}
				}
				if tc.what == "audit" {
					// the third composition: ctx mcp's audit tool
					if mcp := mcpAudit(t, dir, home); mcp != string(want) {
						t.Errorf("the MCP server's audit differs from ctx audit:\n--- mcp\n%s\n--- ctx\n%s", mcp, want)
					}
				}
			}
		})
	}
}

// mcpAudit calls the audit tool of ctx mcp's server for dir, in process
// over an in-memory transport, and returns its text.
func mcpAudit(t *testing.T, dir, home string) string {
	t.Helper()
	srv, err := mcpserver.New(mcpserver.Options{Dir: dir, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "audit", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("audit tool: %+v", res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}
