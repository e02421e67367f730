package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/observe"
	"github.com/ctxaudit/ctx/profile"
	"github.com/ctxaudit/ctx/schemas"
)

func observeCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:      "observe",
		Usage:     "run an agent through a local proxy and show what it really sends to its model",
		ArgsUsage: "-- COMMAND [ARG...]",
		Description: `Serves a proxy on a loopback port, starts COMMAND pointed at it
(ANTHROPIC_BASE_URL for claude, GOOGLE_GEMINI_BASE_URL for gemini, a model
provider given with -c for codex) and waits for it; its input, output,
signals and exit status pass through. Each request goes to the real
endpoint unchanged (or, with --mock, ctx answers it in the agent's own wire
format, with no key and no cost), and is cut into segments that add up to
its bytes: the system prompt, each tool schema, each instruction file
attributed to the file on disk, environment, reminders, skills, memory, the
conversation and the JSON framing. The run ends with those segments, and
with what ctx predicts the agent loads by itself in this directory (ctx
manifest --profile AGENT) beside what it sent.

Without COMMAND, ctx serves the proxy for --agent on --listen until it is
interrupted, and prints the setting to give the agent.

Credentials are forwarded, never recorded; the record (-o) holds sizes and
hashes, never the text. See docs/observe.md.

Exit status: the command's; with --check, 1 when the prediction differs
from what the agent sent.

Examples:
   ctx observe --mock -- claude -p hi
   ctx observe -o turn.json -- codex exec "explain this repository"
   ctx observe --mock --check -- gemini -p hi -m gemini-2.5-flash
   ctx observe --agent claude --listen 127.0.0.1:8788`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "agent", Usage: "the agent `NAME` (claude, codex, gemini; default: from the command)"},
			&cli.BoolFlag{Name: "mock", Usage: "answer the agent in its own wire format instead of forwarding (offline, no cost)"},
			&cli.StringFlag{Name: "upstream", Usage: "forward to `URL` (default: the agent's base URL from the environment, else its provider)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the observation record (JSON) to `FILE`"},
			&cli.StringFlag{Name: "listen", Usage: "serve on loopback `ADDR` (default: 127.0.0.1 and a free port)"},
			&cli.BoolFlag{Name: "check", Usage: "exit 1 when the prediction differs from what the agent sent"},
			&cli.StringFlag{Name: "config", Usage: "configuration `FILE` of the prediction (default: ctx.toml of the project)"},
			&cli.BoolFlag{Name: "redact", Usage: "redact credentials in the record's paths, names and notes"},
			estimatorFlag(),
		},
		Action: func(c *cli.Context) error { return e.observe(c) },
	}}
}

// childExit is the end of the command ctx observe ran: ctx exits as it
// did.
type childExit struct{ code int }

func (c *childExit) Error() string { return fmt.Sprintf("the command exited %d", c.code) }

