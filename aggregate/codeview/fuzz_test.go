package codeview

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/internal/treesitter"
)

// addSeeds adds the testdata samples with the given extensions, and a few
// small inputs, to the fuzz corpus.
func addSeeds(f *testing.F, exts ...string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "src", "*"))
	for _, p := range files {
		for _, e := range exts {
			if strings.HasSuffix(p, e) {
				if src, err := os.ReadFile(p); err == nil {
					f.Add(src)
				}
			}
		}
	}
	for _, s := range []string{"", "\n", "def f(): pass\n", "class A:\n  def m(self):\n    '''d'''\n    def n(): pass\n", "int f(void) { return 0; }\n", "{", "@d\n"} {
		f.Add([]byte(s))
	}
}

// cleanParse reports whether src parses without ERROR or MISSING nodes.
func cleanParse(t *testing.T, lang Language, src []byte) bool {
	g, _ := grammar(lang)
	tree, err := treesitter.Parse(context.Background(), g, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	return !tree.Root().HasError()
}

func FuzzSkeletonPython(f *testing.F) {
	addSeeds(f, ".py")
	f.Fuzz(func(t *testing.T, src []byte) {
		skel, err := Skeleton(context.Background(), Python, src)
		checkView(t, "skeleton", Python, src, skel, err)
		if err == nil && cleanParse(t, Python, src) && !cleanParse(t, Python, []byte(skel)) {
			t.Fatalf("skeleton of clean input has parse errors:\n--- input ---\n%s\n--- skeleton ---\n%s", src, skel)
		}
	})
}

func FuzzOutlinePython(f *testing.F) {
	addSeeds(f, ".py")
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := Outline(context.Background(), Python, src)
		checkView(t, "outline", Python, src, out, err)
		checkOutlineLines(t, out, src)
	})
}

func FuzzSkeletonC(f *testing.F) {
	addSeeds(f, ".c", ".cpp")
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := Skeleton(context.Background(), C, src)
		checkView(t, "skeleton", C, src, out, err)
	})
}

func FuzzOutlineC(f *testing.F) {
	addSeeds(f, ".c", ".cpp")
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := Outline(context.Background(), C, src)
		checkView(t, "outline", C, src, out, err)
		checkOutlineLines(t, out, src)
	})
}

func FuzzMaskGo(f *testing.F) {
	addSeeds(f, ".go")
	f.Fuzz(func(t *testing.T, src []byte) {
		ss, err := Symbols(context.Background(), Go, src)
		if err != nil {
			t.Fatal(err)
		}
		mask := map[string]MaskMode{}
		for i, s := range ss {
			mask[s.Path] = []MaskMode{MaskDef, MaskSig, MaskHide}[i%3]
		}
		if _, err := Mask(context.Background(), Go, src, mask); err != nil {
			t.Fatal(err)
		}
	})
}

// checkOutlineLines checks that outline ranges are ordered and inside src.
func checkOutlineLines(t *testing.T, out string, src []byte) {
	lines := strings.Count(string(src), "\n") + 1
	for _, l := range strings.Split(out, "\n") {
		m := outlineLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var s, e int
		for _, c := range m[4] {
			s = s*10 + int(c-'0')
		}
		for _, c := range m[5] {
			e = e*10 + int(c-'0')
		}
		if s < 1 || s > e || e > lines {
			t.Fatalf("bad range in %q (source has %d lines)", l, lines)
		}
	}
}

// fuzzLanguages are the languages of the views, in the order the fuzzers'
// language byte picks them.
var fuzzLanguages = []Language{Python, C, CPP, Go, JavaScript, TypeScript, TSX, Rust, Java}

// addLanguageSeeds adds every sample of testdata/src with its language's
// index, and small inputs for every language.
func addLanguageSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "src", "*"))
	for _, p := range files {
		lang, ok := Detect(p)
		if !ok {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for i, l := range fuzzLanguages {
			if l == lang {
				f.Add(uint8(i), src)
			}
		}
	}
	for i := range fuzzLanguages {
		for _, s := range []string{"", "{", "namespace a { namespace b { int f(); } }\n", "class A { m() {} }\n", "mod m { fn f() {} }\n"} {
			f.Add(uint8(i), []byte(s))
		}
	}
}

