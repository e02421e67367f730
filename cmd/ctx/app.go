package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/internal/goroutine"
	"github.com/ctxaudit/ctx/internal/termsafe"
	"github.com/ctxaudit/ctx/secrets"
	"github.com/ctxaudit/ctx/secrets/gitleaks"
)

// Exit codes; an interrupted run exits 128 + the signal's number (see
// interrupted).
const (
	exitOK       = 0
	exitCheck    = 1
	exitUsage    = 2 // bad flags or arguments, or bad input: a file, ctx.toml, a manifest
	exitInternal = 3 // a crash (a bug in ctx) or a system error: an output that could not be written
)

// checkFailed is returned by a command whose check found problems: exit 1,
// with the message (if any) already printed.
type checkFailed struct{ msg string }

func (e *checkFailed) Error() string { return e.msg }

// usageError marks bad flags or arguments; hint, when set, replaces the
// generic one ("did you mean ...?").
type usageError struct {
	err  error
	hint string
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// systemError marks a failure that is not the input's fault: an output
// that could not be written (exit 3).
type systemError struct{ err error }

func (e *systemError) Error() string { return e.err.Error() }
func (e *systemError) Unwrap() error { return e.err }

// writer is stdout for the commands: once the run is interrupted it writes
// nothing more and fails, so that a command that finishes its work after a
// signal (a library that recorded the cancellation as a file's error, say)
// does not print a result as if nothing happened.
type writer struct {
	ctx context.Context
	w   io.Writer
	n   *atomic.Int64 // bytes written: a stream cut short says so
}

func (w writer) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := w.w.Write(p)
	w.n.Add(int64(n))
	if err != nil {
		err = &systemError{fmt.Errorf("cannot write the output: %w", err)}
	}
	return n, err
}

// written is stdout for the line that names an output already in place
// (the path of the numbered file): it is printed even when a signal
// came after the file was complete, and the run then succeeds, since what
// it wrote is whole and where it says.
func (e *env) written() io.Writer {
	if w, ok := e.stdout.(writer); ok {
		return writer{context.WithoutCancel(w.ctx), w.w, w.n}
	}
	return e.stdout
}

// exitCode classifies the error of a run: 1 a failed check, 2 bad usage or
// input (the default: ctx reports what it could not accept), 3 a system
// error, 128+N when a signal interrupted the run.
func exitCode(ctx context.Context, err error) int {
	var (
		cf *checkFailed
		se *systemError
		we *atomicfile.WriteError
		ce *childExit
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ce):
		return ce.code
	case interruptedBy(ctx) != nil:
		return interruptedBy(ctx).code()
	case errors.As(err, &cf):
		return exitCheck
	case errors.As(err, &se), errors.As(err, &we):
		return exitInternal
	}
	return exitUsage
}

// env is what a command needs from the process, passed in so that tests
// stay hermetic.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// run builds the command-line app and runs it, returning the exit code. A
// panic is an internal error: "ctx: internal error: ..." and the stack go
// to stderr, and the exit code is 3, never the usage-error code 2 that an
// unrecovered panic of a Go program exits with.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runCommands(ctx, commands, args, stdin, stdout, stderr)
}

// runCommands is run with the commands that cmds makes.
func runCommands(ctx context.Context, cmds func(*env) []*cli.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			code = internalError(stderr, p, debug.Stack())
		}
	}()
	// nothing ctx says on stderr (a warning naming a file, an error quoting
	// a value) carries a credential: each line is redacted
	// nor a terminal control (a name from ctx.toml quoted in an error)
	stderr = termsafe.Writer{W: stderr}
	if sc, err := gitleaks.Default(); err == nil {
		lw := secrets.NewLineWriter(context.WithoutCancel(ctx), stderr, sc)
		defer lw.Flush()
		stderr = lw
	}
	return runApp(ctx, cmds, args, stdin, writer{ctx, stdout, new(atomic.Int64)}, stderr)
}

// reports are the commands whose output is a report for people and CI
// logs, never the context itself, and whose report is not scrubbed as a
// whole before it is written (scrubNames: audit, stats, verify, diff):
// every line of their output is redacted, so that a file or source named
// after a credential is not printed (the commands that print the context
// redact with --redact).
var reports = map[string]bool{"discover": true}

// redactReport makes a's stdout redact each line for the commands of
// reports.
func redactReport(e *env, c *cli.Command) {
	if !reports[c.Name] || c.Action == nil {
		return
	}
	action := c.Action
	c.Action = func(cc *cli.Context) (err error) {
		sc, serr := gitleaks.Default()
		if serr != nil {
			return serr
		}
		w, ok := e.stdout.(writer)
		if !ok {
			return action(cc)
		}
		lw := secrets.NewLineWriter(context.WithoutCancel(w.ctx), w.w, sc)
		e.stdout = writer{w.ctx, lw, w.n}
		defer func() {
			// also when the action panics: the last line is not lost
			if ferr := lw.Flush(); err == nil && ferr != nil {
				err = &systemError{fmt.Errorf("cannot write the output: %w", ferr)}
			}
			e.stdout = w
		}()
		return action(cc)
	}
}

