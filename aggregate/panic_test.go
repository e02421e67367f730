package aggregate

import (
	"context"
	"errors"
	"testing"

	"github.com/ctxaudit/ctx/internal/goroutine"
)

var errBoom = errors.New("boom")

// panicEngine panics where View does not recover: in Detect.
type panicEngine struct{ TextEngine }

func (panicEngine) Detect(string) (string, bool) { panic(errBoom) }

// A panic in a file worker does not end the process: it is raised again in
// the caller of Run, which can recover it (cmd/ctx exits 3).
func TestWorkerPanicReachesTheCaller(t *testing.T) {
	dir := tree(t, map[string]string{"a.py": "A = 1\n", "b.py": "B = 2\n", "c.py": "C = 3\n"})
	defer func() {
		p, ok := recover().(*goroutine.Panic)
		if !ok || !errors.Is(p, errBoom) {
			t.Fatalf("recovered %v, want the worker's panic", p)
		}
	}()
	Run(context.Background(), Options{BaseDir: dir, Files: []FileItem{{Path: "*.py"}}, Engine: panicEngine{}, Concurrency: 2})
	t.Fatal("Run returned")
}
