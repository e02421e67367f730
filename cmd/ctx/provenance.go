package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/provenance"
)

func provenanceCommands(e *env) []*cli.Command {
	format := func() cli.Flag {
		return &cli.StringFlag{Name: "format", Value: "table", Usage: "`FORMAT`: table or json"}
	}
	return []*cli.Command{
		{
			Name:      "verify",
			Usage:     "check a stored manifest against the files it records; exit 1 on drift",
			ArgsUsage: "MANIFEST",
			Description: `Re-reads every instruction source, aggregated file and history file the
manifest records and reports each as unchanged, changed (old and new
BLAKE3), missing or appeared; rebuilds the manifest from the same inputs
(the manifest's agent, ctx.toml and the flags below; the manifest's
profile and estimator when neither names one) and reports the sources
and files it would now add (new) or no longer list (removed).
A manifest written with --relative is resolved against -C DIR (default:
the current directory); an absolute one is verified where it was built.
Exit status: 0 when nothing drifted, 1 on drift, 2 on bad input.

Examples:
   ctx manifest --relative -o ctx.manifest.json   # commit it
   ctx verify ctx.manifest.json                    # in CI or a pre-commit hook
   ctx verify --format json -C ../clone ctx.manifest.json`,
			Flags:  append(commonFlags(), estimatorFlag(), format(), cacheDirFlag(), noCacheFlag()),
			Action: func(c *cli.Context) error { return e.verify(c) },
		},
		{
			Name:      "diff",
			Usage:     "compare two stored manifests",
			ArgsUsage: "OLD NEW",
			Description: `Lists the sources added, removed, re-ordered, moved, re-budgeted, with
other content or another decision, and their emitted tokens up or down;
the files added, removed or changed; the budgets and the history; and the
total emitted tokens before and after. Paths are compared relative to
each manifest's project directory. Exit status 0 (a diff is
information), 2 on bad input.

Examples:
   ctx diff old.manifest.json ctx.manifest.json
   git show HEAD~1:ctx.manifest.json > old.json
   ctx diff old.json ctx.manifest.json`,
			Flags:  []cli.Flag{format()},
			Action: func(c *cli.Context) error { return e.diff(c) },
		},
	}
}

// manifestArgs returns the n manifest files given as arguments.
func manifestArgs(c *cli.Context, n int, what string) ([]string, error) {
	args := c.Args().Slice()
	if len(args) != n {
		return nil, usagef("%s takes %s, got %d argument(s)", c.Command.Name, what, len(args))
	}
	for _, a := range args {
		if strings.TrimSpace(a) == "" {
			return nil, usagef("a manifest file must not be empty")
		}
	}
	return args, nil
}

func (e *env) verify(c *cli.Context) error {
	args, err := manifestArgs(c, 1, "one manifest file")
	if err != nil {
		return err
	}
	format, err := provenance.ParseFormat(c.String("format"))
	if err != nil {
		return usagef("--format: %v", err)
	}
	if c.IsSet("config") && strings.TrimSpace(c.String("config")) == "" {
		return usagef("--config: must not be empty")
	}
	if c.IsSet("project-dir") && discover.Blank(c.String("project-dir")) {
		return usagef("--project-dir: must not be empty")
	}
	m, err := manifest.ReadFile(args[0])
	if err != nil {
		return err
	}
	if c.IsSet("agent") && c.String("agent") != m.Agent {
		return usagef("--agent: the manifest is for agent %q, not %q", m.Agent, c.String("agent"))
	}
	dir, err := provenance.ProjectDir(m, c.String("project-dir"), "")
	if err != nil {
		return err
	}
	// the rebuild uses the manifest's agent and project directory, and
	// ctx.toml and the flags like every command that builds a manifest
	for _, f := range [][2]string{{"project-dir", dir}, {"agent", m.Agent}} {
		if err := c.Set(f[0], f[1]); err != nil {
			return err
		}
	}
	_, o, err := manifestOptions(c)
	if err != nil {
		return err
	}
	rep, err := provenance.Verify(c.Context, m, o)
	if err != nil {
		return err
	}
	if err := scrubNames(c.Context, rep); err != nil {
		return err
	}
	if err := provenance.WriteVerify(e.stdout, rep, format, terminalWidth(e.stdout)); err != nil {
		return err
	}
	if rep.Drifted > 0 {
		settings := ""
		if n := len(rep.Settings); n == 1 {
			settings = " and 1 setting"
		} else if n > 1 {
			settings = fmt.Sprintf(" and %d settings", n)
		}
		return &checkFailed{msg: fmt.Sprintf("verify failed: %d of %d row(s)%s drifted from %s", rep.DriftedRows(), len(rep.Rows), settings, args[0])}
	}
	return nil
}

func (e *env) diff(c *cli.Context) error {
	args, err := manifestArgs(c, 2, "two manifest files, OLD and NEW")
	if err != nil {
		return err
	}
	format, err := provenance.ParseFormat(c.String("format"))
	if err != nil {
		return usagef("--format: %v", err)
	}
	old, err := manifest.ReadFile(args[0])
	if err != nil {
		return err
	}
	cur, err := manifest.ReadFile(args[1])
	if err != nil {
		return err
	}
	rep, err := provenance.Diff(old, cur, provenance.DiffOptions{})
	if err != nil {
		return err
	}
	if err := scrubNames(c.Context, rep); err != nil {
		return err
	}
	return provenance.WriteDiff(e.stdout, rep, format, terminalWidth(e.stdout))
}
