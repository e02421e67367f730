package main

import (
	"fmt"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/slice"
)

func sliceCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:  "slice",
		Usage: "pin custom slices of files and check them against the current files",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "print a pinned slice as a TOML inline table for custom_slices",
				ArgsUsage: "FILE START END",
				Description: `Reads FILE and prints lines START..END (1-based, inclusive) as a pinned
slice: a TOML inline table with the range, the tag and comment, the BLAKE3
content hash, the anchor lines and the fingerprint that let ctx re-find the
slice after edits. Paste it into the custom_slices array of the file's
entry in [files] paths. ctx never edits ctx.toml itself, so your comments
and layout stay as they are.

Example:
   ctx slice add lib/util.py 10 24 --tag parser --comment "hot path"`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "tag", Usage: "slice `TAG`"},
					&cli.StringFlag{Name: "comment", Usage: "slice `COMMENT`"},
				},
				Action: func(c *cli.Context) error { return e.sliceAdd(c) },
			},
			{
				Name:      "check",
				Usage:     "report moved and orphaned slices of [files]; exit 1 when one is orphaned",
				ArgsUsage: " ",
				Flags:     aggregateFlags(),
				Action:    func(c *cli.Context) error { return e.sliceCheck(c) },
			},
		},
	}}
}

func (e *env) sliceAdd(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) != 3 {
		return usagef("slice add takes FILE START END, got %d arguments", len(args))
	}
	file := args[0]
	var lines [2]int
	for i, a := range args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 {
			return usagef("%s must be a line number (1 or more), not %q", []string{"START", "END"}[i], a)
		}
		lines[i] = n
	}
	if lines[1] < lines[0] {
		return usagef("END (%d) must not be before START (%d)", lines[1], lines[0])
	}
	s, err := slice.NewFromFile(file, aggregate.DefaultMaxFileBytes, lines[0], lines[1], c.String("tag"), c.String("comment"))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, s.TOML())
	return err
}

func (e *env) sliceCheck(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	o, err := aggregateOptions(c, nil, false, false)
	if err != nil {
		return err
	}
	r, err := aggregate.CheckSlices(c.Context, o)
	if err != nil {
		return err
	}
	if err := r.WriteTable(e.stdout, terminalWidth(e.stdout)); err != nil {
		return err
	}
	orphaned, moved := r.Problems()
	if orphaned != "" {
		return &checkFailed{orphaned}
	}
	if moved != "" {
		fmt.Fprintf(e.stderr, "ctx: hint: %s\n", moved)
	}
	return nil
}
