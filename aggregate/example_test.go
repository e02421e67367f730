package aggregate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
)

func Example() {
	dir, _ := os.MkdirTemp("", "ctx-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("never shown\n"), 0o644)

	res, err := aggregate.Run(context.Background(), aggregate.Options{Engine: codeview.Engine(),
		BaseDir: dir,
		Files: []aggregate.FileItem{
			{Path: "notes.txt"},
			{Path: "secret.txt", ViewMode: aggregate.ViewNone},
			{Path: "*.md"}, // a glob that matches nothing (a path would be an error)
		},
		History: "### Discussion Excerpt 1\n\nUser: hi",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Markdown)
	fmt.Println()
	for _, it := range res.Items {
		fmt.Printf("%s: %s, %s, %d bytes in, %d bytes out\n", it.Path, it.Status, it.ViewMode, it.Source.Bytes, it.Emitted.Bytes)
	}
	// Output:
	// ## Files
	//
	// ### `notes.txt`
	//
	// ```txt
	// remember the milk
	// ```
	//
	// ---
	//
	// ### `secret.txt` (excluded)
	//
	// (context excluded)
	//
	// ---
	//
	// ### `*.md`
	//
	// ```text
	// ERROR: no files matched: *.md
	// ```
	//
	// ---
	//
	// ## Discussion History
	//
	// ### Discussion Excerpt 1
	//
	// User: hi
	//
	// notes.txt: ok, full, 18 bytes in, 45 bytes out
	// secret.txt: ok, none, 12 bytes in, 47 bytes out
	// *.md: error, full, 0 bytes in, 53 bytes out
}
