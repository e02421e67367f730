package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/aggregate"
)

func statsCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:      "stats",
		Usage:     "count lines, symbols, bytes and tokens per directory and per file of [files]",
		ArgsUsage: "[PATH|GLOB...]",
		Description: `Resolves the files like ctx aggregate (paths and globs given as arguments
replace the [files] paths) and prints, per directory, the totals and then
each file. Symbols are the declarations the tree-sitter views find (0 for
other languages); tokens are counted as in the manifest (--estimator).`,
		Flags: append(aggregateFlags(),
			&cli.StringFlag{Name: "format", Value: "table", Usage: "`FORMAT`: table or json"},
			estimatorFlag()),
		Action: func(c *cli.Context) error { return e.stats(c) },
	}}
}

func (e *env) stats(c *cli.Context) error {
	args, err := positional(c)
	if err != nil {
		return err
	}
	format := c.String("format")
	if format != "table" && format != "json" {
		return usagef("--format: must be table or json, not %q", format)
	}
	o, err := aggregateOptions(c, args, false, true)
	if err != nil {
		return err
	}
	bar := e.progress("measuring")
	o.Progress = bar.update
	dirs, err := aggregate.Stats(c.Context, o)
	bar.finish()
	if err != nil {
		return err
	}
	if format == "json" {
		return aggregate.WriteStatsJSON(e.stdout, dirs)
	}
	return aggregate.WriteStatsTable(e.stdout, dirs)
}
