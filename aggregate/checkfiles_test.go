package aggregate

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/aggregate/slice"
)

func TestCheckFiles(t *testing.T) {
	dir := tree(t, map[string]string{"a.md": "a", "src/x.go": "x", "src/y.go": "y", "empty/.keep": "", ".gitignore": "ignored/\n*.log\n",
		"ignored/z.go": "z", "src/a.log": "", "uv.lock": ""})
	o := Options{Engine: codeview.Engine(), BaseDir: dir}
	// a glob whose base git ignores is read; a glob whose every match git
	// or the default list leaves out names nothing
	fc, err := CheckFiles(context.Background(), o, []FileItem{
		{Path: "a.md"}, {Path: "src/*.go"}, {Path: "src/x.go"}, {Path: "gone.md"}, {Path: "*.rs"}, {Path: "ignored/*.go"}, {Path: "src"},
		{Path: "**/*.log"}, {Path: "*.lock"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := FilesCheck{Files: 4, Missing: []string{"gone.md", "*.rs", "**/*.log", "*.lock"}}
	if !reflect.DeepEqual(fc, want) {
		t.Errorf("got %+v, want %+v", fc, want)
	}
}

// The slice check table fits the width: long paths keep their file name,
// a long resolution wraps (it ran to 157 columns).
func TestSliceCheckTableWidth(t *testing.T) {
	r := &SliceCheck{Items: []Item{
		{Path: "packages/server/src/handlers/authentication/session-tokens.py", Slices: []slice.Result{
			{Tag: "a-rather-long-tag-for-the-parser", OldStart: 10, OldEnd: 24, Resolution: slice.ResolutionOrphaned,
				Reason: "the slice text was not found in the current file, and no anchor or fingerprint placed it"},
			{Tag: "main", OldStart: 30, OldEnd: 31, NewStart: 32, NewEnd: 33, Resolution: slice.ResolutionMoved},
		}},
	}}
	for _, width := range []int{80, 100} {
		var b bytes.Buffer
		if err := r.WriteTable(&b, width); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("width %d: line %d is %d columns: %q", width, i+1, n, line)
			}
		}
		if !strings.Contains(b.String(), "/session-tokens.py") {
			t.Errorf("width %d: the file name is cut:\n%s", width, b.String())
		}
	}
}
