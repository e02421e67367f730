// Package lanes finds the tests of a module that the race lane does not
// run in full (see internal/testlane), for the full lane of .ci/run.
package lanes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// testlaneMarks are the names of package testlane whose use makes a test
// run differently under -race: skipped (Heavy, Program), in fewer rounds
// (Rounds), or otherwise (Race).
var testlaneMarks = []string{"Heavy", "Program", "Rounds", "Race"}

// FullLaneTests returns the sorted names of the top-level tests (TestXxx)
// under root that use testlane's marks, directly or through any function
// or method of their package's test files that does (a helper, or a
// helper's helper). A test is matched by name: go test -run applies one
// pattern to every package.
func FullLaneTests(root string) ([]string, error) {
	byDir, err := FullLane(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, names := range byDir {
		out = append(out, names...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// FullLane is FullLaneTests by directory: the directories under root (as
// "./rel", "." for root itself) whose tests include full-lane ones, each
// with their sorted names.
func FullLane(root string) (map[string][]string, error) {
	pkgs := map[string][]*ast.File{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		// package x and package x_test are one test binary
		key := filepath.Dir(path)
		pkgs[key] = append(pkgs[key], f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for dir, files := range pkgs {
		names := packageTests(files)
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return nil, err
		}
		if rel != "." {
			rel = "./" + filepath.ToSlash(rel)
		}
		out[rel] = names
	}
	return out, nil
}

// packageTests returns the tests of one package's test files that use
// testlane's marks.
func packageTests(files []*ast.File) []string {
	uses := map[string]map[string]bool{} // function → the names it refers to
	marked := map[string]bool{}
	for _, f := range files {
		alias := testlaneAlias(f)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			refs := uses[name]
			if refs == nil {
				refs = map[string]bool{}
				uses[name] = refs
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && alias != "" && id.Name == alias && slices.Contains(testlaneMarks, x.Sel.Name) {
						marked[name] = true
					}
					// a method value or call (s.helper) refers to the method
					refs[x.Sel.Name] = true
				case *ast.Ident:
					refs[x.Name] = true
				}
				return true
			})
		}
	}
	// a function that refers to a marked one is marked, until nothing
	// changes
	for changed := true; changed; {
		changed = false
		for fn, refs := range uses {
			if marked[fn] {
				continue
			}
			for r := range refs {
				if marked[r] && r != fn {
					marked[fn], changed = true, true
					break
				}
			}
		}
	}
	var out []string
	for fn := range marked {
		if isTest(fn) {
			out = append(out, fn)
		}
	}
	return out
}

// testlaneAlias is the name the file imports internal/testlane under, or
// "".
func testlaneAlias(f *ast.File) string {
	for _, imp := range f.Imports {
		if strings.HasSuffix(strings.Trim(imp.Path.Value, `"`), "/internal/testlane") {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return "testlane"
		}
	}
	return ""
}

var testName = regexp.MustCompile(`^Test($|[^a-z])`)

func isTest(name string) bool { return testName.MatchString(name) && name != "TestMain" }

// Pattern is the go test -run pattern that matches exactly the top-level
// tests names ("^(TestA|TestB)$"; their subtests run with them).
func Pattern(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(q, "|") + ")$"
}
