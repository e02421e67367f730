package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// File names are data wherever a person reads them: on stderr (warnings,
// the summary), in ctx stats (table and tree), ctx slice check, ctx preset
// list and show, and the verify and diff tables. A name holding a colour
// escape, a terminal title sequence or a newline is shown escaped, never
// as what it would do to a terminal (issue 9 review).
func TestNamesEscapedForPeople(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("AGENTS_GLOBAL_MD", "")
	dir := t.TempDir()
	names := []string{"a\x1b[31mred.txt", "b\x1b]0;T\x07.txt", "c\nnl.txt"}
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(strings.Repeat("x", 10*(i+1))+"\n"), 0o644); err != nil {
			t.Skipf("this file system refuses the name %q: %v", n, err)
		}
	}
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("d\x1b[31m.bin", "\x00\x01\x02")
	write("ctx.toml", `[files]
paths = [".", "gone\u001b[31m.txt",
  { path = "a\u001b[31mred.txt", view_mode = "custom", custom_slices = [{ start_line = 1, end_line = 1, tag = "t\u001b[1m", content_hash = "0000000000000000000000000000000000000000000000000000000000000000", fingerprint = "aaaaaa" }] }]

[presets.p]
description = "desc\u001b[31m\nline"
files = ["a\u001b[31mred.txt", "nope\u001b]0;T\u0007/*.md"]
`)
	run1 := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		run(context.Background(), append([]string{"ctx"}, args...), strings.NewReader(""), &stdout, &stderr)
		return stdout.String(), stderr.String()
	}
	check := func(what, out string, want ...string) {
		t.Helper()
		if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "c\nnl") || strings.Contains(out, "desc\x1b") {
			t.Errorf("%s prints a raw name:\n%q", what, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s does not show %q:\n%s", what, w, out)
			}
		}
	}
	_, stderr := run1("aggregate", "-C", dir, "--stdout")
	check("aggregate's stderr", stderr, `a\x1b[31mred.txt`, `c\nnl.txt`, `d\x1b[31m.bin: binary file`, `gone\x1b[31m.txt`, `slice "t\x1b[1m"`)
	stdout, stderr := run1("stats", "-C", dir)
	check("stats", stdout+stderr, `a\x1b[31mred.txt`, `b\x1b]0;T\x07.txt`, `c\nnl.txt`)
	stdout, stderr = run1("stats", "-C", dir, "--tree")
	check("stats --tree", stdout+stderr, `c\nnl.txt (`)
	stdout, stderr = run1("stats", "-C", dir, "--top", "2")
	check("stats --top", stdout+stderr)
	stdout, stderr = run1("slice", "check", "-C", dir)
	check("slice check", stdout+stderr, `a\x1b[31mred.txt`, `t\x1b[1m`)
	stdout, stderr = run1("preset", "list", "-C", dir)
	check("preset list", stdout+stderr, `desc\x1b[31m\nline`, `nope\x1b]0;T\x07/*.md`)
	stdout, stderr = run1("preset", "show", "-C", dir, "p")
	check("preset show", stdout+stderr, `desc\x1b[31m\nline`, `a\x1b[31mred.txt`)
	_, stderr = run1("aggregate", "-C", dir, "--stdout", "--preset", "p")
	check("aggregate --preset", stderr, `nope\x1b]0;T\x07/*.md`)

	m1 := filepath.Join(t.TempDir(), "m1.json")
	if _, stderr := run1("manifest", "-C", dir, "--relative", "-o", m1); stderr != "" && strings.Contains(stderr, "error") {
		t.Fatal(stderr)
	}
	write("c\nnl.txt", "changed\n")
	stdout, stderr = run1("verify", "-C", dir, m1)
	check("verify", stdout+stderr, `c\nnl.txt`)
	m2 := filepath.Join(t.TempDir(), "m2.json")
	run1("manifest", "-C", dir, "--relative", "-o", m2)
	stdout, stderr = run1("diff", m1, m2)
	check("diff", stdout+stderr, `c\nnl.txt`)
}
