//go:build unix

package cache

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder or an entry that the group or others may write is not used,
// whoever owns it: someone else may have written it. Each case is a new
// Dir, as a new run would open, on a cache one run filled.
func TestWritableByOthersIsNotUsed(t *testing.T) {
	for _, c := range []struct {
		name   string
		folder bool
		mode   os.FileMode
	}{
		{"folder writable by the group", true, 0o770},
		{"folder writable by others", true, 0o703},
		{"entry writable by the group", false, 0o620},
		{"entry writable by others", false, 0o602},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			value := []byte("the skeleton of a file")
			open(t, dir, 0).Put("k", value)
			d := open(t, dir, 0)
			p := entryPath(d, "k")
			target := p
			if c.folder {
				target = filepath.Dir(p)
			}
			if err := os.Chmod(target, c.mode); err != nil {
				t.Fatal(err)
			}
			if v, ok := d.Get("k"); ok {
				t.Fatalf("a hit, %q", v)
			}
			if s := d.Stats(); s.Untrusted != 1 || s.Misses != 1 || s.Hits != 0 {
				t.Fatalf("stats %+v, want one untrusted miss", s)
			}
			if w := d.UntrustedWarning(); !strings.Contains(w, "holds 1 folder or entry that another user owns or may write") {
				t.Errorf("warning %q", w)
			}
			if w := open(t, t.TempDir(), 0).UntrustedWarning(); w != "" {
				t.Errorf("a clean cache warns %q", w)
			}
			before, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			d.Put("k", []byte("another value"))
			after, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if c.folder {
				// nothing is written in a folder others may write
				if !bytes.Equal(after, before) || d.Stats().Failed != 1 {
					t.Fatalf("Put wrote into a folder others may write (stats %+v)", d.Stats())
				}
				if _, ok := open(t, dir, 0).Get("k"); ok {
					t.Fatal("a hit in a folder others may write")
				}
				return
			}
			// an entry of a folder of the user's is replaced by one of the user's
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm()&0o077 != 0 || bytes.Equal(after, before) {
				t.Fatalf("Put left the entry as it was (mode %o)", st.Mode().Perm())
			}
			if v, ok := open(t, dir, 0).Get("k"); !ok || string(v) != "another value" {
				t.Fatalf("after Put, Get = %q, %v", v, ok)
			}
		})
	}
}

// A folder of entries that is a symbolic link, even to a folder of the
// user's, is not used: the cache never makes one.
func TestLinkedFolderIsNotUsed(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, 0).Put("k", []byte("value"))
	d := open(t, dir, 0)
	sub := filepath.Dir(entryPath(d, "k"))
	moved := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Rename(sub, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, sub); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Get("k"); ok {
		t.Fatal("a hit through a linked folder")
	}
	if s := d.Stats(); s.Untrusted != 1 {
		t.Fatalf("stats %+v, want one untrusted miss", s)
	}
}
