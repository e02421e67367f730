package fileio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctxaudit/ctx/internal/testwait"
)

func TestReadRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, st, err := Read(p, 5)
	if err != nil || string(b) != "hello" || st.Size() != 5 {
		t.Fatalf("Read: %q, %v", b, err)
	}
	if _, _, err := Read(p, 4); !errors.Is(err, ErrTooLarge) || Describe(err) != "larger than 4 bytes" {
		t.Errorf("over the limit: %v (%s)", err, Describe(err))
	}
	if _, _, err := Read(filepath.Dir(p), 0); !errors.Is(err, ErrIsDir) {
		t.Errorf("a directory: %v", err)
	}
	if _, _, err := Read(p+".missing", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	root, err := os.OpenRoot(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if b, _, err := ReadIn(root, "a.txt", 0); err != nil || string(b) != "hello" {
		t.Errorf("ReadIn: %q, %v", b, err)
	}
	if _, _, err := ReadIn(root, "../x", 0); err == nil {
		t.Error("ReadIn left its root")
	}
}

// A 2 GiB sparse file is refused by its size, before a byte is read
// (the process's own count of bytes read says so, where the kernel keeps
// one), and without allocating its size.
func TestSparseFileRefusedUnread(t *testing.T) {
	p := filepath.Join(t.TempDir(), "AGENTS.md")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Truncate(p, 2<<30); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	read0, counted := testwait.ProcIO()
	_, st, err := Read(p, 64<<20)
	read1, _ := testwait.ProcIO()
	runtime.ReadMemStats(&m1)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 2<<30 || st == nil {
		t.Fatalf("err %v, want TooLargeError of %d bytes", err, int64(2<<30))
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing it allocated %d bytes", alloc)
	}
	if counted && read1-read0 > 1<<20 {
		t.Errorf("refusing it read %d bytes", read1-read0)
	}
}
