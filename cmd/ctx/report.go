package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/report"
)

// defaultReport is where ctx report writes without -o.
const defaultReport = "ctx-report.html"

func reportCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:  "report",
		Usage: "write a self-contained HTML page of where the context's tokens go",
		Description: "A treemap of the tokens (instruction sources, what the agent loads by itself, files by\n" +
			"directory, screenshots, the history), the budgets and what they cut, the largest sections\n" +
			"of the instruction files, the findings, and the manifest's hashes. No network, no script.\n\n" +
			"Examples:\n" +
			"   ctx report                                  # writes ctx-report.html\n" +
			"   ctx report --profile claude -o /tmp/context.html\n" +
			"   ctx report --manifest ctx.manifest.json     # a stored manifest",
		ArgsUsage: " ",
		Flags: append(commonFlags(), estimatorFlag(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: defaultReport, Usage: "write the page to `FILE` (atomically)"},
			&cli.StringFlag{Name: "manifest", Usage: "report on a stored manifest `FILE` instead of building one"},
			&cli.StringFlag{Name: "layer-tokens", Usage: "`N` tokens above which a source is oversized (or inf)"},
			&cli.StringFlag{Name: "total-tokens", Usage: "`N` tokens above which the total is oversized (or inf)"}),
		Action: func(c *cli.Context) error { return e.report(c) },
	}}
}

func (e *env) report(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	var p *config.Project
	var m *manifest.Manifest
	var err error
	if file := c.String("manifest"); file != "" {
		m, err = storedManifest(c, file)
		if err == nil {
			// [audit] thresholds still come from the configuration, if any
			p, err = loadProject(c)
		}
	} else {
		p, m, err = build(c, func(o *manifest.Options) { ignoreOutput(o, c.String("output")) })
	}
	if err != nil {
		return err
	}
	th, err := thresholds(c, p)
	if err != nil {
		return err
	}
	sc, err := p.Config.Scanner()
	if err != nil {
		return err
	}
	rep, err := audit.RunContext(c.Context, m, audit.Options{Thresholds: th, Secrets: sc})
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := report.Write(c.Context, &b, m, rep, report.Options{Home: p.Home, ReadFile: sourceReader(p)}); err != nil {
		return err
	}
	out := c.String("output")
	if err := e.output(c, b.Bytes()); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "wrote %s (%s)\n", mdtext.Escape(out), size(b.Len()))
	return err
}

// ignoreOutput leaves the page out of [files] when it lies below their
// base directory: a glob such as "**" would otherwise aggregate the page
// of the previous run, and the same project would not give the same page
// twice. A file named explicitly is still read.
func ignoreOutput(o *manifest.Options, out string) {
	if o.Files == nil || out == "" {
		return
	}
	rel, err := filepath.Rel(fileio.RealPath(o.Files.BaseDir), fileio.RealPath(out))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	o.Files.IgnorePatterns = append(o.Files.IgnorePatterns, "/"+literalPattern(filepath.ToSlash(rel)))
}

// literalPattern is a gitignore pattern that matches the path p and
// nothing else: the characters that patterns give a meaning to are
// escaped.
func literalPattern(p string) string {
	var b strings.Builder
	for i, r := range p {
		if strings.ContainsRune(`\*?[`, r) || (r == ' ' && strings.TrimRight(p[i:], " ") == "") {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sourceReader reads a source file as the manifest's build does, its path
// as a manifest records it (relative ones against the project directory):
// the report lists the sections of the files the agent loads by itself.
func sourceReader(p *config.Project) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		st, b := manifest.ReadSource(manifest.ResolvePath(path, p.Dir, p.Home), 0)
		if b == nil {
			return nil, fmt.Errorf("%s", st)
		}
		return b, nil
	}
}

// size is a byte count for people: "812 bytes", "48 KB", "1.2 MB".
func size(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		return fmt.Sprintf("%d KB", (n+500)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
