package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A test must not fail because the machine is busy: an elapsed-time
// threshold under stopwatchMin in a test file (a comparison of a duration
// with a constant, a time.After, a context.WithTimeout, a deadline, or a
// function of the test that passes its duration argument to one of those)
// fails this test. Growth is counted in steps or allocations, a hang is
// caught by internal/testwait's minutes, and promptness is shown by the
// order of events. A line that holds a short duration for another reason
// says so with a "not a stopwatch:" comment.
const stopwatchMin = 30 * time.Second

func TestNoStopwatches(t *testing.T) {
	r := root(t)
	var found []string
	dirs := map[string]bool{}
	err := filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != r && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, "_test.go") {
			dirs[filepath.Dir(p)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sw := newStopwatches(r)
	for dir := range dirs {
		fs, err := sw.check(dir)
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, fs...)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s", f)
	}
	if len(found) > 0 {
		t.Logf("%d elapsed-time thresholds under %v: count steps or allocations, wait with internal/testwait, or show the order of events", len(found), stopwatchMin)
	}
}

// The checker finds each kind of threshold, and leaves alone what is not
// one.
func TestStopwatchChecker(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want int
	}{
		{"since compared", `if took := time.Since(start); took > 3*time.Second { t.Error() }`, 1},
		{"sub compared", `if e.Sub(s) > 2*time.Second {}`, 1},
		{"reversed", `if time.Second < time.Since(start) {}`, 1},
		{"millis", `if d >= 500 * time.Millisecond {}`, 1},
		{"after", `select { case <-done: case <-time.After(10 * time.Second): }`, 1},
		{"timer", `time.NewTimer(5 * time.Second)`, 1},
		{"with timeout", `context.WithTimeout(ctx, 20*time.Second)`, 1},
		{"deadline", `deadline := time.Now().Add(20 * time.Second); _ = deadline`, 1},
		{"local const", `const limit = 10 * time.Second; <-time.After(limit)`, 1},
		{"package const", `<-time.After(short)`, 1},
		{"sum of consts", `<-time.After(short + 5*time.Second)`, 1},
		{"helper", `waitFor(t, 10*time.Second)`, 1},
		{"field", `_ = x{TerminateDuration: 10 * time.Second}`, 1},
		{"a minute", `<-time.After(time.Minute)`, 0},
		{"thirty seconds", `<-time.After(30 * time.Second)`, 0},
		{"long const", `<-time.After(long)`, 0},
		{"variable", `<-time.After(d)`, 0},
		{"equality", `if cfg.Interval != 5*time.Second {}`, 0},
		{"sleep", `time.Sleep(time.Millisecond)`, 0},
		{"timestamp", `ts := old.Add(2 * time.Second); _ = ts`, 0},
		{"not a stopwatch", `<-time.After(time.Second) // not a stopwatch: the grace of a dead process`, 0},
		{"helper with a minute", `waitFor(t, 2*time.Minute)`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := fmt.Sprintf(`package p

import (
	"context"
	"testing"
	"time"
)

const short = 5 * time.Second
const long = 2 * time.Minute

type x struct{ TerminateDuration time.Duration }

func waitFor(t *testing.T, limit time.Duration) {
	select {
	case <-time.After(limit):
	}
}

func TestX(t *testing.T) {
	var ctx context.Context
	var start, e, s, old time.Time
	var d time.Duration
	var done chan int
	var cfg struct{ Interval time.Duration }
	_, _, _, _, _, _, _, _ = ctx, start, e, s, old, d, done, cfg
	%s
}
`, tc.src)
			if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := newStopwatches(dir).check(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Errorf("%s: %d findings %q, want %d", tc.src, len(got), got, tc.want)
			}
		})
	}
}

// stopwatches checks the test files of packages for elapsed-time
// thresholds.
type stopwatches struct {
	root   string
	fset   *token.FileSet
	consts map[string]map[string]ast.Expr // by directory: a package's constants
}

func newStopwatches(root string) *stopwatches {
	return &stopwatches{root: root, fset: token.NewFileSet(), consts: map[string]map[string]ast.Expr{}}
}

