package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// ctxCommand returns a command that runs ctx (this test binary under the
// name ctx: TestMain dispatches on it) in dir.
func ctxCommand(t *testing.T, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "ctx")
	if err := os.Symlink(exe, bin); err != nil {
		t.Skipf("cannot link the test binary: %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "AGENTS_GLOBAL_MD=")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// runOnTerminal runs cmd with its stderr on a pseudo-terminal and returns
// what the terminal received.
func runOnTerminal(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child holds its own copy
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(ptmx) // ends with EIO once the child has exited
		got <- b
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ctx failed: %v", err)
	}
	if !strings.HasPrefix(stdout.String(), "## Files") {
		t.Errorf("stdout: %q", stdout.String())
	}
	return string(<-got)
}

// Progress shows on stderr when it is a terminal and the run has lasted
// long enough (the wait is shortened to 0 here); never when stderr is a
// pipe, and not on a terminal before the wait is over.
func TestProgressOnTerminal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no pseudo-terminals")
	}
	dir := t.TempDir()
	for i := range 40 {
		name := filepath.Join(dir, "src", string(rune('a'+i%26))+strings.Repeat("x", i/26)+".py")
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("def f():\n    return 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"aggregate", "--stdout", "--view", "skeleton"}

	term := runOnTerminal(t, ctxCommand(t, dir, []string{"CTX_TEST_PROGRESS_AFTER=0s"}, args...))
	t.Logf("terminal: %q", term)
	if !strings.Contains(term, "aggregating") || !strings.Contains(term, "/40") {
		t.Errorf("no progress on the terminal:\n%q", term)
	}
	if !strings.Contains(term, "ctx: 40 files,") {
		t.Errorf("no summary on the terminal:\n%q", term)
	}

	quick := runOnTerminal(t, ctxCommand(t, dir, []string{"CTX_TEST_PROGRESS_AFTER=1h"}, args...))
	if strings.Contains(quick, "aggregating") {
		t.Errorf("progress before the wait is over:\n%q", quick)
	}

	quiet := runOnTerminal(t, ctxCommand(t, dir, []string{"CTX_TEST_PROGRESS_AFTER=0s"}, append(args, "--quiet")...))
	if quiet != "" {
		t.Errorf("--quiet printed on the terminal:\n%q", quiet)
	}

	cmd := ctxCommand(t, dir, []string{"CTX_TEST_PROGRESS_AFTER=0s"}, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ctx failed: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "aggregating") || strings.Contains(stderr.String(), "\r") {
		t.Errorf("progress on a pipe:\n%q", stderr.String())
	}
	if !strings.HasPrefix(stderr.String(), "ctx: 40 files,") {
		t.Errorf("stderr on a pipe: %q", stderr.String())
	}
}

// Binary files are reported on stderr, as the help says: one file by name,
// many in one line that names the first ten.
func TestBinaryWarning(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", []byte("text\n"))
	write("logo.png", []byte("\x89PNG\x00\x01"))
	aggregate := func() string {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"ctx", "aggregate", "-C", dir, "--stdout", "-q"}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if !strings.Contains(stdout.String(), "(binary file not inlined: 6 bytes)") {
			t.Errorf("document: %s", stdout.String())
		}
		return stderr.String()
	}
	if got := aggregate(); got != "ctx: warning: logo.png: binary file, listed but not inlined\n" {
		t.Errorf("one binary file: %q", got)
	}
	for i := range 12 {
		write(fmt.Sprintf("b%02d.bin", i), []byte{0})
	}
	want := "ctx: warning: 13 binary files, listed but not inlined: b00.bin, b01.bin, b02.bin, b03.bin, b04.bin " +
		"and 8 more\n"
	if got := aggregate(); got != want {
		t.Errorf("many binary files:\n%q\nwant\n%q", got, want)
	}
}
