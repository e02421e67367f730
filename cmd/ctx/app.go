package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// Exit codes.
const (
	exitOK    = 0
	exitCheck = 1
	exitUsage = 2
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

// env is what a command needs from the process, passed in so that tests
// stay hermetic.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// run builds the command-line app and runs it, returning the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
		Commands: commands(e),
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
			if len(c.Subcommands) == 0 {
				// no "help" subcommand: an argument named help is an argument
				// (--help still prints the help)
				c.HideHelpCommand = true
			}
			setup(c.Subcommands)
		}
	}
	setup(app.Commands)
	err := app.RunContext(ctx, normalizeArgs(app, args))
	if err == nil {
		return exitOK
	}
	var cf *checkFailed
	if errors.As(err, &cf) {
		if cf.msg != "" {
			fmt.Fprintf(stderr, "ctx: %s\n", cf.msg)
		}
		return exitCheck
	}
	msg := err.Error()
	fmt.Fprintf(stderr, "ctx: error: %s\n", strings.TrimPrefix(msg, "ctx: error: "))
	var ue *usageError
	if errors.As(err, &ue) {
		hint := ue.hint
		if hint == "" {
			hint = "run 'ctx help' for usage"
		}
		fmt.Fprintf(stderr, "ctx: hint: %s\n", hint)
	}
	return exitUsage
}

// terminalWidth is the width of w when it is a terminal, else 0 (the
// library's default).
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}
