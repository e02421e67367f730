package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/presets"
)

func presetCommands(e *env) []*cli.Command {
	project := func() []cli.Flag {
		return []cli.Flag{
			&cli.StringFlag{Name: "project-dir", Aliases: []string{"C"}, Usage: "project `DIR` (default: the current directory)"},
			&cli.StringFlag{Name: "config", Usage: "configuration `FILE` (default: DIR/ctx.toml when it exists)"},
		}
	}
	return []*cli.Command{{
		Name:  "preset",
		Usage: "list, show, save and delete the named file sets of --preset",
		Description: `Presets are named file sets for --preset NAME: [presets.NAME] tables in
ctx.toml (project presets) and in the user's presets.toml (user presets,
for every project: ctx/presets.toml in the user configuration directory,
$XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on
macOS). A project preset overrides a user preset of the same name. ctx writes the user's presets.toml only, keeping its
comments; it never edits ctx.toml: ctx preset show NAME --format toml
prints a table to paste into it.`,
		Subcommands: []*cli.Command{
			{
				Name:      "list",
				Usage:     "list the presets: name, scope, files found, description",
				ArgsUsage: " ",
				Flags: append(project(),
					&cli.StringFlag{Name: "format", Value: "table", Usage: "`FORMAT`: table or json"}),
				Action: func(c *cli.Context) error { return e.presetList(c) },
			},
			{
				Name:      "show",
				Usage:     "print a preset: where it is defined, its files with their settings",
				ArgsUsage: "NAME",
				Flags: append(project(),
					&cli.StringFlag{Name: "format", Value: "text", Usage: "`FORMAT`: text, json, or toml for a [presets.NAME] table"}),
				Action: func(c *cli.Context) error { return e.presetShow(c) },
			},
			{
				Name:      "save",
				Usage:     "save [files] of ctx.toml (or the paths given) as a user preset",
				ArgsUsage: "NAME [PATH|GLOB...]",
				Description: `Saves the paths of [files] in ctx.toml with their settings (or the paths
and globs given after NAME, with --view) as [presets.NAME] in the user's
presets.toml, written atomically. NAME is letters, digits, - and _. An
existing user preset is replaced only with --force. Entries that name
nothing in this project are reported.

Examples:
   ctx preset save review --description "code review"
   ctx preset save api 'api/**/*.go' README.md --view skeleton
   ctx preset save docs2 --preset docs     # copy a preset`,
				Flags: append(aggregateFlags(),
					&cli.StringFlag{Name: "description", Usage: "the preset's `TEXT`"},
					&cli.StringFlag{Name: "view", Usage: "view `MODE` of the paths given as arguments"},
					&cli.BoolFlag{Name: "force", Usage: "replace a user preset of the same name"}),
				Action: func(c *cli.Context) error { return e.presetSave(c) },
			},
			{
				Name:      "delete",
				Usage:     "delete a user preset",
				ArgsUsage: "NAME",
				Flags:     project(),
				Action:    func(c *cli.Context) error { return e.presetDelete(c) },
			},
		},
	}}
}

// presetName returns the one NAME argument (and the rest).
func presetName(c *cli.Context, more bool) (string, []string, error) {
	args := c.Args().Slice()
	switch {
	case len(args) == 0:
		return "", nil, usagef("preset %s takes a preset NAME", c.Command.Name)
	case len(args) > 1 && !more:
		return "", nil, usagef("preset %s takes one NAME, got %d arguments", c.Command.Name, len(args))
	}
	return args[0], args[1:], nil
}

// findPreset returns the preset named name: the project's, else the
// user's.
func findPreset(list []presets.Preset, name string) (presets.Preset, error) {
	var names []string
	for _, p := range list {
		if p.Name == name && !p.Overridden {
			return p, nil
		}
		if len(names) == 0 || names[len(names)-1] != p.Name {
			names = append(names, p.Name)
		}
	}
	known := "none defined"
	if len(names) > 0 {
		known = "known: " + strings.Join(names, ", ")
	}
	ue := &usageError{err: fmt.Errorf("no preset named %q (%s)", name, known)}
	if s := suggest(name, names); len(s) > 0 {
		ue.hint = "did you mean " + orList(s) + "?"
	}
	return presets.Preset{}, ue
}

