package observe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/ctxaudit/ctx/internal/version"
	"github.com/ctxaudit/ctx/measure"
)

// SessionOptions configure [RunSession].
type SessionOptions struct {
	// Agent is the agent the command runs; "" recognises it from the
	// command's program ([Recognise]).
	Agent Agent
	// Command is the program and its arguments.
	Command []string
	// Dir is the command's working directory; "" is the process's.
	Dir string
	// Env is the command's environment; nil is the process's.
	Env []string
	// Stdin, Stdout and Stderr are the command's; an *os.File is passed on
	// as it is (a terminal stays a terminal).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Mock, Upstream, Files, Estimator and MaxBody are those of the proxy
	// ([Options]); Upstream "" is the agent's default
	// ([Agent.DefaultUpstream]) from Env.
	Mock      bool
	Upstream  string
	Files     *Files
	Estimator measure.Estimator
	MaxBody   int64
	// Listen is the loopback address to serve on; "" is a port the system
	// chooses.
	Listen string
	// Notes, if not nil, is where RunSession says what the user must do
	// for the agent to reach the proxy (as choose API-key auth in Gemini
	// CLI's sign-in dialog).
	Notes io.Writer
	// Signals are passed on to the command as they come (SIGINT, SIGTERM,
	// SIGHUP), so that it ends as it would without the proxy.
	Signals <-chan os.Signal
}

// geminiSystemSettings is the variable that names Gemini CLI's system
// settings file.
const geminiSystemSettings = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"

// ErrUnknownAgent is returned by RunSession for a command whose agent it
// cannot tell: serve the proxy with [New] and [Serve] instead, and point
// the program at it by hand.
var ErrUnknownAgent = errors.New("not an agent ctx observe knows (claude, codex, gemini)")

// RunSession serves a proxy on the loopback address, starts the command
// pointed at it ([Launch]), passes the signals on, waits for the command,
// and returns the record of what it sent and the command's end (its
// ProcessState; the error is for a command that could not start, a
// listener that could not be opened, and cancellation).
func RunSession(ctx context.Context, o SessionOptions) (*Record, *os.ProcessState, error) {
	if len(o.Command) == 0 {
		return nil, nil, errors.New("no command to run")
	}
	if o.Agent == "" {
		o.Agent = Recognise(o.Command[0])
	}
	if o.Agent == "" {
		return nil, nil, fmt.Errorf("%s: %w", o.Command[0], ErrUnknownAgent)
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	getenv := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	dir := o.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	upstream := o.Upstream
	var cp *CodexProvider
	switch o.Agent {
	case Claude:
		// Claude Code's settings files set its env over the process's
		gw, file, managed := ClaudeGateway(dir, home)
		if managed {
			return nil, nil, fmt.Errorf("the managed settings %s point Claude Code at %s, which no setting of the user's overrides: ctx observe cannot put its proxy in between", file, redactURL(gw))
		}
		if upstream == "" && gw != "" {
			upstream = gw
		}
	case Codex:
		var err error
		if cp, err = ResolveCodexProvider(o.Command, codexHome(getenv, home), getenv); err != nil {
			return nil, nil, err
		}
		if upstream == "" {
			upstream = cp.BaseURL
		}
	}
	if upstream == "" && !o.Mock {
		upstream = o.Agent.DefaultUpstream(getenv)
	}
	prefix := ""
	if o.Agent == Codex {
		prefix = "/v1"
	}
	p, err := New(Options{Agent: o.Agent, Mock: o.Mock, Upstream: upstream, Prefix: prefix, Files: o.Files,
		Estimator: o.Estimator, MaxBody: o.MaxBody})
	if err != nil {
		return nil, nil, err
	}
	ln, err := Listen(ctx, o.Listen)
	if err != nil {
		return nil, nil, err
	}
	serveCtx, stopServe := context.WithCancel(context.WithoutCancel(ctx))
	served := make(chan error, 1)
	go func() { served <- Serve(serveCtx, ln, p) }()
	stop := func() error {
		stopServe()
		return <-served
	}
	base := "http://" + ln.Addr().(*net.TCPAddr).String()
	args, env, err := LaunchWith(o.Agent, base, o.Command, env, o.Mock, cp)
	if err != nil {
		stop()
		return nil, nil, err
	}
	if o.Agent == Gemini {
		if o.Mock {
			set, cleanup, err := geminiMockAuth(dir, home, o.Command, o.Stdin, getenv, o.Notes)
			if err != nil {
				stop()
				return nil, nil, err
			}
			defer cleanup()
			if set != "" {
				env = append(env, set)
			}
		} else if typ, from := GeminiAuth(dir, home, getenv); typ != "" && typ != geminiAPIKey && typ != geminiGateway && o.Notes != nil {
			fmt.Fprintf(o.Notes, "ctx observe: Gemini CLI signs in with %q (selected in %s), whose requests do not go to %s: ctx will see none of them\n", typ, from, Gemini.BaseURLVar())
		}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Env = o.Dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	if err := cmd.Start(); err != nil {
		stop()
		return nil, nil, err
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	// a terminal delivers SIGINT and SIGHUP to the agent itself (it is in
	// the terminal's foreground group with ctx): passing them on would
	// deliver them twice
	interactive := isTerminal(o.Stdin)
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-waited:
			break wait
		case s := <-o.Signals:
			if interactive && (s == os.Interrupt || s == syscall.SIGHUP) {
				continue
			}
			_ = cmd.Process.Signal(s)
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-waited
			stop()
			return nil, nil, ctx.Err()
		}
	}
	if err := stop(); err != nil {
		return nil, nil, err
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		return nil, nil, waitErr
	}
	est := o.Estimator
	if est == nil {
		est = measure.Default()
	}
	rec := &Record{SchemaVersion: SchemaVersion, Tool: Tool{Name: "ctx", Version: version.Version}, Agent: o.Agent,
		Mode: ModePassThrough, Upstream: redactURL(upstream), Dir: dir, Command: recordedCommand(o.Command), Estimator: est.Name(),
		Requests: p.RequestsUntil(o.Signals)}
	if o.Mock {
		rec.Mode, rec.Upstream = ModeMock, ""
	}
	return rec, cmd.ProcessState, nil
}

// redactURL is u without its user information and query (where
// credentials go).
func redactURL(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		authority := rest // up to the path, query or fragment
		if end := strings.IndexAny(rest, "/?#"); end >= 0 {
			authority = rest[:end]
		}
		// the last @: a password may hold one
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			u = u[:i+3] + rest[at+1:]
		}
	}
	if q := strings.IndexByte(u, '?'); q >= 0 {
		u = u[:q]
	}
	return u
}

