package codeview

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A File gives every view exactly what the function of the same name gives,
// in any order of calls, from one parse: on the golden sources and on a
// sample of Go's standard library.
func TestFileViewsMatchFunctions(t *testing.T) {
	files, err := filepath.Glob("testdata/src/*")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root := filepath.Join(strings.TrimSpace(string(out)), "src", "strings")
		more, _ := filepath.Glob(filepath.Join(root, "*.go"))
		files = append(files, more...)
	}
	ctx := context.Background()
	for _, f := range files {
		if strings.HasSuffix(f, ".mask") {
			continue
		}
		lang, ok := Detect(f)
		if !ok {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		mask := readMask(t, f+".mask")
		want := views(func() (string, error) { return Skeleton(ctx, lang, src) },
			func() (string, error) { return Outline(ctx, lang, src) },
			func() (string, error) { return Summary(ctx, f, src), nil },
			func() (string, error) { ss, err := Symbols(ctx, lang, src); return fmt.Sprint(ss), err },
			func() (string, error) { return Mask(ctx, lang, src, mask) })
		for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 1, 0, 4, 3}} {
			pf, err := Parse(ctx, lang, src)
			if err != nil {
				t.Fatal(err)
			}
			fns := []func() (string, error){
				func() (string, error) { return pf.Skeleton(ctx) },
				func() (string, error) { return pf.Outline(ctx) },
				func() (string, error) { return pf.Summary(ctx, f), nil },
				func() (string, error) { ss, err := pf.Symbols(ctx); return fmt.Sprint(ss), err },
				func() (string, error) { return pf.Mask(ctx, mask) },
			}
			got := make([]string, len(fns))
			for _, i := range order {
				got[i] = views(fns[i])[0]
			}
			pf.Close()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s in order %v: the File's views differ from the functions'", f, order)
			}
		}
	}
}

// views returns "text\x00error" of each view.
func views(fns ...func() (string, error)) []string {
	out := make([]string, len(fns))
	for i, fn := range fns {
		s, err := fn()
		out[i] = fmt.Sprintf("%s\x00%v", s, err)
	}
	return out
}