func (e *env) presetList(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	format := presets.Format(c.String("format"))
	if format != presets.FormatTable && format != presets.FormatJSON {
		return usagef("--format: must be table or json, not %q", format)
	}
	p, err := loadProject(c)
	if err != nil {
		return err
	}
	list, err := presets.ProjectList(p)
	if err != nil {
		return err
	}
	var out []presets.Status
	for _, pr := range list {
		s, err := presets.Check(c.Context, p, pr)
		if err != nil {
			return err
		}
		out = append(out, s)
	}
	return presets.WriteList(e.stdout, out, format, terminalWidth(e.stdout))
}

func (e *env) presetShow(c *cli.Context) error {
	name, _, err := presetName(c, false)
	if err != nil {
		return err
	}
	format := presets.Format(c.String("format"))
	switch format {
	case presets.FormatText, presets.FormatJSON, presets.FormatTOML:
	default:
		return usagef("--format: must be text, json or toml, not %q", format)
	}
	p, err := loadProject(c)
	if err != nil {
		return err
	}
	list, err := presets.ProjectList(p)
	if err != nil {
		return err
	}
	pr, err := findPreset(list, name)
	if err != nil {
		return err
	}
	s, err := presets.Check(c.Context, p, pr)
	if err != nil {
		return err
	}
	return presets.Write(e.stdout, s, format)
}

func (e *env) presetSave(c *cli.Context) error {
	name, args, err := presetName(c, true)
	if err != nil {
		return err
	}
	if err := presets.CheckName(name); err != nil {
		return &usageError{err: err}
	}
	p, err := loadProject(c)
	if err != nil {
		return err
	}
	o, err := aggregateOptions(c, args, true, false)
	if err != nil {
		return err
	}
	pr := presets.Preset{Name: name, Description: c.String("description"), Scope: presets.ScopeUser, Files: o.Files}
	file, err := presets.ProjectSave(p, pr, c.Bool("force"))
	if errors.Is(err, presets.ErrExists) {
		return &usageError{err: err, hint: "--force replaces it"}
	}
	if err != nil {
		return err
	}
	s, err := presets.Check(c.Context, p, pr)
	if err != nil {
		return err
	}
	if len(s.Missing) > 0 {
		fmt.Fprintf(e.stderr, "ctx: warning: preset %s: not found in this project: %s\n", name, strings.Join(s.Missing, ", "))
	}
	list, err := presets.ProjectList(p)
	if err != nil {
		return err
	}
	for _, q := range list {
		if q.Name == name && q.Scope == presets.ScopeProject {
			fmt.Fprintf(e.stderr, "ctx: warning: preset %s: the project preset of the same name (%s:%d) overrides it here\n", name, q.File, q.Line)
		}
	}
	_, err = fmt.Fprintln(e.written(), presets.SavedMessage(name, pr, file))
	return err
}

func (e *env) presetDelete(c *cli.Context) error {
	name, _, err := presetName(c, false)
	if err != nil {
		return err
	}
	p, err := loadProject(c)
	if err != nil {
		return err
	}
	list, err := presets.ProjectList(p)
	if err != nil {
		return err
	}
	user := false
	for _, q := range list {
		user = user || q.Name == name && q.Scope == presets.ScopeUser
	}
	if !user {
		for _, q := range list {
			if q.Name == name {
				return usagef("preset %s is a project preset ([presets.%s] at %s:%d): ctx never edits ctx.toml, remove the table there", name, name, q.File, q.Line)
			}
		}
		_, err := findPreset(list, name)
		return err
	}
	file, err := presets.ProjectDelete(p, name)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.written(), "deleted user preset %s from %s\n", name, file)
	return err
}
