//go:build linux || darwin

package manifest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testwait"
	"github.com/ctxaudit/ctx/manifest"
)

// TestSpecialFiles pins that a FIFO is unreadable (reading it would block),
// that a path through a regular file and a dangling symlink are missing (no
// such file), and that a symlink loop is unreadable.
func TestSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := project(t, map[string]string{"plain.md": "x"})
	if err := syscall.Mkfifo(dir+"/fifo.md", 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	symlink(t, "nowhere.md", dir+"/dangling.md")
	symlink(t, "loop2.md", dir+"/loop1.md")
	symlink(t, "loop1.md", dir+"/loop2.md")
	m := build(t, opts(dir, file("fifo", "note", "fifo.md"), file("through", "note", "plain.md/AGENTS.md"),
		file("dangling", "note", "dangling.md"), file("loop", "note", "loop1.md")))
	if s := row(t, m, "dangling"); s.Status != "missing" || s.CanonicalPath != dir+"/dangling.md" {
		t.Errorf("a dangling symlink: status %s, canonical %q; want missing, the path", s.Status, s.CanonicalPath)
	}
	if s := row(t, m, "loop"); s.Status != "unreadable" {
		t.Errorf("a symlink loop: status %s, want unreadable (a read error)", s.Status)
	}
	if s := row(t, m, "fifo"); s.Status != "unreadable" || s.SourceBytes != nil {
		t.Errorf("a FIFO: status %s, bytes %v; want unreadable, null", s.Status, s.SourceBytes)
	}
	if s := row(t, m, "through"); s.Status != "missing" || s.CanonicalPath != dir+"/plain.md/AGENTS.md" {
		t.Errorf("a path through a file: status %s, canonical %q; want missing", s.Status, s.CanonicalPath)
	}
}

// AGENTS.md is swapped between a regular file and a FIFO while the manifest
// (with the codex profile, which reads it too) is built over and over:
// every build ends, with the file available or unreadable, never a hang.
func TestAgentsSwapRace(t *testing.T) {
	dir := project(t, map[string]string{"AGENTS.md": "rules\n"})
	p := filepath.Join(dir, "AGENTS.md")
	file, fifo := filepath.Join(dir, ".file.tmp"), filepath.Join(dir, ".fifo.tmp")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Remove(fifo)
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
			time.Sleep(50 * time.Microsecond)
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	o := manifest.Options{Profile: "codex", Discover: discover.Options{
		Agent: "codex", ProjectDir: dir, Home: dir + "/home", SharedMode: discover.SharedDisabled,
	}}
	seen := map[manifest.Status]int{}
	for i := range 300 {
		type result struct {
			m   *manifest.Manifest
			err error
		}
		done := make(chan result, 1)
		go func() {
			m, err := manifest.Build(context.Background(), o)
			done <- result{m, err}
		}()
		r := testwait.Recv(t, done, fmt.Sprintf("build %d (%v before)", i, seen))
		if r.err != nil {
			t.Fatalf("build %d: %v", i, r.err)
		}
		for _, s := range r.m.Sources {
			if s.Path == p {
				seen[s.Status]++
				if s.Status != manifest.StatusAvailable && s.Status != manifest.StatusUnreadable {
					t.Fatalf("build %d: AGENTS.md is %s", i, s.Status)
				}
			}
		}
	}
	t.Logf("AGENTS.md in 300 builds: %v", seen)
}

// A 2 GiB sparse AGENTS.md is refused by its size (unreadable) without
// being read: the process reads and allocates far less than the 64 MiB
// cap.
func TestSparseAgentsRefusedUnread(t *testing.T) {
	dir := project(t, map[string]string{"AGENTS.md": ""})
	if err := os.Truncate(filepath.Join(dir, "AGENTS.md"), 2<<30); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	o := manifest.Options{Discover: discover.Options{
		Agent: "codex", ProjectDir: dir, Home: dir + "/home", SharedMode: discover.SharedDisabled,
	}}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	read0, counted := testwait.ProcIO()
	m, err := manifest.Build(context.Background(), o)
	read1, _ := testwait.ProcIO()
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	if s := row(t, m, "project_agents"); s.Status != manifest.StatusUnreadable {
		t.Errorf("a 2 GiB AGENTS.md is %s, want unreadable", s.Status)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 16<<20 {
		t.Errorf("building allocated %d MiB", alloc>>20)
	}
	if counted && read1-read0 > 16<<20 {
		t.Errorf("building read %d MiB", (read1-read0)>>20)
	}
}
