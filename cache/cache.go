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

	hits, misses, corrupt, puts, failed atomic.Int64
	// written counts the bytes written since the last trim
	written  atomic.Int64
	trimming atomic.Bool

	mu   sync.Mutex
	dirs map[string]bool // subdirectories known to exist
}

// Stats counts what a Dir did: Hits and Misses of Get, Corrupt entries
// found (counted among the misses), Puts stored and Failed writes.
type Stats struct {
	Hits, Misses, Corrupt, Puts, Failed int64
}

// Open opens the cache in dir, creating it (mode 0700: the views of one's
// files are one's own). maxBytes bounds its size; 0 is DefaultMaxBytes.
// On Unix the directory of the entries must belong to the user: one of
// another user is an error, and one the group or others may write is made
// the user's alone, since an entry that checks out is used as it is.
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
	return &Dir{root: root, maxBytes: maxBytes, dirs: map[string]bool{}}, nil
}

// Path returns the directory of the entries.
func (d *Dir) Path() string { return d.root }

// Stats returns the counts so far.
func (d *Dir) Stats() Stats {
	return Stats{Hits: d.hits.Load(), Misses: d.misses.Load(), Corrupt: d.corrupt.Load(), Puts: d.puts.Load(), Failed: d.failed.Load()}
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
	b, mtime, err := readEntry(p)
	if err != nil {
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
// large to be an entry.
func readEntry(p string) ([]byte, time.Time, error) {
	b, st, err := fileio.Read(p, maxEntry)
	if err != nil {
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
// a failure to write is counted (Stats.Failed), not returned.
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
	d.mu.Lock()
	known := d.dirs[dir]
	d.mu.Unlock()
	if !known {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		d.mu.Lock()
		d.dirs[dir] = true
		d.mu.Unlock()
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
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
	b, _, err := fileio.Read(filepath.Join(d.root, ledgerName), 64)
	if err != nil {
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
// ledger that Close goes by.
func (d *Dir) Trim() error {
	d.written.Store(0)
	var ents []entry
	var total int64
	now := time.Now()
	ledger := filepath.Join(d.root, ledgerName)
	err := filepath.WalkDir(d.root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if p == d.root {
				return err
			}
			return nil // a directory removed meanwhile
		}
		if de.IsDir() || p == ledger {
			return nil
		}
		info, err := de.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(de.Name(), ".tmp-") {
			if now.Sub(info.ModTime()) > tempAge {
				os.Remove(p)
			}
			return nil
		}
		ents = append(ents, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
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

// Size returns the bytes the entries take.
func (d *Dir) Size() (int64, error) {
	var total int64
	err := filepath.WalkDir(d.root, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || strings.HasPrefix(de.Name(), ".tmp-") || p == filepath.Join(d.root, ledgerName) {
			return nil
		}
		if info, err := de.Info(); err == nil {
			total += info.Size()
		}
		return nil
	})
	return total, err
}