// ServeOptions configure [ServeUntil].
type ServeOptions struct {
	Agent     Agent
	Mock      bool
	Upstream  string
	Files     *Files
	Estimator measure.Estimator
	MaxBody   int64
	Listen    string
	// Signals end the serving: the first that comes.
	Signals <-chan os.Signal
	// Announce gets the lines that say how to point the agent at the
	// proxy, once it listens.
	Announce io.Writer
	// Getenv reads the agent's upstream from the environment; nil reads
	// nothing.
	Getenv func(string) string
}

// ServeUntil serves a proxy for an agent started elsewhere until a signal
// comes or ctx is done, and returns the record of what it received. It
// first writes to Announce the setting that points the agent at it.
func ServeUntil(ctx context.Context, o ServeOptions) (*Record, error) {
	upstream := o.Upstream
	if upstream == "" && !o.Mock {
		upstream = o.Agent.DefaultUpstream(o.Getenv)
	}
	prefix := ""
	if o.Agent == Codex {
		prefix = "/v1"
	}
	p, err := New(Options{Agent: o.Agent, Mock: o.Mock, Upstream: upstream, Prefix: prefix, Files: o.Files,
		Estimator: o.Estimator, MaxBody: o.MaxBody})
	if err != nil {
		return nil, err
	}
	ln, err := Listen(ctx, o.Listen)
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().(*net.TCPAddr).String()
	if o.Announce != nil {
		// the settings a mock needs too: a dummy key, and Gemini CLI's
		// API-key auth
		key := ""
		if o.Mock && o.Agent.KeyVar() != "" && (o.Getenv == nil || o.Getenv(o.Agent.KeyVar()) == "") {
			key = " " + o.Agent.KeyVar() + "=ctx-observe-mock"
		}
		switch o.Agent {
		case Codex:
			args, _ := Launch(Codex, base, []string{"codex"}, nil, o.Mock)
			env := ""
			if o.Mock && (o.Getenv == nil || o.Getenv("OPENAI_API_KEY") == "") {
				env = "OPENAI_API_KEY=ctx-observe-mock "
			}
			fmt.Fprintf(o.Announce, "ctx observe: serving %s on %s; start Codex with:\n  %scodex %s\n", o.Agent, base, env, shellJoin(args[1:]))
		case Claude:
			fmt.Fprintf(o.Announce, "ctx observe: serving %s on %s; start Claude Code with:\n  %s=%s%s claude --settings %s\n", o.Agent, base,
				o.Agent.BaseURLVar(), base, key, shellJoin([]string{`{"env":{"ANTHROPIC_BASE_URL":"` + base + `"}}`}))
		default:
			fmt.Fprintf(o.Announce, "ctx observe: serving %s on %s; start the agent with:\n  %s=%s%s\n", o.Agent, base, o.Agent.BaseURLVar(), base, key)
			if o.Agent == Gemini {
				fmt.Fprintln(o.Announce, `and sign in with API-key auth: choose "Use Gemini API Key" when it asks, or select it in ~/.gemini/settings.json ("security": {"auth": {"selectedType": "gemini-api-key"}}); gemini -p needs neither`)
			}
		}
		fmt.Fprintln(o.Announce, "Interrupt ctx (Ctrl-C) to end and see what was sent.")
	}
	serveCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-o.Signals:
			stop()
		case <-serveCtx.Done():
		}
	}()
	if err := Serve(serveCtx, ln, p); err != nil {
		return nil, err
	}
	est := o.Estimator
	if est == nil {
		est = measure.Default()
	}
	rec := &Record{SchemaVersion: SchemaVersion, Tool: Tool{Name: "ctx", Version: version.Version}, Agent: o.Agent,
		Mode: ModePassThrough, Upstream: redactURL(upstream), Estimator: est.Name(), Requests: p.Requests()}
	rec.Dir, _ = os.Getwd()
	if o.Mock {
		rec.Mode, rec.Upstream = ModeMock, ""
	}
	return rec, nil
}

// shellJoin quotes args for a POSIX shell.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '=' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
