package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/secrets"
	"github.com/ctxaudit/ctx/secrets/gitleaks"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/internal/scrub"
	"github.com/ctxaudit/ctx/internal/version"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/profile"
	"github.com/ctxaudit/ctx/render"
	"github.com/ctxaudit/ctx/schemas"
)

func coreCommands(e *env) []*cli.Command {
	return []*cli.Command{
		{
			Name:  "discover",
			Usage: "list the candidate instruction sources without reading them",
			Description: "Examples:\n" +
				"   ctx discover                        # with agent and paths from ./ctx.toml\n" +
				"   ctx discover --agent codex --workspace ../ws --native AGENTS.md",
			ArgsUsage: " ",
			Flags:     commonFlags(),
			Action:    func(c *cli.Context) error { return e.discover(c) },
		},
		{
			Name:  "manifest",
			Usage: "print the manifest as JSON, or write it with -o",
			Description: "Examples:\n" +
				"   ctx manifest --agent claude -o context.manifest.json\n" +
				"   ctx manifest -C ../service --no-shared\n" +
				"   ctx manifest --estimator o200k      # exact o200k_base tokens (GPT-4o, GPT-5)\n" +
				"   ctx manifest --relative -o ctx.manifest.json   # the same bytes in every clone",
			ArgsUsage: " ",
			Flags: append(commonFlags(), estimatorFlag(), cacheDirFlag(), noCacheFlag(),
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (atomically) instead of stdout"},
				&cli.BoolFlag{Name: "relative", Usage: "record paths relative to the project directory, home as ~ (default: relative_paths in ctx.toml)"},
				&cli.BoolFlag{Name: "redact", Usage: "replace each credential with [REDACTED:rule] (default: redact in [secrets] of ctx.toml)"}),
			Action: func(c *cli.Context) error { return e.manifest(c) },
		},
		{
			Name:  "render",
			Usage: "print the rendered context, or write it with -o",
			Description: "Examples:\n" +
				"   ctx render --agent claude > context.md\n" +
				"   ctx render --manifest context.manifest.json -o context.md\n" +
				"   ctx render --redact -o context.md   # credentials replaced by [REDACTED:rule]",
			ArgsUsage: " ",
			Flags: append(commonFlags(), estimatorFlag(), cacheDirFlag(), noCacheFlag(),
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (atomically) instead of stdout"},
				&cli.StringFlag{Name: "manifest", Usage: "render a stored manifest `FILE` instead of building one"},
				&cli.BoolFlag{Name: "redact", Usage: "replace each credential with [REDACTED:rule] (default: redact in [secrets] of ctx.toml)"},
				&cli.BoolFlag{Name: "no-scan", Usage: "do not scan the rendered context for credentials (default: scan in [secrets] of ctx.toml)"}),
			Action: func(c *cli.Context) error { return e.render(c) },
		},
		{
			Name:  "audit",
			Usage: "report the sources, their sizes and decisions, and the findings",
			Description: "Examples:\n" +
				"   ctx audit                                   # a table in the terminal\n" +
				"   ctx audit --check                           # exit 1 on any warning (pre-commit, CI)\n" +
				"   ctx audit --wide                            # every column, whatever the terminal's width\n" +
				"   ctx audit --format json --total-tokens 6000 # for agent runtimes\n" +
				"   ctx audit --format github --check           # annotations in a GitHub Actions step\n" +
				"   ctx audit --format sarif > ctx.sarif        # for code scanning\n" +
				"   ctx audit --manifest context.manifest.json --fail-on info --check\n" +
				"   ctx audit --observed turn.json              # beside what the agent really sent (ctx observe -o)\n" +
				"   ctx audit --profile all                     # which instruction file reaches which agent",
			ArgsUsage: " ",
			Flags: append(commonFlags(), estimatorFlag(), cacheDirFlag(), noCacheFlag(),
				&cli.StringFlag{Name: "format", Value: "table", Usage: "`FORMAT`: table, json, markdown, github or sarif"},
				&cli.BoolFlag{Name: "wide", Usage: "print every column of the table, however wide"},
				&cli.BoolFlag{Name: "details", Usage: "list every finding and file in the table and markdown, not one row per code"},
				&cli.BoolFlag{Name: "check", Usage: "exit 1 when a finding at the --fail-on level exists"},
				&cli.StringFlag{Name: "fail-on", Value: "warning", Usage: "`LEVEL` that fails --check: info, warning or error"},
				&cli.StringFlag{Name: "manifest", Usage: "audit a stored manifest `FILE` instead of building one"},
				&cli.StringFlag{Name: "observed", Usage: "add what the agent really sent, from an observation `FILE` of ctx observe -o"},
				&cli.StringFlag{Name: "layer-tokens", Usage: "`N` tokens above which a source is oversized (or inf)"},
				&cli.StringFlag{Name: "total-tokens", Usage: "`N` tokens above which the total is oversized (or inf)"}),
			Action: func(c *cli.Context) error { return e.audit(c) },
		},
		{
			Name:   "schema",
			Usage:  "print the manifest JSON Schema",
			Action: func(c *cli.Context) error { _, err := e.stdout.Write(schemas.ManifestV1()); return err },
		},
		{
			Name:   "version",
			Usage:  "print the ctx version",
			Action: func(c *cli.Context) error { return e.version() },
		},
	}
}