func (e *env) observe(c *cli.Context) error {
	var agent observe.Agent
	if c.IsSet("agent") {
		a, err := observe.ParseAgent(c.String("agent"))
		if err != nil {
			return usagef("--agent: %v", err)
		}
		agent = a
	}
	if c.IsSet("output") && strings.TrimSpace(c.String("output")) == "" {
		return usagef("--output: must not be empty")
	}
	if c.Bool("mock") && c.IsSet("upstream") {
		return usagef("--mock and --upstream cannot be used together: --mock answers, --upstream forwards")
	}
	command := c.Args().Slice()
	if len(command) > 0 && agent == "" {
		agent = observe.Recognise(command[0])
		if agent == "" {
			return &usageError{err: fmt.Errorf("%s: %w", command[0], observe.ErrUnknownAgent),
				hint: "name it with --agent, or serve the proxy with 'ctx observe --agent NAME --listen ADDR' and point the program at it"}
		}
	}
	if len(command) > 0 {
		if known := observe.Recognise(command[0]); known != "" && known != agent {
			return usagef("--agent %s: the command runs %s, whose requests would go past the proxy of %s", agent, known, agent)
		}
	}
	if len(command) > 0 && agent == observe.Codex && observe.Recognise(command[0]) != observe.Codex {
		return &usageError{err: fmt.Errorf("%s: ctx gives Codex its model provider with -c, which only the codex program takes", command[0]),
			hint: "run 'ctx observe --agent codex --listen ADDR' and give the program the -c settings it prints"}
	}
	if len(command) == 0 && agent == "" {
		return usagef("no command to run: give one after --, or name the agent to serve with --agent")
	}
	est, err := estimator(c)
	if err != nil {
		return err
	}
	if out := c.String("output"); out != "" {
		// found before the session, not after a paid one
		if err := atomicfile.CheckWritable(out); err != nil {
			return usagef("--output %s: %v", out, err)
		}
	}
	p, err := loadProject(c)
	if err != nil {
		return err
	}
	o := p.ManifestOptions()
	o.Profile = profile.Name(agent)
	if est != nil {
		o.SetEstimator(est)
	}
	est = o.Estimator
	if est == nil {
		est = measure.Default()
	}
	_, chain, err := manifest.Discover(c.Context, o)
	if err != nil {
		return err
	}
	var given []string
	for _, f := range chain.Files {
		given = append(given, f.Path)
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	files := observe.NewFiles(dir, chain.Root, p.Home, given)

	// the signals go to the command, which ends as it would without ctx
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	var rec *observe.Record
	var state *os.ProcessState
	if len(command) == 0 {
		rec, err = e.serveProxy(c, agent, files, est, sigs)
	} else {
		rec, state, err = observe.RunSession(c.Context, observe.SessionOptions{Agent: agent, Command: command,
			Stdin: e.stdin, Stdout: unwrapOut(e.stdout), Stderr: unwrapOut(e.stderr),
			Mock: c.Bool("mock"), Upstream: c.String("upstream"), Files: files, Estimator: est,
			Listen: c.String("listen"), Signals: sigs, Notes: e.stderr})
	}
	if err != nil {
		if errors.Is(err, observe.ErrUnknownAgent) {
			return usagef("%v", err)
		}
		var pe *os.PathError
		var ee *exec.Error
		if errors.As(err, &pe) || errors.As(err, &ee) {
			return usagef("cannot run %s: %v", command[0], err)
		}
		return err
	}
	rec.Comparison = observe.Compare(chain, rec.Turn())
	if c.Bool("redact") {
		sc, err := p.Config.RedactScanner()
		if err != nil {
			return err
		}
		redact := func(ctx context.Context, text string) (string, error) {
			out, _, err := sc.Redact(ctx, "", text)
			return out, err
		}
		if err := observe.Redact(c.Context, rec, redact); err != nil {
			return err
		}
	}
	if err := observe.WriteSummary(e.stderr, rec, observe.SummaryOptions{Width: terminalWidth(e.stderr), Home: p.Home, Dir: dir}); err != nil {
		return err
	}
	var writeErr error
	if out := c.String("output"); out != "" {
		var b bytes.Buffer
		if writeErr = observe.Encode(&b, rec); writeErr == nil {
			writeErr = atomicfile.WriteFile(c.Context, out, b.Bytes(), 0o600)
		}
	}
	if state != nil && !state.Success() {
		if writeErr != nil {
			fmt.Fprintf(e.stderr, "ctx: error: %v\n", writeErr)
		}
		code := state.ExitCode()
		if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		return &childExit{code: code}
	}
	if writeErr != nil {
		return writeErr
	}
	if c.Bool("check") && rec.Comparison.Differs {
		return &checkFailed{msg: "observe: the prediction differs from what " + string(agent) + " sent"}
	}
	return nil
}

// serveProxy serves the proxy for agent until a signal, after saying how
// to point the agent at it.
func (e *env) serveProxy(c *cli.Context, agent observe.Agent, files *observe.Files, est measure.Estimator, sigs <-chan os.Signal) (*observe.Record, error) {
	return observe.ServeUntil(c.Context, observe.ServeOptions{Agent: agent, Mock: c.Bool("mock"), Upstream: c.String("upstream"),
		Files: files, Estimator: est, Listen: c.String("listen"), Signals: sigs, Announce: e.stderr, Getenv: os.Getenv})
}

// unwrapOut returns the file behind ctx's output w (so that the command
// gets the terminal itself), or w.
func unwrapOut(w io.Writer) io.Writer {
	// the agent gets the terminal itself (its prompts have no newline),
	// not ctx's line filters
	if f, ok := fileOf(w); ok {
		return f
	}
	if ww, ok := w.(writer); ok {
		return ww.w
	}
	return w
}

// maxObservation bounds an observation record read by --observed.
const maxObservation = 64 << 20

// readObservation reads an observation record (ctx observe -o).
func readObservation(c *cli.Context) (*observe.Record, error) {
	file := c.String("observed")
	if strings.TrimSpace(file) == "" {
		return nil, usagef("--observed: must not be empty")
	}
	rec, err := observe.ReadFile(file, maxObservation, schemas.CheckObservation)
	if err != nil {
		return nil, err
	}
	return rec, nil
}
