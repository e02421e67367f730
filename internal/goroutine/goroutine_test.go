package goroutine

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
)

func TestCatcher(t *testing.T) {
	var c Catcher
	var wg sync.WaitGroup
	done := make([]bool, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Do(func() {
				if i == 3 {
					panic(io.ErrUnexpectedEOF)
				}
				done[i] = true
			})
		}()
	}
	wg.Wait()
	for i, d := range done {
		if d == (i == 3) {
			t.Errorf("worker %d done: %v", i, d)
		}
	}
	defer func() {
		p, ok := recover().(*Panic)
		if !ok || p.Value != io.ErrUnexpectedEOF || !errors.Is(p, io.ErrUnexpectedEOF) {
			t.Fatalf("Repanic raised %v", p)
		}
		if !strings.Contains(p.Error(), "goroutine_test.go") {
			t.Errorf("no worker stack in %q", p.Error())
		}
	}()
	c.Repanic()
	t.Fatal("Repanic returned")
}

func TestCatcherNoPanic(t *testing.T) {
	var c Catcher
	c.Do(func() {})
	c.Repanic() // nothing to raise
}
