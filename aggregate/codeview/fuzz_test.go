package codeview

import (
	"context"
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
		if err != nil {
			t.Fatal(err)
		}
		if cleanParse(t, Python, src) && !cleanParse(t, Python, []byte(skel)) {
			t.Fatalf("skeleton of clean input has parse errors:\n--- input ---\n%s\n--- skeleton ---\n%s", src, skel)
		}
	})
}

func FuzzOutlinePython(f *testing.F) {
	addSeeds(f, ".py")
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := Outline(context.Background(), Python, src)
		if err != nil {
			t.Fatal(err)
		}
		checkOutlineLines(t, out, src)
	})
}

func FuzzSkeletonC(f *testing.F) {
	addSeeds(f, ".c", ".cpp")
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := Skeleton(context.Background(), C, src); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzOutlineC(f *testing.F) {
	addSeeds(f, ".c", ".cpp")
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := Outline(context.Background(), C, src)
		if err != nil {
			t.Fatal(err)
		}
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
