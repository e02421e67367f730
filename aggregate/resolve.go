package aggregate

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/mdtext"
)

// IsHistoryFile reports whether name is a discussion history file
// (history.toml or *_history.toml, any case), which is never aggregated.
func IsHistoryFile(name string) bool {
	l := strings.ToLower(path.Base(filepath.ToSlash(name)))
	return l == "history.toml" || strings.HasSuffix(l, "_history.toml")
}

// isGlob reports whether entry uses glob syntax.
func isGlob(entry string) bool { return strings.ContainsAny(entry, "*?[{") }

// target is one resolved file (or a resolution error) of a files entry.
type target struct {
	file     FileItem // settings; Path is the entry
	abs      string   // host path; "" for an entry error
	label    string
	explicit bool   // named directly, not through a glob or a walk
	err      string // entry error: "file not found: ..." etc.
}

// resolver expands entries below a base directory.
type resolver struct {
	base  string // absolute, clean
	ign   Ignorer
	skip  map[string]bool // absolute, clean directories walks never enter
	rules *ignoreRules    // the default and the caller's patterns
	log   ignoredLog      // what the default patterns left out
	only  map[string]bool // when set, keep only these files (see [Changes])
	// resolved holds the host paths that the entries resolved to
	resolved map[string]int
	notes    int // paths the default patterns left out, with repeats
}

// newResolver returns the resolver of o's entries below base, with the
// repository rules ign.
func newResolver(o Options, base string, ign Ignorer) *resolver {
	return &resolver{base: base, ign: ign, skip: o.skipSet(),
		rules: newIgnoreRules(!o.NoDefaultIgnores, o.IgnorePatterns)}
}

// ignored returns what the default ignore list left out of the walks,
// sorted: not the files that an entry resolved to, and under a change
// filter only the changed files and the directories holding one.
func (r *resolver) ignored() []IgnoredPath {
	var keep func(IgnoredPath) bool
	if r.only != nil {
		keep = func(p IgnoredPath) bool {
			real := realPath(p.abs)
			if !p.Dir {
				return r.only[real]
			}
			for f := range r.only {
				if strings.HasPrefix(f, real+string(filepath.Separator)) {
					return true
				}
			}
			return false
		}
	}
	return r.log.list(r.resolved, keep)
}

// skipDir returns the directory that walks never enter (the output
// directory, Options.SkipDirs) holding abs or equal to it.
func (r *resolver) skipDir(abs string) (string, bool) {
	for d := abs; ; {
		if r.skip[d] {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// label returns abs relative to the base directory with forward slashes.
func (r *resolver) label(abs string) string {
	rel, err := filepath.Rel(r.base, abs)
	if err != nil {
		return filepath.Base(abs)
	}
	return filepath.ToSlash(rel)
}

func (r *resolver) abs(p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.base, p)
}

// resolveAll expands every entry in order. A file reached by several
// entries (or through symbolic links) is kept once, at its first position;
// an explicit entry's settings win over a glob's or a walk's.
func (r *resolver) resolveAll(ctx context.Context, entries []FileItem) ([]target, error) {
	var out []target
	seen := map[string]int{}
	for _, e := range entries {
		ts, err := r.resolve(ctx, e)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if t.abs == "" {
				out = append(out, t)
				continue
			}
			key := t.abs
			if real, err := filepath.EvalSymlinks(t.abs); err == nil {
				key = real // a file reached through a link is the same file
			}
			if i, ok := seen[key]; ok {
				if t.explicit && !out[i].explicit {
					out[i].file, out[i].explicit = t.file, true
				}
				continue
			}
			seen[key] = len(out)
			out = append(out, t)
		}
	}
	r.resolved = map[string]int{}
	for _, t := range out {
		if t.abs != "" {
			r.resolved[t.abs] = 0
		}
	}
	if r.only != nil {
		kept := out[:0]
		for _, t := range out {
			if t.abs == "" || r.only[realPath(t.abs)] {
				kept = append(kept, t) // entry errors stay: never hidden
			}
		}
		out = kept
	}
	return out, nil
}

// resolve expands one entry: a glob, a directory (walked) or a file. An
// entry with glob characters that names an existing path is that path.
func (r *resolver) resolve(ctx context.Context, e FileItem) ([]target, error) {
	entry := e.Path
	errT := func(label, msg string) []target {
		return []target{{file: e, label: label, err: msg}}
	}
	if strings.TrimSpace(entry) == "" {
		return errT(entry, "empty path"), nil
	}
	if isGlob(entry) && !r.exists(entry) {
		pat := filepath.ToSlash(entry)
		base, pattern := doublestar.SplitPattern(pat)
		if !doublestar.ValidatePattern(pattern) {
			return errT(pat, "invalid glob: "+mdtext.Escape(pat)), nil
		}
		if d, ok := r.skipDir(r.abs(base)); ok {
			return errT(pat, "no files matched: "+mdtext.Escape(pat)+" (globs never enter "+r.label(d)+", the output directory)"), nil
		}
		before := r.notes
		files, err := r.walk(ctx, r.abs(base), pattern)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return errT(pat, "no files matched: "+mdtext.Escape(pat)+r.leftOut(before)), nil
		}
		return r.targets(e, files, false), nil
	}
	abs := r.abs(entry)
	label := r.label(abs)
	if IsHistoryFile(abs) {
		return errT(label, "history files are never aggregated: "+mdtext.Escape(label)), nil
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errT(label, "file not found: "+mdtext.Escape(label)), nil
	case err != nil:
		return errT(label, "cannot read "+mdtext.Escape(label)+": "+fileio.Cause(err).Error()), nil
	case st.IsDir():
		if d, ok := r.skipDir(abs); ok {
			return errT(label, "no files matched: "+mdtext.Escape(label)+" (directory walks never enter "+r.label(d)+", the output directory)"), nil
		}
		before := r.notes
		files, err := r.walk(ctx, abs, "**")
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return errT(label, "no files matched: "+mdtext.Escape(label)+r.leftOut(before)), nil
		}
		return r.targets(e, files, false), nil
	}
	return r.targets(e, []string{abs}, true), nil
}

