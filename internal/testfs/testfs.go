// Package testfs writes file trees for tests.
package testfs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Write creates files below dir: each key is a slash path and its value the
// content; a key ending in "/" makes an empty directory.
func Write(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// Tree writes files below a new temporary directory and returns it.
func Tree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	Write(tb, dir, files)
	return dir
}

// Source is one generated instruction source: a file at the slash path
// Path below the directory, or inline Text.
type Source struct {
	ID, Kind   string
	Path, Text string
}

// Sources writes n instruction sources below a new temporary directory, as
// a ctx.toml's [[sources]] would declare them, and returns the directory
// and the sources in order: half inline texts (every third the same as an
// earlier one), half files (every fifth a copy of an earlier one, every
// seventh missing). Files are kind "memory", texts "runtime".
func Sources(tb testing.TB, n int) (string, []Source) {
	tb.Helper()
	dir := tb.TempDir()
	files := map[string]string{}
	out := make([]Source, 0, n)
	for i := range n {
		s := Source{ID: "s" + strconv.Itoa(i)}
		if i%2 == 0 {
			s.Kind, s.Text = "runtime", "inline rule "+strconv.Itoa(i%(n/3+1))+": keep it short.\n"
		} else {
			s.Kind, s.Path = "memory", "src/s"+strconv.Itoa(i)+".md"
			if i%7 != 0 {
				files[s.Path] = "# Source " + strconv.Itoa(i-i%5) + "\n\nRun the tests before committing.\n"
			}
		}
		out = append(out, s)
	}
	Write(tb, dir, files)
	return dir, out
}
