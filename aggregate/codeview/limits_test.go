package codeview

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// nestedNamespaces is about size bytes of C++ namespaces nested in each
// other, each also declaring a function: the input whose outline grew with
// the square of its depth.
func nestedNamespaces(size int) []byte {
	const open, close = "namespace n {\nint f();\n", "}\n"
	n := size / (len(open) + len(close))
	return []byte(strings.Repeat(open, n) + strings.Repeat(close, n))
}

// deepViews are the views of deeply nested C++: each runs on the file f
// when it is given (to count the steps of its tree), else on src alone.
var deepViews = []struct {
	name string
	run  func(ctx context.Context, f *File, src []byte) (string, error)
}{
	{"outline", func(ctx context.Context, f *File, src []byte) (string, error) {
		if f != nil {
			return f.Outline(ctx)
		}
		return Outline(ctx, CPP, src)
	}},
	{"skeleton", func(ctx context.Context, f *File, src []byte) (string, error) {
		if f != nil {
			return f.Skeleton(ctx)
		}
		return Skeleton(ctx, CPP, src)
	}},
	{"mask", func(ctx context.Context, f *File, src []byte) (string, error) {
		mask := map[string]MaskMode{"n": MaskSig, "n::n::n": MaskSig, "n::f": MaskDef}
		if f != nil {
			return f.Mask(ctx, mask)
		}
		return Mask(ctx, CPP, src, mask)
	}},
	{"summary", func(ctx context.Context, f *File, src []byte) (string, error) {
		if f != nil {
			return f.Summary(ctx, "deep.cpp"), nil
		}
		return Summary(ctx, "deep.cpp", src), nil
	}},
}

