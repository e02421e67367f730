package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/internal/version"
	"github.com/ctxaudit/ctx/manifest"
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
				"   ctx manifest --estimator o200k      # exact o200k_base tokens (GPT-4o, GPT-5)",
			ArgsUsage: " ",
			Flags: append(commonFlags(), estimatorFlag(),
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (atomically) instead of stdout"}),
			Action: func(c *cli.Context) error { return e.manifest(c) },
		},
		{
			Name:  "render",
			Usage: "print the rendered context, or write it with -o",
			Description: "Examples:\n" +
				"   ctx render --agent claude > context.md\n" +
				"   ctx render --manifest context.manifest.json -o context.md",
			ArgsUsage: " ",
			Flags: append(commonFlags(), estimatorFlag(),
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (atomically) instead of stdout"},
				&cli.StringFlag{Name: "manifest", Usage: "render a stored manifest `FILE` instead of building one"}),
			Action: func(c *cli.Context) error { return e.render(c) },
		},
		{
			Name:  "audit",
			Usage: "report the sources, their sizes and decisions, and the findings",
			Description: "Examples:\n" +
				"   ctx audit                                   # a table in the terminal\n" +
				"   ctx audit --check                           # exit 1 on any warning (pre-commit, CI)\n" +
				"   ctx audit --format json --total-tokens 6000 # for agent runtimes\n" +
				"   ctx audit --manifest context.manifest.json --fail-on info --check",
			ArgsUsage: " ",
			Flags: append(commonFlags(), estimatorFlag(),
				&cli.StringFlag{Name: "format", Value: "table", Usage: "`FORMAT`: table, json or markdown"},
				&cli.BoolFlag{Name: "check", Usage: "exit 1 when a finding at the --fail-on level exists"},
				&cli.StringFlag{Name: "fail-on", Value: "warning", Usage: "`LEVEL` that fails --check: info or warning"},
				&cli.StringFlag{Name: "manifest", Usage: "audit a stored manifest `FILE` instead of building one"},
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
			Action: func(c *cli.Context) error { _, err := fmt.Fprintf(e.stdout, "ctx %s\n", version.Version); return err },
		},
	}
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
	res, err := discover.Sources(c.Context, o.Discover)
	if err != nil {
		return err
	}
	return discover.WriteTable(e.stdout, res, p.Home)
}

// build builds the manifest of the project and flags of c.
func build(c *cli.Context) (*config.Project, *manifest.Manifest, error) {
	p, o, err := manifestOptions(c)
	if err != nil {
		return nil, nil, err
	}
	m, err := manifest.Build(c.Context, o)
	if err != nil {
		return nil, nil, err
	}
	return p, m, nil
}

// output writes data to stdout, or atomically to the -o file.
func (e *env) output(c *cli.Context, data []byte) error {
	if o := c.String("output"); o != "" {
		return atomicfile.WriteFile(o, data, 0o644)
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
	return e.output(c, data)
}

func (e *env) render(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	var m *manifest.Manifest
	var err error
	if p := c.String("manifest"); p != "" {
		m, err = storedManifest(c, p)
	} else {
		_, m, err = build(c)
	}
	if err != nil {
		return err
	}
	return e.output(c, []byte(render.Text(m)))
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
	th, err := thresholds(c, p)
	if err != nil {
		return err
	}
	// the total is counted with the estimator the manifest names
	rep, err := audit.Run(m, th, nil)
	if err != nil {
		return err
	}
	if err := audit.Write(e.stdout, rep, format, audit.WriteOptions{Home: p.Home}); err != nil {
		return err
	}
	if c.Bool("check") && rep.Fails(level) {
		return &checkFailed{msg: fmt.Sprintf("check failed: %d finding(s) at or above %s", rep.Count(level), level)}
	}
	return nil
}
