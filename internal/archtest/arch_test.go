// Package archtest checks the layering of ctx's packages (docs/architecture.md):
// which package may import which. It has no code, only this test.
package archtest

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/ctxaudit/ctx/"

// root is the repository root (this file is internal/archtest/arch_test.go).
func root(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// deps returns the module packages that pkg imports, directly or not,
// without tests.
func deps(t *testing.T, pkg string, memo map[string][]string) []string {
	if d, ok := memo[pkg]; ok {
		return d
	}
	memo[pkg] = nil // cycles cannot happen in Go, but be safe
	p, err := build.Import(module+pkg, root(t), 0)
	if err != nil {
		t.Fatalf("%s: %v", pkg, err)
	}
	set := map[string]bool{}
	for _, imp := range p.Imports {
		if !strings.HasPrefix(imp, module) {
			continue
		}
		d := strings.TrimPrefix(imp, module)
		set[d] = true
		for _, dd := range deps(t, d, memo) {
			set[dd] = true
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	memo[pkg] = out
	return out
}

func TestLayers(t *testing.T) {
	memo := map[string][]string{}
	library := []string{"discover", "manifest", "render", "audit", "aggregate", "aggregate/codeview", "history", "measure", "schemas", "config", "profile", "provenance", "secrets", "cache"}
	for _, tc := range []struct {
		pkg     string
		never   []string // packages pkg must not import, directly or not
		because string
	}{
		{"aggregate", []string{"manifest", "history", "config", "discover", "audit", "render"}, "views know nothing of the record, the chat builder or ctx.toml"},
		{"history", []string{"manifest", "aggregate", "config", "discover", "audit", "render"}, "the chat builder knows nothing of the record, the files or ctx.toml"},
		{"discover", []string{"manifest", "aggregate", "history", "config", "audit", "render"}, "discovery lists candidates; manifest decides"},
		{"manifest", []string{"config", "audit", "render", "provenance"}, "library packages take options, never ctx.toml types"},
		{"render", []string{"config", "audit"}, "render only reads a manifest"},
		{"audit", []string{"config"}, "audit takes a manifest and thresholds"},
		{"measure", []string{"manifest", "aggregate", "history", "discover", "config", "audit", "render", "profile", "provenance"}, "sizes are the bottom layer"},
		{"profile", []string{"manifest", "aggregate", "history", "config", "audit", "render"}, "a profile lists what an agent loads; manifest decides"},
		{"aggregate/codeview", []string{"manifest", "aggregate", "history", "config", "audit", "render", "discover", "profile"}, "views of one file"},
		{"schemas", []string{"manifest", "aggregate", "history", "config", "audit", "render", "discover", "profile"}, "the schema stands alone"},
		{"provenance", []string{"config", "audit"}, "verify and diff take manifests and the options to rebuild with"},
		{"secrets", []string{"manifest", "aggregate", "history", "discover", "config", "audit", "render", "profile", "provenance", "measure"}, "finding credentials in text is a leaf"},
		{"cache", []string{"manifest", "aggregate", "aggregate/codeview", "history", "discover", "config", "audit", "render", "profile", "provenance", "measure", "secrets"}, "the cache stores bytes by key; its users compose the keys"},
		{"aggregate", []string{"cache"}, "the pipeline takes a Cache (Options.Cache); the command chooses the directory"},
		{"manifest", []string{"cache"}, "the manifest takes aggregate options, with their Cache"},
	} {
		for _, d := range deps(t, tc.pkg, memo) {
			for _, n := range tc.never {
				if d == n {
					t.Errorf("%s imports %s: %s", tc.pkg, n, tc.because)
				}
			}
		}
	}
	for _, pkg := range library {
		for _, d := range deps(t, pkg, memo) {
			if strings.HasPrefix(d, "cmd/") || strings.HasPrefix(d, "examples/") {
				t.Errorf("library package %s imports %s", pkg, d)
			}
			if d == "config" {
				t.Errorf("library package %s imports config: libraries take options, never ctx.toml types", pkg)
			}
		}
	}
}

// cmd/ctx maps flags to options and writes bytes: it must not format
// tables, markdown or JSON documents itself, nor read files on its own.
func TestCommandIsAShell(t *testing.T) {
	p, err := build.Import(module+"cmd/ctx", root(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		for _, banned := range []string{"internal/table", "internal/jsonenc", "internal/mdtext", "internal/display", "internal/fileio", "encoding/json"} {
			if imp == module+banned || imp == banned {
				t.Errorf("cmd/ctx imports %s: formatting belongs in the library", imp)
			}
		}
	}
}

// Library packages never print or exit, and discover never reads file
// contents: checked on their source (tests aside).
func TestLibraryNeverPrintsOrExits(t *testing.T) {
	banned := map[string]string{
		"os.Exit": "exits", "os.Stdout": "prints", "os.Stderr": "prints", "log.Print": "prints", "log.Printf": "prints",
		"log.Println": "prints", "log.Fatal": "exits", "log.Fatalf": "exits", "log.Panic": "panics",
		"fmt.Print": "prints", "fmt.Printf": "prints", "fmt.Println": "prints",
	}
	readers := map[string]bool{"os.ReadFile": true, "os.Open": true, "os.OpenFile": true, "fileio.Read": true, "fileio.ReadIn": true}
	for _, pkg := range []string{"discover", "manifest", "render", "audit", "aggregate", "aggregate/codeview", "history", "measure",
		"schemas", "config", "profile", "provenance", "secrets", "internal/fileio", "internal/gitignore", "internal/mdtext", "internal/jsonenc", "internal/display", "internal/table",
		"internal/atomicfile", "internal/goroutine", "internal/treesitter", "internal/version", "cache"} {
		bp, err := build.Import(module+pkg, root(t), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		fset := token.NewFileSet()
		for _, name := range bp.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(bp.Dir, name), nil, 0)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			{
				ast.Inspect(f, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					x, ok := sel.X.(*ast.Ident)
					if !ok {
						return true
					}
					call := x.Name + "." + sel.Sel.Name
					if what, bad := banned[call]; bad {
						t.Errorf("%s: %s %s (%s)", filepath.Base(name), pkg, what, call)
					}
					if pkg == "discover" && readers[call] {
						t.Errorf("%s: discover reads file contents (%s); it lists candidates, manifest reads them", filepath.Base(name), call)
					}
					return true
				})
			}
		}
	}
}
