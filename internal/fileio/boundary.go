package fileio

import (
	"os"
	"path/filepath"
	"strings"
)

// Boundary is what files may be read: those whose real path lies in the
// project directory, or in one of the directories allowed outside it (see
// [ReadAllowed]).
type Boundary struct {
	project string   // real path
	allow   []string // real paths
}

// RealDir is dir made absolute with its links resolved (as far as it
// exists).
func RealDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.Clean(dir)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// NewBoundary returns the boundary of the project directory and the
// directories allowed outside it ("/" allows every file), made absolute
// with their links resolved.
func NewBoundary(project string, allow []string) *Boundary {
	b := &Boundary{project: RealDir(project)}
	for _, a := range allow {
		b.allow = append(b.allow, RealDir(a))
	}
	return b
}

// within reports whether p is dir or lies below it.
func within(dir, p string) bool {
	if dir == string(os.PathSeparator) {
		return filepath.IsAbs(p)
	}
	return p == dir || strings.HasPrefix(p, dir+string(os.PathSeparator))
}

// Inside reports whether the real path p lies in the project.
func (b *Boundary) Inside(p string) bool { return within(b.project, p) }

// Allowed reports whether the file at the real path p may be read.
func (b *Boundary) Allowed(p string) bool {
	if b.Inside(p) {
		return true
	}
	for _, a := range b.allow {
		if within(a, p) {
			return true
		}
	}
	return false
}

// RealPath is p made absolute with the links of its longest existing
// ancestor resolved, and the rest (which does not exist yet) joined as it
// is: where a file created at p would be.
func RealPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for dir := abs; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}