// internalError reports a panic with its stack (the worker's, for a panic
// carried back from a worker goroutine) and returns exit code 3.
func internalError(stderr io.Writer, p any, stack []byte) int {
	if gp, ok := p.(*goroutine.Panic); ok {
		p, stack = gp.Value, gp.Stack
	}
	fmt.Fprintf(stderr, "ctx: internal error: %v\n\nThis is a bug in ctx; please report it with the stack below.\n\n%s", p, stack)
	return exitInternal
}

// runApp runs the app of the commands that cmds makes.
func runApp(ctx context.Context, cmds func(*env) []*cli.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	app := &cli.App{
		Name:      "ctx",
		Usage:     "show what an AI agent is given as context, where every byte came from, and what it costs",
		Writer:    stdout,
		ErrWriter: stderr,
		// errors are printed once, below, never by the library; nothing calls os.Exit
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: false,
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return flagUsageError(c, err)
		},
		Commands: cmds(e),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "version", Usage: "print the ctx version (as ctx version does)"},
		},
		// without a command: the help; with an unknown one: a usage error
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return unknownCommand("ctx", c.Args().First(), c.App.Commands)
			}
			if c.Bool("version") {
				return e.version()
			}
			return cli.ShowAppHelp(c)
		},
		EnableBashCompletion: false,
		// a repeatable flag takes one value per use: --native 'notes,v2.md' is one path
		DisableSliceFlagSeparator: true,
	}
	app.Setup()
	var setup func([]*cli.Command)
	setup = func(cs []*cli.Command) {
		for _, c := range cs {
			if c.OnUsageError == nil {
				c.OnUsageError = func(c *cli.Context, err error, _ bool) error { return flagUsageError(c, err) }
			}
			if len(c.Subcommands) > 0 && c.Action == nil {
				c.Action = groupAction
			}
			redactReport(e, c)
			if len(c.Subcommands) == 0 {
				// no "help" subcommand: an argument named help is an argument
				// (--help still prints the help)
				c.HideHelpCommand = true
			}
			setup(c.Subcommands)
		}
	}
	setup(app.Commands)
	caches := &openCaches{}
	err := app.RunContext(context.WithValue(ctx, openCachesKey{}, caches), normalizeArgs(app, args))
	if ctx.Err() == nil {
		// the cache keeps its bound; an interrupted run ends at once
		caches.close(stderr)
	}
	code := exitCode(ctx, err)
	var (
		cf *checkFailed
		ue *usageError
	)
	var ce *childExit
	switch {
	case code == exitOK, errors.As(err, &ce):
	case interruptedBy(ctx) != nil:
		if w, ok := stdout.(writer); ok && w.n.Load() > 0 {
			// ctx aggregate --stdout writes as it goes
			fmt.Fprintf(stderr, "ctx: error: %v; the output is incomplete\n", interruptedBy(ctx))
			break
		}
		fmt.Fprintf(stderr, "ctx: error: %v; nothing was written\n", interruptedBy(ctx))
	case errors.As(err, &cf):
		if cf.msg != "" {
			fmt.Fprintf(stderr, "ctx: %s\n", cf.msg)
		}
	default:
		fmt.Fprintf(stderr, "ctx: error: %s\n", withoutSecrets(strings.TrimPrefix(err.Error(), "ctx: error: ")))
		if errors.As(err, &ue) {
			hint := ue.hint
			if hint == "" {
				hint = "run 'ctx help' for usage"
			}
			fmt.Fprintf(stderr, "ctx: hint: %s\n", hint)
		}
	}
	return code
}

// withoutSecrets redacts the credentials in an error message: an error
// may quote a value of ctx.toml or of a file (a token pasted in the wrong
// key), and stderr goes to logs.
func withoutSecrets(msg string) string {
	sc, err := gitleaks.Default()
	if err != nil {
		return msg
	}
	red, _, err := sc.Redact(context.Background(), "", msg)
	if err != nil {
		return msg
	}
	return red
}

// fileOf returns the file under w's filters (the interrupt check, the
// redaction of lines), if it writes to one.
func fileOf(w io.Writer) (*os.File, bool) {
	for {
		switch ww := w.(type) {
		case *os.File:
			return ww, true
		case writer:
			w = ww.w
		case interface{ Unwrap() io.Writer }:
			w = ww.Unwrap()
		default:
			return nil, false
		}
	}
}

// terminalWidth is the width the output to w fits when w is the process's
// own output: $COLUMNS when it is a positive number (as POSIX has it, it
// overrides the terminal's size: COLUMNS=80 ctx audit | less), else the
// width of the terminal; 0 (the library's default) otherwise.
func terminalWidth(w io.Writer) int {
	f, ok := fileOf(w)
	if !ok {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}
