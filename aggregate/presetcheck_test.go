package aggregate

import (
	"context"
	"reflect"
	"testing"
)

func TestCheckFiles(t *testing.T) {
	dir := tree(t, map[string]string{"a.md": "a", "src/x.go": "x", "src/y.go": "y", "empty/.keep": "", ".gitignore": "ignored/\n", "ignored/z.go": "z"})
	o := Options{BaseDir: dir}
	fc, err := CheckFiles(context.Background(), o, []FileItem{
		{Path: "a.md"}, {Path: "src/*.go"}, {Path: "src/x.go"}, {Path: "gone.md"}, {Path: "*.rs"}, {Path: "ignored/*.go"}, {Path: "src"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := FilesCheck{Files: 3, Missing: []string{"gone.md", "*.rs", "ignored/*.go"}}
	if !reflect.DeepEqual(fc, want) {
		t.Errorf("got %+v, want %+v", fc, want)
	}
}
