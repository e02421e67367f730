// Package archtest checks the layering of ctx's packages (docs/architecture.md):
// which package may import which. It has no code, only this test.
package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
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

// listed is a package as `go list -json` describes it.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	Deps       []string
	Standard   bool
}

var (
	listOnce sync.Once
	listErr  error
	listAll  map[string]*listed // by import path: the module's packages and all they import
)

// list returns every package of the module and of its dependencies, from
// one `go list -deps -json ./...` (go/build's Import runs go list once per
// package).
func list(t *testing.T) map[string]*listed {
	t.Helper()
	listOnce.Do(func() {
		cmd := exec.Command("go", "list", "-deps", "-json", "./...")
		cmd.Dir = root(t)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			listErr = fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
			return
		}
		listAll = map[string]*listed{}
		dec := json.NewDecoder(bytes.NewReader(out))
		for dec.More() {
			var p listed
			if err := dec.Decode(&p); err != nil {
				listErr = err
				return
			}
			listAll[p.ImportPath] = &p
		}
	})
	if listErr != nil {
		t.Fatal(listErr)
	}
	return listAll
}

// pkgOf returns the module package at path pkg (relative to the module).
func pkgOf(t *testing.T, pkg string) *listed {
	t.Helper()
	p, ok := list(t)[module+pkg]
	if !ok {
		t.Fatalf("no package %s", pkg)
	}
	return p
}

