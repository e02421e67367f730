package cache

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// otherOwner makes d see the file at p as another user's: giving it to
// one takes root, so the owner d reads is replaced.
func otherOwner(t *testing.T, d *Dir, p string) {
	t.Helper()
	planted, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	d.owner = func(info fs.FileInfo) (int, bool) {
		if os.SameFile(info, planted) {
			return d.uid + 1, true
		}
		return fileOwner(info)
	}
}

// A folder of entries or an entry of another user (planted while the
// cache could be written by others) is never used, however well it checks
// out: a miss, counted as untrusted. Nothing is written into such a folder;
// such an entry, in a folder of the user's, is replaced by the next Put.
// So is a ledger of another user, which is no ledger.
func TestAnotherUsersFilesAreNotUsed(t *testing.T) {
	value := []byte("the skeleton of a file")
	for _, folder := range []bool{true, false} {
		name := map[bool]string{true: "folder", false: "entry"}[folder]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			open(t, dir, 0).Put("k", value)
			d := open(t, dir, 0)
			p := entryPath(d, "k")
			if _, ok := d.Get("k"); !ok {
				t.Fatal("the entry misses before it is another user's")
			}
			d = open(t, dir, 0)
			if folder {
				otherOwner(t, d, filepath.Dir(p))
			} else {
				otherOwner(t, d, p)
			}
			if v, ok := d.Get("k"); ok {
				t.Fatalf("a hit, %q", v)
			}
			if s := d.Stats(); s.Untrusted != 1 || s.Misses != 1 || s.Hits != 0 {
				t.Fatalf("stats %+v, want one untrusted miss", s)
			}
			d.Put("k", []byte("another value"))
			after, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if folder {
				if want := encode("k", value); !bytes.Equal(after, want) || d.Stats().Failed != 1 || d.Stats().Puts != 0 {
					t.Fatalf("Put wrote into another user's folder (stats %+v)", d.Stats())
				}
				if _, ok := d.Get("k"); ok {
					t.Fatal("a hit in another user's folder after Put")
				}
				return
			}
			// the entry Put wrote is the user's: a new file, used
			if v, ok := d.Get("k"); !ok || string(v) != "another value" {
				t.Fatalf("after Put, Get = %q, %v", v, ok)
			}
		})
	}

	t.Run("ledger", func(t *testing.T) {
		d := open(t, t.TempDir(), 0)
		if err := d.writeLedger(5, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := d.readLedger(); !ok {
			t.Fatal("no ledger")
		}
		otherOwner(t, d, filepath.Join(d.Path(), ledgerName))
		if _, _, ok := d.readLedger(); ok {
			t.Fatal("another user's ledger is used")
		}
	})
}

// Trim and Size leave out a folder of another user: its files are not
// counted, nor removed.
func TestTrimLeavesAnotherUsersFolder(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, 1<<30)
	value := bytes.Repeat([]byte("v"), 10<<10)
	w.Put("k", value)
	d := open(t, dir, 1<<10)
	p := entryPath(d, "k")
	otherOwner(t, d, filepath.Dir(p))
	if n, err := d.Size(); err != nil || n != 0 {
		t.Fatalf("Size = %d, %v; want another user's folder left out", n, err)
	}
	if err := d.Trim(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("Trim removed a file of another user's folder: %v", err)
	}
}

// A cache removed while a Dir is open (a long-lived server) is made again,
// checked, by the next Put.
func TestPutAfterTheCacheWasRemoved(t *testing.T) {
	dir := t.TempDir()
	d := open(t, dir, 0)
	d.Put("k", []byte("value"))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Get("k"); ok {
		t.Fatal("a hit in a removed cache")
	}
	// the same folder as before, and another one
	other := "k2"
	for i := 0; filepath.Dir(entryPath(d, other)) == filepath.Dir(entryPath(d, "k")); i++ {
		other = fmt.Sprint("k", i)
	}
	for _, k := range []string{"k", other} {
		d.Put(k, []byte("value "+k))
		if v, ok := d.Get(k); !ok || string(v) != "value "+k {
			t.Fatalf("%s: after the cache was removed, Put then Get = %q, %v (stats %+v)", k, v, ok, d.Stats())
		}
	}
}
