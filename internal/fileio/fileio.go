// Package fileio is the one bounded reader of ctx: every file ctx reads
// (instruction sources, aggregated files, ctx.toml, .gitignore, history
// files, attachments, stored manifests, presets) goes through [Read] or
// [ReadIn].
//
// A read opens the file without blocking (so a FIFO cannot hang it), checks
// the opened descriptor (not the path, so a file swapped for a FIFO between
// a check and the open is still refused), refuses anything that is not a
// regular file, compares the size with the limit before reading (a huge
// sparse file is refused without being read), and reads at most limit bytes
// (a file that grows while it is read is refused too).
package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Errors of [Read]. A missing file gives an error satisfying
// errors.Is(err, fs.ErrNotExist).
var (
	// ErrIsDir: the path names a directory.
	ErrIsDir = errors.New("is a directory")
	// ErrNotRegular: the path names a FIFO, device, socket or other
	// special file, which could block or never end.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is matched by every [*TooLargeError].
	ErrTooLarge = errors.New("file too large")
)

// TooLargeError is a file over the limit: Size is its size when it was
// opened, or -1 when it grew past the limit while it was read.
type TooLargeError struct {
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("grew past the limit of %d bytes", e.Limit)
	}
	return fmt.Sprintf("larger than %d bytes", e.Limit)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Read reads the regular file at path, at most limit bytes (limit <= 0 means
// no limit). It returns the file's information as opened.
func Read(path string, limit int64) ([]byte, fs.FileInfo, error) {
	return read(func(flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) }, path, limit, nil)
}

// ReadIn is [Read] of name inside root: name cannot lead outside root, by
// ".." or by a symbolic link.
func ReadIn(root *os.Root, name string, limit int64) ([]byte, fs.FileInfo, error) {
	return read(func(flag int) (*os.File, error) { return root.OpenFile(name, flag, 0) }, name, limit, nil)
}

// OutsideError is a file whose real path (every symbolic link resolved)
// the caller does not allow: [ReadAllowed] read nothing of it.
type OutsideError struct {
	// Real is the file's real path.
	Real string
}

func (e *OutsideError) Error() string { return "its real path " + e.Real + " is not allowed" }

// ReadAllowed is [Read] of a file whose real path allow must accept; it
// returns the real path too. The real path is the one of the file that was
// opened (on Linux, read back from the open descriptor), so a link swapped
// between a check and the open cannot lead elsewhere; where the system
// cannot tell, it is resolved from path just after the open. A file allow
// refuses gives an *OutsideError and is not read.
func ReadAllowed(path string, limit int64, allow func(real string) bool) ([]byte, fs.FileInfo, string, error) {
	var real string
	b, st, err := read(func(flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) }, path, limit, func(f *os.File) error {
		r, err := realPath(f, path)
		if err != nil {
			return err
		}
		real = r
		if !allow(r) {
			return &OutsideError{Real: r}
		}
		return nil
	})
	return b, st, real, err
}

func read(open func(flag int) (*os.File, error), path string, limit int64, check func(*os.File) error) ([]byte, fs.FileInfo, error) {
	f, err := open(os.O_RDONLY | nonBlock)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if check != nil {
		if err := check(f); err != nil {
			return nil, nil, err
		}
	}
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case st.IsDir():
		return nil, st, ErrIsDir
	case !st.Mode().IsRegular():
		return nil, st, ErrNotRegular
	case limit > 0 && st.Size() > limit:
		return nil, st, &TooLargeError{Size: st.Size(), Limit: limit}
	}
	b, err := readLimited(f, limit, st.Size())
	var tl *TooLargeError
	if errors.As(err, &tl) {
		tl.Size = -1 // it grew while it was read
	}
	return b, st, err
}

// ReadAll reads r to its end, at most limit bytes (limit <= 0 means no
// limit): more is a *TooLargeError. A reader that tells what is left of
// it (a regular file, as standard input redirected from one is; a reader
// with a Len method, such as bytes.Reader) is refused by that size before
// a byte is read, and read into one buffer of its size.
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	size := int64(-1)
	switch x := r.(type) {
	case interface{ Len() int }:
		size = int64(x.Len())
	case *os.File:
		if st, err := x.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
			if off, err := x.Seek(0, io.SeekCurrent); err == nil {
				size = max(size-off, 0)
			}
		}
	}
	if limit > 0 && size > limit {
		return nil, &TooLargeError{Size: size, Limit: limit}
	}
	return readLimited(r, limit, max(size, 512))
}

// readLimited reads r to its end into a buffer of size+1 bytes to begin
// with, at most limit bytes (limit <= 0: no limit).
func readLimited(f io.Reader, limit, size int64) ([]byte, error) {
	r := f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
		size = min(size, limit)
	}
	buf := make([]byte, 0, size+1)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
	if limit > 0 && int64(len(buf)) > limit {
		return nil, &TooLargeError{Size: int64(len(buf)), Limit: limit}
	}
	return buf, nil
}

// Cause strips the operation and path from a *fs.PathError, so that
// messages can name the file their own way (and never by a host path the
// user did not give): "open /x/y: permission denied" becomes "permission
// denied". Other errors are returned as they are.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Describe says in a few words why [Read] failed, without the path (the
// caller names the file its own way): "is a directory", "not a regular
// file", "larger than N bytes", "grew past the limit of N bytes", or
// "cannot read: " and the cause ("no such file or directory").
func Describe(err error) string {
	var tl *TooLargeError
	switch {
	case errors.Is(err, ErrIsDir):
		return "is a directory"
	case errors.Is(err, ErrNotRegular):
		return "not a regular file"
	case errors.As(err, &tl):
		return tl.Error()
	}
	var oe *OutsideError
	if errors.As(err, &oe) {
		return "outside the project (" + oe.Real + ")"
	}
	return "cannot read: " + Cause(err).Error()
}
