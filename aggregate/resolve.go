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
	base string // absolute, clean
	ign  Ignorer
	skip map[string]bool // absolute, clean directories walks never enter
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
			return errT(pat, "invalid glob: "+pat), nil
		}
		files, err := r.walk(ctx, r.abs(base), pattern)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return errT(pat, "no files matched: "+pat), nil
		}
		return r.targets(e, files, false), nil
	}
	abs := r.abs(entry)
	label := r.label(abs)
	if IsHistoryFile(abs) {
		return errT(label, "history files are never aggregated: "+label), nil
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errT(label, "file not found: "+label), nil
	case err != nil:
		return errT(label, "cannot read "+label+": "+fileio.Cause(err).Error()), nil
	case st.IsDir():
		files, err := r.walk(ctx, abs, "**")
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return errT(label, "no files matched: "+label), nil
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
