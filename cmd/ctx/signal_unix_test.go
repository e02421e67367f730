//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxaudit/ctx/internal/testwait"
)

// ctxBinary is the ctx program that testscript.Main put on PATH: this test
// binary, which runs main's execute when called as ctx.
func ctxBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("ctx")
	if err != nil {
		t.Skipf("no ctx on PATH: %v", err)
	}
	return p
}

// bigProject is a project whose AGENTS.md is size bytes, so that writing
// the rendered context takes a while.
func bigProject(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	line := "rules for the agent, a line long enough to matter in a big file\n"
	data := bytes.Repeat([]byte(line), size/len(line))
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// temps lists the temporary files of atomic writes in dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// waitExit waits for cmd and returns its exit code (-1 for a signal's
// default action); a process still running after testwait.Limit hangs.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	return testwait.ExitCode(t, testwait.Wait(t, cmd, "ctx after the signal"))
}

// A signal sent while ctx writes a big output (-o, or the numbered file
// of ctx aggregate) stops the write: SIGTERM, as timeout, CI and kill send
// it, and SIGINT, as Ctrl-C does. ctx exits promptly with 143 or 130, the
// temporary file is removed, and the target is absent, or keeps its old
// content when it existed.
func TestSignalDuringWrite(t *testing.T) {
	bin := ctxBinary(t)
	proj := bigProject(t, 48<<20)
	// 12 files of 4 MiB (the largest aggregate reads) for ctx aggregate
	files := t.TempDir()
	chunk := bytes.Repeat([]byte("x = 'a line of Python, long enough to matter in a big file'\n"), (4<<20-100)/61)
	var toml strings.Builder
	toml.WriteString("[files]\npaths = [\"*.py\"]\n\n[output]\noutput_dir = \"out\"\n")
	for i := range 12 {
		if err := os.WriteFile(filepath.Join(files, fmt.Sprintf("m%02d.py", i)), chunk, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(files, "ctx.toml"), []byte(toml.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		sig      syscall.Signal
		code     int
		existing bool
	}{
		{name: "render SIGTERM", sig: syscall.SIGTERM, code: 143},
		{name: "render SIGINT", sig: syscall.SIGINT, code: 130},
		{name: "render SIGHUP", sig: syscall.SIGHUP, code: 129},
		{name: "render over a file SIGTERM", sig: syscall.SIGTERM, code: 143, existing: true},
		{name: "aggregate SIGTERM", sig: syscall.SIGTERM, code: 143},
		{name: "aggregate SIGINT", sig: syscall.SIGINT, code: 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			aggregate := strings.HasPrefix(c.name, "aggregate")
			// the signal must land while the file is written: retried when
			// the write was over before the temporary file was seen
			for attempt := 1; ; attempt++ {
				out := t.TempDir()
				target := filepath.Join(out, "context.md")
				args := []string{"render", "-C", proj, "--no-shared", "-o", target}
				if aggregate {
					out = filepath.Join(files, "out")
					os.RemoveAll(out)
					target = filepath.Join(out, "ctx_001.md")
					args = []string{"aggregate", "-C", files}
				}
				if c.existing {
					if err := os.WriteFile(target, []byte("old context\n"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				var stderr bytes.Buffer
				cmd := exec.Command(bin, args...)
				cmd.Dir = files
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				seen := false
				for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
					if len(temps(t, out)) > 0 {
						// stop it where it is, signal, and let it go on: the
						// signal is handled with the write still under way
						cmd.Process.Signal(syscall.SIGSTOP)
						seen = true
						break
					}
					if cmd.Process.Signal(syscall.Signal(0)) != nil {
						break
					}
					time.Sleep(100 * time.Microsecond)
				}
				if !seen {
					code := waitExit(t, cmd)
					if attempt < 5 && code == 0 {
						t.Logf("attempt %d: the write ended before its temporary file was seen", attempt)
						continue
					}
					t.Fatalf("no temporary file seen; ctx exited %d: %s", code, stderr.String())
				}
				cmd.Process.Signal(c.sig)
				cmd.Process.Signal(syscall.SIGCONT)
				code := waitExit(t, cmd)
				t.Logf("exit %d; stderr: %s", code, strings.TrimSpace(stderr.String()))
				if code != c.code {
					t.Errorf("exit %d, want %d", code, c.code)
				}
				if !strings.Contains(stderr.String(), "ctx: error: interrupted") {
					t.Errorf("stderr: %s", stderr.String())
				}
				if left := temps(t, out); len(left) > 0 {
					t.Errorf("temporary files left: %v", left)
				}
				b, err := os.ReadFile(target)
				switch {
				case c.existing && string(b) != "old context\n":
					t.Errorf("the existing target changed: %d bytes, %v", len(b), err)
				case !c.existing && !errors.Is(err, os.ErrNotExist):
					t.Errorf("the target exists: %d bytes, %v", len(b), err)
				}
				return
			}
		})
	}
}

// SIGTERM stops ctx even where no context reaches: blocked reading a
// standard input that never ends. It exits 143 after the grace period.
func TestSignalWhileBlockedOnStdin(t *testing.T) {
	bin := ctxBinary(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "history")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pr, io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	testwait.Until(t, "ctx blocked reading its standard input", func() bool {
		reading, known := testwait.ReadingFD(cmd.Process.Pid, 0)
		if !known {
			cmd.Process.Kill()
			cmd.Wait()
			t.Skip("the kernel does not show where a process is blocked")
		}
		return reading
	})
	cmd.Process.Signal(syscall.SIGTERM)
	code := waitExit(t, cmd)
	if code != 143 || !strings.Contains(stderr.String(), "ctx: error: interrupted (terminated)") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

// ctx mcp ends on SIGTERM and SIGINT as every command does: 143 and 130,
// with the reason on stderr, its session open and initialized.
func TestSignalMCP(t *testing.T) {
	bin := ctxBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# Rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		why  string
	}{
		{syscall.SIGTERM, 143, "interrupted (terminated)"},
		{syscall.SIGINT, 130, "interrupted (interrupt)"},
	} {
		t.Run(c.sig.String(), func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "mcp", "-C", dir)
			cmd.Stderr = &stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || !strings.Contains(line, `"result"`) {
				t.Fatalf("initialize: %q, %v (stderr %s)", line, err, stderr.String())
			}
			go io.Copy(io.Discard, stdout)
			cmd.Process.Signal(c.sig)
			if code := waitExit(t, cmd); code != c.code || !strings.Contains(stderr.String(), "ctx: error: "+c.why) {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, stderr.String())
			}
		})
	}
}