// check returns the thresholds of dir's test files, as "file:line: why".
func (s *stopwatches) check(dir string) ([]string, error) {
	files, err := s.parseDir(dir)
	if err != nil {
		return nil, err
	}
	pkgConsts := s.constsOf(dir, files)
	// functions of the tests whose duration parameter reaches a threshold
	helpers := map[string][]int{}
	for _, f := range files {
		if !strings.HasSuffix(s.fset.Position(f.Pos()).Filename, "_test.go") {
			continue
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Recv != nil {
				continue
			}
			i := 0
			for _, field := range fd.Type.Params.List {
				n := max(len(field.Names), 1)
				if isDurationType(field.Type) {
					for k, name := range field.Names {
						if s.paramIsThreshold(fd.Body, name.Name) {
							helpers[fd.Name.Name] = append(helpers[fd.Name.Name], i+k)
						}
					}
				}
				i += n
			}
		}
	}
	var out []string
	for _, f := range files {
		name := s.fset.Position(f.Pos()).Filename
		if !strings.HasSuffix(name, "_test.go") {
			continue
		}
		exempt := map[int]bool{}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.Contains(c.Text, "not a stopwatch:") {
					exempt[s.fset.Position(c.Pos()).Line] = true
				}
			}
		}
		imports := importsOf(f)
		report := func(at token.Pos, why string, d time.Duration) {
			pos := s.fset.Position(at)
			if exempt[pos.Line] {
				return
			}
			rel, err := filepath.Rel(s.root, pos.Filename)
			if err != nil {
				rel = pos.Filename
			}
			out = append(out, fmt.Sprintf("%s:%d: %s of %v", filepath.ToSlash(rel), pos.Line, why, d))
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				// with the constants declared in the function
				s.inspectFunc(fd.Body, withLocalConsts(pkgConsts, fd.Body), imports, helpers, report)
			}
		}
	}
	return out, nil
}

// inspectFunc reports the thresholds in a function body.
func (s *stopwatches) inspectFunc(body *ast.BlockStmt, consts map[string]ast.Expr, imports map[string]string, helpers map[string][]int, report func(token.Pos, string, time.Duration)) {
	short := func(e ast.Expr) (time.Duration, bool) {
		d, isDur, ok := s.eval(e, consts, imports, 0)
		return time.Duration(d), ok && isDur && time.Duration(d) < stopwatchMin
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			switch n.Op {
			case token.LSS, token.LEQ, token.GTR, token.GEQ:
				_, _, xConst := s.eval(n.X, consts, imports, 0)
				_, _, yConst := s.eval(n.Y, consts, imports, 0)
				if d, ok := short(n.Y); ok && !xConst {
					report(n.Pos(), "a duration compared with a threshold", d)
				} else if d, ok := short(n.X); ok && !yConst {
					report(n.Pos(), "a duration compared with a threshold", d)
				}
			}
		case *ast.CallExpr:
			if arg, ok := thresholdArg(n); ok {
				if d, ok := short(arg); ok {
					report(n.Pos(), "a wait", d)
				}
			}
			if id, ok := n.Fun.(*ast.Ident); ok {
				for _, i := range helpers[id.Name] {
					if i < len(n.Args) {
						if d, ok := short(n.Args[i]); ok {
							report(n.Pos(), id.Name+" given a wait", d)
						}
					}
				}
			}
		case *ast.KeyValueExpr:
			if key, ok := n.Key.(*ast.Ident); ok && timeoutField(key.Name) {
				if d, ok := short(n.Value); ok {
					report(n.Pos(), key.Name, d)
				}
			}
		}
		return true
	})
}

