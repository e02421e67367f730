package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/cache"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/presets"
)

// progressAfter is how long a run goes on before it shows a progress bar
// (on a terminal only).
var progressAfter = 500 * time.Millisecond

// aggregateFlags are shared by the commands that resolve [files].
func aggregateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "project-dir", Aliases: []string{"C"}, Usage: "project `DIR` (default: the current directory)"},
		&cli.StringFlag{Name: "config", Usage: "configuration `FILE` (default: DIR/ctx.toml when it exists)"},
		&cli.StringFlag{Name: "preset", Usage: "use the files of preset `NAME` ([presets.NAME] in ctx.toml, or the user presets.toml)"},
		&cli.StringSliceFlag{Name: "ignore", Usage: "leave out what `PATTERN` matches in globs and walks (gitignore syntax, relative to base_dir; repeatable; added to [files] ignore)"},
		&cli.BoolFlag{Name: "no-default-ignores", Usage: "keep what the default ignore list leaves out (lock files, .env files, keys, node_modules, build and cache directories)"},
		&cli.BoolFlag{Name: "no-gitignore", Usage: "do not apply .gitignore and .git/info/exclude in globs and walks (a tree inside a repository that ignores it; gitignore = false in [files])"},
		&cli.BoolFlag{Name: "allow-outside", Usage: "read [files], [screenshots], the history file and attachments outside the project directory too (default: only the directories of allow_outside in the user's ctx/config.toml)"},
	}
}

// optionalFlag is a flag whose value is optional: --changed alone, or
// --changed=REF. The flag package takes it without a value, as a boolean.
type optionalFlag struct {
	*cli.GenericFlag
}

// TakesValue is false so that the help shows the flag without a
// placeholder; the usage says how to give the value.
func (f optionalFlag) TakesValue() bool { return false }

// String is the flag's line in the help.
func (f optionalFlag) String() string { return cli.FlagStringer(f) }

// optionalValue is the value of an optionalFlag.
type optionalValue struct{ value string }

func (v *optionalValue) Set(s string) error {
	if s == "true" { // the flag without a value
		s = ""
	}
	v.value = s
	return nil
}
func (v *optionalValue) String() string   { return v.value }
func (v *optionalValue) IsBoolFlag() bool { return true }

func aggregateCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:      "aggregate",
		Usage:     "compose the project files into one markdown context and write it to the next numbered file",
		ArgsUsage: "[PATH|GLOB...]",
		Description: `Reads the files of [files] in ctx.toml (or the paths and globs given as
arguments, which replace them and are relative to the same base_dir: the
project directory unless configured; quote globs), renders each in its view mode and writes
{output_dir}/{namespace}_{NNN}.md with the next free number, then prints its
path; --stdout prints the same document. With [history] the document ends
with its Discussion History, as ctx render does (--no-history leaves it
out: the static prefix). Without [files] paths or arguments it packs the
whole project directory. Globs and directory walks honour .gitignore and
leave out what the default ignore list names (lock files, .env files,
private keys and credentials, node_modules, build and cache directories),
listing on stderr what it left out; a file named explicitly is always read.
A path that names no file (an argument, or an entry of [files]) is an error
that stops the run before anything is written; a glob that matches nothing,
and files that are binary, too large or whose view fails, are reported on
stderr and in the document, and never stop it. Every pack is scanned for
credentials: each one it holds is a warning on stderr, and listed under
"secrets" in --format json (--redact replaces them; --no-scan, or scan =
false in [secrets], turns the scan off). A summary on stderr
ends every run: files, tokens, what the token budget did and the largest
files (--quiet turns it off).

The document is written as it is produced, in order, so memory follows the
largest files, not the project; the numbered file appears only when the run
succeeds. Views and exact token counts are kept in a cache ($CTX_CACHE_DIR,
else ctx in the user cache directory; --cache-dir, --no-cache) under the
hash of the file's bytes: a second run renders nothing again, and the
output is the same with or without it.

Examples:
   ctx aggregate
   ctx aggregate --stdout 'src/**/*.py' README.md
   ctx aggregate --changed=main --stdout   # files changed against main
   ctx aggregate --ignore 'docs/' --stdout
   ctx aggregate --view skeleton --stdout 'src/**/*.go'
   ctx aggregate --focus app.py --stdout
   ctx aggregate --format json --preset review`,
		Flags: append(aggregateFlags(),
			&cli.BoolFlag{Name: "stdout", Usage: "print the markdown instead of writing a file"},
			&cli.BoolFlag{Name: "no-history", Usage: "leave out the Discussion History of [discussion] (the static, cacheable prefix)"},
			&cli.StringFlag{Name: "format", Value: "markdown", Usage: "`FORMAT`: markdown, or json to print the items instead"},
			&cli.StringFlag{Name: "view", Usage: "view `MODE` of the files given as arguments, or of the whole project when it is packed (no arguments, no [files] paths): full, summary, skeleton, outline, none or custom; not masked, whose mask only a [files] entry gives"},
			&cli.StringFlag{Name: "strategy", Usage: "`STRATEGY`: auto, summarize, full or tier3 (default: [files] strategy, else auto)"},
			&cli.StringSliceFlag{Name: "focus", Usage: "Tier 3 focus `FILE` by entry, relative path, base name or absolute path (repeatable)"},
			&cli.StringFlag{Name: "max-tokens", Usage: "token budget `N` of all files together, degrading full → skeleton → outline → summary → omitted, largest first (0 or inf: no limit, as 0 is in every command; default: [files] max_tokens, else no limit)"},
			&cli.StringFlag{Name: "max-file-tokens", Usage: "token cap `N` per file, degrading the same way (0 or inf: no limit; default: [files] max_file_tokens, else no limit)"},
			&cli.BoolFlag{Name: "redact", Usage: "replace each credential with [REDACTED:rule] before views are made (default: redact in [secrets] of ctx.toml)"},
			&cli.BoolFlag{Name: "no-scan", Usage: "do not look for credentials in what is packed (default: scan in [secrets] of ctx.toml, else scan and warn)"},
			optionalFlag{&cli.GenericFlag{Name: "changed", Value: &optionalValue{},
				Usage: "keep only the files that git reports as changed: uncommitted ones (staged, unstaged, untracked), or with --changed=REF those that differ from git revision REF"}},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print no summary and no progress on stderr (warnings still)"},
			estimatorFlag(), cacheDirFlag(), noCacheFlag()),
		Action: func(c *cli.Context) error { return e.aggregate(c) },
	}}
}