// exists reports whether entry names an existing file or directory as it
// is written: such an entry is a path even when its name holds glob
// characters (app/[id]/page.tsx).
func (r *resolver) exists(entry string) bool {
	_, err := os.Lstat(r.abs(entry))
	return err == nil
}

func (r *resolver) targets(e FileItem, files []string, explicit bool) []target {
	out := make([]target, len(files))
	for i, f := range files {
		out[i] = target{file: e, abs: f, label: r.label(f), explicit: explicit}
	}
	return out
}

// walk returns the files below root whose slash path relative to root
// matches pattern, sorted. It skips .git directories, history files and
// what the ignorer ignores, and does not follow symbolic links to
// directories. A missing root yields nothing.
func (r *resolver) walk(ctx context.Context, root, pattern string) ([]string, error) {
	maxDepth := -1 // unbounded
	if !strings.Contains(pattern, "**") {
		maxDepth = strings.Count(pattern, "/") + 1
	}
	// a walk of a directory that the ignore patterns leave out (named
	// explicitly, or as a glob's base) takes what is below it; the
	// patterns apply to the paths below the base directory
	rules := r.rules
	if r.excludedDir(root) {
		rules = nil
	}
	parts := func(p string) []string {
		ps, _ := splitRel(r.base, p)
		return ps
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == root || d == nil || d.IsDir() {
				return filepath.SkipDir // unreadable: nothing to list
			}
			return nil
		}
		if p == root {
			if !d.IsDir() {
				return filepath.SkipAll
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || r.skip[p] || r.ign.Ignored(p, true) {
				return filepath.SkipDir
			}
			if maxDepth >= 0 && strings.Count(rel, "/")+1 >= maxDepth {
				return filepath.SkipDir
			}
			if ex, ru := rules.match(parts(p), true); ex {
				r.note(p, true, ru)
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			st, err := os.Stat(p)
			if err != nil || st.IsDir() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		if IsHistoryFile(d.Name()) || !doublestar.MatchUnvalidated(pattern, rel) || r.ign.Ignored(p, false) {
			return nil
		}
		if ex, ru := rules.match(parts(p), false); ex {
			r.note(p, false, ru)
			return nil
		}
		files = append(files, p)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := ignoreErr(r.ign); err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return filepath.ToSlash(files[i]) < filepath.ToSlash(files[j]) })
	return files, nil
}

// excludedDir reports whether the ignore patterns leave out dir or one of
// its parents below the base directory.
func (r *resolver) excludedDir(dir string) bool {
	ps, ok := splitRel(r.base, dir)
	if !ok || ps[0] == ".." {
		return false
	}
	for i := 1; i <= len(ps); i++ {
		if ex, _ := r.rules.match(ps[:i], true); ex {
			return true
		}
	}
	return false
}

// leftOut says, for an entry that matched nothing, that the default
// ignore list left out what it would have matched (notes since before);
// "" when it did not.
func (r *resolver) leftOut(before int) string {
	if r.notes == before {
		return ""
	}
	return " (the default ignores left out what it matched)"
}

// note records a path that a default pattern left out.
func (r *resolver) note(abs string, isDir bool, ru *rule) {
	if ru != nil && ru.isDefault {
		r.notes++
		r.log.add(IgnoredPath{Path: r.label(abs), Dir: isDir, Pattern: ru.text, abs: abs})
	}
}

// realPath is abs with the symbolic links of its directory resolved (the
// file itself is kept, so that a link is the link git reports).
func realPath(abs string) string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return abs
	}
	return filepath.Join(dir, filepath.Base(abs))
}
