// Package goldenfile compares test output with golden files, and rewrites
// them when CTX_UPDATE is set: the one place every package's tests read
// the variable (as cue's UpdateGoldenFiles), so that goldens are updated
// through it and never by hand.
//
//	CTX_UPDATE=1 go test ./audit
package goldenfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Update reports whether golden files are to be rewritten: CTX_UPDATE is
// set and not empty.
func Update() bool { return os.Getenv("CTX_UPDATE") != "" }

// Check compares got with the file at path; with [Update] it writes got
// there instead (creating its directory). A difference fails t and names
// the first line that differs.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (run with CTX_UPDATE=1): %v", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs at line %d:\n got: %q\nwant: %q\n--- got\n%s\n(rerun with CTX_UPDATE=1 if the change is intended)", path, i+1, g, w, got)
		}
	}
	t.Fatalf("%s differs", path)
}
