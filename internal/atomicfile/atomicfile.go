// Package atomicfile writes files so that readers see either the old content
// or the whole new content, never a partial write.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// maxLinks bounds the symbolic links followed to the file written.
const maxLinks = 40

// Target resolves where WriteFile writes path: through symbolic links to
// the file they name (so a link to a config file is updated, not replaced
// by a plain file), and whether that is a device or pipe written in place.
// It refuses a directory, a socket and other entries that cannot be
// replaced safely.
func Target(path string) (target string, inPlace bool, mode os.FileMode, err error) {
	// what the path leads to, through every link: a device or a pipe is
	// written where it is (/dev/stdout leads through /proc/self/fd/1 to
	// a pipe that has no path of its own), a directory refused
	if st, err := os.Stat(path); err == nil {
		switch {
		case st.Mode()&os.ModeCharDevice != 0 || st.Mode()&os.ModeNamedPipe != 0:
			return path, true, 0, nil
		case st.IsDir():
			return "", false, 0, fmt.Errorf("cannot write %s: is a directory", path)
		case !st.Mode().IsRegular():
			return "", false, 0, fmt.Errorf("cannot write %s: not a regular file, character device or pipe", path)
		}
	}
	target = path
	for range maxLinks {
		st, err := os.Lstat(target)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return target, false, 0, nil
		case err != nil:
			return "", false, 0, fmt.Errorf("cannot write %s: %w", path, err)
		case st.Mode()&os.ModeSymlink != 0:
			link, err := os.Readlink(target)
			if err != nil {
				return "", false, 0, fmt.Errorf("cannot write %s: %w", path, err)
			}
			if !filepath.IsAbs(link) {
				// relative to the directory the link is in, as the
				// system resolves it: through the links of that
				// directory's own path
				dir := filepath.Dir(target)
				if real, err := filepath.EvalSymlinks(dir); err == nil {
					dir = real
				}
				link = filepath.Join(dir, link)
			}
			target = link
			continue
		case st.Mode().IsRegular():
			return target, false, st.Mode().Perm(), nil
		case st.Mode()&os.ModeCharDevice != 0 || st.Mode()&os.ModeNamedPipe != 0:
			return target, true, 0, nil
		case st.IsDir():
			return "", false, 0, fmt.Errorf("cannot write %s: is a directory", path)
		default:
			return "", false, 0, fmt.Errorf("cannot write %s: not a regular file, character device or pipe", path)
		}
	}
	return "", false, 0, fmt.Errorf("cannot write %s: too many symbolic links", path)
}

// chunk is how much is written between two looks at the context.
const chunk = 1 << 20

// WriteError is a failure to write, sync or rename a file (the system's
// fault, such as a full disk, not the request's): every error of
// [WriteFile] and [CreateExclusive] other than a refused target, a taken
// name or a done context wraps one.
type WriteError struct {
	Op   string // "create a temporary file for", "write", "sync", ...
	Path string
	Err  error
}

func (e *WriteError) Error() string { return "failed to " + e.Op + " " + e.Path + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// temps are the temporary files being written, for [RemoveTemps].
var temps sync.Map

// RemoveTemps removes the temporary files of the writes still in progress.
// A process that must exit before its writes have returned (a second
// signal, a write that does not end) calls it, so that no .NAME.tmp-*
// file is left behind.
func RemoveTemps() {
	temps.Range(func(k, _ any) bool {
		os.Remove(k.(string))
		return true
	})
}

// tempFile creates the temporary file for path in its directory.
func tempFile(path string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, &WriteError{"create a temporary file for", path, err}
	}
	temps.Store(f.Name(), struct{}{})
	return f, nil
}

// WriteFile writes data to path so that readers see either the old content
// or the whole new content: to a temporary file in the directory of the
// file, synced, then renamed over it. A symbolic link is followed to the
// file it names; an existing file keeps its mode (perm is for a new file);
// a character device or a pipe (-o /dev/null, -o /dev/stdout) is written
// in place; a directory or socket is refused.
//
// The data is written a chunk at a time; when ctx is done first, WriteFile
// returns the context's error and replaces nothing. On every failure, and
// on a panic, the temporary file is removed.
func WriteFile(ctx context.Context, path string, data []byte, perm os.FileMode) error {
	w, err := Create(ctx, path, perm)
	if err != nil {
		return err
	}
	defer w.Close()
	if _, err := w.Write(data); err != nil {
		return err
	}
	return w.Commit()
}

// CreateExclusive writes data to path only if path does not exist yet. The
// content is first written to a temporary file and then linked into place,
// so a concurrent reader never sees a partial file and two writers never
// share a name. It returns an error satisfying errors.Is(err, os.ErrExist)
// when path is taken, and the context's error, having created nothing,
// when ctx is done before the file is linked. The temporary file is always
// removed.
func CreateExclusive(ctx context.Context, path string, data []byte, perm os.FileMode) error {
	w, err := CreateTemp(ctx, filepath.Dir(path), filepath.Base(path), perm)
	if err != nil {
		return err
	}
	defer w.Close()
	if _, err := w.Write(data); err != nil {
		return err
	}
	return w.Link(path)
}

// CheckWritable reports whether a file can be written at path by this
// package: its directory exists and a file can be created in it (made and
// removed again). It is for a check before long work whose result goes
// there.
func CheckWritable(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".ctx-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
