package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadAllowed(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "project")
	outside := filepath.Join(root, "secret.txt")
	if err := os.MkdirAll(filepath.Join(project, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, s := range map[string]string{outside: "host file\n", filepath.Join(project, "src", "a.go"): "package a\n"} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(project, "src", "x")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.go", filepath.Join(project, "src", "b.go")); err != nil {
		t.Fatal(err)
	}
	realProject, _ := filepath.EvalSymlinks(project)
	realOutside, _ := filepath.EvalSymlinks(outside)
	inProject := func(r string) bool {
		rel, err := filepath.Rel(realProject, r)
		return err == nil && filepath.IsLocal(rel)
	}
	b, _, real, err := ReadAllowed(filepath.Join(project, "src", "b.go"), 0, inProject)
	if err != nil || string(b) != "package a\n" || real != filepath.Join(realProject, "src", "a.go") {
		t.Errorf("a link inside: %q %q %v", b, real, err)
	}
	b, _, real, err = ReadAllowed(filepath.Join(project, "src", "x"), 0, inProject)
	var oe *OutsideError
	if !errors.As(err, &oe) || oe.Real != realOutside || b != nil || real != realOutside {
		t.Errorf("a link outside: %q %q %v", b, real, err)
	}
	if d := Describe(err); !strings.Contains(d, "outside the project") {
		t.Errorf("Describe = %q", d)
	}
	if _, _, _, err := ReadAllowed(outside, 0, func(string) bool { return true }); err != nil {
		t.Errorf("allowed: %v", err)
	}
}
