// Command ctx shows exactly what an AI agent is given as context, where
// every byte came from and what it costs.
//
// Output rules: results go to stdout; everything else goes to stderr as
// "ctx: error: ..." or "ctx: hint: ...". Exit codes: 0 ok, 1 a check failed,
// 2 a usage or input error. A command that writes a file writes it
// atomically, and writes nothing when it fails.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
