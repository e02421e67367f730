package aggregate

import (
	"context"
	"reflect"
	"testing"
)

func TestCheckFiles(t *testing.T) {
	dir := tree(t, map[string]string{"a.md": "a", "src/x.go": "x", "src/y.go": "y", "empty/.keep": "", ".gitignore": "ignored/\n*.log\n",
		"ignored/z.go": "z", "src/a.log": "", "uv.lock": ""})
	o := Options{BaseDir: dir}
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
