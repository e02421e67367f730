package discover

import (
	"os"
	"path/filepath"
	"testing"
)

// Canonicals gives what Canonical gives, for files and directories, links
// to either (relative, absolute, through a linked directory, dangling, in
// a loop), missing paths, "." and "..", and relative paths.
func TestCanonicals(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	mk("a/b")
	mk("c")
	write("a/f.md")
	write("a/b/g.md")
	write("c/h.md")
	link("b", "a/lb")                      // a directory, relative
	link(filepath.Join(root, "c"), "a/lc") // a directory, absolute
	link("f.md", "a/lf.md")                // a file
	link("../c/h.md", "a/b/lh.md")         // a file, up a level
	link("gone.md", "a/dangling.md")
	link("loop2", "a/loop1")
	link("loop1", "a/loop2")
	link("lb/g.md", "a/lg.md") // a file through a linked directory
	paths := []string{
		"a/f.md", "a/b/g.md", "a/lb/g.md", "a/lc/h.md", "a/lf.md", "a/b/lh.md", "a/dangling.md", "a/loop1",
		"a/lg.md", "a/missing.md", "missing/x.md", "a/f.md/x", "a/b/../f.md", "a/lb/../f.md", "a/lb/../b/g.md",
		"a/.", "a/..", "a/b/", "a", "a/lb", "a/lc/", ".", "a//f.md", "a/./f.md",
	}
	var c Canonicals
	for round := range 2 { // the second round answers from what the first resolved
		for _, p := range paths {
			abs := filepath.Join(root, p)
			if p[len(p)-1] == '/' {
				abs += "/"
			}
			if got, want := c.Canonical(abs), Canonical(abs); got != want {
				t.Errorf("round %d: Canonicals.Canonical(%q) = %q, Canonical = %q", round, abs, got, want)
			}
		}
	}
	// relative paths, against the working directory
	t.Chdir(root)
	var rc Canonicals
	for _, p := range paths {
		if got, want := rc.Canonical(p), Canonical(p); got != want {
			t.Errorf("Canonicals.Canonical(%q) = %q, Canonical = %q", p, got, want)
		}
	}
}
