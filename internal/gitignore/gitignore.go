// Package gitignore applies git's ignore rules to the paths of a working
// tree, for the walks of an agent profile (its subdirectories). It is the
// matcher of package aggregate (aggregate.GitIgnore), which can use it in
// place of its own copy.
package gitignore

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxaudit/ctx/internal/fileio"
)

// maxIgnoreFile bounds how much of one ignore file is read.
const maxIgnoreFile = 1 << 20

// GitIgnore applies git's ignore rules below a repository root: the
// .gitignore file of every directory (nested files refine their parents')
// and .git/info/exclude. A path inside an ignored directory is ignored. It
// reads each ignore file once, lazily; it is not safe for concurrent use.
type GitIgnore struct {
	root     string
	patterns map[string][]gitignore.Pattern // by slash-joined dir parts
	dirs     map[string]bool                // ignored-directory memo
}

// New returns the rules of the repository that contains dir: the
// nearest ancestor of dir (or dir itself) holding a .git entry. Without one,
// dir is the root and only .gitignore files apply.
func New(dir string) *GitIgnore {
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

// Ignored reports whether abs, an absolute clean host path, is ignored.
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
		ps = append(ps, readIgnoreFile(filepath.Join(base, ".git", "info", "exclude"), dir)...)
	}
	ps = append(ps, readIgnoreFile(filepath.Join(base, ".gitignore"), dir)...)
	g.patterns[key] = ps
	return ps
}

func readIgnoreFile(p string, domain []string) []gitignore.Pattern {
	data, _, err := fileio.Read(p, maxIgnoreFile)
	if err != nil {
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
