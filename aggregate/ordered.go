package aggregate

import (
	"context"
	"sync"

	"github.com/ctxaudit/ctx/internal/goroutine"
)

// windowPerWorker bounds the results that wait to be emitted: at most
// this many per worker (and at least minWindow) are in flight, done or
// not, so that memory follows the largest files in the window, never the
// corpus.
const (
	windowPerWorker = 4
	minWindow       = 8
)

// ordered runs work(ctx, i) for i in [0, n) on at most workers goroutines
// and calls emit(i, v) with the results in index order, from the calling
// goroutine, as soon as each is ready: a bounded reorder window, which
// hands out index i only once i - window results have been emitted.
// progress, when set, is called after each work, one call at a time.
//
// It stops at the first error of emit (returned) or when ctx is done (its
// error); work is then given a done context and should return promptly.
// A panic of work is raised again in the caller once every worker is done.
func ordered[T any](ctx context.Context, n, workers int, progress func(done, total int), work func(ctx context.Context, i int) T, emit func(i int, v T) error) error {
	if n == 0 {
		return ctx.Err()
	}
	workers = max(1, min(workers, n))
	window := min(n, max(minWindow, windowPerWorker*workers))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type result struct {
		v  T
		ok bool // false: work panicked
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		done   int
		panics goroutine.Catcher
		next   = make(chan int)
		free   = make(chan struct{}, window) // a token per index in flight
		slots  = make([]chan result, window)
	)
	for i := range slots {
		slots[i] = make(chan result, 1)
	}
	wg.Add(1)
	go func() { // the dispatcher: indices in order, window permitting
		defer wg.Done()
		defer close(next)
		for i := 0; i < n; i++ {
			select {
			case free <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var r result
				panics.Do(func() { r.v = work(ctx, i); r.ok = true })
				if progress != nil && r.ok {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
				// never blocks: the slot's previous result was taken
				// before index i was handed out
				slots[i%window] <- r
			}
		}()
	}
	var err error
	for i := 0; i < n && err == nil; i++ {
		select {
		case r := <-slots[i%window]:
			if !r.ok {
				cancel()
				wg.Wait()
				panics.Repanic()
			}
			if err = emit(i, r.v); err == nil {
				<-free
			}
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	cancel()
	wg.Wait()
	panics.Repanic()
	return err
}
