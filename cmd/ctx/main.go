// Command ctx shows exactly what an AI agent is given as context, where
// every byte came from and what it costs.
//
// Output rules: results go to stdout; everything else goes to stderr as
// "ctx: error: ..." or "ctx: hint: ...". Exit codes: 0 ok, 1 a check failed,
// 2 a usage or input error, 3 an internal error (a crash, with its stack)
// or a system error (an output that could not be written), 130 and 143
// interrupted by SIGINT and SIGTERM. A command that writes a file writes
// it atomically, and writes nothing when it fails or is interrupted.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/ctxaudit/ctx/internal/atomicfile"
)

func main() {
	os.Exit(execute(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// interruptGrace is how long an interrupted run has to stop by itself
// (every long operation watches its context; a write stops within a
// megabyte) before ctx exits anyway, for a run blocked where no context
// reaches, such as a read of a terminal or a pipe on stdin.
const interruptGrace = 3 * time.Second

// execute runs ctx as a process does: SIGINT, SIGTERM and SIGHUP cancel
// the run's context, and the run then removes what it was writing and
// exits 130, 143 or 129. (SIGQUIT keeps Go's action, a goroutine dump:
// what it is sent for.) A second signal ends the process at once (the default action); a
// run that has not stopped after interruptGrace is abandoned, its
// temporary files removed.
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 && args[1] == "observe" {
		// ctx observe passes the signals on to the command it runs, and
		// ends when the command does
		return run(context.Background(), args, stdin, stdout, stderr)
	}
	ctx, stop := notifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, stdin, stdout, stderr) }()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
	}
	stop() // the next signal takes its default action
	timer := time.NewTimer(interruptGrace)
	defer timer.Stop()
	select {
	case code := <-done:
		return code
	case <-timer.C:
		atomicfile.RemoveTemps()
		sig := interruptedBy(ctx)
		if sig == nil { // cannot happen: only a signal cancels ctx before stop
			sig = &interrupted{syscall.SIGTERM}
		}
		fmt.Fprintf(stderr, "ctx: error: %v; stopped after %v\n", sig, interruptGrace)
		return sig.code()
	}
}

// interrupted is the cause of the context of a run that a signal stopped.
type interrupted struct{ sig os.Signal }

func (i *interrupted) Error() string { return "interrupted (" + i.sig.String() + ")" }

// code is the exit code of a process ended by the signal: 128 + its number.
func (i *interrupted) code() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// interruptedBy returns the signal that cancelled ctx, or nil.
func interruptedBy(ctx context.Context) *interrupted {
	i, _ := context.Cause(ctx).(*interrupted)
	return i
}

// notifyContext is signal.NotifyContext with the signal kept as the
// context's cause (an *interrupted), for the exit code. stop restores the
// signals' default action and ends the watching goroutine.
func notifyContext(parent context.Context, sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case s := <-ch:
			cancel(&interrupted{s})
		case <-quit:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(quit)
			wg.Wait()
			cancel(context.Canceled)
		})
	}
}
