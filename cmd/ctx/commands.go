package main

import "github.com/urfave/cli/v2"

// commands lists every subcommand. Each is built by a constructor in its own
// file (coreCommands in core.go, and so on); to add commands, append their
// constructor's result here, one line per file.
func commands(e *env) []*cli.Command {
	var cs []*cli.Command
	cs = append(cs, coreCommands(e)...)
	cs = append(cs, aggregateCommands(e)...)
	cs = append(cs, sliceCommands(e)...)
	cs = append(cs, statsCommands(e)...)
	cs = append(cs, historyCommands(e)...)
	cs = append(cs, initCommands(e)...)
	cs = append(cs, provenanceCommands(e)...)
	cs = append(cs, presetCommands(e)...)
	cs = append(cs, reportCommands(e)...)
	cs = append(cs, mcpCommands(e)...)
	cs = append(cs, observeCommands(e)...)
	return cs
}
