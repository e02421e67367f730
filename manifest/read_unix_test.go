//go:build linux || darwin

package manifest_test

import (
	"syscall"
	"testing"
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