// treeSteps parses src as lang, runs view on the file and returns the
// steps the view took in the tree (treesitter.Tree.Steps) and the bytes it
// allocated.
func treeSteps(t *testing.T, lang Language, src []byte, view func(*File) (string, error)) (steps int64, alloc uint64) {
	t.Helper()
	f, err := Parse(context.Background(), lang, src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := f.p.tree.Steps()
	alloc = allocated(func() {
		if _, err = view(f); err != nil && !errors.Is(err, ErrTruncated) {
			t.Fatal(err)
		}
	})
	return f.p.tree.Steps() - before, alloc
}

// linear fails the test unless twice the input took at most about twice
// the steps and the allocations of the input.
func linear(t *testing.T, what string, small, large func() (int64, uint64)) {
	t.Helper()
	s1, a1 := small()
	s2, a2 := large()
	t.Logf("%s: steps %d → %d (×%.2f), allocated %d → %d KiB (×%.2f)", what, s1, s2, float64(s2)/float64(s1), a1>>10, a2>>10, float64(a2)/float64(a1))
	if s1 > 0 && float64(s2) > 2.6*float64(s1) {
		t.Errorf("%s: twice the input took %.2f× the steps (%d → %d)", what, float64(s2)/float64(s1), s1, s2)
	}
	if a1 > 64<<10 && float64(a2) > 2.6*float64(a1) {
		t.Errorf("%s: twice the input allocated %.2f× the bytes (%d → %d)", what, float64(a2)/float64(a1), a1, a2)
	}
}

// Every view of deeply nested C++ grows linearly with the input: the
// outline once grew with the square of the depth.
func TestDeepNestingLinear(t *testing.T) {
	ctx := context.Background()
	for _, view := range deepViews {
		run := func(size int) func() (int64, uint64) {
			return func() (int64, uint64) {
				return treeSteps(t, CPP, nestedNamespaces(size), func(f *File) (string, error) { return view.run(ctx, f, nil) })
			}
		}
		linear(t, view.name, run(140<<10), run(280<<10))
	}
}

// allocated returns the bytes fn allocates on the Go heap.
func allocated(fn func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	fn()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

func TestDeepNestingIsCapped(t *testing.T) {
	ctx := context.Background()
	src := nestedNamespaces(560 << 10)
	limit := MaxOutputBytes(len(src))
	for _, view := range deepViews {
		t.Run(view.name, func(t *testing.T) {
			var out string
			var err error
			alloc := allocated(func() { out, err = view.run(ctx, nil, src) })
			if err != nil && !errors.Is(err, ErrTruncated) {
				t.Fatal(err)
			}
			t.Logf("%d bytes in, %d out, %d MiB allocated", len(src), len(out), alloc>>20)
			if len(out) > limit+200 {
				t.Errorf("%d bytes of output, over the limit %d", len(out), limit)
			}
			if alloc > 256<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}

	out, err := Outline(ctx, CPP, src)
	var te *TruncatedError
	if !errors.As(err, &te) || !strings.Contains(te.Reason, "deeper than 64 levels") {
		t.Fatalf("outline error %v, want a *TruncatedError about the depth", err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "… (view cut: "+te.Reason+")" {
		t.Errorf("the outline ends with %q, not the note", last)
	}
	// the namespaces and functions of the first 64 levels are listed
	if n := strings.Count(out, "[Namespace] n"); n != MaxDepth {
		t.Errorf("%d namespaces listed, want %d", n, MaxDepth)
	}
	// (a namespace's function is one level deeper than the namespace)
	if n := strings.Count(out, "[Func] f"); n != MaxDepth-1 {
		t.Errorf("%d functions listed, want %d", n, MaxDepth-1)
	}
	ss, err := Symbols(ctx, CPP, src)
	if !errors.Is(err, ErrTruncated) || len(ss) != 2*MaxDepth-1 {
		t.Errorf("Symbols: %d symbols, %v; want %d and ErrTruncated", len(ss), err, 2*MaxDepth-1)
	}
	for _, s := range ss {
		if s.Depth >= MaxDepth {
			t.Fatalf("symbol %s at depth %d listed", s.Path, s.Depth)
		}
	}
}

// Every language that nests symbols stops at the same depth; C, Go and
// JavaScript do not nest them, and their views of deep code stay bounded.
func TestDepthCapEveryLanguage(t *testing.T) {
	const depth = 200
	nest := func(open, close string) []byte {
		return []byte(strings.Repeat(open, depth) + strings.Repeat(close, depth))
	}
	var py strings.Builder
	for i := range depth {
		fmt.Fprintf(&py, "%sclass C:\n", strings.Repeat(" ", i))
	}
	fmt.Fprintf(&py, "%spass\n", strings.Repeat(" ", depth))
	for _, c := range []struct {
		lang  Language
		src   []byte
		nests bool
	}{
		{Python, []byte(py.String()), true},
		{CPP, nest("class C { ", "};\n"), true},
		{TypeScript, nest("namespace N { ", "}\n"), true},
		{TSX, nest("namespace N { ", "}\n"), true},
		{Rust, nest("mod m { ", "}\n"), true},
		{Java, nest("class C { ", "}\n"), true},
		{C, nest("struct S { ", "int x; };\n"), false},
		{Go, nest("func f() { g := func() { ", "}\n}\n"), false},
		{JavaScript, nest("class C { m() { return class D { ", "} } }\n"), false},
	} {
		ss, err := Symbols(context.Background(), c.lang, c.src)
		deepest := -1
		for _, s := range ss {
			deepest = max(deepest, s.Depth)
		}
		switch {
		case c.nests && (deepest != MaxDepth-1 || !errors.Is(err, ErrTruncated)):
			t.Errorf("%s: deepest symbol at %d, %v; want %d and ErrTruncated", c.lang, deepest, err, MaxDepth-1)
		case !c.nests && (deepest > 1 || err != nil):
			t.Errorf("%s: deepest symbol at %d, %v", c.lang, deepest, err)
		}
		for _, view := range []func(context.Context, Language, []byte) (string, error){Outline, Skeleton} {
			out, err := view(context.Background(), c.lang, c.src)
			if err != nil && !errors.Is(err, ErrTruncated) || len(out) > MaxOutputBytes(len(c.src)) {
				t.Errorf("%s: a view of %d bytes, %v", c.lang, len(out), err)
			}
		}
	}
}

// A few long names around many small declarations: every path repeats the
// names, so the symbol list is bounded by its budget.
func TestSymbolBudget(t *testing.T) {
	long := strings.Repeat("x", 4000)
	var b strings.Builder
	for range MaxDepth - 1 {
		b.WriteString("namespace " + long + " {\n")
	}
	for i := range 40000 {
		fmt.Fprintf(&b, "int v%d;\n", i)
	}
	b.WriteString(strings.Repeat("}\n", MaxDepth-1))
	src := []byte(b.String())
	var ss []Symbol
	var err error
	alloc := allocated(func() { ss, err = Symbols(context.Background(), CPP, src) })
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "bytes of names and paths") {
		t.Fatalf("err %v, want the symbol budget", err)
	}
	size := 0
	for _, s := range ss {
		size += len(s.Name) + len(s.Path) + symbolOverhead
	}
	if size > maxSymbolBytes(len(src)) {
		t.Errorf("%d bytes of symbols, over the budget %d", size, maxSymbolBytes(len(src)))
	}
	if alloc > 512<<20 {
		t.Errorf("allocated %d MiB for %d bytes", alloc>>20, len(src))
	}
	out, err := Outline(context.Background(), CPP, src)
	if !errors.Is(err, ErrTruncated) || len(out) > MaxOutputBytes(len(src))+300 {
		t.Errorf("outline of %d bytes, %v", len(out), err)
	}
}

// Ordinary files are far from every limit.
func TestLimitsLeaveOrdinaryFilesAlone(t *testing.T) {
	files, err := sampleFiles()
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		lang, ok := Detect(name)
		if !ok {
			continue
		}
		for _, f := range []func(context.Context, Language, []byte) (string, error){Outline, Skeleton} {
			if _, err := f(context.Background(), lang, src); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		if _, err := Symbols(context.Background(), lang, src); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCapOutput(t *testing.T) {
	out := strings.Repeat("line\n", MaxOutputBytes(0)/5+10)
	got, err := capOutput(out, 0)
	if !errors.Is(err, ErrTruncated) || len(got) > MaxOutputBytes(0) || !strings.HasSuffix(got, "line\n") {
		t.Errorf("capOutput: %d bytes, %v", len(got), err)
	}
	if got, err := capOutput("short\n", 0); got != "short\n" || err != nil {
		t.Errorf("capOutput of a short view: %q, %v", got, err)
	}
}

// sampleFiles reads testdata/src: every sample by its name.
func sampleFiles() (map[string][]byte, error) {
	paths, err := filepath.Glob(filepath.Join("testdata", "src", "*"))
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out[filepath.Base(p)] = b
	}
	return out, nil
}

// The skeleton of deeply nested blocks stays linear: it walked the syntax
// tree asking each node's parent (which tree-sitter finds from the root),
// and 40 KB of nested JavaScript braces took 22 s. Twice the depth takes
// twice the steps in the tree.
func TestSkeletonDeepBlocksLinear(t *testing.T) {
	ctx := context.Background()
	namespaces := func(n int) []byte {
		var ts strings.Builder
		for i := range n {
			fmt.Fprintf(&ts, "namespace a%d {\n", i)
		}
		ts.WriteString(strings.Repeat("}\n", n))
		return []byte(ts.String())
	}
	for _, c := range []struct {
		lang Language
		src  func(n int) []byte
		n    int
	}{
		{JavaScript, func(n int) []byte { return []byte(strings.Repeat("{", n) + strings.Repeat("}", n)) }, 10000},
		{TypeScript, namespaces, 10000},
		{Rust, func(n int) []byte { return []byte(strings.Repeat("mod m {\n", n) + strings.Repeat("}\n", n)) }, 2500},
	} {
		for _, n := range []int{c.n, 2 * c.n} {
			src := c.src(n)
			out, err := Skeleton(ctx, c.lang, src)
			if err != nil && !errors.Is(err, ErrTruncated) {
				t.Fatal(err)
			}
			if len(out) > MaxOutputBytes(len(src))+200 {
				t.Errorf("%s: %d bytes of output", c.lang, len(out))
			}
		}
		run := func(n int) func() (int64, uint64) {
			return func() (int64, uint64) {
				return treeSteps(t, c.lang, c.src(n), func(f *File) (string, error) { return f.Skeleton(ctx) })
			}
		}
		linear(t, string(c.lang), run(c.n), run(2*c.n))
	}
}

// The summary of a TOML file decodes it to say whether it is valid: a
// file nested too deep, or with more tables than its size can hold, is
// not decoded (a 4 MiB file of nested inline tables decoded to a map per
// level, 500 MB).
func TestTOMLSummaryBounded(t *testing.T) {
	var nested strings.Builder
	for i := 0; nested.Len() < 4<<20-2000; i++ {
		fmt.Fprintf(&nested, "k%d = %s1%s\n", i, strings.Repeat("{a = ", 200), strings.Repeat("}", 200))
	}
	for _, tt := range []struct {
		name, src, want string
	}{
		{"nested inline tables", nested.String(), "not decoded: line 1316: more than 263070 tables in 4192750 bytes of TOML"},
		{"nested arrays", "a = 1\nb = " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n", "not decoded: line 2: nesting deeper than 256 levels"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			var got string
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			got = Summary(context.Background(), "x.toml", src)
			runtime.ReadMemStats(&m1)
			if !strings.Contains(got, tt.want) {
				t.Errorf("summary:\n%s\nwant it to hold %q", got, tt.want)
			}
			if a := m1.TotalAlloc - m0.TotalAlloc; a > 4*uint64(len(src))+1<<20 {
				t.Errorf("%d bytes allocated for %d bytes", a, len(src))
			}
		})
	}
}
