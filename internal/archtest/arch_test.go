// Package archtest checks the layering of ctx's packages (docs/architecture.md):
// which package may import which. It has no code, only this test.
package archtest

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
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
	library := []string{"discover", "manifest", "render", "audit", "aggregate", "aggregate/codeview", "history", "measure", "schemas", "config", "profile", "provenance", "secrets", "report", "cache"}
	// mcpserver is a library package too (it never prints or exits), but
	// like cmd/ctx it reads ctx.toml through config: it is checked by
	// TestMCPServerBoundary
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
		{"report", []string{"config", "provenance"}, "the page shows a manifest and its audit; it takes options, never ctx.toml types"},
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

// The report is the top of the library: only the command imports it, so
// that no other package comes to depend on a page. A direct import is
// enough to check: a package that reaches report through another one has
// that other one fail.
func TestNothingImportsReport(t *testing.T) {
	dir := root(t)
	found := false
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != dir && (n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(dir, filepath.Dir(p))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		found = found || pkg == "report"
		if pkg == "report" || pkg == "cmd/ctx" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == `"`+module+`report"` {
				t.Errorf("%s imports report: only cmd/ctx may", filepath.ToSlash(filepath.Join(rel, filepath.Base(p))))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatal("no package report")
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
		"schemas", "config", "profile", "provenance", "secrets", "report", "mcpserver", "internal/fileio", "internal/gitignore", "internal/mdtext", "internal/jsonenc", "internal/display", "internal/table",
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

// mcpserver serves the library over MCP: it may import the pipeline's
// packages (config, manifest, audit, aggregate, render, provenance, and
// what their options name), never the other way round, and it keeps the
// MCP SDK to itself: no other package of ctx imports it (cmd/ctx runs the
// server through mcpserver.Serve).
func TestMCPServerBoundary(t *testing.T) {
	allowed := map[string]bool{"config": true, "manifest": true, "audit": true, "aggregate": true, "render": true,
		"provenance": true, "measure": true, "schemas": true, "profile": true, "secrets": true,
		"internal/jsonenc": true, "internal/version": true}
	p, err := build.Import(module+"mcpserver", root(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if d, ok := strings.CutPrefix(imp, module); ok && !allowed[d] {
			t.Errorf("mcpserver imports %s: it serves the pipeline through %v", d, sortedKeys(allowed))
		}
	}
	for _, pkg := range packages(t) {
		if pkg == "mcpserver" {
			continue
		}
		bp, err := build.Import(module+pkg, root(t), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range bp.Imports {
			if strings.HasPrefix(imp, "github.com/modelcontextprotocol/") {
				t.Errorf("%s imports %s: the MCP SDK stays behind mcpserver", pkg, imp)
			}
			if imp == module+"mcpserver" && pkg != "cmd/ctx" {
				t.Errorf("%s imports mcpserver: only the command runs the server", pkg)
			}
		}
	}
}

// packages lists the module's packages (directories with Go files, tests
// aside), relative to the module root.
func packages(t *testing.T) []string {
	var out []string
	r := root(t)
	err := filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != r && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(r, path)
		bp, err := build.ImportDir(path, 0)
		if err != nil || len(bp.GoFiles) == 0 {
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("found only %v", out)
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
