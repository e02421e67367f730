//go:build unix

package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Entries are trusted when they check out, so nobody but the user may
// write them: a directory of entries that others may write becomes the
// user's alone, one of another user is refused, and entries are the
// user's to read.
func TestOpenKeepsTheDirectoryToTheUser(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, format)
	if err := os.MkdirAll(root, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	d := open(t, dir, 0)
	st, err := os.Stat(root)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o700 {
		t.Errorf("the directory of entries has mode %o, want 700", perm)
	}
	d.Put("k", []byte("the skeleton of a file"))
	st, err = os.Stat(entryPath(d, "k"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("an entry has mode %o, readable by others", perm)
	}

	if os.Geteuid() != 0 {
		t.Skip("giving a directory to another user takes root")
	}
	other := t.TempDir()
	if err := os.MkdirAll(filepath.Join(other, format), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(other, format), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(other, 0); err == nil || !strings.Contains(err.Error(), "another user") {
		t.Fatalf("Open of another user's directory: %v", err)
	}
}