// version prints the version, for ctx version and ctx --version.
func (e *env) version() error {
	_, err := fmt.Fprintf(e.stdout, "ctx %s\n", version.Version)
	return err
}

func noArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("%s takes no arguments, got %q", c.Command.Name, c.Args().First())
	}
	// a file flag given as '' would silently mean "none" (stdout, no stored
	// manifest, the default ctx.toml)
	for _, name := range []string{"config", "manifest", "output"} {
		if c.IsSet(name) && strings.TrimSpace(c.String(name)) == "" {
			return usagef("--%s: must not be empty", name)
		}
	}
	return nil
}

func (e *env) discover(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	p, o, err := manifestOptions(c)
	if err != nil {
		return err
	}
	res, chain, err := manifest.Discover(c.Context, o)
	if err != nil {
		return err
	}
	// (the table checks each path on disk, so the result is not scrubbed:
	// the report's line filter redacts what it prints)
	width := terminalWidth(e.stdout)
	if err := discover.WriteTable(e.stdout, res, p.Home, width); err != nil {
		return err
	}
	if chain != nil {
		return chain.WriteTable(e.stdout, res.ProjectDir, p.Home, width)
	}
	e.profileHint(o, res.ProjectDir)
	return nil
}

// profileHint says on stderr, when no profile is set, which profiles the
// project's own agent files call for.
func (e *env) profileHint(o manifest.Options, dir string) {
	if o.Profile != "" {
		return
	}
	found := profile.Detect(dir)
	switch len(found) {
	case 0:
	case 1:
		fmt.Fprintf(e.stderr, "ctx: hint: --profile %s (%s) lists what that agent loads by itself\n", found[0].Profile, found[0].File)
	default:
		// one short line: the files are in the audit's sources
		names := make([]string, len(found))
		for i, d := range found {
			names[i] = string(d.Profile)
		}
		fmt.Fprintf(e.stderr, "ctx: hint: --profile %s or %s lists what that agent loads by itself; ctx audit --profile all compares them\n",
			strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
}

// build builds the manifest of the project and flags of c; each of adjust
// changes the options first.
func build(c *cli.Context, adjust ...func(*manifest.Options)) (*config.Project, *manifest.Manifest, error) {
	p, o, err := manifestOptions(c)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range adjust {
		f(&o)
	}
	if c.IsSet("relative") {
		o.RelativePaths = c.Bool("relative")
	}
	if c.IsSet("redact") {
		o.Redact = c.Bool("redact")
	}
	m, err := manifest.Build(c.Context, o)
	if err != nil {
		return nil, nil, err
	}
	// an instruction file that cannot be read is not sent: said, never
	// silent, and the run goes on (ctx audit --check is the gate)
	for _, w := range audit.UnreadableWarnings(m, p.Home) {
		fmt.Fprintf(c.App.ErrWriter, "ctx: warning: %s\n", w)
	}
	for _, f := range m.UnmatchedFocus {
		fmt.Fprintf(c.App.ErrWriter, "ctx: warning: %s\n", aggregate.FocusWarning(f))
	}
	return p, m, nil
}

// output writes data to stdout, or atomically to the -o file. When the
// run redacts, data is redacted as a whole first: the contents were
// redacted as they were read, and this catches every other string (a file
// or source named after a credential, in a heading, a path or an id).
func (e *env) output(c *cli.Context, data []byte) error {
	if redactingRun(c) {
		sc, err := gitleaks.Default()
		if err != nil {
			return err
		}
		text, _, err := sc.Redact(c.Context, "", string(data))
		if err != nil {
			return err
		}
		data = []byte(text)
	}
	if o := c.String("output"); o != "" {
		return atomicfile.WriteFile(c.Context, o, data, 0o644)
	}
	_, err := e.stdout.Write(data)
	return err
}

func (e *env) manifest(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	_, m, err := build(c)
	if err != nil {
		return err
	}
	data, err := manifest.Marshal(m)
	if err != nil {
		return err
	}
	if err := e.output(c, data); err != nil {
		return err
	}
	e.redactionNote(m.RedactionSummary())
	return nil
}

// redactionNote says on stderr what --redact replaced, if anything.
func (e *env) redactionNote(summary string) {
	if summary != "" {
		fmt.Fprintf(e.stderr, "ctx: %s\n", summary)
	}
}

func (e *env) render(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	var m *manifest.Manifest
	var err error
	if file := c.String("manifest"); file != "" {
		m, err = storedManifest(c, file)
		if err == nil {
			return e.renderStored(c, m)
		}
	} else {
		_, m, err = build(c)
	}
	if err != nil {
		return err
	}
	if err := e.output(c, []byte(render.Text(m))); err != nil {
		return err
	}
	e.redactionNote(m.RedactionSummary())
	return e.secretWarnings(c, m)
}

// secretWarnings scans the rendered context of m, unless it was redacted
// or --no-scan (scan = false in [secrets]) says not to, and prints a
// warning for each credential it would send (audit.SecretWarnings): every pack is scanned. The exit
// code stays 0; ctx audit --check is the gate.
func (e *env) secretWarnings(c *cli.Context, m *manifest.Manifest) error {
	if c.Bool("no-scan") {
		return nil
	}
	p, err := loadProject(c)
	if err != nil {
		return err
	}
	if redacting(c, p) || (p.Config.Secrets.Scan != nil && !*p.Config.Secrets.Scan) {
		return nil
	}
	sc, err := p.Config.Scanner()
	if err != nil {
		return err
	}
	found, err := audit.Secrets(c.Context, m, sc)
	if err != nil {
		return err
	}
	e.warnings(audit.SecretWarnings(found))
	return nil
}

// maxScrubbed bounds the strings scrubNames redacts: names, ids, paths
// and messages, not the texts a report carries.
const maxScrubbed = 4 << 10

// scrubNames redacts the credentials in every short string of v (a
// report about to be written): the same name is redacted the same way
// wherever it appears, before a table can wrap it across lines, where the
// line filter of reports could no longer see it whole. The distinct
// strings are scanned together, one per line, in one pass.
func scrubNames(ctx context.Context, v any) error {
	sc, err := gitleaks.Default()
	if err != nil {
		return err
	}
	var names []string
	seen := map[string]bool{}
	scrub.Strings(v, func(s string) string {
		if len(s) <= maxScrubbed && s != "" && !seen[s] && !strings.ContainsAny(s, "\r\n") && mayHoldCredential(s) {
			seen[s] = true
			names = append(names, s)
		}
		return s
	})
	if len(names) == 0 {
		return nil
	}
	red, found, err := sc.Redact(ctx, "", strings.Join(names, "\n"))
	if err != nil || len(found) == 0 {
		return err
	}
	lines := strings.Split(red, "\n")
	done := map[string]string{}
	for i, s := range names {
		if len(lines) == len(names) {
			if lines[i] != s {
				done[s] = lines[i]
			}
			continue
		}
		// a match spanned lines: each name on its own
		r, _, err := sc.Redact(ctx, "", s)
		if err != nil {
			return err
		}
		if r != s {
			done[s] = r
		}
	}
	scrub.Strings(v, func(s string) string {
		if r, ok := done[s]; ok {
			return r
		}
		return s
	})
	return nil
}

// mayHoldCredential reports whether s could hold a credential the rules
// find, so that the names of a large report are not all scanned: a run of
// 16 or more letters and digits with both in it (the random part of API
// keys, tokens, JWTs, cloud keys), or
// a URL with user information ("://" and "@"). A name of words, such as
// internal/syscall/zsyscall_windows.go, holds none.
func mayHoldCredential(s string) bool {
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		return true
	}
	run, letter, digit := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		default:
			run, letter, digit = 0, false, false
			continue
		}
		run++
		if run >= 16 && letter && digit {
			return true
		}
	}
	return false
}

