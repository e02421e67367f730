// Package goroutine carries a panic of a worker goroutine back to the
// goroutine that waits for the workers. An unrecovered panic in a worker
// ends the process at once (exit 2, the usage-error code of ctx, without
// removing anything); carried back, it is raised again where the caller
// can recover it, with the worker's stack.
package goroutine

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// Panic is a panic of a worker, raised again by [Catcher.Repanic].
type Panic struct {
	Value any    // what the worker panicked with
	Stack []byte // the worker's stack when it panicked
}

func (p *Panic) Error() string {
	return fmt.Sprintf("panic in a worker goroutine: %v\n\n%s", p.Value, p.Stack)
}

// Unwrap returns the panic value when it is an error.
func (p *Panic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// Catcher records the first panic of the functions run with [Catcher.Do].
// The zero value is ready to use and safe for concurrent use.
type Catcher struct {
	mu sync.Mutex
	p  *Panic
}

// Do runs fn, recovering a panic: the first one is recorded and Do returns
// normally, so a worker goes on with its next item.
func (c *Catcher) Do(fn func()) {
	defer func() {
		if v := recover(); v != nil {
			c.mu.Lock()
			if c.p == nil {
				c.p = &Panic{Value: v, Stack: debug.Stack()}
			}
			c.mu.Unlock()
		}
	}()
	fn()
}

// Repanic panics with the recorded *Panic, if any. Call it from the
// waiting goroutine once the workers are done.
func (c *Catcher) Repanic() {
	c.mu.Lock()
	p := c.p
	c.mu.Unlock()
	if p != nil {
		panic(p)
	}
}