// timeoutField reports whether a struct field of that name is a wait.
func timeoutField(name string) bool {
	for _, w := range []string{"Timeout", "Deadline", "Terminate", "Wait", "Grace"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// thresholdArg returns the duration argument of a call that waits for it
// or sets a deadline: time.After, time.NewTimer, time.AfterFunc,
// context.WithTimeout and time.Now().Add.
func thresholdArg(call *ast.CallExpr) (ast.Expr, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || len(call.Args) == 0 {
		return nil, false
	}
	if pkg, ok := sel.X.(*ast.Ident); ok {
		switch pkg.Name + "." + sel.Sel.Name {
		case "time.After", "time.NewTimer", "time.AfterFunc":
			return call.Args[0], true
		case "context.WithTimeout", "context.WithTimeoutCause":
			if len(call.Args) >= 2 {
				return call.Args[1], true
			}
		}
	}
	if sel.Sel.Name == "Add" {
		if inner, ok := sel.X.(*ast.CallExpr); ok {
			if is, ok := inner.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := is.X.(*ast.Ident); ok && pkg.Name == "time" && is.Sel.Name == "Now" {
					return call.Args[0], true
				}
			}
		}
	}
	return nil, false
}

// paramIsThreshold reports whether the parameter name reaches a wait or
// a comparison in body.
func (s *stopwatches) paramIsThreshold(body *ast.BlockStmt, name string) bool {
	uses := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == name {
				found = true
			}
			return !found
		})
		return found
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if arg, ok := thresholdArg(n); ok && uses(arg) {
				found = true
			}
		case *ast.BinaryExpr:
			switch n.Op {
			case token.LSS, token.LEQ, token.GTR, token.GEQ:
				if uses(n.X) || uses(n.Y) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func isDurationType(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "time" && sel.Sel.Name == "Duration"
}

// timeUnits are the constants of package time, in nanoseconds.
var timeUnits = map[string]float64{
	"Nanosecond": 1, "Microsecond": 1e3, "Millisecond": 1e6, "Second": 1e9, "Minute": 60e9, "Hour": 3600e9,
}

// eval evaluates a constant expression: its value (in nanoseconds for a
// duration), whether it is a duration, and whether it is a constant
// ctx can see (literals, units of package time, constants of the package
// or of another package of the module).
func (s *stopwatches) eval(e ast.Expr, consts map[string]ast.Expr, imports map[string]string, depth int) (v float64, isDur, ok bool) {
	if depth > 32 {
		return 0, false, false
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.INT || e.Kind == token.FLOAT {
			f, err := strconv.ParseFloat(strings.ReplaceAll(e.Value, "_", ""), 64)
			return f, false, err == nil
		}
	case *ast.ParenExpr:
		return s.eval(e.X, consts, imports, depth+1)
	case *ast.Ident:
		if x, found := consts[e.Name]; found {
			return s.eval(x, consts, imports, depth+1)
		}
	case *ast.SelectorExpr:
		pkg, isIdent := e.X.(*ast.Ident)
		if !isIdent {
			return 0, false, false
		}
		if pkg.Name == "time" {
			if u, found := timeUnits[e.Sel.Name]; found {
				return u, true, true
			}
			return 0, false, false
		}
		if path, found := imports[pkg.Name]; found && strings.HasPrefix(path, module) {
			dir := filepath.Join(s.root, filepath.FromSlash(strings.TrimPrefix(path, module)))
			files, err := s.parseDir(dir)
			if err != nil {
				return 0, false, false
			}
			other := s.constsOf(dir, files)
			if x, found := other[e.Sel.Name]; found {
				return s.eval(x, other, importsOfDir(files), depth+1)
			}
		}
	case *ast.CallExpr:
		if len(e.Args) == 1 && isDurationType(e.Fun) {
			v, _, ok := s.eval(e.Args[0], consts, imports, depth+1)
			return v, true, ok
		}
	case *ast.BinaryExpr:
		x, xd, xok := s.eval(e.X, consts, imports, depth+1)
		y, yd, yok := s.eval(e.Y, consts, imports, depth+1)
		if !xok || !yok {
			return 0, false, false
		}
		switch e.Op {
		case token.MUL:
			return x * y, xd || yd, true
		case token.QUO:
			if y == 0 {
				return 0, false, false
			}
			return x / y, xd && !yd, true
		case token.ADD:
			return x + y, xd || yd, true
		case token.SUB:
			return x - y, xd || yd, true
		}
	}
	return 0, false, false
}

// parseDir parses the Go files of a directory, tests included.
func (s *stopwatches) parseDir(dir string) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(s.fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// constsOf returns the package-level constants of a directory's files
// (each package of it: a test package's names rarely collide).
func (s *stopwatches) constsOf(dir string, files []*ast.File) map[string]ast.Expr {
	if c, ok := s.consts[dir]; ok {
		return c
	}
	c := map[string]ast.Expr{}
	for _, f := range files {
		for _, decl := range f.Decls {
			addConsts(c, decl)
		}
	}
	s.consts[dir] = c
	return c
}

// addConsts adds the constants of a declaration with explicit values.
func addConsts(c map[string]ast.Expr, decl ast.Node) {
	gd, ok := decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.CONST {
		return
	}
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, name := range vs.Names {
			if i < len(vs.Values) {
				c[name.Name] = vs.Values[i]
			}
		}
	}
}

// withLocalConsts is consts with those declared in body.
func withLocalConsts(consts map[string]ast.Expr, body *ast.BlockStmt) map[string]ast.Expr {
	var local map[string]ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		if ds, ok := n.(*ast.DeclStmt); ok {
			if local == nil {
				local = map[string]ast.Expr{}
				for k, v := range consts {
					local[k] = v
				}
			}
			addConsts(local, ds.Decl)
		}
		return true
	})
	if local == nil {
		return consts
	}
	return local
}

// importsOf maps a file's import names to their paths.
func importsOf(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[name] = path
	}
	return m
}

func importsOfDir(files []*ast.File) map[string]string {
	m := map[string]string{}
	for _, f := range files {
		for k, v := range importsOf(f) {
			m[k] = v
		}
	}
	return m
}