// redactingRun reports whether the command of c redacts: --redact, else
// redact in [secrets] of the project's ctx.toml, for a command that takes
// --redact.
func redactingRun(c *cli.Context) bool {
	if c.IsSet("redact") {
		return c.Bool("redact")
	}
	if !hasFlag(c, "redact") || !hasFlag(c, "project-dir") {
		return false
	}
	p, err := loadProject(c)
	return err == nil && redacting(c, p)
}

// redacting reports whether c redacts: --redact, else redact in
// [secrets] of the project's ctx.toml.
func redacting(c *cli.Context, p *config.Project) bool {
	if c.IsSet("redact") {
		return c.Bool("redact")
	}
	return p.Config.Secrets.Redact != nil && *p.Config.Secrets.Redact
}

// renderStored renders a stored manifest; with --redact (or redact in
// [secrets]) the text is scanned and redacted as it is written, which the
// stored manifest cannot record.
func (e *env) renderStored(c *cli.Context, m *manifest.Manifest) error {
	p, err := loadProject(c)
	if err != nil {
		return err
	}
	if !redacting(c, p) {
		if err := e.output(c, []byte(render.Text(m))); err != nil {
			return err
		}
		return e.secretWarnings(c, m)
	}
	sc, err := p.Config.RedactScanner()
	if err != nil {
		return err
	}
	text, found, err := render.Redact(c.Context, m, sc)
	if err != nil {
		return err
	}
	if err := e.output(c, []byte(text)); err != nil {
		return err
	}
	if len(found) > 0 {
		e.redactionNote(secrets.Summary(found) + " in the rendered text")
	}
	return nil
}