// aggregateOptions loads the project and applies --estimator, --preset,
// --ignore, --no-default-ignores and the positional paths (with --view when
// allowed) to its aggregate options. Without files ([files] paths, a preset
// or arguments) it packs the project directory when pack is set
// (aggregate.Options.OrProject), else it is a usage error.
func aggregateOptions(c *cli.Context, args []string, allowView, pack bool) (aggregate.Options, error) {
	est, err := estimator(c)
	if err != nil {
		return aggregate.Options{}, err
	}
	p, err := loadProject(c)
	if err != nil {
		return aggregate.Options{}, err
	}
	o := p.AggregateOptions()
	o.AllowOutside = append(o.AllowOutside, allowOutside(c)...)
	if est != nil {
		o.Estimator = est
	}
	for _, pat := range c.StringSlice("ignore") {
		if err := aggregate.CheckIgnorePattern(pat); err != nil {
			return o, usagef("--ignore: %v", err)
		}
		o.IgnorePatterns = append(o.IgnorePatterns, pat)
	}
	if c.Bool("no-default-ignores") {
		o.NoDefaultIgnores = true
	}
	if c.Bool("no-gitignore") {
		o.NoGitIgnore = true
	}
	if name := c.String("preset"); c.IsSet("preset") {
		if len(args) > 0 {
			return o, usagef("--preset and paths as arguments cannot be used together")
		}
		byName, err := presets.ProjectByName(p)
		if err != nil {
			return o, err
		}
		pr, ok := byName[name]
		if !ok {
			known := "none defined"
			if names := presets.Names(byName); len(names) > 0 {
				known = "known: " + strings.Join(names, ", ")
			}
			return o, usagef("--preset: no preset named %q (%s)", name, known)
		}
		o = pr.Apply(o)
		// a preset may name files this project does not have
		if fc, err := aggregate.CheckFiles(c.Context, o, pr.Files); err != nil {
			return o, err
		} else if len(fc.Missing) > 0 {
			fmt.Fprintf(c.App.ErrWriter, "ctx: warning: preset %s: not found in this project: %s\n", name, fc.MissingText())
		}
	}
	var view aggregate.ViewMode
	if allowView && c.IsSet("view") {
		if view, err = aggregate.ParseViewMode(c.String("view")); err != nil || c.String("view") == "" {
			return o, usagef("--view: must be full, summary, skeleton, outline, masked, none or custom, not %q", c.String("view"))
		}
		if len(args) == 0 && !(pack && len(o.Files) == 0) {
			return o, usagef("--view applies to paths given as arguments, and none was given")
		}
		if err := (aggregate.FileItem{ViewMode: view}).CheckView(); err != nil {
			// no flag gives a mask: one error, not one per file
			return o, usagef("--view %s: %v, which only a [files] entry in %s can give", view, err, config.FileName)
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
		if !pack {
			return o, usagef("no files: set paths in [files] of %s, pass --preset NAME, or give paths as arguments", config.FileName)
		}
		o = o.OrProject()
		for i := range o.Files {
			o.Files[i].ViewMode = view
		}
	}
	return o, nil
}

func (e *env) aggregate(c *cli.Context) error {
	args := c.Args().Slice()
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
	o, err := aggregateOptions(c, args, true, true)
	if err != nil {
		return err
	}
	if c.IsSet("changed") {
		ref := c.Generic("changed").(*optionalValue).value
		if ref == "" {
			// --changed main: main is taken for a path, and git knows it
			// as a revision
			for _, a := range args {
				p := a
				if !filepath.IsAbs(p) {
					p = filepath.Join(o.BaseDir, p)
				}
				if _, err := os.Lstat(p); err != nil && aggregate.IsRevision(c.Context, o.BaseDir, a) {
					return usagef("--changed: %q is a git revision, not a file; to compare with it, write --changed=%s", a, a)
				}
			}
		}
		if o.Changed, err = aggregate.ChangedFiles(c.Context, o.BaseDir, ref); err != nil {
			return fmt.Errorf("--changed: %w", err)
		}
	}
	if strategy != "" {
		o.Strategy = strategy
	}
	o.Focus = append(o.Focus, c.StringSlice("focus")...)
	if c.IsSet("max-tokens") {
		o.MaxTokensAt = "--max-tokens"
	}
	for _, f := range []struct {
		name string
		dst  *measure.Limit
	}{{"max-tokens", &o.MaxTokens}, {"max-file-tokens", &o.MaxFileTokens}} {
		if c.IsSet(f.name) {
			if err := limitFlag(c, f.name, f.dst); err != nil {
				return err
			}
			// 0 is no limit, as --max-tokens 0 is in ctx messages
			*f.dst = f.dst.ZeroIsNone()
		}
	}
	if c.Bool("stdout") || format == "json" {
		o.OutputDir = ""
	}
	if c.IsSet("redact") {
		o.Redact = nil
		if c.Bool("redact") {
			if o.Redact, err = redactScanner(c); err != nil {
				return err
			}
		}
	}
	if o.Redact == nil && !c.Bool("no-scan") {
		// every pack is scanned: a credential is never packed without a word
		p, err := loadProject(c)
		if err != nil {
			return err
		}
		if sc := p.Config.Secrets.Scan; sc == nil || *sc {
			if o.Scan, err = p.Config.Scanner(); err != nil {
				return err
			}
		}
	}
	if format == "markdown" && !c.Bool("no-history") {
		// the history is redacted as the files are
		if o.History, err = historySection(c, o.Estimator, o.Redact); err != nil {
			return err
		}
	}
	quiet := c.Bool("quiet")
	bar := e.progress("aggregating")
	if !quiet {
		o.Progress = bar.update
	}
	e.useCache(c, &o)
	var res *aggregate.Result
	switch {
	case format == "json":
		res, err = aggregate.Run(c.Context, o)
	case c.Bool("stdout"):
		// written as it is produced
		res, err = aggregate.Stream(c.Context, o, e.stdout)
	default:
		res, err = aggregate.Stream(c.Context, o, nil)
	}
	bar.finish()
	if err != nil {
		return err
	}
	e.warnings(res.ItemWarnings())
	e.redactionNote(res.RedactionSummary())
	e.warnings(res.SecretWarnings())
	e.warnings(res.OtherWarnings())
	switch {
	case format == "json":
		err = res.WriteJSON(e.stdout)
	case c.Bool("stdout"):
	default:
		_, err = fmt.Fprintln(e.written(), res.ShownOutputPath())
	}
	if err != nil || quiet || c.Context.Err() != nil {
		return err
	}
	return res.Summary().WriteFitted(e.stderr, terminalWidth(e.stderr))
}

// warnings prints each message as a warning on stderr.
func (e *env) warnings(msgs []string) {
	for _, m := range msgs {
		fmt.Fprintf(e.stderr, "ctx: warning: %s\n", m)
	}
}

// progress is a progress bar on stderr, shown only when stderr is a
// terminal and a run has lasted progressAfter.
type progress struct {
	w     io.Writer
	desc  string
	tty   bool
	start time.Time
	bar   *progressbar.ProgressBar
}

func (e *env) progress(desc string) *progress {
	p := &progress{w: e.stderr, desc: desc, start: time.Now()}
	if f, ok := fileOf(e.stderr); ok {
		// the bar writes to the terminal itself, not through the
		// line filter: it redraws one line
		p.w, p.tty = f, term.IsTerminal(int(f.Fd()))
	}
	return p
}

// update is an aggregate.Options.Progress callback (called one at a time).
func (p *progress) update(done, total int) {
	if !p.tty || (p.bar == nil && time.Since(p.start) < progressAfter) {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetRenderBlankState(true), // shown at once
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond))
	}
	_ = p.bar.Set(done)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// cacheDirFlag and noCacheFlag choose the cache of views and token counts,
