package aggregate

import (
	"context"
	"sync"
)

// parseGate bounds the bytes of source that the workers of a run parse at
// once. A parse's syntax tree, and the binding's nodes for it, take a
// hundred bytes and more per byte of source, so two of the largest files
// parsed side by side, not the corpus, would set the peak; a file as large
// as the gate is parsed alone.
const parseGate = 2 << 20

// gate is a weighted semaphore that a context can stop waiting on.
type gate struct {
	mu   sync.Mutex
	free int
	wake chan struct{} // closed when bytes are released
}

func newGate(size int) *gate { return &gate{free: size, wake: make(chan struct{})} }

// weight is what a parse of n bytes takes of the gate: n, at most all.
func weight(n int) int { return max(1, min(n, parseGate)) }

// acquire waits for n bytes of the gate (n at most its size), or for ctx.
func (g *gate) acquire(ctx context.Context, n int) error {
	n = weight(n)
	for {
		g.mu.Lock()
		if g.free >= n {
			g.free -= n
			g.mu.Unlock()
			return nil
		}
		w := g.wake
		g.mu.Unlock()
		select {
		case <-w:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release gives n bytes back (what acquire took for n).
func (g *gate) release(n int) {
	g.mu.Lock()
	g.free += weight(n)
	close(g.wake)
	g.wake = make(chan struct{})
	g.mu.Unlock()
}
