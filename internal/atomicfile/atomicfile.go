// Package atomicfile writes files so that readers see either the old content
// or the whole new content, never a partial write.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes data to a temporary file in the directory of path, syncs
// it and renames it over path. On failure nothing is left behind.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
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
