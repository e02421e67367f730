// Command runtime shows how an agent runtime embeds ctx: it loads a
// project's configuration through the public API and prints exactly what
// `ctx manifest`, `ctx render` or `ctx audit --format json` print for the
// same directory.
//
//	go run ./examples/runtime -C DIR manifest|render|audit
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/render"
)

func main() {
	dir := flag.String("C", "", "project `DIR` (default: the current directory)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: runtime [-C DIR] manifest|render|audit")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background(), *dir, flag.Arg(0), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "runtime:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, dir, what string, w io.Writer) error {
	// ctx.toml of the project (none is fine), with the defaults of the
	// command: home directory and environment of this process
	p, err := config.LoadProject(config.ProjectOptions{Dir: dir})
	if err != nil {
		return err
	}
	// what the file accepts but should say otherwise (an old table name)
	for _, warning := range p.Config.Warnings {
		fmt.Fprintln(os.Stderr, "runtime: warning:", warning)
	}
	// sources, aggregated files, screenshots and history, as `ctx manifest`
	m, err := manifest.Build(ctx, p.ManifestOptions())
	if err != nil {
		return err
	}
	switch what {
	case "manifest":
		return manifest.Encode(w, m)
	case "render":
		_, err := io.WriteString(w, render.Text(m))
		return err
	case "audit":
		// the thresholds and the secret scanner (with the allowlist) of
		// ctx.toml, as ctx audit composes them
		ao, err := p.AuditOptions()
		if err != nil {
			return err
		}
		rep, err := audit.RunContext(ctx, m, ao)
		if err != nil {
			return err
		}
		return audit.Write(w, rep, audit.FormatJSON, audit.WriteOptions{Home: p.Home})
	}
	return fmt.Errorf("unknown command %q (want manifest, render or audit)", what)
}
