package codeview

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/internal/goldenfile"
	"github.com/ctxaudit/ctx/internal/treesitter"
)

// Golden tests: every file in testdata/src gets its skeleton, outline and
// summary (and mask, when a .mask sidecar lists "path=mode" lines) compared
// with testdata/golden/<file>.<view>. CTX_UPDATE=1 rewrites the goldens.

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), []byte(got))
}

func readMask(t *testing.T, path string) map[string]MaskMode {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]MaskMode{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Fatalf("%s: bad line %q", path, l)
		}
		m[k] = MaskMode(v)
	}
	return m
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "src", "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		if strings.HasSuffix(f, ".mask") {
			continue
		}
		base := filepath.Base(f)
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, base+".summary", Summary(ctx, f, src)+"\n")
			lang, ok := Detect(f)
			if !ok {
				if _, err := Skeleton(ctx, Language("text"), src); !errors.Is(err, ErrUnsupported) {
					t.Errorf("Skeleton of an unsupported language: err = %v, want ErrUnsupported", err)
				}
				return
			}
			skel, err := Skeleton(ctx, lang, src)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, base+".skeleton", skel)
			out, err := Outline(ctx, lang, src)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, base+".outline", out)
			if mask := readMask(t, f+".mask"); mask != nil {
				got, err := Mask(ctx, lang, src, mask)
				if err != nil {
					t.Fatal(err)
				}
				golden(t, base+".mask", got+"\n")
			}
			if lang == Python {
				checkTreeClean(t, Python, []byte(skel))
			}
			checkRanges(t, lang, src)
		})
	}
}

