package treesitter

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseSExpression(t *testing.T) {
	src := []byte("def f(x):\n    return x\n")
	tree, err := Parse(context.Background(), Python, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	want := "(module (function_definition name: (identifier) parameters: (parameters (identifier)) body: (block (return_statement (identifier)))))"
	if got := tree.Root().String(); got != want {
		t.Errorf("S-expression\n got %s\nwant %s", got, want)
	}
	fn := tree.Root().NamedChildren()[0]
	if fn.Type() != "function_definition" || fn.StartLine() != 1 || fn.EndLine() != 2 {
		t.Errorf("function: %s lines %d-%d", fn.Type(), fn.StartLine(), fn.EndLine())
	}
	if name := fn.ChildByField("name").Text(src); name != "f" {
		t.Errorf("name %q", name)
	}
	if !fn.Parent().Equal(tree.Root()) || !tree.Root().Parent().IsNull() {
		t.Error("Parent")
	}
	var types []string
	if err := Walk(context.Background(), fn.ChildByField("body"), func(n Node) bool {
		if n.IsNamed() {
			types = append(types, n.Type())
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if got := len(types); got != 3 { // block, return_statement, identifier
		t.Errorf("Walk visited %v", types)
	}
}

func TestEndLineOfNodeEndingWithNewline(t *testing.T) {
	src := []byte("#define X 1\nint y;\n")
	tree, err := Parse(context.Background(), C, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	def := tree.Root().NamedChildren()[0]
	if def.Type() != "preproc_def" || def.StartLine() != 1 || def.EndLine() != 1 {
		t.Errorf("%s lines %d-%d, want preproc_def 1-1", def.Type(), def.StartLine(), def.EndLine())
	}
}

func TestGrammars(t *testing.T) {
	for _, g := range []Grammar{Python, C, CPP, Go, JavaScript, TypeScript, TSX, Rust, Java} {
		p, err := NewParser(g)
		if err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		tree, err := p.ParseCtx(context.Background(), []byte("x"))
		if err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		tree.Close()
		tree.Close() // idempotent
		p.Close()
		p.Close()
	}
	if _, err := NewParser("cobol"); !errors.Is(err, ErrUnknownGrammar) {
		t.Errorf("unknown grammar: %v", err)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, Go, []byte("package p")); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestNullNode(t *testing.T) {
	var n Node
	if !n.IsNull() || n.Type() != "" || n.Children() != nil || n.StartLine() != 0 || n.String() != "<null>" || n.HasError() {
		t.Error("null node")
	}
}

// Identity tells the grammars apart and stays the same within a build.
func TestIdentity(t *testing.T) {
	seen := map[string]Grammar{}
	for _, g := range []Grammar{Python, C, CPP, Go, JavaScript, TypeScript, TSX, Rust, Java} {
		id := Identity(g)
		if id == "" || Identity(g) != id {
			t.Fatalf("Identity(%s) = %q, then %q", g, id, Identity(g))
		}
		if other, ok := seen[id]; ok {
			t.Fatalf("%s and %s share the identity %q", g, other, id)
		}
		seen[id] = g
	}
	if Identity("cobol") != "" {
		t.Fatal("an unknown grammar has an identity")
	}
	t.Log(Identity(Go))
}

// Steps grows with the work: linear for a walk, and by the depth for the
// sibling and parent methods, which tree-sitter answers from the root.
func TestSteps(t *testing.T) {
	steps := func(src string, fn func(Node)) int64 {
		tree, err := Parse(context.Background(), JavaScript, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		defer tree.Close()
		fn(tree.Root())
		return tree.Steps()
	}
	walk := func(n Node) {
		Walk(context.Background(), n, func(Node) bool { return true })
	}
	deep := func(d int) string { return strings.Repeat("{", d) + strings.Repeat("}", d) }
	w1, w2 := steps(deep(1000), walk), steps(deep(2000), walk)
	if r := float64(w2) / float64(w1); r < 1.8 || r > 2.2 {
		t.Errorf("a walk of twice the tree took %.2f× the steps (%d, %d)", r, w1, w2)
	}
	// asking every node of a chain for its sibling is quadratic
	siblings := func(n Node) {
		Walk(context.Background(), n, func(c Node) bool { c.NextSibling(); return true })
	}
	s1, s2 := steps(deep(1000), siblings), steps(deep(2000), siblings)
	if r := float64(s2) / float64(s1); r < 3.5 {
		t.Errorf("siblings of every node of twice the depth took %.2f× the steps (%d, %d), not about 4×", r, s1, s2)
	}
}
