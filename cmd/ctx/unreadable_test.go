package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An instruction file the user expects to be sent but that ctx cannot
// read is said on stderr by every command that builds the context, with
// why: ctx render and ctx manifest warn and exit 0 (what could be read is
// sent; ctx audit --check is the gate), and the audit's finding names the
// cause. Before, render printed the other sources without a word.
func TestUnreadableInstructionFileWarned(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("AGENTS_GLOBAL_MD", "")
	dir := t.TempDir()
	for name, text := range map[string]string{"AGENTS.md": "# Agents\n", "CLAUDE.md": "# Claude\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "AGENTS.md"), 0); err != nil {
		t.Fatal(err)
	}
	want := "AGENTS.md cannot be read: " + syscall.EACCES.Error()
	run1 := func(args ...string) (int, string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"ctx"}, append(args, "-C", dir)...), strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	for _, cmd := range []string{"render", "manifest"} {
		code, stdout, stderr := run1(cmd)
		if code != 0 {
			t.Errorf("ctx %s: exit %d, want 0: %s", cmd, code, stderr)
		}
		if !strings.Contains(stderr, "ctx: warning: "+want+"\n") {
			t.Errorf("ctx %s: stderr does not say %q:\n%s", cmd, want, stderr)
		}
		if cmd == "render" && stdout != "# Claude\n" {
			t.Errorf("ctx render: stdout %q, want the readable source", stdout)
		}
	}
	code, stdout, _ := run1("audit", "--details")
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("ctx audit: exit %d, the finding does not say %q:\n%s", code, want, stdout)
	}
	if code, _, _ := run1("audit", "--check"); code != 1 {
		t.Errorf("ctx audit --check: exit %d, want 1 (the finding is a warning)", code)
	}
}
