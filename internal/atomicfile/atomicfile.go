// Package atomicfile writes files so that readers see either the old content
// or the whole new content, never a partial write.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// maxLinks bounds the symbolic links followed to the file written.
const maxLinks = 40

// Target resolves where WriteFile writes path: through symbolic links to
// the file they name (so a link to a config file is updated, not replaced
// by a plain file), and whether that is a device or pipe written in place.
// It refuses a directory, a socket and other entries that cannot be
// replaced safely.
func Target(path string) (target string, inPlace bool, mode os.FileMode, err error) {
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
				link = filepath.Join(filepath.Dir(target), link)
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

// WriteFile writes data to path so that readers see either the old content
// or the whole new content: to a temporary file in the directory of the
// file, synced, then renamed over it. A symbolic link is followed to the
// file it names; an existing file keeps its mode (perm is for a new file);
// a character device or a pipe (-o /dev/null, -o /dev/stdout) is written
// in place; a directory or socket is refused. On failure nothing is left
// behind.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	target, inPlace, mode, err := Target(path)
	if err != nil {
		return err
	}
	if inPlace {
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("failed to open %s: %w", path, err)
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return fmt.Errorf("failed to write %s: %w", path, err)
		}
		return f.Close()
	}
	if mode != 0 {
		perm = mode
	}
	path = target
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("failed to create temporary file for %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("failed to set mode of %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("failed to sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("failed to close %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("failed to rename into %s: %w", path, err)
	}
	return nil
}

// CreateExclusive writes data to path only if path does not exist yet. The
// content is first written to a temporary file and then linked into place,
// so a concurrent reader never sees a partial file and two writers never
// share a name. It returns an error satisfying errors.Is(err, os.ErrExist)
// when path is taken.
func CreateExclusive(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("failed to create temporary file for %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err = f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("failed to set mode of %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("failed to sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("failed to close %s: %w", path, err)
	}
	// os.Link fails with EEXIST when path exists, which makes the claim atomic.
	if err = os.Link(tmp, path); err != nil {
		return err
	}
	return nil
}
