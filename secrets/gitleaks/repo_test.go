package gitleaks_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/config"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// TestNoFalsePositives scans every file of this repository with the
// allowlist of its own ctx.toml (which allows only the fake credentials of
// the scanner's tests): nothing may be reported, or ctx would fail the
// audit of its own files.
func TestNoFalsePositives(t *testing.T) {
	testlane.Slow(t, "scans every file of the repository")
	testlane.Heavy(t, "scans every file of the repository with every rule")
	out, err := exec.Command("git", "-C", "../..", "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	c, err := config.Load("../../ctx.toml", true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Scanner()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join("../..", p))
		if errors.Is(err, fs.ErrNotExist) || p == "" {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		found, err := s.Scan(context.Background(), p, string(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			t.Errorf("%s:%d:%d: %s", p, f.Line, f.Column, f.Rule)
		}
		n++
	}
	if n < 100 {
		t.Errorf("scanned only %d files", n)
	}
}