// storedManifest reads the manifest file; with --estimator, the manifest
// must have been counted with that estimator (a stored manifest is never
// counted again).
func storedManifest(c *cli.Context, file string) (*manifest.Manifest, error) {
	est, err := estimator(c)
	if err != nil {
		return nil, err
	}
	m, err := manifest.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if est != nil && m.Estimator != est.Name() {
		return nil, fmt.Errorf("%s: the manifest counts tokens with %q, not %q (--estimator %s)", file, m.Estimator, est.Name(), c.String("estimator"))
	}
	return m, nil
}

func (e *env) audit(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	format, err := audit.ParseFormat(c.String("format"))
	if err != nil {
		return usagef("--format: %v", err)
	}
	level, err := audit.ParseSeverity(c.String("fail-on"))
	if err != nil {
		return usagef("--fail-on: %v", err)
	}
	if c.String("profile") == audit.AllProfiles {
		return e.auditAgents(c, format)
	}
	var p *config.Project
	var m *manifest.Manifest
	if file := c.String("manifest"); file != "" {
		m, err = storedManifest(c, file)
		if err == nil {
			// [audit] thresholds still come from the configuration, if any
			p, err = loadProject(c)
		}
	} else {
		p, m, err = build(c)
	}
	if err != nil {
		return err
	}
	rep, err := runAudit(c, p, m)
	if err != nil {
		return err
	}
	if c.IsSet("observed") {
		rec, err := readObservation(c)
		if err != nil {
			return err
		}
		if err := rep.AddObserved(rec); err != nil {
			return fmt.Errorf("%s: %w", c.String("observed"), err)
		}
		if w := rep.ObservedElsewhere(rec); w != "" {
			fmt.Fprintf(e.stderr, "ctx: warning: %s\n", w)
		}
	}
	// a file or source named after a credential is shown redacted, in
	// every row and message alike (the findings are already made)
	projectDir := m.ProjectDir
	if err := scrubNames(c.Context, rep); err != nil {
		return err
	}
	o := audit.WriteOptions{Home: p.Home, Wide: c.Bool("wide"), Details: c.Bool("details"), Width: terminalWidth(e.stdout)}
	if p.Config != nil {
		o.Config = p.Config.File
	}
	if err := audit.Write(e.stdout, rep, format, o); err != nil {
		return err
	}
	if format == audit.FormatTable && c.String("manifest") == "" && m.Profile == nil {
		e.profileHint(manifest.Options{}, projectDir)
	}
	if c.Bool("check") && rep.Fails(level) {
		return &checkFailed{msg: fmt.Sprintf("check failed: %d finding(s) at or above %s", rep.Count(level), level)}
	}
	return nil
}

// auditAgents prints every instruction file against every agent (ctx audit
// --profile all).
func (e *env) auditAgents(c *cli.Context, format audit.Format) error {
	for _, name := range []string{"manifest", "observed", "check", "wide"} {
		if c.IsSet(name) {
			return usagef("--%s: not with --profile all, which compares the agents' own files", name)
		}
	}
	if format == audit.FormatGitHub || format == audit.FormatSARIF {
		return usagef("--format %s: not with --profile all (table, markdown or json)", format)
	}
	p, o, err := manifestOptions(c)
	if err != nil {
		return err
	}
	mx, err := audit.Agents(c.Context, o)
	if err != nil {
		return err
	}
	if err := scrubNames(c.Context, mx); err != nil {
		return err
	}
	return audit.WriteMatrix(e.stdout, mx, format, audit.WriteOptions{Home: p.Home, Width: terminalWidth(e.stdout), Details: c.Bool("details")})
}

func initCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:      "init",
		Usage:     "write a commented ctx.toml for the project (never overwrites one)",
		ArgsUsage: " ",
		Description: "Examples:\n" +
			"   ctx init --profile claude\n" +
			"   ctx init -C ../service --profile codex",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "project-dir", Aliases: []string{"C"}, Usage: "project `DIR` (default: the current directory)"},
			&cli.StringFlag{Name: "profile", Usage: "the agent `NAME`: " + profileNames()},
		},
		Action: func(c *cli.Context) error { return e.init(c) },
	}}
}

func (e *env) init(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	name := profile.Generic
	if c.IsSet("profile") {
		n, err := profile.Parse(c.String("profile"))
		if err != nil {
			return usagef("--profile: %v", err)
		}
		name = n
	}
	p, err := loadProject(c)
	if err != nil {
		return err
	}
	var found []profile.Detected
	if !c.IsSet("profile") {
		name, found = config.InitProfile(p.Dir)
	}
	fit, err := initFit(c, p, name)
	if err != nil {
		return err
	}
	path, err := config.WriteTemplateFor(p.Dir, name, fit)
	if err != nil {
		return fmt.Errorf("%s: %w", p.ShownPath(path), err)
	}
	shown := p.ShownPath(path)
	// what its own check says of the configuration just written
	if failing, err := initCheck(c, p.Dir); err != nil {
		return err
	} else if len(failing) > 0 {
		fmt.Fprintf(e.stderr, "ctx: warning: ctx audit --check fails here on what the files themselves are, not on this configuration: %s\n", strings.Join(failing, "; "))
	}
	switch {
	case len(found) == 1:
		_, err = fmt.Fprintf(e.written(), "wrote %s with profile %s (found %s); check it with: ctx audit --check\n", shown, name, found[0].File)
	case len(found) > 1:
		var parts []string
		for _, d := range found {
			parts = append(parts, fmt.Sprintf("%s (%s)", d.Profile, d.File))
		}
		list := strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
		_, err = fmt.Fprintf(e.written(), "wrote %s; this project has files of %s: set profile in it, or run ctx init --profile NAME\n", shown, list)
	default:
		_, err = fmt.Fprintf(e.written(), "wrote %s; check it with: ctx audit --check\n", shown)
	}
	return err
}

// initFit measures the instruction files ctx would send in the project with
// the profile and no configuration: the template ctx init writes fits them.
func initFit(c *cli.Context, p *config.Project, name profile.Name) (config.Fit, error) {
	o := p.ManifestOptions()
	if name != profile.Generic {
		o.Profile = name
	}
	m, err := manifest.Build(c.Context, o)
	if err != nil {
		return config.Fit{}, err
	}
	var fit config.Fit
	for _, s := range m.Sources {
		if !s.Included || s.SourceLines == nil || s.SourceTokens == nil || !strings.HasPrefix(s.Path, p.Dir+string(filepath.Separator)) {
			continue
		}
		if *s.SourceLines > fit.MaxLines {
			fit.MaxLines, fit.Name = *s.SourceLines, filepath.Base(s.Path)
		}
		fit.MaxTokens = max(fit.MaxTokens, *s.SourceTokens)
		fit.TotalTokens += *s.SourceTokens
	}
	return fit, nil
}

// initCheck audits the project with the configuration ctx init wrote and
// returns the findings that fail ctx audit --check, as "code (source)".
func initCheck(c *cli.Context, dir string) ([]string, error) {
	p, err := config.LoadProject(config.ProjectOptions{Dir: dir})
	if err != nil {
		return nil, err
	}
	m, err := manifest.Build(c.Context, p.ManifestOptions())
	if err != nil {
		return nil, err
	}
	ao, err := p.AuditOptions()
	if err != nil {
		return nil, err
	}
	rep, err := audit.RunContext(c.Context, m, ao)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range rep.Findings {
		if f.Severity == audit.Warning || f.Severity == audit.Error {
			out = append(out, string(f.Code)+" ("+f.SourceID+")")
		}
	}
	return out, nil
}

// runAudit audits m with the thresholds of the flags and the project's
// configuration and its secret scanner; the total is counted with the
// estimator the manifest names.
func runAudit(c *cli.Context, p *config.Project, m *manifest.Manifest) (*audit.Report, error) {
	th, err := thresholds(c, p)
	if err != nil {
		return nil, err
	}
	o, err := p.AuditOptions()
	if err != nil {
		return nil, err
	}
	o.Thresholds = th
	return audit.RunContext(c.Context, m, o)
}