// checkView checks what every view guarantees: no error but a cut
// (ErrTruncated, announced on the last line), and a length within
// MaxOutputBytes and its note.
func checkView(t *testing.T, view string, lang Language, src []byte, out string, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrTruncated) {
		t.Fatalf("%s %s: %v", lang, view, err)
	}
	if err != nil && !strings.Contains(out, "… (view cut: ") {
		t.Fatalf("%s %s: cut without a note: %v", lang, view, err)
	}
	if len(out) > MaxOutputBytes(len(src))+200 {
		t.Fatalf("%s %s: %d bytes for %d", lang, view, len(out), len(src))
	}
}

// FuzzSkeleton runs the skeleton of every language on any input.
func FuzzSkeleton(f *testing.F) {
	addLanguageSeeds(f)
	f.Fuzz(func(t *testing.T, li uint8, src []byte) {
		lang := fuzzLanguages[int(li)%len(fuzzLanguages)]
		out, err := Skeleton(context.Background(), lang, src)
		checkView(t, "skeleton", lang, src, out, err)
		if lang == Python && err == nil && cleanParse(t, Python, src) && !cleanParse(t, Python, []byte(out)) {
			t.Fatalf("skeleton of clean input has parse errors:\n--- input ---\n%s\n--- skeleton ---\n%s", src, out)
		}
	})
}

// FuzzOutline runs the outline and the symbols of every language on any
// input: line ranges inside the source, depths below MaxDepth, parents
// before their children.
func FuzzOutline(f *testing.F) {
	addLanguageSeeds(f)
	f.Fuzz(func(t *testing.T, li uint8, src []byte) {
		lang := fuzzLanguages[int(li)%len(fuzzLanguages)]
		out, err := Outline(context.Background(), lang, src)
		checkView(t, "outline", lang, src, out, err)
		checkOutlineLines(t, out, src)
		ss, err := Symbols(context.Background(), lang, src)
		if err != nil && !errors.Is(err, ErrTruncated) {
			t.Fatalf("%s symbols: %v", lang, err)
		}
		for i, s := range ss {
			if s.Depth < 0 || s.Depth >= MaxDepth || s.StartLine > s.EndLine {
				t.Fatalf("%s: symbol %+v", lang, s)
			}
			if s.Depth > 0 && (i == 0 || ss[i-1].Depth < s.Depth-1) {
				t.Fatalf("%s: symbol %s at depth %d without its parent", lang, s.Path, s.Depth)
			}
		}
	})
}

// FuzzMask masks every symbol of every language, each in one of the
// modes: every path is found again, and the mask stays within its limit.
func FuzzMask(f *testing.F) {
	addLanguageSeeds(f)
	f.Fuzz(func(t *testing.T, li uint8, src []byte) {
		lang := fuzzLanguages[int(li)%len(fuzzLanguages)]
		ss, err := Symbols(context.Background(), lang, src)
		if err != nil && !errors.Is(err, ErrTruncated) {
			t.Fatal(err)
		}
		mask := map[string]MaskMode{}
		for i, s := range ss {
			mask[s.Path] = []MaskMode{MaskDef, MaskSig, MaskHide}[(i+int(li))%3]
		}
		out, err := Mask(context.Background(), lang, src, mask)
		checkView(t, "mask", lang, src, out, err)
		if s := Summary(context.Background(), "x"+map[Language]string{Python: ".py", C: ".c", CPP: ".cpp", Go: ".go",
			JavaScript: ".js", TypeScript: ".ts", TSX: ".tsx", Rust: ".rs", Java: ".java"}[lang], src); !strings.HasPrefix(s, "**") {
			t.Fatalf("%s summary %q", lang, s)
		}
	})
}
