package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxaudit/ctx/secrets"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
)

// commonFlags are accepted by every command that builds a manifest.
func commonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "project-dir", Aliases: []string{"C"}, Usage: "project `DIR` (default: the current directory)"},
		&cli.StringFlag{Name: "config", Usage: "configuration `FILE` (default: DIR/ctx.toml when it exists)"},
		&cli.StringFlag{Name: "agent", Usage: "consumer `NAME`, such as claude or codex (default: the profile, else generic)"},
		&cli.StringFlag{Name: "profile", Usage: "add what agent `NAME` loads by itself: " + profileNames()},
		&cli.StringFlag{Name: "workspace", Usage: "workspace `DIR` holding USER.md and SOUL.md"},
		&cli.StringFlag{Name: "shared", Usage: "shared instruction `PATH` (default: $AGENTS_GLOBAL_MD, then ~/.config/agents/GLOBAL.md)"},
		&cli.BoolFlag{Name: "no-shared", Usage: "discover no shared file"},
		&cli.StringSliceFlag{Name: "native", Usage: "a `PATH` the agent already loads by itself (repeatable)"},
		&cli.BoolFlag{Name: "no-discover", Usage: "list only native and configured sources"},
		&cli.BoolFlag{Name: "allow-outside", Usage: "read [files], [screenshots], the history file and attachments outside the project directory too (default: only the directories of allow_outside in the user's ctx/config.toml)"},
	}
}

// allowOutside is what --allow-outside adds to the directories that may
// be read outside the project: every one.
func allowOutside(c *cli.Context) []string {
	if c.Bool("allow-outside") {
		return []string{"/"}
	}
	return nil
}

// estimatorFlag is --estimator, on the commands that count tokens.
func estimatorFlag() cli.Flag {
	return &cli.StringFlag{Name: "estimator", Usage: "count tokens with `NAME`: " + strings.Join(measure.EstimatorNames(), ", ") +
		" (default: estimator in ctx.toml, else chars4, ceiling(characters / 4))"}
}

// estimator returns the estimator of --estimator, or nil when the flag is
// not given (or the command has none).
func estimator(c *cli.Context) (measure.Estimator, error) {
	if !c.IsSet("estimator") {
		return nil, nil
	}
	est, err := measure.ParseEstimator(c.String("estimator"))
	if err != nil {
		return nil, usagef("--estimator: %v", err)
	}
	return est, nil
}

// loadProject loads the project of -C and --config, and prints the
// warnings of its ctx.toml (config.Config.Warnings) on stderr, each once
// in a run however often the command loads the project.
func loadProject(c *cli.Context) (*config.Project, error) {
	if c.IsSet("project-dir") && discover.Blank(c.String("project-dir")) {
		// -C '' is an error, not the current directory
		return nil, usagef("--project-dir: must not be empty")
	}
	p, err := config.LoadProject(config.ProjectOptions{Dir: c.String("project-dir"), File: c.String("config")})
	if err != nil {
		return nil, err
	}
	configWarnings(c, p.Config.Warnings)
	return p, nil
}

// configWarnings prints each warning of a configuration file as
// "ctx: warning: ...", unless this run printed it already.
func configWarnings(c *cli.Context, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	printed, _ := c.App.Metadata["configWarnings"].(map[string]bool)
	if printed == nil {
		printed = map[string]bool{}
		c.App.Metadata["configWarnings"] = printed
	}
	for _, w := range warnings {
		if !printed[w] {
			printed[w] = true
			fmt.Fprintf(c.App.ErrWriter, "ctx: warning: %s\n", w)
		}
	}
}

// redactScanner is the scanner that redacts: the default rules, never the
// repository's allowlist (config.Config.RedactScanner).
func redactScanner(c *cli.Context) (secrets.Scanner, error) {
	p, err := loadProject(c)
	if err != nil {
		return nil, err
	}
	return p.Config.RedactScanner()
}

