package atomicfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// Writer writes a file as it is produced, so that the whole content never
// has to be held in memory, with the guarantees of [WriteFile] and
// [CreateExclusive]: the data goes to a temporary file that only
// [Writer.Commit] (or [Writer.Link]) puts in place; [Writer.Close] without
// them removes it, so a write abandoned on an error, a cancelled context or
// a panic (Close deferred) leaves nothing behind, and [RemoveTemps] removes
// it when the process must exit first. Each Write goes a chunk at a time
// and stops with the context's error once ctx is done.
//
// A Writer is not safe for concurrent use.
type Writer struct {
	ctx     context.Context
	f       *os.File
	path    string // the file replaced or written in place; "" until Link names it
	tmp     string // the temporary file; "" when written in place
	perm    os.FileMode
	err     error // the first error of a Write
	synced  bool  // the temporary file is complete, synced and closed
	settled bool  // committed or closed: nothing left to do
}

// Create starts writing path as [WriteFile] writes it: through symbolic
// links to the file they name, keeping an existing file's mode (perm is
// for a new file), in place for a character device or a pipe, refusing a
// directory or a socket. Write the content, then Commit; always Close.
func Create(ctx context.Context, path string, perm os.FileMode) (*Writer, error) {
	target, inPlace, mode, err := Target(path)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if inPlace {
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, &WriteError{"open", path, err}
		}
		return &Writer{ctx: ctx, f: f, path: path}, nil
	}
	if mode != 0 {
		perm = mode
	}
	f, err := tempFile(target)
	if err != nil {
		return nil, err
	}
	return &Writer{ctx: ctx, f: f, path: target, tmp: f.Name(), perm: perm}, nil
}

// CreateTemp starts writing a file of directory dir whose name is chosen
// once it is written: write the content, then [Writer.Link] it to a name
// that must not exist yet (as [CreateExclusive] does); always Close. name
// only names the temporary file.
func CreateTemp(ctx context.Context, dir, name string, perm os.FileMode) (*Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := tempFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	return &Writer{ctx: ctx, f: f, tmp: f.Name(), perm: perm}, nil
}

// Write writes p a chunk at a time. It stops with the context's error when
// ctx is done; any other failure is a [*WriteError]. After an error, every
// Write, Commit and Link fails with it.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.synced || w.settled {
		return 0, errors.New("atomicfile: write after commit or close")
	}
	n := 0
	for len(p) > 0 {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			return n, err
		}
		c := min(chunk, len(p))
		m, err := w.f.Write(p[:c])
		n += m
		if err != nil {
			w.err = &WriteError{"write", w.name(), err}
			return n, w.err
		}
		p = p[c:]
	}
	return n, nil
}

// name is the file named in errors.
func (w *Writer) name() string {
	if w.path != "" {
		return w.path
	}
	return w.tmp
}

// finish sets the temporary file's mode, syncs and closes it, once.
func (w *Writer) finish() error {
	if w.err != nil {
		return w.err
	}
	if w.settled {
		return errors.New("atomicfile: commit after close")
	}
	if w.synced {
		return nil
	}
	if w.tmp == "" {
		// written in place
		if err := w.f.Close(); err != nil {
			w.err = &WriteError{"close", w.name(), err}
			return w.err
		}
		w.synced = true
		return nil
	}
	var err error
	if err = w.f.Chmod(w.perm); err != nil {
		err = &WriteError{"set the mode of", w.name(), err}
	} else if err = w.f.Sync(); err != nil {
		err = &WriteError{"sync", w.name(), err}
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = &WriteError{"close", w.name(), cerr}
	}
	if err != nil {
		w.err = err
		return err
	}
	w.synced = true
	return nil
}

// Commit completes the file: the temporary file is synced and renamed over
// the file of [Create] (a file written in place is closed). When ctx is
// done first, it returns the context's error and replaces nothing.
func (w *Writer) Commit() error {
	if err := w.finish(); err != nil {
		return err
	}
	if w.tmp == "" {
		w.settled = true
		return nil
	}
	// the last look: a run stopped by now replaces nothing
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if w.path == "" {
		return errors.New("atomicfile: Commit of a file of CreateTemp (Link names it)")
	}
	if err := os.Rename(w.tmp, w.path); err != nil {
		return &WriteError{"rename into", w.path, err}
	}
	temps.Delete(w.tmp)
	w.settled = true
	return nil
}

// Link completes the temporary file of [CreateTemp] and links it to path,
// which must not exist: the error satisfies errors.Is(err, os.ErrExist)
// when it does, and Link may be called again with another name. When ctx
// is done first, it returns the context's error and links nothing. Close
// removes the temporary file afterwards.
func (w *Writer) Link(path string) error {
	if w.tmp == "" {
		return errors.New("atomicfile: Link of a file written in place")
	}
	if err := w.finish(); err != nil {
		return err
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	// os.Link fails with EEXIST when path exists, which makes the claim atomic.
	if err := os.Link(w.tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return err
		}
		return &WriteError{"link", path, err}
	}
	w.path = path
	return nil
}

// Close ends the write: without a Commit it abandons it, closing and
// removing the temporary file, so that the file is as it was; after Link it
// removes the temporary name. It is safe to call more than once, and after
// Commit (then it does nothing).
func (w *Writer) Close() error {
	if w.settled {
		return nil
	}
	w.settled = true
	if !w.synced {
		w.f.Close()
	}
	if w.tmp != "" {
		os.Remove(w.tmp)
		temps.Delete(w.tmp)
	}
	return nil
}
