package aggregate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ctxaudit/ctx/internal/display"
)

// OutputDirError is the error of an output directory that cannot hold the
// numbered outputs: it, or a directory on its path, is a symbolic link to
// nothing, or a file where a directory should be. It comes before anything
// is read or written; nothing is made (not the link's target either: a
// link that leads nowhere is more likely a mistake than a place to fill).
type OutputDirError struct {
	// At says where the output directory was set (Options.OutputDirAt:
	// "ctx.toml:5: output.output_dir"); "" for the default.
	At string
	// Dir is the output directory, and Path the link or file on its way
	// that is wrong (Dir itself, or a directory above it), both as shown to
	// people (relative to the base directory when inside it).
	Dir, Path string
	// What is wrong with Path: "is a link to .ctx/gone, which does not
	// exist", "is a link to notes.md, which is not a directory", "is a
	// file, not a directory".
	What string
}

func (e *OutputDirError) Error() string {
	msg := "output_dir " + e.Dir
	if e.At != "" {
		msg = e.At + ": " + e.Dir
	}
	if e.Path != e.Dir {
		msg += ": " + e.Path
	}
	return msg + " " + e.What
}

// checkOutputDir returns an [OutputDirError] when dir, or the first of
// its parents that exists, is a link that leads nowhere or is not a
// directory; nil when the run can make dir or write into it (other
// failures, a permission say, are the write's to report).
func checkOutputDir(dir, at, base string) error {
	show := func(p string) string { return display.Rel(p, base, "") }
	for p := dir; ; {
		fi, err := os.Lstat(p)
		if err == nil {
			e := &OutputDirError{At: at, Dir: show(dir), Path: show(p)}
			switch st, err := os.Stat(p); {
			case fi.Mode()&fs.ModeSymlink != 0 && errors.Is(err, fs.ErrNotExist):
				e.What = "is a link to " + show(linkTarget(p)) + ", which does not exist"
			case err != nil || st.IsDir():
				return nil
			case fi.Mode()&fs.ModeSymlink != 0:
				e.What = "is a link to " + show(linkTarget(p)) + ", which is not a directory"
			case st.Mode().IsRegular():
				e.What = "is a file, not a directory"
			default:
				e.What = "is not a directory"
			}
			return e
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}

// linkTarget is where the link p leads, one step, as a clean path (a
// relative target joined to the link's directory).
func linkTarget(p string) string {
	t, err := os.Readlink(p)
	if err != nil {
		return p
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(p), t)
	}
	return filepath.Clean(t)
}
