//go:build unix

package fileio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/ctxaudit/ctx/internal/testwait"
)

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// A FIFO with no writer would block a plain open forever; Read refuses it
// at once, directly and through a symbolic link.
func TestReadFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	mkfifo(t, p)
	if err := os.Symlink("fifo", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for name, read := range map[string]func() error{
		"path":    func() error { _, _, err := Read(p, 0); return err },
		"link":    func() error { _, _, err := Read(filepath.Join(dir, "link"), 0); return err },
		"ReadIn":  func() error { _, _, err := ReadIn(root, "fifo", 0); return err },
		"limited": func() error { _, _, err := Read(p, 10); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- read() }()
		if err := testwait.Recv(t, done, name+": reading a FIFO"); !errors.Is(err, ErrNotRegular) || Describe(err) != "not a regular file" {
			t.Errorf("%s: %v, want ErrNotRegular", name, err)
		}
	}
	if _, _, err := Read("/dev/null", 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a device: %v, want ErrNotRegular", err)
	}
}

// The path is swapped between a regular file and a FIFO while it is read
// over and over: the check is on the opened descriptor, so a read either
// gets the file or refuses the FIFO, and never blocks.
func TestReadSwapRace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "AGENTS.md")
	file, fifo := filepath.Join(dir, "file.tmp"), filepath.Join(dir, "fifo.tmp")
	if err := os.WriteFile(p, []byte("rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			if i%2 == 0 {
				if err := syscall.Mkfifo(fifo, 0o644); err == nil {
					os.Rename(fifo, p)
				}
			} else if err := os.WriteFile(file, []byte("rules\n"), 0o644); err == nil {
				os.Rename(file, p)
			}
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	var files, fifos int
	for i := 0; i < 1500; i++ {
		done := make(chan error, 1)
		go func() {
			b, _, err := Read(p, 1<<20)
			if err == nil && string(b) != "rules\n" {
				err = errors.New("read " + string(b))
			}
			done <- err
		}()
		switch err := testwait.Recv(t, done, fmt.Sprintf("read %d (%d files and %d FIFOs read before)", i, files, fifos)); {
		case err == nil:
			files++
		case errors.Is(err, ErrNotRegular):
			fifos++
		default:
			t.Fatalf("read %d: %v", i, err)
		}
	}
	t.Logf("%d reads of the file, %d of the FIFO", files, fifos)
}