// manifestOptions loads the project and maps the flags of c onto its
// manifest options.
func manifestOptions(c *cli.Context) (*config.Project, manifest.Options, error) {
	est, err := estimator(c)
	if err != nil {
		return nil, manifest.Options{}, err
	}
	p, err := loadProject(c)
	if err != nil {
		return nil, manifest.Options{}, err
	}
	o := p.ManifestOptions()
	o.AllowOutside = append(o.AllowOutside, allowOutside(c)...)
	if est != nil {
		// every stage counts with it: sources, files, history and budgets
		o.SetEstimator(est)
	}
	if o.Files != nil {
		if d := openCache(c); d != nil {
			o.Files.Cache = d
		}
	}
	d := &o.Discover
	// ctx audit --profile all compares every profile (auditAgents)
	if c.IsSet("profile") && !(c.Command.Name == "audit" && c.String("profile") == audit.AllProfiles) {
		name, err := profile.Parse(c.String("profile"))
		if err != nil {
			return nil, o, usagef("--profile: %v", err)
		}
		o.Profile = name
	}
	if c.IsSet("agent") {
		d.Agent = c.String("agent")
		if err := checkAgent(d.Agent); err != nil {
			return nil, o, usagef("--agent: %v", err)
		}
	}
	if c.IsSet("workspace") {
		d.WorkspaceDir = c.String("workspace")
		o.ConfiguredSources = slices.DeleteFunc(o.ConfiguredSources, func(id string) bool {
			return id == discover.IDWorkspaceUser || id == discover.IDWorkspaceSoul
		})
	}
	if c.IsSet("shared") || c.Bool("no-shared") {
		// the user's choice, not the repository's
		o.ConfiguredSources = slices.DeleteFunc(o.ConfiguredSources, func(id string) bool { return id == discover.IDShared })
	}
	switch {
	case c.Bool("no-shared"):
		if c.IsSet("shared") {
			return nil, o, usagef("--shared and --no-shared cannot be used together")
		}
		d.SharedMode = discover.SharedDisabled
	case c.IsSet("shared"):
		if discover.Blank(c.String("shared")) {
			return nil, o, usagef("--shared: must not be empty (use --no-shared to disable the shared file)")
		}
		d.SharedMode, d.SharedPath = discover.SharedPath, c.String("shared")
	}
	if c.IsSet("native") {
		d.NativePaths = c.StringSlice("native")
	}
	if c.Bool("no-discover") {
		d.NoDiscover = true
	}
	warnAgent(c, o)
	return p, o, nil
}

// warnAgent says on stderr when the agent is probably a misspelt known
// name, or another known agent than the profile: neither is an error (a
// consumer may have any name, and may load another agent's files).
func warnAgent(c *cli.Context, o manifest.Options) {
	a := o.Discover.Agent
	if a == "" || a == string(profile.Generic) {
		return
	}
	if n, ok := profile.Closest(a); ok {
		fmt.Fprintf(c.App.ErrWriter, "ctx: warning: agent %q is not a known agent; did you mean %s? (known: %s)\n", a, n, profileNames())
		return
	}
	if _, err := profile.Parse(a); err == nil && o.Profile != "" && o.Profile != profile.Generic && profile.Name(a) != o.Profile {
		fmt.Fprintf(c.App.ErrWriter, "ctx: warning: agent %s with profile %s: ctx decides the sources for %s, but lists the files %s loads by itself\n",
			a, o.Profile, a, o.Profile)
	}
}

func profileNames() string {
	var names []string
	for _, n := range profile.Names() {
		names = append(names, string(n))
	}
	return strings.Join(names, ", ")
}

// checkAgent refuses agent names that cannot be a consumer name
// (discover.CheckAgent), naming the known agents.
func checkAgent(a string) error {
	if err := discover.CheckAgent(a); err != nil {
		return fmt.Errorf("%v (known agents: %s)", err, profileNames())
	}
	return nil
}

// thresholds returns the audit thresholds of the project with the flags
// applied: --layer-tokens 0 is a threshold of zero, inf no limit.
func thresholds(c *cli.Context, p *config.Project) (audit.Thresholds, error) {
	th := p.Thresholds()
	for _, f := range []struct {
		name string
		dst  *measure.Limit
	}{{"layer-tokens", &th.LayerTokens}, {"total-tokens", &th.TotalTokens}} {
		if err := limitFlag(c, f.name, f.dst); err != nil {
			return th, err
		}
	}
	return th, nil
}

// limitFlag sets *dst to the limit the string flag name gives, when it is
// set (measure.ParseLimit: a whole number, or inf or none for no limit);
// a value that does not parse is a usage error.
func limitFlag(c *cli.Context, name string, dst *measure.Limit) error {
	if !c.IsSet(name) {
		return nil
	}
	l, err := measure.ParseLimit(c.String(name))
	if err != nil {
		return usagef("--%s: %v", name, err)
	}
	*dst = l
	return nil
}
