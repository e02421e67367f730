//go:build unix

package cache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ctxaudit/ctx/internal/testwait"
)

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// A FIFO where an entry should be would block a plain open until a writer
// comes: Get misses at once, and Put replaces it with the entry.
func TestFIFOAtAnEntryMisses(t *testing.T) {
	d := open(t, t.TempDir(), 0)
	mkfifo(t, entryPath(d, "k"))
	done := make(chan bool, 1)
	go func() { _, ok := d.Get("k"); done <- ok }()
	if testwait.Recv(t, done, "Get of a FIFO at the entry's path") {
		t.Fatal("a FIFO at the entry's path is a hit")
	}
	d.Put("k", []byte("value"))
	go func() { _, ok := d.Get("k"); done <- ok }()
	if !testwait.Recv(t, done, "Get after Put") {
		t.Fatal("Put did not replace the FIFO")
	}
}

// A FIFO where the ledger should be is no ledger: Close trims and writes
// one, without blocking.
func TestFIFOAtTheLedger(t *testing.T) {
	dir := t.TempDir()
	d := open(t, dir, 0)
	mkfifo(t, filepath.Join(d.Path(), ledgerName))
	d.Put("k", []byte("value"))
	done := make(chan error, 1)
	go func() { done <- d.Close() }()
	if err := testwait.Recv(t, done, "Close with a FIFO as the ledger"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := d.readLedger(); !ok {
		t.Fatal("no ledger after Close")
	}
}
