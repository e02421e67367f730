package atomicfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Writer puts nothing in place until Commit: readers see the old file
// while it writes, and the new one after.
func TestWriterCommit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.md")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Create(bg, p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, part := range []string{"a", strings.Repeat("b", 2*chunk+1), "c"} {
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != "old" {
			t.Fatalf("the file changed before Commit: %d bytes", len(b))
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	b, _ := os.ReadFile(p)
	if len(b) != 2*chunk+3 || b[0] != 'a' || b[len(b)-1] != 'c' {
		t.Fatalf("committed %d bytes", len(b))
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the old file's 0600", st.Mode().Perm())
	}
	assertOnly(t, dir, "out.md")
}

// A Writer closed without Commit, or stopped by its context mid-way,
// leaves the old file and no temporary file.
func TestWriterAbandoned(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.md")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Create(bg, p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("partial"))
	w.Close()
	ctx, cancel := context.WithCancel(bg)
	w, err = Create(ctx, p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("partial"))
	cancel()
	if _, err := w.Write([]byte("more")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write after cancel: %v", err)
	}
	if err := w.Commit(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit after cancel: %v", err)
	}
	w.Close()
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("the file has %q", b)
	}
	assertOnly(t, dir, "out.md")
}

// Link claims a name that does not exist yet, and can try another.
func TestWriterLink(t *testing.T) {
	dir := t.TempDir()
	taken := filepath.Join(dir, "n_001.md")
	if err := os.WriteFile(taken, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := CreateTemp(bg, dir, "n.md", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Write([]byte("second"))
	if err := w.Link(taken); !errors.Is(err, os.ErrExist) {
		t.Fatalf("Link to a taken name: %v", err)
	}
	if err := w.Link(filepath.Join(dir, "n_002.md")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "n_002.md")); string(b) != "second" {
		t.Fatalf("n_002.md has %q", b)
	}
	assertOnly(t, dir, "n_001.md", "n_002.md")
}
