package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/internal/goroutine"
)

// testCommands are commands that fail in each way a real one can.
func testCommands(*env) []*cli.Command {
	action := func(name string, fn func(c *cli.Context) error) *cli.Command {
		return &cli.Command{Name: name, Action: fn}
	}
	return []*cli.Command{
		action("ok", func(*cli.Context) error { return nil }),
		action("panic", func(*cli.Context) error { panic("index out of range [3] with length 3") }),
		action("panic-runtime", func(c *cli.Context) error {
			// a runtime error, as a bug would cause
			xs := []int{1}
			return fmt.Errorf("%d", xs[c.NArg()+3])
		}),
		action("worker-panic", func(*cli.Context) error {
			// a worker's panic, carried back as the library's workers do
			var c goroutine.Catcher
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); c.Do(func() { panic(errors.New("worker failed")) }) }()
			wg.Wait()
			c.Repanic()
			return nil
		}),
		action("input", func(*cli.Context) error { return errors.New("ctx.toml:3: files.paths: not a list") }),
		action("usage", func(*cli.Context) error { return usagef("--format: unknown format") }),
		action("check", func(*cli.Context) error { return &checkFailed{msg: "check failed: 1 finding(s)"} }),
		action("write", func(*cli.Context) error {
			return &atomicfile.WriteError{Op: "write", Path: "out.md", Err: syscall.ENOSPC}
		}),
		action("stdout", func(c *cli.Context) error {
			_, err := c.App.Writer.Write([]byte("x"))
			return err
		}),
		action("interrupted", func(c *cli.Context) error { return c.Context.Err() }),
		action("stream-interrupted", func(c *cli.Context) error {
			// ctx aggregate --stdout writes as it goes: a signal after the
			// first bytes leaves the output incomplete
			c.App.Writer.Write([]byte("partial"))
			interruptStream(&interrupted{syscall.SIGINT})
			return c.Context.Err()
		}),
	}
}

// interruptStream interrupts the run of stream-interrupted.
var interruptStream context.CancelCauseFunc

// streamContext is the context of stream-interrupted, which interrupts
// it.
func streamContext() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	interruptStream = cancel
	return ctx
}

// failingWriter fails every write, like a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A crash or an internal error never exits 2, the usage-error code: a
// panic (in the command or carried back from a worker) exits 3 with
// "ctx: internal error:" and the stack, a write that failed exits 3, bad
// input and bad usage exit 2, a failed check 1, an interrupted run 128+N.
func TestExitCodes(t *testing.T) {
	interrupted := func(sig os.Signal) context.Context {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(&interrupted{sig})
		return ctx
	}
	for _, c := range []struct {
		cmd    string
		ctx    context.Context
		stdout interface{ Write([]byte) (int, error) }
		code   int
		stderr []string
	}{
		{cmd: "ok", code: 0},
		{cmd: "panic", code: 3, stderr: []string{"ctx: internal error: index out of range [3] with length 3\n", "This is a bug in ctx", "exitcode_test.go"}},
		{cmd: "panic-runtime", code: 3, stderr: []string{"ctx: internal error: runtime error: index out of range [3] with length 1"}},
		{cmd: "worker-panic", code: 3, stderr: []string{"ctx: internal error: worker failed\n", "goroutine.(*Catcher).Do"}},
		{cmd: "input", code: 2, stderr: []string{"ctx: error: ctx.toml:3: files.paths: not a list\n"}},
		{cmd: "usage", code: 2, stderr: []string{"ctx: error: --format: unknown format\n", "ctx: hint: run 'ctx help' for usage"}},
		{cmd: "check", code: 1, stderr: []string{"ctx: check failed: 1 finding(s)\n"}},
		{cmd: "write", code: 3, stderr: []string{"ctx: error: failed to write out.md: no space left on device\n"}},
		{cmd: "stdout", stdout: failingWriter{}, code: 3, stderr: []string{"ctx: error: cannot write the output: no space left on device\n"}},
		{cmd: "interrupted", ctx: interrupted(syscall.SIGTERM), code: 143, stderr: []string{"ctx: error: interrupted (terminated); nothing was written\n"}},
		{cmd: "interrupted", ctx: interrupted(os.Interrupt), code: 130, stderr: []string{"interrupted (interrupt)"}},
		{cmd: "ok", ctx: interrupted(syscall.SIGTERM), code: 0},
		{cmd: "stdout", ctx: interrupted(syscall.SIGTERM), code: 143},
		{cmd: "stream-interrupted", ctx: streamContext(), code: 130, stderr: []string{"ctx: error: interrupted (interrupt); the output is incomplete\n"}},
	} {
		ctx := c.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		var stdout interface{ Write([]byte) (int, error) } = new(bytes.Buffer)
		if c.stdout != nil {
			stdout = c.stdout
		}
		var stderr bytes.Buffer
		code := runCommands(ctx, testCommands, []string{"ctx", c.cmd}, strings.NewReader(""), stdout, &stderr)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", c.cmd, code, c.code, stderr.String())
		}
		for _, want := range c.stderr {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.cmd, want, stderr.String())
			}
		}
		if c.code == exitInternal && strings.Contains(stderr.String(), "ctx: internal error") && !strings.Contains(stderr.String(), "goroutine ") {
			t.Errorf("%s: no stack:\n%s", c.cmd, stderr.String())
		}
	}
}

// cancelOnWrite cancels its run with SIGTERM at its first write: a signal
// that comes when ctx aggregate reports its warnings, after the numbered
// output is in place.
type cancelOnWrite struct {
	cancel context.CancelCauseFunc
	buf    bytes.Buffer
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel(&interrupted{syscall.SIGTERM})
	return w.buf.Write(p)
}

// A signal after the output is complete and in place does not turn the
// run into a failure: the path is printed, the exit code is 0, and the
// file is there, whole.
func TestSignalAfterOutputInPlace(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.py":     "print('a')\n",
		"ctx.toml": "[files]\npaths = [\"a.py\", \"missing_*.py\"]\n", // the glob's warning
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stderr := &cancelOnWrite{cancel: cancel}
	var stdout bytes.Buffer
	code := run(ctx, []string{"ctx", "aggregate", "--quiet", "--project-dir", dir}, strings.NewReader(""), &stdout, stderr)
	out := filepath.Join(dir, ".ctx", "out", "ctx_001.md")
	if code != 0 || strings.TrimSpace(stdout.String()) != filepath.Join(".ctx", "out", "ctx_001.md") && strings.TrimSpace(stdout.String()) != out {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.buf.String())
	}
	if context.Cause(ctx) == nil {
		t.Fatal("the run was not interrupted: the test proves nothing")
	}
	if strings.Contains(stderr.buf.String(), "nothing was written") {
		t.Errorf("stderr says nothing was written: %q", stderr.buf.String())
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "print('a')") {
		t.Errorf("the output %s: %v, %q", out, err, b)
	}
}
