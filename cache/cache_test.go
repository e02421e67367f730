package cache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, dir string, max int64) *Dir {
	t.Helper()
	d, err := Open(dir, max)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestPutGet(t *testing.T) {
	d := open(t, t.TempDir(), 0)
	if _, ok := d.Get("k"); ok {
		t.Fatal("a hit in an empty cache")
	}
	for _, v := range [][]byte{[]byte("value"), {}, bytes.Repeat([]byte{0, 1, 2}, 1<<16)} {
		d.Put("k", v)
		got, ok := d.Get("k")
		if !ok || !bytes.Equal(got, v) {
			t.Fatalf("Get = %d bytes, %v; want %d bytes", len(got), ok, len(v))
		}
	}
	if s := d.Stats(); s.Hits != 3 || s.Misses != 1 || s.Puts != 3 || s.Failed != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// entryPath is where key's entry lives.
func entryPath(d *Dir, key string) string {
	dir, name := d.name(key)
	return filepath.Join(dir, name)
}

// An entry that does not check out (a byte flipped anywhere, cut short,
// longer than it says, another key's) is a miss, and the next Put
// replaces it.
func TestDamagedEntriesMiss(t *testing.T) {
	d := open(t, t.TempDir(), 0)
	value := []byte("the skeleton of a file")
	d.Put("k", value)
	p := entryPath(d, "k")
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	damage := map[string][]byte{
		"truncated": good[:len(good)-1],
		"empty":     {},
		"appended":  append(append([]byte(nil), good...), 'x'),
		"other key": encode("other", value),
		"no header": good[1:],
	}
	for i := range good {
		b := append([]byte(nil), good...)
		b[i] ^= 0x20
		damage[fmt.Sprintf("byte %d flipped", i)] = b
	}
	for name, b := range damage {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if v, ok := d.Get("k"); ok {
			t.Fatalf("%s: a hit, %q", name, v)
		}
		d.Put("k", value)
		if v, ok := d.Get("k"); !ok || !bytes.Equal(v, value) {
			t.Fatalf("%s: after Put, Get = %q, %v", name, v, ok)
		}
	}
	if d.Stats().Corrupt == 0 {
		t.Fatal("no corrupt entry counted")
	}
}

// Runs that share a directory (several Dirs, as several processes would
// have) and write the same keys at once never read a partial or foreign
// value.
func TestConcurrentRuns(t *testing.T) {
	dir := t.TempDir()
	value := func(k int) []byte { return bytes.Repeat([]byte{byte(k)}, 10000+k) }
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for r := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := Open(dir, 0)
			if err != nil {
				errs <- err
				return
			}
			for i := range 200 {
				k := (i + r) % 20
				key := fmt.Sprint("key ", k)
				if v, ok := d.Get(key); ok && !bytes.Equal(v, value(k)) {
					errs <- fmt.Errorf("run %d: %s holds %d bytes", r, key, len(v))
					return
				}
				d.Put(key, value(k))
			}
			if err := d.Close(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	d := open(t, dir, 0)
	for k := range 20 {
		if v, ok := d.Get(fmt.Sprint("key ", k)); !ok || !bytes.Equal(v, value(k)) {
			t.Fatalf("key %d: %d bytes, %v", k, len(v), ok)
		}
	}
	// no temporary file is left
	tmps, _ := filepath.Glob(filepath.Join(dir, format, "*", ".tmp-*"))
	if len(tmps) > 0 {
		t.Fatalf("temporary files left: %v", tmps)
	}
}

// Trim keeps the cache within its bound, removing the least recently used
// entries first; a hit makes an entry recent.
func TestTrimKeepsTheBound(t *testing.T) {
	const max = 100 << 10
	dir := t.TempDir()
	w := open(t, dir, 1<<30) // written without trimming
	value := bytes.Repeat([]byte("v"), 10<<10)
	old := time.Now().Add(-time.Hour)
	for i := range 30 {
		key := fmt.Sprint("key ", i)
		w.Put(key, value)
		// entries written in order, a second apart
		ts := old.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(entryPath(w, key), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	d := open(t, dir, max)
	if _, ok := d.Get("key 0"); !ok { // the oldest, now used
		t.Fatal("key 0 missing")
	}
	if err := d.Trim(); err != nil {
		t.Fatal(err)
	}
	size, err := d.Size()
	if err != nil {
		t.Fatal(err)
	}
	if size > max*lowWater {
		t.Fatalf("%d bytes after Trim, bound %d", size, max)
	}
	if _, ok := d.Get("key 0"); !ok {
		t.Error("the entry just used was evicted")
	}
	if _, ok := d.Get("key 1"); ok {
		t.Error("the least recently used entry was kept")
	}
	if _, ok := d.Get("key 29"); !ok {
		t.Error("the newest entry was evicted")
	}
}

// A temporary file left by a run that was killed goes once it is old.
func TestTrimRemovesOldTemporaryFiles(t *testing.T) {
	d := open(t, t.TempDir(), 0)
	sub := filepath.Join(d.Path(), "ab")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	oldTmp, newTmp := filepath.Join(sub, ".tmp-1"), filepath.Join(sub, ".tmp-2")
	for _, p := range []string{oldTmp, newTmp} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ts := time.Now().Add(-2 * time.Hour)
	os.Chtimes(oldTmp, ts, ts)
	if err := d.Trim(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(oldTmp); err == nil {
		t.Error("an old temporary file was kept")
	}
	if _, err := os.Stat(newTmp); err != nil {
		t.Error("a recent temporary file (a run in progress) was removed")
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv(EnvDir, "/some/where")
	if d, err := DefaultDir(); err != nil || d != "/some/where" {
		t.Fatalf("DefaultDir = %q, %v", d, err)
	}
	t.Setenv(EnvDir, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	t.Setenv("HOME", "/home/u")
	if d, err := DefaultDir(); err != nil || d != filepath.Join(mustUserCache(t), "ctx") {
		t.Fatalf("DefaultDir = %q, %v", d, err)
	}
}

func mustUserCache(t *testing.T) string {
	d, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A run that writes more than its bound stays within it as it goes,
// without Close.
func TestPutKeepsTheBound(t *testing.T) {
	const max = 64 << 10
	d := open(t, t.TempDir(), max)
	value := bytes.Repeat([]byte("v"), 1<<10)
	for i := range 400 {
		d.Put(fmt.Sprint("key ", i), value)
	}
	size, err := d.Size()
	if err != nil {
		t.Fatal(err)
	}
	if size > max+max/trimShare+2<<10 {
		t.Fatalf("%d bytes after 400 KiB written, bound %d", size, max)
	}
}

// Close walks the cache only when it must: the first time, when what was
// written passes the bound, and when the last trim is an hour old; else
// it adds what the run wrote to the ledger.
func TestCloseTrimsOnlyWhenNeeded(t *testing.T) {
	const max = 64 << 10
	dir := t.TempDir()
	value := bytes.Repeat([]byte("v"), 1<<10)
	stale := func() string {
		t.Helper()
		p := filepath.Join(dir, format, ".tmp-stale")
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		ts := time.Now().Add(-2 * time.Hour)
		if err := os.Chtimes(p, ts, ts); err != nil {
			t.Fatal(err)
		}
		return p
	}
	walked := func(p string) bool {
		_, err := os.Stat(p)
		return err != nil
	}
	run := func(i int) {
		t.Helper()
		d := open(t, dir, max)
		d.Put(fmt.Sprint("key ", i), value)
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}

	open(t, dir, max) // the directory
	p := stale()
	run(0)
	if !walked(p) {
		t.Fatal("the first Close did not walk the cache")
	}
	p = stale()
	run(1)
	if walked(p) {
		t.Fatal("Close walked a cache within its bound, trimmed a moment ago")
	}
	d := open(t, dir, max)
	size, _, ok := d.readLedger()
	if want, _ := d.Size(); !ok || size != want {
		t.Fatalf("ledger %d, %v; the entries take %d", size, ok, want)
	}

	// past the bound
	for i := 2; size < max; i++ {
		run(i)
		if size, _, _ = d.readLedger(); size > max {
			t.Fatalf("ledger %d past the bound %d", size, max)
		}
		if walked(p) {
			break
		}
	}
	if !walked(p) {
		t.Fatal("Close never trimmed a cache that passed its bound")
	}

	// an hour after the last trim
	p = stale()
	size, _, _ = d.readLedger()
	if err := d.writeLedger(size, time.Now().Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	run(1000)
	if !walked(p) {
		t.Fatal("Close did not walk a cache last trimmed two hours ago")
	}

	// a damaged ledger is no ledger
	p = stale()
	if err := os.WriteFile(filepath.Join(dir, format, ledgerName), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(1001)
	if !walked(p) {
		t.Fatal("Close did not walk a cache whose ledger is damaged")
	}
	if sz, err := d.Size(); err != nil || sz > max {
		t.Fatalf("size %d, %v; bound %d", sz, err, max)
	}
}
