package mcpserver_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxaudit/ctx/mcpserver"
)

// Example builds the server of a project and calls it with the Go SDK's
// client over an in-memory transport (ctx mcp serves it on stdio with
// [mcpserver.Serve] instead): the tools, the rendered context, and a path
// outside the project, which is a tool error for the model.
func Example() {
	dir, err := os.MkdirTemp("", "ctx-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# Rules\nKeep answers short.\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	// Home, Getenv and UserConfigDir keep the user's own files out
	srv, err := mcpserver.New(mcpserver.Options{Dir: dir, Home: filepath.Join(dir, "home"),
		Getenv: func(string) string { return "" }, UserConfigDir: filepath.Join(dir, "config")})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Wait()
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "render", Arguments: map[string]any{"max_tokens": 0}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(res.Content[0].(*mcp.TextContent).Text)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "pack", Arguments: map[string]any{"paths": []string{"../secrets"}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError)
	// Output:
	// audit
	// pack
	// render
	// stats
	// verify
	// # Rules
	// Keep answers short.
	// true
}
