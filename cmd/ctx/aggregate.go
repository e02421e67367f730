package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/measure"
)

// progressMin is the number of files from which ctx aggregate shows a
// progress bar (on a terminal only).
const progressMin = 50

// aggregateFlags are shared by the commands that resolve [files].
func aggregateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "project-dir", Aliases: []string{"C"}, Usage: "project `DIR` (default: the current directory)"},
		&cli.StringFlag{Name: "config", Usage: "configuration `FILE` (default: DIR/ctx.toml when it exists)"},
		&cli.StringFlag{Name: "preset", Usage: "use the files of preset `NAME` ([presets.NAME] in ctx.toml, or the user presets.toml)"},
	}
}

func aggregateCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:      "aggregate",
		Usage:     "compose the project files into one markdown context and write it to the next numbered file",
		ArgsUsage: "[PATH|GLOB...]",
		Description: `Reads the files of [files] in ctx.toml (or the paths and globs given as
arguments, which replace them and are relative to the same base_dir: the
project directory unless configured; quote globs), renders each in its view mode and writes
{output_dir}/{namespace}_{NNN}.md with the next free number, then prints its
path; --stdout prints the same document. With [discussion] the document ends
with its Discussion History, as ctx render does (--no-history leaves it
out: the static prefix). Files that are missing, binary, too large or whose view fails are
reported on stderr and in the document; they never stop the run.

Examples:
   ctx aggregate
   ctx aggregate --stdout 'src/**/*.py' README.md
   ctx aggregate --view skeleton --stdout 'src/**/*.go'
   ctx aggregate --focus app.py --stdout
   ctx aggregate --format json --preset review`,
		Flags: append(aggregateFlags(),
			&cli.BoolFlag{Name: "stdout", Usage: "print the markdown instead of writing a file"},
			&cli.BoolFlag{Name: "no-history", Usage: "leave out the Discussion History of [discussion] (the static, cacheable prefix)"},
			&cli.StringFlag{Name: "format", Value: "markdown", Usage: "`FORMAT`: markdown, or json to print the items instead"},
			&cli.StringFlag{Name: "view", Usage: "view `MODE` of the files given as arguments: full, summary, skeleton, outline, masked, none or custom"},
			&cli.StringFlag{Name: "strategy", Usage: "`STRATEGY`: auto, summarize, full or tier3 (default: [files] strategy, else auto)"},
			&cli.StringSliceFlag{Name: "focus", Usage: "Tier 3 focus `FILE` by entry, relative path, base name or absolute path (repeatable)"},
			&cli.IntFlag{Name: "max-tokens", Usage: "token budget `N` of all files together, degrading full → skeleton → outline → summary → omitted, largest first (0: none; default: [files] max_tokens, else none)"},
			&cli.IntFlag{Name: "max-file-tokens", Usage: "token cap `N` per file, degrading the same way (0: none; default: [files] max_file_tokens, else none)"},
			estimatorFlag()),
		Action: func(c *cli.Context) error { return e.aggregate(c) },
	}}
}

// aggregateOptions loads the project and applies --estimator, --preset and
// the positional paths (with --view when allowed) to its aggregate options.
func aggregateOptions(c *cli.Context, args []string, allowView bool) (aggregate.Options, error) {
	est, err := estimator(c)
	if err != nil {
		return aggregate.Options{}, err
	}
	p, err := loadProject(c)
	if err != nil {
		return aggregate.Options{}, err
	}
	o := p.AggregateOptions()
	if est != nil {
		o.Estimator = est
	}
	if name := c.String("preset"); c.IsSet("preset") {
		if len(args) > 0 {
			return o, usagef("--preset and paths as arguments cannot be used together")
		}
		presets, err := p.Presets()
		if err != nil {
			return o, err
		}
		pr, ok := presets[name]
		if !ok {
			known := "none defined"
			if names := aggregate.PresetNames(presets); len(names) > 0 {
				known = "known: " + strings.Join(names, ", ")
			}
			return o, usagef("--preset: no preset named %q (%s)", name, known)
		}
		o = pr.Apply(o)
	}
	var view aggregate.ViewMode
	if allowView && c.IsSet("view") {
		if view, err = aggregate.ParseViewMode(c.String("view")); err != nil || c.String("view") == "" {
			return o, usagef("--view: must be full, summary, skeleton, outline, masked, none or custom, not %q", c.String("view"))
		}
		if len(args) == 0 {
			return o, usagef("--view applies to paths given as arguments, and none was given")
		}
	}
	if len(args) > 0 {
		// arguments replace the [files] paths and, like them, are relative
		// to base_dir (the project directory unless configured)
		o.Files = nil
		for _, a := range args {
			if discover.Blank(a) {
				return o, usagef("paths must not be empty")
			}
			o.Files = append(o.Files, aggregate.FileItem{Path: a, ViewMode: view})
		}
	}
	if len(o.Files) == 0 {
		return o, usagef("no files: set paths in [files] of %s, pass --preset NAME, or give paths as arguments", config.FileName)
	}
	return o, nil
}

