// Package gitignore applies git's ignore rules to the paths of a working
// tree: the one matcher of ctx, behind the walks of package aggregate
// (aggregate.GitIgnore, its default ignore list and --ignore patterns)
// and of an agent profile (its subdirectories).
//
// Patterns are matched as git matches them (dir.c and wildmatch.c): a
// pattern without a slash matches a name at any depth, one with a slash
// (other than a trailing one) matches the path relative to the directory
// of its file, a trailing slash matches directories only, "!" re-includes,
// "**" spans directories, and the last pattern that matches decides, the
// deeper .gitignore files after the shallower ones and .git/info/exclude
// first. A path below an excluded directory is excluded whatever follows,
// as in git. The user's global excludes file (core.excludesFile) is not
// read, so that every clone sees the same rules.
package gitignore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ctxaudit/ctx/internal/fileio"
)

// maxIgnoreFile bounds how much of one ignore file is read.
const maxIgnoreFile = 1 << 20

// Pattern is one pattern of an ignore file, or one given by a caller.
type Pattern struct {
	// Text is the pattern as written, without its trailing spaces.
	Text string
	// Source is the ignore file relative to the repository root, with
	// forward slashes (".gitignore", "docs/.gitignore",
	// ".git/info/exclude"); "" for a pattern given by a caller.
	Source string
	// Line is the pattern's line in Source, from 1.
	Line int

	negate    bool
	mustBeDir bool
	noDir     bool   // no slash: matched against the base name
	body      string // without "!", the trailing "/" and a leading "/"
	prefix    int    // the length of body's literal start
	base      string // the directory of the pattern, slash, "" at the root
}

// Parse parses one line of an ignore file in directory base (relative to
// the root, with forward slashes; "" for the root). ok is false for a
// blank line or a comment. Trailing spaces are dropped unless escaped
// ("\ "), and a line ending with "\r" loses it.
func Parse(line, base string) (p *Pattern, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return nil, false
	}
	line = trimTrailingSpaces(line)
	if line == "" {
		return nil, false
	}
	p = &Pattern{Text: line, base: strings.Trim(base, "/")}
	body := line
	if body[0] == '!' {
		p.negate = true
		body = body[1:]
	}
	if strings.HasSuffix(body, "/") {
		p.mustBeDir = true
		body = body[:len(body)-1]
	}
	p.noDir = !strings.Contains(body, "/")
	if !p.noDir {
		// anchored to the directory of the file either way
		body = strings.TrimPrefix(body, "/")
	}
	p.body = body
	p.prefix = simpleLength(body)
	return p, true
}

// trimTrailingSpaces drops the spaces at the end of s that no backslash
// escapes, as git does.
func trimTrailingSpaces(s string) string {
	end := -1 // the end of the text kept, -1 while no space is pending
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if end < 0 {
				end = i
			}
		case '\\':
			i++
			end = -1
		default:
			end = -1
		}
	}
	if end >= 0 {
		return s[:end]
	}
	return s
}

// simpleLength is the length of the start of s that holds no wildcard.
func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// Negated reports a "!" pattern, which re-includes what it matches.
func (p *Pattern) Negated() bool { return p.negate }

// String is where the pattern comes from and the pattern:
// ".gitignore:3 /versions", or the pattern alone.
func (p *Pattern) String() string {
	if p.Source == "" {
		return p.Text
	}
	return fmt.Sprintf("%s:%d %s", p.Source, p.Line, p.Text)
}

// Matches reports whether the pattern matches the path rel itself (slash
// separated, relative to the root), a directory when isDir. It never
// looks at rel's parent directories: a path below an excluded directory
// is the caller's to leave out (see [GitIgnore]).
func (p *Pattern) Matches(rel string, isDir bool) bool {
	if p.mustBeDir && !isDir {
		return false
	}
	if p.noDir {
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		if p.base != "" && !strings.HasPrefix(rel, p.base+"/") {
			return false
		}
		if p.prefix == len(p.body) {
			return name == p.body
		}
		return wildmatch(p.body, name, false)
	}
	name := rel
	if p.base != "" {
		if !strings.HasPrefix(rel, p.base+"/") {
			return false
		}
		name = rel[len(p.base)+1:]
	}
	// git compares the literal start, then matches the rest
	if p.prefix > 0 {
		if p.prefix > len(name) || name[:p.prefix] != p.body[:p.prefix] {
			return false
		}
		if p.prefix == len(p.body) {
			return len(name) == p.prefix
		}
		return wildmatch(p.body[p.prefix:], name[p.prefix:], true)
	}
	return wildmatch(p.body, name, true)
}

// Last returns the last pattern of list that matches rel itself (see
// [Pattern.Matches]), the one that decides; nil when none does.
func Last(list []*Pattern, rel string, isDir bool) *Pattern {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].Matches(rel, isDir) {
			return list[i]
		}
	}
	return nil
}

