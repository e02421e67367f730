package codeview

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// TestCorpusGoStdlib checks Go outlines over the Go standard library: every
// outline line parses back to the symbol list, every symbol's lines are its
// tree-sitter node's, and the symbols (kind, path, lines) are exactly those
// go/parser finds, an independent parser.
func TestCorpusGoStdlib(t *testing.T) {
	testlane.Slow(t, "parses a whole standard library")
	testlane.Heavy(t, "parses a whole standard library")
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found: cannot locate GOROOT")
	}
	out, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	var files []string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skipf("no Go sources under %s", root)
	}
	files = corpusSample(files)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	checked, goSkipped, tsErrors, symbols := 0, 0, 0, 0
	var failures []string
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			goSkipped++ // testdata with deliberate syntax errors
			continue
		}
		p, err := parse(ctx, Go, src)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := p.symbols(ctx)
		hasErr := p.tree.Root().HasError()
		if err != nil {
			t.Fatal(err)
		}
		checked++
		symbols += len(ss)
		var got []string
		for _, s := range ss {
			if s.StartLine != s.node.StartLine() || s.EndLine != s.node.EndLine() {
				failures = append(failures, fmt.Sprintf("%s: %s lines %d-%d, node %d-%d", f, s.Path, s.StartLine, s.EndLine, s.node.StartLine(), s.node.EndLine()))
			}
			got = append(got, fmt.Sprintf("%s %s %d-%d", s.Kind, s.Path, s.StartLine, s.EndLine))
		}
		p.close() // the nodes are not used past this point
		outline, err := Outline(ctx, Go, src)
		if err != nil {
			t.Fatal(err)
		}
		if back := parseOutline(outline); strings.Join(back, "\n") != strings.Join(got, "\n") {
			failures = append(failures, fmt.Sprintf("%s: outline does not match the symbols:\n%s", f, outline))
		}
		if hasErr {
			// The tree-sitter Go grammar lags the language; such files are
			// counted, not failed.
			tsErrors++
			continue
		}
		want := goAstSymbols(fset, af)
		sort.Strings(got)
		sort.Strings(want)
		if d := diffLists(want, got); d != "" {
			failures = append(failures, f+": symbols differ from go/parser: "+d)
		}
	}
	t.Logf("go stdlib %s: %d files sampled, %d checked (%d symbols), %d skipped (go/parser rejects them), %d with tree-sitter parse errors (line ranges checked, go/parser comparison skipped), %d failures",
		root, len(files), checked, symbols, goSkipped, tsErrors, len(failures))
	for i, f := range failures {
		if i == 20 {
			t.Errorf("... and %d more failures", len(failures)-20)
			break
		}
		t.Error(f)
	}
}

var outlineLine = regexp.MustCompile(`^( *)\[([^\]]+)\] (.*) \(Lines (\d+)-(\d+)\)$`)

// parseOutline turns Go outline lines back into "Kind label s-e" entries.
func parseOutline(outline string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(outline, "\n"), "\n") {
		if m := outlineLine.FindStringSubmatch(l); m != nil {
			out = append(out, fmt.Sprintf("%s %s %s-%s", m[2], m[3], m[4], m[5]))
		}
	}
	return out
}

func goAstSymbols(fset *token.FileSet, f *ast.File) []string {
	var out []string
	add := func(kind, path string, from, to token.Pos) {
		out = append(out, fmt.Sprintf("%s %s %d-%d", kind, path, fset.PositionFor(from, false).Line, fset.PositionFor(to, false).Line))
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				add("Func", d.Name.Name, d.Pos(), d.End())
				continue
			}
			path := d.Name.Name
			if len(d.Recv.List) > 0 && recvName(d.Recv.List[0].Type) != "" {
				path = recvName(d.Recv.List[0].Type) + "." + path
			}
			add("Method", path, d.Pos(), d.End())
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				from, to := sp.Pos(), sp.End()
				if !d.Lparen.IsValid() {
					from, to = d.Pos(), d.End()
				}
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					kind := "Type"
					switch sp.Type.(type) {
					case *ast.StructType:
						kind = "Struct"
					case *ast.InterfaceType:
						kind = "Interface"
					}
					add(kind, sp.Name.Name, from, to)
				case *ast.ValueSpec:
					kind := "Var"
					if d.Tok == token.CONST {
						kind = "Const"
					}
					for _, n := range sp.Names {
						if n.Name != "_" {
							add(kind, n.Name, from, to)
						}
					}
				}
			}
		}
	}
	return out
}

func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "" // an invalid receiver (type-checker test data)
		}
	}
}

// diffLists describes the difference of two sorted lists, or returns "".
func diffLists(want, got []string) string {
	count := map[string]int{}
	for _, w := range want {
		count[w]++
	}
	for _, g := range got {
		count[g]--
	}
	var missing, extra []string
	for k, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, k)
		}
		for ; n < 0; n++ {
			extra = append(extra, k)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	sort.Strings(missing)
	sort.Strings(extra)
	trim := func(l []string) []string {
		if len(l) > 5 {
			return append(l[:5], "+"+strconv.Itoa(len(l)-5))
		}
		return l
	}
	return fmt.Sprintf("missing %q, extra %q", trim(missing), trim(extra))
}
