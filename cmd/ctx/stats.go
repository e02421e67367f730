package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/aggregate/stats"
)

func statsCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:      "stats",
		Usage:     "count lines, symbols, bytes and tokens per directory and file of [files], or of the project",
		ArgsUsage: "[PATH|GLOB...]",
		Description: `Resolves the files like ctx aggregate (paths and globs given as arguments
replace the [files] paths; without either it measures the whole project
directory, as ctx aggregate packs it, with .gitignore and the default
ignore list) and prints a row per directory with the totals
of everything below it, then the directory's own files, and last the
total of all files. Symbols are the declarations the tree-sitter views
find (0 for other languages); tokens are counted as in the manifest
(--estimator). Tables fit the terminal (100 columns when stdout is not
one); numbers have thousands separators except in JSON.

--top N lists the N files with the most tokens instead (files, not
directories: the ones to cut or to view differently); --tree prints the
token tree, like repomix's token-count tree, and --tree-threshold N (which
implies --tree) folds the entries under N tokens into one line per
directory, never an entry with an error. Entries that cannot be read are
reported on stderr, and what the default ignore list left out is named
there after the table (and listed under "ignored" in JSON); --quiet keeps
only the warnings.

Examples:
   ctx stats                          # every directory and file, then the total
   ctx stats --sort tokens            # the largest directories and files first
   ctx stats --top 10 'src/**'        # the ten largest files
   ctx stats --tree --tree-threshold 1000
   ctx stats --format markdown > stats.md`,
		Flags: append(aggregateFlags(),
			&cli.StringFlag{Name: "format", Value: "table", Usage: "`FORMAT`: table, markdown or json"},
			&cli.StringFlag{Name: "sort", Usage: "`ORDER`: path, or tokens for the largest first (default: path; tokens with --top)"},
			&cli.IntFlag{Name: "top", Usage: "list only the `N` files with the most tokens"},
			&cli.BoolFlag{Name: "tree", Usage: "print the token tree of the directories and files"},
			&cli.IntFlag{Name: "tree-threshold", Usage: "fold the tree's entries under `N` tokens (implies --tree; an entry with an error is never folded)", DefaultText: "0, none"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print no progress and no note of what the default ignores left out on stderr (warnings still)"},
			estimatorFlag(), cacheDirFlag(), noCacheFlag()),
		Action: func(c *cli.Context) error { return e.stats(c) },
	}}
}

func (e *env) stats(c *cli.Context) error {
	args := c.Args().Slice()
	wo := stats.WriteOptions{Width: terminalWidth(e.stdout), Tree: c.Bool("tree") || c.IsSet("tree-threshold")}
	var err error
	if wo.Format, err = stats.ParseFormat(c.String("format")); err != nil {
		return usagef("--format: %v", err)
	}
	if c.IsSet("sort") {
		if wo.Sort, err = stats.ParseSort(c.String("sort")); err != nil {
			return usagef("--sort: %v", err)
		}
	}
	if c.IsSet("top") {
		if wo.Top = c.Int("top"); wo.Top < 1 {
			return usagef("--top: must be 1 or more, not %d", wo.Top)
		}
		if wo.Tree {
			return usagef("--top and --tree cannot be used together")
		}
	}
	if wo.TreeThreshold = c.Int("tree-threshold"); wo.TreeThreshold < 0 {
		return usagef("--tree-threshold: must not be negative, not %d", wo.TreeThreshold)
	}
	o, err := aggregateOptions(c, args, false, true)
	if err != nil {
		return err
	}
	quiet := c.Bool("quiet")
	e.useCache(c, &o)
	bar := e.progress("measuring")
	if !quiet {
		o.Progress = bar.update
	}
	rep, err := stats.Run(c.Context, o)
	bar.finish()
	if err != nil {
		return err
	}
	e.warnings(rep.Warnings())
	if err := scrubNames(c.Context, rep); err != nil {
		return err
	}
	if err := stats.Write(e.stdout, rep, wo); err != nil || quiet {
		return err
	}
	return rep.WriteLeftOut(e.stderr, terminalWidth(e.stderr))
}