func (e *env) aggregate(c *cli.Context) error {
	args, err := positional(c)
	if err != nil {
		return err
	}
	format := c.String("format")
	if format != "markdown" && format != "json" {
		return usagef("--format: must be markdown or json, not %q", format)
	}
	var strategy aggregate.Strategy
	if c.IsSet("strategy") {
		st, err := aggregate.ParseStrategy(c.String("strategy"))
		if err != nil || c.String("strategy") == "" {
			return usagef("--strategy: must be auto, summarize, full or tier3, not %q", c.String("strategy"))
		}
		strategy = st
	}
	for _, f := range c.StringSlice("focus") {
		if discover.Blank(f) {
			return usagef("--focus: must not be empty")
		}
	}
	o, err := aggregateOptions(c, args, true)
	if err != nil {
		return err
	}
	if strategy != "" {
		o.Strategy = strategy
	}
	o.Focus = append(o.Focus, c.StringSlice("focus")...)
	for _, f := range []struct {
		name string
		dst  *measure.Limit
	}{{"max-tokens", &o.MaxTokens}, {"max-file-tokens", &o.MaxFileTokens}} {
		if c.IsSet(f.name) {
			// 0 is no limit, as --max-tokens 0 is in ctx messages
			switch n := c.Int(f.name); {
			case n < 0:
				return usagef("--%s: must not be negative, not %d", f.name, n)
			case n == 0:
				*f.dst = measure.Limit{}
			default:
				*f.dst = measure.Max(int64(n))
			}
		}
	}
	if c.Bool("stdout") || format == "json" {
		o.OutputDir = ""
	}
	if format == "markdown" && !c.Bool("no-history") {
		if o.History, err = discussionSection(c, o.Estimator); err != nil {
			return err
		}
	}
	bar := e.progress("aggregating")
	o.Progress = bar.update
	res, err := aggregate.Run(c.Context, o)
	bar.finish()
	if err != nil {
		return err
	}
	for _, it := range res.Items {
		e.itemWarnings(it)
	}
	for _, sh := range res.Screenshots {
		if sh.Error != "" {
			fmt.Fprintf(e.stderr, "ctx: warning: screenshot %s\n", sh.Error)
		}
	}
	for _, f := range res.UnmatchedFocus {
		fmt.Fprintf(e.stderr, "ctx: warning: focus %q matched no file (by entry, path, name or absolute path)\n", f)
	}
	switch {
	case format == "json":
		return res.WriteJSON(e.stdout)
	case c.Bool("stdout"):
		_, err := io.WriteString(e.stdout, res.Markdown+"\n")
		return err
	}
	_, err = fmt.Fprintln(e.stdout, res.ShownOutputPath())
	return err
}

// itemWarnings reports an item's problems on stderr.
func (e *env) itemWarnings(it aggregate.Item) {
	if it.Error != "" {
		msg := it.Error
		if !strings.Contains(msg, it.Path) {
			msg = it.Path + ": " + msg
		}
		fmt.Fprintf(e.stderr, "ctx: warning: %s\n", msg)
	}
	for _, sl := range it.Slices {
		if sl.Orphaned() {
			fmt.Fprintf(e.stderr, "ctx: warning: %s: slice %s (lines %d-%d) is orphaned: %s\n", it.Path, sliceName(sl), sl.OldStart, sl.OldEnd, sl.Reason)
		}
	}
}

func sliceName(sl aggregate.SliceResult) string {
	if sl.Tag != "" {
		return fmt.Sprintf("%q", sl.Tag)
	}
	return "(untagged)"
}

// progress is a progress bar on stderr, shown only when stderr is a
// terminal and a run covers at least progressMin files.
type progress struct {
	w    io.Writer
	desc string
	tty  bool
	bar  *progressbar.ProgressBar
}

func (e *env) progress(desc string) *progress {
	p := &progress{w: e.stderr, desc: desc}
	if f, ok := e.stderr.(*os.File); ok {
		p.tty = isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
	}
	return p
}

// update is an aggregate.Options.Progress callback (called one at a time).
func (p *progress) update(done, total int) {
	if !p.tty || total < progressMin {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.desc),
			progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100_000_000))
	}
	_ = p.bar.Set(done)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// positional returns the arguments of c and applies the flags found among
// them: urfave/cli stops parsing flags at the first argument, but
// "ctx slice add FILE 1 2 --tag t" and "ctx aggregate 'src/**' --stdout"
// should work. Everything after "--" is an argument.
func positional(c *cli.Context) ([]string, error) {
	var out []string
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i+1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' {
			out = append(out, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var flag cli.Flag
		for _, f := range c.Command.Flags {
			for _, n := range f.Names() {
				if n == name {
					flag = f
				}
			}
		}
		if flag == nil {
			return nil, usagef("flag provided but not defined: -%s", name)
		}
		if _, isBool := flag.(*cli.BoolFlag); isBool {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 >= len(args) {
				return nil, usagef("flag needs an argument: -%s", name)
			}
			i++
			value = args[i]
		}
		if err := c.Set(flag.Names()[0], value); err != nil {
			return nil, usagef("invalid value %q for flag -%s: %v", value, name, err)
		}
	}
	return out, nil
}
