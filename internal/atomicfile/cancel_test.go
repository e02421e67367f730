package atomicfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cancelAfter is a context that is done after its Err has been asked n
// times: a write stopped between two chunks.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// A write stopped by its context, at any point, replaces nothing and
// leaves no temporary file; an existing file keeps its content.
func TestWriteStoppedLeavesNothing(t *testing.T) {
	data := []byte(strings.Repeat("x", 5*chunk+10))
	// one look before the temporary file, one per chunk (6), one before the rename
	for n := 0; n < 8; n++ {
		dir := t.TempDir()
		p := filepath.Join(dir, "out.md")
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := &cancelAfter{Context: context.Background(), n: n}
		err := WriteFile(ctx, p, data, 0o644)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped after %d looks: %v", n, err)
		}
		if b, _ := os.ReadFile(p); string(b) != "old" {
			t.Errorf("stopped after %d looks: the file has %d bytes", n, len(b))
		}
		assertOnly(t, dir, "out.md")

		ctx = &cancelAfter{Context: context.Background(), n: n}
		fresh := filepath.Join(dir, "new.md")
		if err := CreateExclusive(ctx, fresh, data, 0o644); !errors.Is(err, context.Canceled) {
			t.Fatalf("CreateExclusive stopped after %d looks: %v", n, err)
		}
		assertOnly(t, dir, "out.md")
	}
}

// A panic while the data is written (here: in the context, once the
// temporary file exists) still removes the temporary file.
func TestWritePanicLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	for _, write := range []func(context.Context, string, []byte, os.FileMode) error{WriteFile, CreateExclusive} {
		panicked := false
		func() {
			defer func() { panicked = recover() != nil }()
			write(&panicky{Context: context.Background(), n: 1}, filepath.Join(dir, "out.md"), []byte("data"), 0o644)
		}()
		if !panicked {
			t.Fatal("no panic")
		}
		assertOnly(t, dir)
	}
}

// panicky panics when its Err is asked more than n times.
type panicky struct {
	context.Context
	n int
}

func (p *panicky) Err() error {
	if p.n--; p.n < 0 {
		panic("boom")
	}
	return nil
}

// RemoveTemps removes the temporary files of writes in progress, and only
// those.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	f, err := tempFile(filepath.Join(dir, "out.md"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.WriteFile(filepath.Join(dir, "keep.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	RemoveTemps()
	temps.Delete(f.Name())
	assertOnly(t, dir, "keep.md")
}