// deps returns the module packages that pkg imports, directly or not,
// without tests.
func deps(t *testing.T, pkg string) []string {
	var out []string
	for _, d := range pkgOf(t, pkg).Deps {
		if rel, ok := strings.CutPrefix(d, module); ok {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

func TestLayers(t *testing.T) {
	library := []string{"discover", "manifest", "render", "audit", "aggregate", "aggregate/codeview", "aggregate/stats", "aggregate/beads", "aggregate/slice", "history", "measure", "schemas", "config", "profile", "provenance", "secrets", "report", "cache"}
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
		{"observe", []string{"manifest", "aggregate", "aggregate/codeview", "history", "discover", "config", "audit", "render", "report", "provenance", "secrets", "cache", "mcpserver"},
			"the proxy records requests and reads the profile's prediction; it stays light enough for any agent runtime"},
		{"manifest", []string{"cache"}, "the manifest takes aggregate options, with their Cache"},
		{"aggregate/beads", []string{"aggregate", "manifest", "history", "config", "discover", "audit", "render", "profile", "cache"}, "reading the Beads store is below the pipelines that show it"},
		{"aggregate/slice", []string{"aggregate", "aggregate/codeview", "aggregate/stats", "aggregate/beads", "manifest", "history", "config", "discover", "audit", "render", "profile", "provenance", "report", "presets", "mcpserver", "cache", "secrets"},
			"a slice is pinned and found again in a file's bytes, below the pipeline that shows it; it knows nothing of ctx.toml"},
		{"aggregate/stats", []string{"manifest", "history", "config", "discover", "audit", "render", "cache"}, "stats measure the files aggregate resolves; they know nothing of the record or ctx.toml"},
		{"presets", []string{"report", "provenance", "mcpserver"}, "presets are file sets for ctx aggregate: they read ctx.toml through config and resolve files through aggregate"},
	} {
		for _, d := range deps(t, tc.pkg) {
			for _, n := range tc.never {
				if d == n {
					t.Errorf("%s imports %s: %s", tc.pkg, n, tc.because)
				}
			}
		}
	}
	for _, pkg := range library {
		for _, d := range deps(t, pkg) {
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

// presets reads ctx.toml through config, as the command does: a library
// package that imported it would take ctx.toml types, and mcpserver serves
// no preset. Only the command imports it.
func TestOnlyTheCommandImportsPresets(t *testing.T) {
	pkgOf(t, "presets")
	for _, pkg := range packages(t) {
		if pkg == "cmd/ctx" {
			continue
		}
		for _, imp := range pkgOf(t, pkg).Imports {
			if imp == module+"presets" {
				t.Errorf("%s imports presets: only cmd/ctx may", pkg)
			}
		}
	}
}

// cmd/ctx maps flags to options and writes bytes: it must not format
// tables, markdown or JSON documents itself, nor read files on its own.
func TestCommandIsAShell(t *testing.T) {
	for _, imp := range pkgOf(t, "cmd/ctx").Imports {
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
	for _, pkg := range []string{"discover", "manifest", "render", "audit", "aggregate", "aggregate/codeview", "aggregate/stats", "aggregate/beads", "aggregate/slice", "history", "measure",
		"schemas", "config", "presets", "profile", "provenance", "secrets", "report", "mcpserver", "internal/fileio", "internal/decodelimit", "internal/gitignore", "internal/mdtext", "internal/jsonenc", "internal/display", "internal/table",
		"internal/atomicfile", "internal/goroutine", "internal/treesitter", "internal/version", "internal/tomlenc", "cache"} {
		bp := pkgOf(t, pkg)
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
	allowed := map[string]bool{"config": true, "manifest": true, "audit": true, "aggregate": true, "aggregate/stats": true, "render": true,
		"provenance": true, "measure": true, "schemas": true, "profile": true, "secrets": true,
		"internal/jsonenc": true, "internal/version": true}
	for _, imp := range pkgOf(t, "mcpserver").Imports {
		if d, ok := strings.CutPrefix(imp, module); ok && !allowed[d] {
			t.Errorf("mcpserver imports %s: it serves the pipeline through %v", d, sortedKeys(allowed))
		}
	}
	for _, pkg := range packages(t) {
		if pkg == "mcpserver" {
			continue
		}
		for _, imp := range pkgOf(t, pkg).Imports {
			if strings.HasPrefix(imp, "github.com/modelcontextprotocol/") {
				t.Errorf("%s imports %s: the MCP SDK stays behind mcpserver", pkg, imp)
			}
			if imp == module+"mcpserver" && pkg != "cmd/ctx" {
				t.Errorf("%s imports mcpserver: only the command runs the server", pkg)
			}
		}
	}
}

// packages lists the module's packages, relative to the module root.
func packages(t *testing.T) []string {
	var out []string
	for path := range list(t) {
		if rel, ok := strings.CutPrefix(path, module); ok {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
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

// leanCeilings are the most packages (the standard library's included)
// that each core package may link: what a runtime that wants the
// instruction-file manifest, its rendered text and its audit pays. They
// were 458 to 464 while tree-sitter and gitleaks were linked; raise one
// only with a reason in the commit.
var leanCeilings = map[string]int{
	"manifest": 230,
	"render":   230,
	"audit":    320,
}

// heavy are the modules the core must never link: the tree-sitter
// grammars (cgo), gitleaks and what it brings (viper, zerolog, archive
// readers).
var heavy = []string{
	"github.com/smacker/go-tree-sitter",
	"github.com/zricethezav/gitleaks",
	"github.com/spf13/viper",
	"github.com/rs/zerolog",
	"github.com/mholt/archives",
}

// The core (manifest, render, audit) builds without cgo, links neither
// tree-sitter nor gitleaks, and stays under its package ceiling: the views
// reach aggregate as an engine config gives it (aggregate/engine), and the
// secret scanner is an interface (secrets) with gitleaks beside it
// (secrets/gitleaks), as go-containerregistry's dependency tests keep
// its core light.
func TestLeanCore(t *testing.T) {
	all := list(t)
	for pkg, ceiling := range leanCeilings {
		p := pkgOf(t, pkg)
		for _, d := range append([]string{p.ImportPath}, p.Deps...) {
			dp := all[d]
			if dp != nil && !dp.Standard && len(dp.CgoFiles) > 0 { // the standard library builds without cgo
				t.Errorf("%s links %s, which needs cgo", pkg, d)
			}
			for _, h := range heavy {
				if d == h || strings.HasPrefix(d, h+"/") {
					t.Errorf("%s links %s", pkg, d)
				}
			}
		}
		if n := len(p.Deps); n > ceiling {
			t.Errorf("%s links %d packages, over its ceiling of %d", pkg, n, ceiling)
		}
	}
	// the check can fail: the full pipeline links both
	cmd := pkgOf(t, "cmd/ctx")
	if !slices.ContainsFunc(cmd.Deps, func(d string) bool { return strings.HasPrefix(d, heavy[0]) }) ||
		!slices.ContainsFunc(cmd.Deps, func(d string) bool { return strings.HasPrefix(d, heavy[1]) }) {
		t.Error("cmd/ctx links neither tree-sitter nor gitleaks: the check above sees nothing")
	}
}
