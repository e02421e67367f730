package aggregate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxaudit/ctx/internal/fileio"
)

// Ignorer decides which paths globs and directory walks skip. Paths named
// explicitly in the files list are never subject to it. An Ignorer that
// also has a method Err() error (as [GitIgnore] does) stops a walk with
// that error when it is not nil: rules that could not be read must not let
// ignored files through.
type Ignorer interface {
	// Ignored reports whether abs, an absolute clean host path, is ignored.
	Ignored(abs string, isDir bool) bool
}

// ignoreErr is the error of an Ignorer with an Err method, else nil.
func ignoreErr(ign Ignorer) error {
	if e, ok := ign.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// maxIgnoreFile bounds how much of one ignore file is read.
const maxIgnoreFile = 1 << 20

// GitIgnore applies git's ignore rules below a repository root: the
// .gitignore file of every directory (nested files refine their parents')
// and .git/info/exclude. A path inside an ignored directory is ignored. It
// reads each ignore file once, lazily; it is not safe for concurrent use.
// An ignore file that exists but cannot be read (a FIFO, a directory, over
// 1 MiB, no permission) is an error, reported by [GitIgnore.Err].
type GitIgnore struct {
	root     string
	patterns map[string][]gitignore.Pattern // by slash-joined dir parts
	dirs     map[string]bool                // ignored-directory memo
	err      error                          // the first ignore file that could not be read
}

// Err returns the first error reading an ignore file, naming it relative to
// the repository root, or nil.
func (g *GitIgnore) Err() error { return g.err }

// NewGitIgnore returns the rules of the repository that contains dir: the
// nearest ancestor of dir (or dir itself) holding a .git entry. Without one,
// dir is the root and only .gitignore files apply.
func NewGitIgnore(dir string) *GitIgnore {
	dir = filepath.Clean(dir)
	root := dir
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return &GitIgnore{root: root, patterns: map[string][]gitignore.Pattern{}, dirs: map[string]bool{}}
}

// Ignored implements [Ignorer].
func (g *GitIgnore) Ignored(abs string, isDir bool) bool {
	rel, err := filepath.Rel(g.root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) > 1 && g.dirIgnored(parts[:len(parts)-1]) {
		return true
	}
	return g.match(parts, isDir)
}

func (g *GitIgnore) dirIgnored(parts []string) bool {
	key := strings.Join(parts, "/")
	if v, ok := g.dirs[key]; ok {
		return v
	}
	v := (len(parts) > 1 && g.dirIgnored(parts[:len(parts)-1])) || g.match(parts, true)
	g.dirs[key] = v
	return v
}

// match applies the patterns of the root and of every ancestor directory of
// parts, deeper files last (higher priority).
func (g *GitIgnore) match(parts []string, isDir bool) bool {
	var ps []gitignore.Pattern
	for i := 0; i < len(parts); i++ {
		ps = append(ps, g.load(parts[:i])...)
	}
	return gitignore.NewMatcher(ps).Match(parts, isDir)
}

func (g *GitIgnore) load(dir []string) []gitignore.Pattern {
	key := strings.Join(dir, "/")
	if ps, ok := g.patterns[key]; ok {
		return ps
	}
	base := filepath.Join(append([]string{g.root}, dir...)...)
	var ps []gitignore.Pattern
	if len(dir) == 0 {
		ps = append(ps, g.readIgnoreFile(filepath.Join(base, ".git", "info", "exclude"), dir)...)
	}
	ps = append(ps, g.readIgnoreFile(filepath.Join(base, ".gitignore"), dir)...)
	g.patterns[key] = ps
	return ps
}

func (g *GitIgnore) readIgnoreFile(p string, domain []string) []gitignore.Pattern {
	data, _, err := fileio.Read(p, maxIgnoreFile)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil
	default:
		if g.err == nil {
			rel, rerr := filepath.Rel(g.root, p)
			if rerr != nil {
				rel = filepath.Base(p)
			}
			g.err = fmt.Errorf("%s: %s (an ignore file ctx cannot read would let ignored files through)", filepath.ToSlash(rel), fileio.Describe(err))
		}
		return nil
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreFile)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