// for the commands that render [files].
func cacheDirFlag() cli.Flag {
	return &cli.StringFlag{Name: "cache-dir", Usage: "keep views and token counts in `DIR` (default: $" + cache.EnvDir + ", else ctx in the user cache directory)"}
}

func noCacheFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-cache", Usage: "neither read nor write the cache of views and token counts"}
}

// useCache sets o.Cache to the cache of the flags ([openCache]).
func (e *env) useCache(c *cli.Context, o *aggregate.Options) {
	if d := openCache(c); d != nil {
		o.Cache = d
	}
}

// openCaches are the caches a run of ctx opened, which it closes (trims)
// when the command ends, whatever the command: [openCache] adds to the
// set that [runApp] puts in the context.
type openCaches struct {
	mu   sync.Mutex
	dirs []*cache.Dir
}

type openCachesKey struct{}

func (s *openCaches) add(d *cache.Dir) {
	s.mu.Lock()
	s.dirs = append(s.dirs, d)
	s.mu.Unlock()
}

// close closes the caches; a cache that cannot be trimmed changes nothing
// of the output. It says on stderr when a cache held folders or entries
// that were not the user's alone (another owner, writable by others): they
// were not used, and the user should look at who wrote them.
func (s *openCaches) close(stderr io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.dirs {
		if w := d.UntrustedWarning(); w != "" {
			fmt.Fprintf(stderr, "ctx: warning: %s\n", w)
		}
		_ = d.Close()
	}
	s.dirs = nil
}

// hasFlag reports whether the command being run defines the flag name.
func hasFlag(c *cli.Context, name string) bool {
	if c.Command == nil {
		return false
	}
	for _, f := range c.Command.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// openCache opens the cache that --cache-dir, $CTX_CACHE_DIR or the user
// cache directory names, to be closed when the command ends; nil with
// --no-cache. A cache that cannot be
// opened is a warning when it was named, and silently none at the default
// place: the output is the same without it.
func openCache(c *cli.Context) *cache.Dir {
	if c.Bool("no-cache") || !hasFlag(c, "cache-dir") {
		// a command without the flags (ctx discover) renders no view
		return nil
	}
	dir, named := c.String("cache-dir"), c.IsSet("cache-dir")
	if !named {
		named = os.Getenv(cache.EnvDir) != ""
		var err error
		if dir, err = cache.DefaultDir(); err != nil {
			return nil
		}
	}
	d, err := cache.Open(dir, 0)
	if err != nil {
		if named {
			fmt.Fprintf(c.App.ErrWriter, "ctx: warning: %v; running without it\n", err)
		}
		return nil
	}
	if s, ok := c.Context.Value(openCachesKey{}).(*openCaches); ok {
		s.add(d)
	}
	return d
}
