package main

import (
	"context"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/mcpserver"
)

func mcpCommands(e *env) []*cli.Command {
	return []*cli.Command{{
		Name:      "mcp",
		Usage:     "serve ctx to agents over the Model Context Protocol (stdio)",
		ArgsUsage: " ",
		Description: `Runs an MCP server on standard input and output for the project
directory, as agents start local servers. Its tools are audit, render,
pack, verify and stats, each the library call behind the command of the
same job (pack is ctx aggregate); its resources are ctx://manifest and the
manifest JSON Schema. Paths given to the tools must lie in the project
directory. The model is a third party: every text the tools and the
manifest resource return has its credentials replaced by
[REDACTED:rule], and the notes of render and pack say how many were
replaced and where. A call may ask for redact: false only when the
server was started with --allow-unredacted. A line of input that is not
a JSON-RPC message is answered with a JSON-RPC error, and the server
reads on. The server ends when the client closes its input, or on
SIGINT or SIGTERM (exit 130 or 143).

Examples:
   claude mcp add ctx -- ctx mcp
   ctx mcp -C ~/src/service --config ~/src/service/ctx.toml`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "project-dir", Aliases: []string{"C"}, Usage: "project `DIR` (default: the current directory)"},
			&cli.StringFlag{Name: "config", Usage: "configuration `FILE` (default: DIR/ctx.toml when it exists)"},
			&cli.BoolFlag{Name: "allow-unredacted", Usage: "let a call of render or pack ask for redact: false, which sends credentials to the model (default: refused)"},
			cacheDirFlag(), noCacheFlag(),
		},
		Action: func(c *cli.Context) error { return e.mcp(c) },
	}}
}

func (e *env) mcp(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("%s takes no arguments, got %q", c.Command.Name, c.Args().First())
	}
	if c.IsSet("project-dir") && discover.Blank(c.String("project-dir")) {
		return usagef("--project-dir: must not be empty")
	}
	if c.IsSet("config") && strings.TrimSpace(c.String("config")) == "" {
		return usagef("--config: must not be empty")
	}
	// the server's replies have no place for a warning of ctx.toml: it
	// goes to stderr once, as the other commands print it (an error of
	// the file is New's to report)
	_, _ = loadProject(c)
	o := mcpserver.Options{Dir: c.String("project-dir"), Config: c.String("config"), AllowUnredacted: c.Bool("allow-unredacted")}
	if d := openCache(c); d != nil {
		o.Cache = d
	}
	srv, err := mcpserver.New(o)
	if err != nil {
		return err
	}
	if err := mcpserver.Serve(c.Context, srv, e.stdin, e.stdout); err != nil {
		return err
	}
	// Serve ends normally on a signal; the run is interrupted all the
	// same, and exits 128 + the signal's number as every command does
	return context.Cause(c.Context)
}