// GitIgnore applies git's ignore rules below a repository root: the
// .gitignore file of every directory (nested files refine their parents')
// and .git/info/exclude. A path inside an excluded directory is excluded.
// It reads each ignore file once, lazily; it is not safe for concurrent
// use. An ignore file that exists but cannot be read (a FIFO, a
// directory, over 1 MiB, no permission) is an error, reported by
// [GitIgnore.Err]: such a file must not let ignored files through.
type GitIgnore struct {
	root     string
	patterns map[string][]*Pattern // the patterns of each directory's file, by slash path
	dirs     map[string]*Pattern   // what excludes each directory (nil: nothing)
	err      error
}

// New returns the rules of the repository that contains dir: the nearest
// ancestor of dir (or dir itself) holding a .git entry. Without one, dir
// is the root and only .gitignore files apply.
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
	return &GitIgnore{root: root, patterns: map[string][]*Pattern{}, dirs: map[string]*Pattern{}}
}

// Root returns the repository root the rules apply below.
func (g *GitIgnore) Root() string { return g.root }

// Err returns the first error reading an ignore file, naming it relative
// to the repository root, or nil.
func (g *GitIgnore) Err() error { return g.err }

// Ignored reports whether abs, an absolute clean host path, is ignored.
func (g *GitIgnore) Ignored(abs string, isDir bool) bool { return g.Why(abs, isDir) != nil }

// Why returns the pattern that leaves abs out (its own, or one that
// excludes a directory holding it), nil when git does not ignore it.
func (g *GitIgnore) Why(abs string, isDir bool) *Pattern { return g.WhyBelow("", abs, isDir) }

// WhyBelow is [GitIgnore.Why] for a walk of the directory top: top and
// the directories above it are not looked at, so what git ignores only
// because top is ignored is not left out (a directory named explicitly
// is read), while the rules still apply below it. "" is the root.
func (g *GitIgnore) WhyBelow(top, abs string, isDir bool) *Pattern {
	parts, ok := g.split(abs)
	if !ok {
		return nil
	}
	from := 0 // the parts of top (none for the root or above it)
	if top != "" {
		if tp, ok := g.split(top); ok {
			from = len(tp)
		}
	}
	for i := from + 1; i < len(parts); i++ {
		if p := g.dir(parts[:i]); p != nil {
			return p
		}
	}
	if len(parts) <= from {
		return nil
	}
	return g.decide(parts, isDir)
}

// split returns abs relative to the root in slash parts; ok is false for
// the root itself and for a path outside it.
func (g *GitIgnore) split(abs string) ([]string, bool) {
	rel, err := filepath.Rel(g.root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, false
	}
	return strings.Split(filepath.ToSlash(rel), "/"), true
}

// dir returns what excludes the directory parts itself (not its parents),
// memoized.
func (g *GitIgnore) dir(parts []string) *Pattern {
	key := strings.Join(parts, "/")
	if p, ok := g.dirs[key]; ok {
		return p
	}
	p := g.decide(parts, true)
	g.dirs[key] = p
	return p
}

// decide returns the exclude pattern that decides parts itself, nil when
// none excludes it (or a "!" pattern re-includes it): the patterns of the
// directories above parts, deeper files first, the last pattern of a file
// first.
func (g *GitIgnore) decide(parts []string, isDir bool) *Pattern {
	rel := strings.Join(parts, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if p := Last(g.load(parts[:i]), rel, isDir); p != nil {
			if p.negate {
				return nil
			}
			return p
		}
	}
	return nil
}

// load returns the patterns of the ignore file of directory dir (and, at
// the root, of .git/info/exclude first).
func (g *GitIgnore) load(dir []string) []*Pattern {
	key := strings.Join(dir, "/")
	if ps, ok := g.patterns[key]; ok {
		return ps
	}
	base := filepath.Join(append([]string{g.root}, dir...)...)
	var ps []*Pattern
	if len(dir) == 0 {
		ps = append(ps, g.readFile(filepath.Join(base, ".git", "info", "exclude"), ".git/info/exclude", key)...)
	}
	name := ".gitignore"
	if key != "" {
		name = key + "/.gitignore"
	}
	ps = append(ps, g.readFile(filepath.Join(base, ".gitignore"), name, key)...)
	g.patterns[key] = ps
	return ps
}

// readFile parses the ignore file p (shown as name), whose patterns are
// relative to directory base.
func (g *GitIgnore) readFile(p, name, base string) []*Pattern {
	data, _, err := fileio.Read(p, maxIgnoreFile)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil
	default:
		if g.err == nil {
			g.err = fmt.Errorf("%s: %s (an ignore file ctx cannot read would let ignored files through)", name, fileio.Describe(err))
		}
		return nil
	}
	if name == ".git/info/exclude" {
		base = ""
	}
	return ParseFile(data, name, base)
}

// ParseFile parses the lines of an ignore file named name (for
// [Pattern.Source]) in directory base (see [Parse]). A UTF-8 byte order
// mark at its start is skipped, as git does.
func ParseFile(data []byte, name, base string) []*Pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var ps []*Pattern
	for i, line := range strings.Split(string(data), "\n") {
		if p, ok := Parse(line, base); ok {
			p.Source, p.Line = name, i+1
			ps = append(ps, p)
		}
	}
	return ps
}
