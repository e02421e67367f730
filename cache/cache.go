// Package cache keeps derived data on disk between runs of ctx: the views
// of files (skeleton, outline, summary, masked) and their token and symbol
// counts, which cost far more to compute than to read. Package aggregate
// uses a [*Dir] through its Options.Cache, and composes the keys: each
// names everything a value is derived from (the BLAKE3 of the file's
// bytes, the view and its settings, the grammar, the estimator, the build
// of ctx), so that a value is never used for anything else.
//
// # Entries
//
// An entry is one file, {dir}/v1/{xx}/{hash}, where hash is the BLAKE3 of
// the key in hex and xx its first two digits. It holds a header, the whole
// key, the length of the value, the BLAKE3 of the value, and the value. A
// read checks all of them: a file that is truncated, longer than it says,
// corrupted, of another format or of another key (a collision of the name)
// is a miss, never a value, and the next Put of the key replaces it. An
// entry, like the ledger, is read by the bounded reader of ctx, which opens
// without blocking: a FIFO, device or other special file at its path is a
// miss at once, never a wait for a writer.
//
// # Trust
//
// An entry that checks out is used as it is, so the cache uses only what
// nobody but the user could have written: the directory of the entries
// ({dir}/v1, which Open checks), every folder of entries ({xx}: a real
// directory, not a link), every entry and the ledger (checked on the file
// opened, not on its path) must belong to the user, and neither the group
// nor others may write them. A folder or entry that fails is left as it
// is, and is a miss (Stats.Untrusted): its views are computed again, and
// a ledger that fails is no ledger. Nothing is written into a folder that
// fails (the write is counted as failed), while an entry that fails, in a
// folder that passes, is replaced by the next Put. Trim and Size leave out
// the folders that fail. Removing the cache directory makes it whole
// again. On systems other than Unix, whose mode bits do not say who may
// write, folders and entries are only checked to be a directory and a
// regular file.
//
// # Concurrent runs
//
// An entry is written to a temporary file in its directory and renamed
// into place, so a reader sees a whole entry or none, and two runs that
// write the same key leave one of their (identical) values. Nothing is
// locked.
//
// # Size
//
// The directory is kept under a size (Open's maxBytes, [DefaultMaxBytes]
// when 0): [Dir.Trim] removes the least recently used entries, by
// modification time, which a hit refreshes (at most once a minute), until
// the entries take at most 90% of it, and records the size in a ledger;
// [Dir.Close], when the run wrote anything, adds what it wrote to the
// ledger and trims only when that passes the bound (or the last trim is an
// hour old), so that a run that wrote a few entries does not walk a large
// cache; Put trims once a sixteenth of the bound was written, so that a
// long run stays within it too. Temporary files left by a run that was
// killed are removed once they are an hour old.
//
// The package never prints; a cache that cannot be read or written only
// misses, and Stats counts what happened.
package cache

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zeebo/blake3"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/fileio"
)

// DefaultMaxBytes bounds a cache directory unless Open is told otherwise.
const DefaultMaxBytes = 512 << 20

// EnvDir names the environment variable that moves the cache directory
// ([DefaultDir]).
const EnvDir = "CTX_CACHE_DIR"

// format names the entries' layout: the subdirectory of the cache and the
// first bytes of every entry.
const (
	format = "v1"
	magic  = "ctx cache v1\n"
)

const (
	// maxValue is the largest value kept; a larger one is not stored.
	maxValue = 64 << 20
	// maxKey is the longest key kept.
	maxKey = 64 << 10
	// touchAfter is how old an entry's time must be for a hit to refresh it.
	touchAfter = time.Minute
	// tempAge is how old a temporary file must be for Trim to remove it.
	tempAge = time.Hour
	// lowWater is the share of the bound Trim brings the cache down to.
	lowWater = 0.9
	// trimShare: Put trims once a 16th of the bound was written.
	trimShare = 16
)

// DefaultDir returns the cache directory ctx uses: $CTX_CACHE_DIR when set,
// else "ctx" in the user's cache directory (os.UserCacheDir: on Linux
// $XDG_CACHE_HOME or ~/.cache).
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ctx"), nil
}

