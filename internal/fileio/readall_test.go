package fileio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// panicReader tells its size and must not be read.
type panicReader struct{ n int }

func (r panicReader) Len() int                 { return r.n }
func (r panicReader) Read([]byte) (int, error) { panic("read") }

// ReadAll refuses a reader that says it is too large before reading it,
// and reads one that does not say up to the limit.
func TestReadAll(t *testing.T) {
	b, err := ReadAll(strings.NewReader("hello"), 5)
	if err != nil || string(b) != "hello" {
		t.Fatalf("ReadAll: %q, %v", b, err)
	}
	var tl *TooLargeError
	if _, err := ReadAll(panicReader{1 << 30}, 1<<20); !errors.As(err, &tl) || tl.Size != 1<<30 || Describe(err) != "larger than 1048576 bytes" {
		t.Errorf("a reader of 1 GiB: %v", err)
	}
	// a pipe says nothing: it is read to one byte past the limit
	if _, err := ReadAll(io.MultiReader(strings.NewReader("abc"), strings.NewReader("def")), 5); !errors.As(err, &tl) || Describe(err) != "larger than 5 bytes" {
		t.Errorf("six bytes of a pipe: %v (%s)", err, Describe(err))
	}
	if b, err := ReadAll(io.MultiReader(strings.NewReader("abc")), 0); err != nil || string(b) != "abc" {
		t.Errorf("no limit: %q, %v", b, err)
	}
	// a file: what is left of it from its offset
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(4, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadAll(f, 6); err != nil || string(b) != "456789" {
		t.Errorf("the rest of a file: %q, %v", b, err)
	}
	if b, err := ReadAll(bytes.NewBuffer(nil), 1); err != nil || len(b) != 0 {
		t.Errorf("empty: %q, %v", b, err)
	}
}

// Standard input redirected from a 2 GiB sparse file is refused by its
// size, without being read.
func TestReadAllSparseFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "history.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(2 << 30); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err = ReadAll(f, 64<<20)
	runtime.ReadMemStats(&m1)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 2<<30 {
		t.Fatalf("err %v, want TooLargeError of %d bytes", err, int64(2<<30))
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing it allocated %d bytes", alloc)
	}
}
