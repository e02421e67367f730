package aggregate

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// Results that finish out of order are emitted in index order, and no
// more than the window are ever in flight, done or not.
func TestOrderedEmitsInOrderWithinTheWindow(t *testing.T) {
	for _, workers := range []int{1, 2, 5} {
		const n = 200
		window := max(minWindow, windowPerWorker*workers)
		var inFlight, most atomic.Int64
		next := 0
		err := ordered(context.Background(), n, workers, nil, func(_ context.Context, i int) int {
			if v := inFlight.Add(1); v > most.Load() {
				most.Store(v)
			}
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			return i * i
		}, func(i, v int) error {
			inFlight.Add(-1)
			if i != next || v != i*i {
				t.Fatalf("emitted %d (%d), want %d", i, v, next)
			}
			next++
			return nil
		})
		if err != nil || next != n {
			t.Fatalf("workers %d: %v after %d", workers, err, next)
		}
		if most.Load() > int64(window) {
			t.Errorf("workers %d: %d in flight, window %d", workers, most.Load(), window)
		}
	}
}

// An error of emit stops the run: nothing more is emitted, and the
// workers are given a done context.
func TestOrderedStopsOnEmitError(t *testing.T) {
	boom := errors.New("boom")
	emitted := 0
	err := ordered(context.Background(), 1000, 3, nil, func(ctx context.Context, i int) int { return i }, func(i, v int) error {
		emitted++
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || emitted != 11 {
		t.Fatalf("err %v after %d emitted", err, emitted)
	}
}

// A done context stops the run with its error.
func TestOrderedCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	err := ordered(ctx, 1000, 2, func(done, total int) {
		if done == 5 {
			cancel()
		}
	}, func(ctx context.Context, i int) int { return i }, func(int, int) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// A panic of a worker reaches the caller once every worker is done.
func TestOrderedPanic(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	ordered(context.Background(), 50, 3, nil, func(_ context.Context, i int) int {
		if i == 7 {
			panic("boom")
		}
		return i
	}, func(int, int) error { return nil })
}