// checkTreeClean fails when src has parse errors.
func checkTreeClean(t *testing.T, lang Language, src []byte) {
	t.Helper()
	g, _ := grammar(lang)
	tree, err := treesitter.Parse(context.Background(), g, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if tree.Root().HasError() {
		t.Errorf("skeleton has parse errors:\n%s", src)
	}
}

// checkRanges checks that each symbol's lines are those of a node of the
// parse tree that starts and ends on them.
func checkRanges(t *testing.T, lang Language, src []byte) {
	t.Helper()
	p, err := parse(context.Background(), lang, src)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	ss, err := p.symbols(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.StartLine != s.node.StartLine() || s.EndLine != s.node.EndLine() || s.StartLine > s.EndLine {
			t.Errorf("%s: lines %d-%d, node %s has %d-%d", s.Path, s.StartLine, s.EndLine, s.node.Type(), s.node.StartLine(), s.node.EndLine())
		}
	}
}

func TestDetect(t *testing.T) {
	for path, want := range map[string]Language{
		"a.py": Python, "a.PYI": Python, "x/y.h": C, "a.hh": CPP, "a.cxx": CPP, "m.go": Go,
		"a.mjs": JavaScript, "a.jsx": JavaScript, "a.cts": TypeScript, "a.tsx": TSX, "lib.rs": Rust, "A.java": Java,
	} {
		if got, ok := Detect(path); !ok || got != want {
			t.Errorf("Detect(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
	for _, path := range []string{"README.md", "Makefile", "a.toml", "a.pyc"} {
		if got, ok := Detect(path); ok {
			t.Errorf("Detect(%q) = %q, want no language", path, got)
		}
	}
}

func TestMaskErrors(t *testing.T) {
	src := []byte("def f():\n    return 1\n\nclass C:\n    def m(self):\n        pass\n")
	got, err := Mask(context.Background(), Python, src, map[string]MaskMode{
		"f": "def", "C.missing": "def", "nope": "sig", "C.m": "bogus",
	})
	var uerr *UnknownSymbolsError
	if !errors.As(err, &uerr) {
		t.Fatalf("err = %v, want *UnknownSymbolsError", err)
	}
	if strings.Join(uerr.Names, ",") != "C.missing,nope" || strings.Join(uerr.Modes, ",") != "C.m=bogus" {
		t.Errorf("Names %q, Modes %q", uerr.Names, uerr.Modes)
	}
	for _, s := range []string{`"C.missing"`, `"nope"`, "C.m=bogus"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
	if got != "def f():\n    return 1" {
		t.Errorf("partial output %q", got)
	}
}

func TestUnsupported(t *testing.T) {
	ctx := context.Background()
	if _, err := Outline(ctx, "cobol", nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Outline: %v", err)
	}
	if _, err := Symbols(ctx, "cobol", nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Symbols: %v", err)
	}
	if _, err := Mask(ctx, "cobol", nil, nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Mask: %v", err)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src, err := os.ReadFile(filepath.Join("testdata", "src", "sample.py"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Skeleton(ctx, Python, src); !errors.Is(err, context.Canceled) {
		t.Errorf("Skeleton: err = %v, want context.Canceled", err)
	}
	// Summary falls back to the text summary.
	if got := Summary(ctx, "a.py", src); !strings.HasPrefix(got, "**PY** — ") {
		t.Errorf("Summary with a canceled context = %q", got)
	}
}

// A file that tree-sitter parses into one module-level ERROR node (Python
// accepts it: the dedented continuation lines inside parentheses are legal)
// still has the classes and functions tree-sitter recovered in its outline
// and mask, as in the skeleton and the brace languages; it used to have none.
func TestPythonSymbolsUnderParseErrors(t *testing.T) {
	src := []byte(`class T:
    def test_weird(self):
        def f():
            (bar.
        baz)
            (bar.
        baz(
        ))
        return f

    @decorator
    def test_after(self):
        for source in [
            "lambda: a",
        ]:
            return source


def top():
    pass
`)
	ctx := context.Background()
	g, _ := grammar(Python)
	tree, err := treesitter.Parse(ctx, g, src)
	if err != nil {
		t.Fatal(err)
	}
	root := tree.Root()
	if kids := root.Children(); len(kids) == 0 || !kids[0].IsError() {
		t.Fatal("the grammar no longer wraps this file in an ERROR node: find another sample")
	}
	tree.Close()
	out, err := Outline(ctx, Python, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[Class] T (Lines 1-", "  [Method] test_weird (Lines 2-", "test_after (Lines 11-16)"} {
		if !strings.Contains(out, want) {
			t.Errorf("outline lacks %q:\n%s", want, out)
		}
	}
	if _, err := Mask(ctx, Python, src, map[string]MaskMode{"T": MaskSig}); err != nil {
		t.Errorf("mask: %v", err)
	}
}

// A C or C++ declaration ends with its ";": the def and sig forms of a
// struct, union, enum or class declared on its own keep it.
func TestMaskDeclarationSemicolon(t *testing.T) {
	ctx := context.Background()
	src := []byte("struct point { int x; int y; };\nunion u { int i; float f; };\nenum e { A, B };\nstruct point p;\nint f(void) { return 1; }\n")
	for _, tc := range []struct {
		lang Language
		mask map[string]MaskMode
		want string
	}{
		{C, map[string]MaskMode{"point": MaskDef, "u": MaskDef, "e": MaskDef, "f": MaskDef},
			"struct point { int x; int y; };\n\nunion u { int i; float f; };\n\nenum e { A, B };\n\nint f(void) { return 1; }"},
		{C, map[string]MaskMode{"point": MaskSig, "f": MaskSig}, "struct point { ... };\n\nint f(void) { ... }"},
		{CPP, map[string]MaskMode{"point": MaskDef, "e": MaskSig}, "struct point { int x; int y; };\n\nenum e { ... };"},
	} {
		got, err := Mask(ctx, tc.lang, src, tc.mask)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s %v:\n%s\nwant\n%s", tc.lang, tc.mask, got, tc.want)
		}
	}
	cpp := []byte("class K { int x; };\nnamespace n { struct s { int a; }; }\n")
	got, err := Mask(ctx, CPP, cpp, map[string]MaskMode{"K": MaskDef, "n::s": MaskDef})
	if err != nil {
		t.Fatal(err)
	}
	if want := "class K { int x; };\n\nstruct s { int a; };"; got != want {
		t.Errorf("C++:\n%s\nwant\n%s", got, want)
	}
}
