package main

import (
	"bytes"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/config"
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
			"   ctx report --manifest ctx.manifest.json     # a stored manifest\n" +
			"   ctx report --observed turn.json             # with what the agent really sent (ctx observe -o)",
		ArgsUsage: " ",
		Flags: append(commonFlags(), estimatorFlag(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: defaultReport, Usage: "write the page to `FILE` (atomically)"},
			&cli.StringFlag{Name: "manifest", Usage: "report on a stored manifest `FILE` instead of building one"},
			&cli.StringFlag{Name: "observed", Usage: "add what the agent really sent, from an observation `FILE` of ctx observe -o"},
			&cli.StringFlag{Name: "layer-tokens", Usage: "`N` tokens above which a source is oversized (or inf)"},
			&cli.StringFlag{Name: "total-tokens", Usage: "`N` tokens above which the total is oversized (or inf)"},
			&cli.BoolFlag{Name: "redact", Usage: "replace each credential, in the texts and the names the page shows, with [REDACTED:rule] (default: redact in [secrets] of ctx.toml)"}),
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
		p, m, err = build(c, func(o *manifest.Options) {
			if o.Files != nil {
				// the page is not read back by the next run
				o.Files.IgnoreOutput(c.String("output"))
			}
		})
	}
	if err != nil {
		return err
	}
	rep, err := runAudit(c, p, m)
	if err != nil {
		return err
	}
	if c.IsSet("observed") {
		rec, err := readObservation(c)
		if err != nil {
			return err
		}
		if err := rep.AddObserved(rec); err != nil {
			return fmt.Errorf("%s: %w", c.String("observed"), err)
		}
		if w := rep.ObservedElsewhere(rec); w != "" {
			fmt.Fprintf(e.stderr, "ctx: warning: %s\n", w)
		}
	}
	var b bytes.Buffer
	if err := report.Write(c.Context, &b, m, rep, report.Options{Home: p.Home, ReadFile: report.SourceReader(p.Dir, p.Home)}); err != nil {
		return err
	}
	out := c.String("output")
	if err := e.output(c, b.Bytes()); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.written(), "wrote %s (%s)\n", p.ShownPath(out), size(b.Len()))
	return err
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
