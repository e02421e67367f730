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

// writeAll writes data to f a chunk at a time, stopping with the
// context's error when ctx is done.
func writeAll(ctx context.Context, f *os.File, data []byte) error {
	for len(data) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(chunk, len(data))
		if _, err := f.Write(data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
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

// fill writes data to the temporary file f for path, sets its mode and
// syncs and closes it; on any failure it closes f.
func fill(ctx context.Context, f *os.File, path string, data []byte, perm os.FileMode) error {
	err := writeAll(ctx, f, data)
	switch {
	case err != nil && ctx.Err() != nil:
	case err != nil:
		err = &WriteError{"write", path, err}
	default:
		if err = f.Chmod(perm); err != nil {
			err = &WriteError{"set the mode of", path, err}
		} else if err = f.Sync(); err != nil {
			err = &WriteError{"sync", path, err}
		}
	}
	if err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return &WriteError{"close", path, err}
	}
	// the last look: a run stopped by now replaces nothing
	return ctx.Err()
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
	target, inPlace, mode, err := Target(path)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if inPlace {
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return &WriteError{"open", path, err}
		}
		if err := writeAll(ctx, f, data); err != nil {
			f.Close()
			if ctx.Err() != nil {
				return err
			}
			return &WriteError{"write", path, err}
		}
		if err := f.Close(); err != nil {
			return &WriteError{"close", path, err}
		}
		return nil
	}
	if mode != 0 {
		perm = mode
	}
	path = target
	f, err := tempFile(path)
	if err != nil {
		return err
	}
	tmp := f.Name()
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			os.Remove(tmp)
		}
		temps.Delete(tmp)
	}()
	if err := fill(ctx, f, path, data, perm); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return &WriteError{"rename into", path, err}
	}
	renamed = true
	return nil
}

// CreateExclusive writes data to path only if path does not exist yet. The
// content is first written to a temporary file and then linked into place,
// so a concurrent reader never sees a partial file and two writers never
// share a name. It returns an error satisfying errors.Is(err, os.ErrExist)
// when path is taken, and the context's error, having created nothing,
// when ctx is done before the file is linked. The temporary file is always
// removed.
func CreateExclusive(ctx context.Context, path string, data []byte, perm os.FileMode) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := tempFile(path)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		os.Remove(tmp)
		temps.Delete(tmp)
	}()
	if err := fill(ctx, f, path, data, perm); err != nil {
		return err
	}
	// os.Link fails with EEXIST when path exists, which makes the claim atomic.
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return err
		}
		return &WriteError{"link", path, err}
	}
	return nil
}
