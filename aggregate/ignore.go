package aggregate

import (
	"github.com/ctxaudit/ctx/internal/gitignore"
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

// GitIgnore applies git's ignore rules below a repository root, exactly as
// git does (the matcher of internal/gitignore, compared with git in its
// tests): the .gitignore file of every directory (nested files refine
// their parents') and .git/info/exclude. A path inside an ignored
// directory is ignored. It reads each ignore file once, lazily; it is not
// safe for concurrent use. An ignore file that exists but cannot be read
// (a FIFO, a directory, over 1 MiB, no permission) is an error, reported
// by [GitIgnore.Err].
type GitIgnore struct {
	g *gitignore.GitIgnore
}

// NewGitIgnore returns the rules of the repository that contains dir: the
// nearest ancestor of dir (or dir itself) holding a .git entry. Without one,
// dir is the root and only .gitignore files apply.
func NewGitIgnore(dir string) *GitIgnore { return &GitIgnore{gitignore.New(dir)} }

// Ignored implements [Ignorer].
func (g *GitIgnore) Ignored(abs string, isDir bool) bool { return g.g.Ignored(abs, isDir) }

// Err returns the first error reading an ignore file, naming it relative to
// the repository root, or nil.
func (g *GitIgnore) Err() error { return g.g.Err() }

// whyBelow returns the pattern that leaves abs out of a walk of the
// directory top (top and the directories above it are not looked at: a
// directory named explicitly, or a glob's base, is read), nil when none
// does.
func (g *GitIgnore) whyBelow(top, abs string, isDir bool) *gitignore.Pattern {
	return g.g.WhyBelow(top, abs, isDir)
}

// noIgnore ignores nothing: Options.NoGitIgnore.
type noIgnore struct{}

func (noIgnore) Ignored(string, bool) bool { return false }