// Dir is a cache directory. It is safe for concurrent use, by goroutines
// and by processes.
type Dir struct {
	root     string // {dir}/v1
	maxBytes int64

	hits, misses, corrupt, untrusted, puts, failed atomic.Int64
	// written counts the bytes written since the last trim
	written  atomic.Int64
	trimming atomic.Bool

	// uid is the user the folders and entries must belong to.
	uid int
	// owner returns the user who owns a file, and false when the system
	// does not say (fileOwner); a test replaces it, since giving a file to
	// another user takes root.
	owner func(fs.FileInfo) (uid int, ok bool)

	mu sync.Mutex
	// dirs holds the folders of entries checked by this Dir: nil when the
	// folder may be used, else why not. A folder that is the user's alone
	// stays so (only the user or root can change that), so the check is
	// made once.
	dirs map[string]error
}

// Stats counts what a Dir did: Hits and Misses of Get, Corrupt entries
// found and Untrusted folders or entries not used (both counted among the
// misses; see Trust in the package documentation), Puts stored and Failed
// writes.
type Stats struct {
	Hits, Misses, Corrupt, Untrusted, Puts, Failed int64
}

// Open opens the cache in dir, creating it (mode 0700: the views of one's
// files are one's own). maxBytes bounds its size, a safety cap: 0 (or
// less) is DefaultMaxBytes.
// On Unix the directory of the entries must belong to the user: one of
// another user is an error, and one the group or others may write is made
// the user's alone, since an entry that checks out is used as it is; the
// folders and entries in it are checked as they are used (see Trust in the
// package documentation).
func Open(dir string, maxBytes int64) (*Dir, error) {
	if dir == "" {
		return nil, errors.New("cache: no directory")
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	root := filepath.Join(dir, format)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if err := checkOwner(root); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &Dir{root: root, maxBytes: maxBytes, uid: os.Geteuid(), owner: fileOwner, dirs: map[string]error{}}, nil
}

// Path returns the directory of the entries.
func (d *Dir) Path() string { return d.root }

// Stats returns the counts so far.
func (d *Dir) Stats() Stats {
	return Stats{Hits: d.hits.Load(), Misses: d.misses.Load(), Corrupt: d.corrupt.Load(), Untrusted: d.untrusted.Load(),
		Puts: d.puts.Load(), Failed: d.failed.Load()}
}

// UntrustedWarning says, when this Dir met folders or entries that were
// not the user's alone (Stats.Untrusted), that it left them unused and what
// to do; "" when it met none.
func (d *Dir) UntrustedWarning() string {
	n := d.untrusted.Load()
	if n == 0 {
		return ""
	}
	what := "1 folder or entry"
	if n > 1 {
		what = display.Int(int(n)) + " folders or entries"
	}
	return "the cache " + display.Path(d.root, "") + " holds " + what +
		" that another user owns or may write; ctx did not use them (remove the cache directory to start afresh)"
}

// errUntrusted is a folder or entry that someone other than the user may
// have written.
var errUntrusted = errors.New("not the user's alone")

// trust returns errUntrusted when info, a folder's or an entry's, belongs
// to another user or the group or others may write it.
func (d *Dir) trust(info fs.FileInfo) error {
	if uid, ok := d.owner(info); ok && uid != d.uid {
		return errUntrusted
	}
	if checkModes && info.Mode().Perm()&0o022 != 0 {
		return errUntrusted
	}
	return nil
}

// folder returns nil when the folder of entries dir may be used: it is a
// directory, not a link, and [Dir.trust] passes it; errUntrusted when it
// may not, and the error of the system when it cannot be found. With
// create, a missing folder is made first (mode 0700).
func (d *Dir) folder(dir string, create bool) error {
	d.mu.Lock()
	err, known := d.dirs[dir]
	d.mu.Unlock()
	if known {
		return err
	}
	if create {
		err := os.Mkdir(dir, 0o700)
		if errors.Is(err, fs.ErrNotExist) {
			// the directory of the entries was removed: made again, and
			// checked as Open does
			if err = os.MkdirAll(d.root, 0o700); err == nil {
				err = checkOwner(d.root)
			}
			if err == nil {
				err = os.Mkdir(dir, 0o700)
			}
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err // not remembered: a Put may make it
	}
	if !st.IsDir() {
		err = errUntrusted
	} else {
		err = d.trust(st)
	}
	d.mu.Lock()
	d.dirs[dir] = err
	d.mu.Unlock()
	return err
}

// name returns the entry's directory and file name for key.
func (d *Dir) name(key string) (string, string) {
	sum := blake3.Sum256([]byte(key))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(d.root, h[:2]), h
}

// Get returns the value stored under key, or false when there is none or
// it does not check out.
func (d *Dir) Get(key string) ([]byte, bool) {
	dir, name := d.name(key)
	p := filepath.Join(dir, name)
	err := d.folder(dir, false)
	var b []byte
	var mtime time.Time
	if err == nil {
		b, mtime, err = d.readEntry(p)
	}
	if err != nil {
		if errors.Is(err, errUntrusted) {
			d.untrusted.Add(1)
		}
		d.misses.Add(1)
		return nil, false
	}
	v, ok := decode(b, key)
	if !ok {
		d.corrupt.Add(1)
		d.misses.Add(1)
		return nil, false
	}
	d.hits.Add(1)
	// a hit makes the entry recent, which Trim goes by
	if now := time.Now(); now.Sub(mtime) > touchAfter {
		_ = os.Chtimes(p, now, now)
	}
	return v, true
}

// maxEntry is the largest file that can be an entry.
const maxEntry = maxValue + maxKey + 256

// readEntry reads an entry file and its time through the bounded reader,
// which opens without blocking and refuses anything but a regular file (a
// FIFO at the entry's path would otherwise hang the run) and a file too
// large to be an entry. The file opened must pass [Dir.trust] (its
// information is the open descriptor's, so a file swapped after a check
// of the path cannot pass).
func (d *Dir) readEntry(p string) ([]byte, time.Time, error) {
	b, st, err := fileio.Read(p, maxEntry)
	if err != nil {
		return nil, time.Time{}, err
	}
	if err := d.trust(st); err != nil {
		return nil, time.Time{}, err
	}
	return b, st.ModTime(), nil
}

// encode lays out an entry: the header, the key, the value's length and
// BLAKE3, the value.
func encode(key string, value []byte) []byte {
	b := make([]byte, 0, len(magic)+len(key)+len(value)+2*binary.MaxVarintLen64+32)
	b = append(b, magic...)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = binary.AppendUvarint(b, uint64(len(value)))
	sum := blake3.Sum256(value)
	b = append(b, sum[:]...)
	return append(b, value...)
}

// decode returns the value of an entry of key, checked.
func decode(b []byte, key string) ([]byte, bool) {
	if !bytes.HasPrefix(b, []byte(magic)) {
		return nil, false
	}
	b = b[len(magic):]
	n, k := binary.Uvarint(b)
	if k <= 0 || n != uint64(len(key)) || uint64(len(b)-k) < n || string(b[k:k+int(n)]) != key {
		return nil, false
	}
	b = b[k+int(n):]
	n, k = binary.Uvarint(b)
	if k <= 0 || len(b)-k < 32 || n != uint64(len(b)-k-32) {
		return nil, false
	}
	sum, v := b[k:k+32], b[k+32:]
	if got := blake3.Sum256(v); !bytes.Equal(got[:], sum) {
		return nil, false
	}
	return v, true
}

// Put stores value under key. A value or key too large is not stored;
// a failure to write is counted (Stats.Failed), not returned, and so is a
// value of a folder that may not be used (see Trust in the package
// documentation), which is left as it is.
func (d *Dir) Put(key string, value []byte) {
	if len(value) > maxValue || len(key) > maxKey {
		return
	}
	dir, name := d.name(key)
	if err := d.put(dir, name, encode(key, value)); err != nil {
		d.failed.Add(1)
		return
	}
	d.puts.Add(1)
}

func (d *Dir) put(dir, name string, entry []byte) error {
	if err := d.folder(dir, true); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		// the cache was removed while the Dir was open (a long-lived
		// server): its folder is checked and made again
		d.mu.Lock()
		delete(d.dirs, dir)
		d.mu.Unlock()
		if err := d.folder(dir, true); err != nil {
			return err
		}
		f, err = os.CreateTemp(dir, ".tmp-*")
	}
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(entry)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d.written.Add(int64(len(entry))) > d.maxBytes/trimShare && d.trimming.CompareAndSwap(false, true) {
		// a long run keeps the bound as it goes
		_ = d.Trim()
		d.trimming.Store(false)
	}
	return nil
}

// Close ends the use of the cache: when the run wrote anything, it adds
// what it wrote to the size the ledger holds, and trims the cache when
// that passes the bound, when there is no ledger, or when the last trim is
// an hour old. A run that wrote a few entries into a large cache so does
// not walk all of it.
func (d *Dir) Close() error {
	n := d.written.Load()
	if n == 0 {
		return nil
	}
	size, trimmed, ok := d.readLedger()
	if !ok || size+n > d.maxBytes || time.Since(trimmed) > ledgerAge {
		return d.Trim()
	}
	d.written.Store(0)
	return d.writeLedger(size+n, trimmed)
}

// The ledger, {dir}/v1/size, holds about how many bytes the entries take
// and when the cache was last trimmed: Trim writes what it found, and
// Close adds what its run wrote. Runs that close at the same time may each
// add to the same size and lose the other's bytes; the walk of the next
// trim, at the latest an hour later, counts them again.
const (
	ledgerName = "size"
	ledgerAge  = time.Hour
)

// readLedger returns the size and the time of the last trim in the
// ledger; false when there is none or it cannot be read.
func (d *Dir) readLedger() (size int64, trimmed time.Time, ok bool) {
	b, st, err := fileio.Read(filepath.Join(d.root, ledgerName), 64)
	if err != nil || d.trust(st) != nil {
		return 0, time.Time{}, false
	}
	var nanos int64
	if _, err := fmt.Sscanf(string(b), "%d %d\n", &size, &nanos); err != nil || size < 0 {
		return 0, time.Time{}, false
	}
	trimmed = time.Unix(0, nanos)
	if trimmed.After(time.Now()) {
		return 0, time.Time{}, false
	}
	return size, trimmed, true
}

// writeLedger replaces the ledger (a temporary file renamed over it).
func (d *Dir) writeLedger(size int64, trimmed time.Time) error {
	f, err := os.CreateTemp(d.root, ".tmp-*")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	_, err = fmt.Fprintf(f, "%d %d\n", size, trimmed.UnixNano())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(d.root, ledgerName))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// entry is a file found by Trim.
type entry struct {
	path string
	size int64
	time time.Time
}

// Trim removes the least recently used entries until the cache takes at
// most 90% of its bound (nothing when it is within the bound), and the
// temporary files older than an hour; it writes the size it leaves to the
// ledger that Close goes by. The folders that may not be used (see Trust
// in the package documentation) are left as they are and not counted.
func (d *Dir) Trim() error {
	d.written.Store(0)
	var ents []entry
	var total int64
	now := time.Now()
	err := d.walk(func(p string, info fs.FileInfo) {
		if strings.HasPrefix(info.Name(), ".tmp-") {
			if now.Sub(info.ModTime()) > tempAge {
				os.Remove(p)
			}
			return
		}
		ents = append(ents, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
	})
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if total > d.maxBytes {
		sort.Slice(ents, func(i, j int) bool { return ents[i].time.Before(ents[j].time) })
		target := int64(float64(d.maxBytes) * lowWater)
		for _, e := range ents {
			if total <= target {
				break
			}
			if err := os.Remove(e.path); err == nil || errors.Is(err, fs.ErrNotExist) {
				total -= e.size
			}
		}
	}
	return d.writeLedger(total, now)
}

// Size returns the bytes the entries take (in the folders that may be
// used).
func (d *Dir) Size() (int64, error) {
	var total int64
	err := d.walk(func(p string, info fs.FileInfo) {
		if !strings.HasPrefix(info.Name(), ".tmp-") {
			total += info.Size()
		}
	})
	return total, err
}

// walk calls fn with every file of the cache but the ledger (the entries
// and temporary files), as it is (a link is not followed), in the folders
// that may be used.
func (d *Dir) walk(fn func(p string, info fs.FileInfo)) error {
	ledger := filepath.Join(d.root, ledgerName)
	return filepath.WalkDir(d.root, func(p string, de fs.DirEntry, err error) error {
		switch {
		case err != nil && p == d.root:
			return err
		case err != nil || p == ledger || p == d.root:
			return nil // a folder or file removed meanwhile
		case de.IsDir():
			if d.folder(p, false) != nil {
				return fs.SkipDir
			}
			return nil
		}
		if info, err := de.Info(); err == nil {
			fn(p, info)
		}
		return nil
	})
}
