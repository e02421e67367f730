package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/secrets"
	"github.com/ctxaudit/ctx/secrets/gitleaks"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// oldHistoryWarning is what the old name of ctx history prints.
const oldHistoryWarning = `ctx: warning: "ctx messages" is now "ctx history"`

// historyCommands returns ctx history, and its old name ctx messages:
// the same command, hidden from the help, which says on stderr that it
// has a new name, so that existing scripts keep working.
func historyCommands(e *env) []*cli.Command {
	old := historyCommand(e, "messages")
	old.Hidden = true
	old.Action = func(c *cli.Context) error {
		fmt.Fprintln(e.stderr, oldHistoryWarning)
		return e.history(c)
	}
	return []*cli.Command{historyCommand(e, "history"), old}
}

// historyCommand is ctx history under name.
func historyCommand(e *env, name string) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     "build the chat history an agent sends to its model, and report what was left out",
		ArgsUsage: "[FILE|-]",
		Description: `Reads {"messages": [...], "compactionPoints": [...]} (messages in Chatbox's
storage format; also {"role", "content"} messages as Manual Slop, OpenAI and
Anthropic write them, with string or typed-part content, and legacy strings
such as "User: hello"; a bare array is the messages) from FILE, or from
stdin when FILE is - or absent, builds the
context as the original builder does (steering order, eligibility,
compaction, error filter, message limit, tool cleanup, attachments) and prints
{"messages": [...], "report": {...}}: the messages to send, and what was
dropped and why, which tool results were stubbed, what happened to every
attachment and the token estimates before and after.

The defaults reproduce the original byte for byte, with no tool cleanup
(--tool-cleanup none). --tool-cleanup auto measures the selected messages
against --context-window and --threshold and stubs old tool results when the
original would; the report then has a "pressure" entry. --fixes turns on
every fix of the original's weak points; a fix's own flag, given as well,
overrides it (--fixes --escape-envelope=false). --max-tokens 0 means no
token budget; --preserve takes one id per flag or a comma-separated list.
Tokens are counted with --estimator (chars4, the original's, unless given).

Examples:
   ctx history chat.json
   ctx history --max-messages 50 --tool-cleanup stub-old-results chat.json
   ctx history --tool-cleanup auto --context-window 32000 < chat.json
   ctx history --attachments files --fixes --max-tokens 20000 chat.json
   ctx history --format markdown chat.json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "max-messages", Usage: "keep at most `N` recent messages plus the current input, in sticky chunks (inf: no limit)", DefaultText: "no limit"},
			&cli.StringFlag{Name: "max-tokens", Usage: "drop the oldest messages until the output is at most `N` tokens (0 or inf: no limit, as 0 is in every command)", DefaultText: "no limit"},
			&cli.StringFlag{Name: "tool-cleanup", Value: "none", Usage: "`MODE` for old tool results: none, stub-old-results, or auto (by context pressure)"},
			&cli.IntFlag{Name: "context-window", Usage: "model window in `TOKENS` for --tool-cleanup auto", DefaultText: "128000"},
			&cli.Float64Flag{Name: "threshold", Usage: "compaction threshold as a `FRACTION` of the available window for --tool-cleanup auto", DefaultText: "0.6"},
			&cli.IntFlag{Name: "keep-tool-rounds", Usage: "keep the tool results of the last `N` rounds when stubbing (0 stubs all)", DefaultText: "2"},
			&cli.StringSliceFlag{Name: "preserve", Usage: "never stub the tool results of message `ID` (repeatable)"},
			&cli.StringFlag{Name: "attachments", Usage: "read attachments from `DIR`, keyed by storage key", DefaultText: "none can be read"},
			&cli.BoolFlag{Name: "sandbox", Usage: "inject sandbox paths instead of attachment content"},
			&cli.BoolFlag{Name: "tool-use-for-files", Usage: "the model reads files with tools: cut attachments over 500 lines to 100"},
			&cli.StringFlag{Name: "format", Value: "json", Usage: "`FORMAT`: json, or markdown for the Discussion History section"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (atomically) instead of stdout"},
			&cli.BoolFlag{Name: "fixes", Usage: "turn on every fix below (the max-* fixes at 2000 chars and 256 KiB)"},
			&cli.BoolFlag{Name: "pin-summary", Usage: "fix: the limits never drop the compaction summary"},
			&cli.BoolFlag{Name: "cut-at-round-boundary", Usage: "fix: the limits cut history at a user message"},
			&cli.BoolFlag{Name: "no-larger-stubs", Usage: "fix: keep a tool result whose stub would not be smaller"},
			&cli.BoolFlag{Name: "keep-current-turn", Usage: "fix: never stub results from the last user message on"},
			&cli.BoolFlag{Name: "attachment-as-own-part", Usage: "fix: append attachments as a new text part, keeping the other parts"},
			&cli.BoolFlag{Name: "escape-envelope", Usage: "fix: escape names, keys and envelope tags inside attachment content"},
			&cli.BoolFlag{Name: "file-size-in-bytes", Usage: "fix: FILE_SIZE in UTF-8 bytes, not UTF-16 units"},
			&cli.BoolFlag{Name: "mark-missing-attachments", Usage: "fix: a visible block for an attachment that could not be read"},
			&cli.StringFlag{Name: "max-error-result-chars", Usage: "fix: bound error tool results to `N` characters (0 or inf: whole)", DefaultText: "inf, 2000 with --fixes"},
			&cli.StringFlag{Name: "max-inline-bytes", Usage: "fix: cut attachment content to `N` bytes (0 or inf: no cap)", DefaultText: "inf, 262144 with --fixes"},
			&cli.BoolFlag{Name: "redact", Usage: "replace each credential in the messages and attachments with [REDACTED:rule] (the default rules, no allowlist)"},
			estimatorFlag(),
		},
		Action: func(c *cli.Context) error { return e.history(c) },
	}
}

func (e *env) history(c *cli.Context) error {
	if c.NArg() > 1 {
		return usagef("history takes at most one FILE, got %d arguments", c.NArg())
	}
	format := c.String("format")
	if format != "json" && format != "markdown" {
		return usagef("--format: must be json or markdown, not %q", format)
	}
	d, err := historyFlags(c)
	if err != nil {
		return err
	}
	est, err := estimator(c)
	if err != nil {
		return err
	}
	var req history.Request
	if name := c.Args().First(); name == "" || name == "-" {
		_, req, err = history.ReadRequest(e.stdin)
		if err != nil {
			return fmt.Errorf("<stdin>: %w", err)
		}
	} else if _, req, err = history.ReadRequestFile(name); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	o := d.HistoryOptions()
	o.Estimator = est
	if c.Bool("redact") {
		if o.Redact, err = gitleaks.Default(); err != nil {
			return err
		}
	}
	att := ""
	if d.Attachments != nil {
		att = *d.Attachments
	}
	res, err := history.BuildRequest(c.Context, req, o, att)
	var ae *history.AttachmentsDirError
	switch {
	case errors.As(err, &ae):
		return usagef("--attachments: %v", ae.Err)
	case err != nil:
		return err
	}
	var found []secrets.Finding
	for _, r := range res.Report.Redactions {
		found = append(found, r.Secrets...)
	}
	if len(found) > 0 {
		defer e.redactionNote(secrets.Summary(found) + " in the messages")
	}
	var out bytes.Buffer
	if format == "markdown" {
		out.WriteString(history.Section(res))
	} else {
		if err := res.WriteJSON(&out); err != nil {
			return err
		}
	}
	return e.output(c, out.Bytes())
}

// historyFlags turns the flags into the [history] options, checked
// by the same rules as the configuration.
func historyFlags(c *cli.Context) (*config.History, error) {
	d := &config.History{
		ToolCleanup:     history.ToolCleanupMode(c.String("tool-cleanup")),
		Sandbox:         c.Bool("sandbox"),
		ToolUseForFiles: c.Bool("tool-use-for-files"),
		Fixes:           c.Bool("fixes"),
	}
	intFlag := func(name string) *int {
		if !c.IsSet(name) {
			return nil
		}
		v := c.Int(name)
		return &v
	}
	d.KeepToolRounds, d.ContextWindow = intFlag("keep-tool-rounds"), intFlag("context-window")
	// the limits, read as every command reads one; --max-messages 0 keeps
	// only the current input, the others' 0 is no limit, as their help says
	if err := limitFlag(c, "max-messages", &d.MaxMessages); err != nil {
		return nil, err
	}
	if err := limitFlag(c, "max-tokens", &d.MaxTokens); err != nil {
		return nil, err
	}
	d.MaxTokens = d.MaxTokens.ZeroIsNone()
	for _, f := range []struct {
		name string
		dst  **measure.Limit
	}{{"max-error-result-chars", &d.MaxErrorResultChars}, {"max-inline-bytes", &d.MaxInlineBytes}} {
		if !c.IsSet(f.name) {
			continue // nil: the default, or the fixes' bound
		}
		var l measure.Limit
		if err := limitFlag(c, f.name, &l); err != nil {
			return nil, err
		}
		l = l.ZeroIsNone()
		*f.dst = &l
	}
	if c.IsSet("threshold") {
		v := c.Float64("threshold")
		d.Threshold = &v
	}
	if c.IsSet("preserve") {
		d.Preserve = c.StringSlice("preserve")
	}
	if c.IsSet("attachments") {
		v := c.String("attachments")
		d.Attachments = &v
	}
	for _, sw := range d.Switches() {
		if name := flagName(sw.Key); c.IsSet(name) {
			v := c.Bool(name)
			*sw.Value = &v
		}
	}
	if key, msg := d.Check(); key != "" {
		if i := strings.IndexByte(key, '['); i >= 0 {
			key = key[:i] // preserve[i]
		}
		return nil, usagef("--%s: %s", flagName(key), msg)
	}
	return d, nil
}

// flagName turns a [history] key into its flag name.
func flagName(key string) string { return strings.ReplaceAll(key, "_", "-") }

// historySection is the Discussion History section of [history] in
// the project of c, built as ctx render builds it and counted with est
// (nil: the configured estimator); "" without the table or when no message
// remains.
func historySection(c *cli.Context, est measure.Estimator, redact secrets.Scanner) (string, error) {
	p, err := loadProject(c)
	if err != nil {
		return "", err
	}
	h := p.HistoryOptions()
	if h == nil {
		return "", nil
	}
	if est != nil {
		h.Options.Estimator = est
	}
	h.AllowOutside = append(h.AllowOutside, allowOutside(c)...)
	h.Options.Redact = redact
	_, text, err := manifest.BuildHistory(c.Context, p.Dir, *h)
	return text, err
}
