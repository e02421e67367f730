package history

import (
	"context"
	"errors"
	"testing"

	"github.com/ctxaudit/ctx/internal/goroutine"
)

type panicResolver struct{}

var errBoom = errors.New("boom")

func (panicResolver) Read(context.Context, string) (string, error) { panic(errBoom) }

// A resolver that panics in a reading goroutine does not end the process:
// the panic is raised again in the caller of Build, which can recover it.
func TestResolverPanicReachesTheCaller(t *testing.T) {
	m := withFile(withFile(user("1"), file("a.txt", "a")), file("b.txt", "b"))
	defer func() {
		p, ok := recover().(*goroutine.Panic)
		if !ok || !errors.Is(p, errBoom) {
			t.Fatalf("recovered %v, want the resolver's panic", p)
		}
	}()
	Build(context.Background(), []Message{m}, Options{AttachmentResolver: panicResolver{}})
	t.Fatal("Build returned")
}
