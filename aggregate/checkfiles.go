package aggregate

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/internal/mdtext"
)

// FilesCheck is what a list of entries resolves to, without reading the
// files.
type FilesCheck struct {
	// Files is the number of distinct files the entries name.
	Files int `json:"files"`
	// Missing are the entries, as written, that name nothing: a path that
	// does not exist, or a glob or directory without a file to aggregate.
	Missing []string `json:"missing,omitempty"`
}

// MissingText is Missing for people: the entries, escaped (control
// characters as \n, \x1b), comma-separated.
func (fc FilesCheck) MissingText() string {
	names := make([]string, len(fc.Missing))
	for i, m := range fc.Missing {
		names[i] = mdtext.Escape(m)
	}
	return strings.Join(names, ", ")
}

// CheckFiles resolves files as [Run] would under opts (BaseDir, Ignore,
// the ignore lists, SkipDirs), reads none of them, and says how many files they name and
// which entries name nothing: what a preset's files come to in a project.
func CheckFiles(ctx context.Context, opts Options, files []FileItem) (FilesCheck, error) {
	var fc FilesCheck
	o, err := opts.normalized()
	if err != nil {
		return fc, err
	}
	r := newResolver(o, o.BaseDir, o.Ignore)
	seen := map[string]bool{}
	for _, e := range files {
		ts, err := r.resolve(ctx, e)
		if err != nil {
			return fc, err
		}
		for _, t := range ts {
			switch {
			case t.abs != "":
				key := t.abs
				if real, err := filepath.EvalSymlinks(t.abs); err == nil {
					key = real
				}
				if !seen[key] {
					seen[key] = true
					fc.Files++
				}
			case strings.HasPrefix(t.err, "file not found: "), strings.HasPrefix(t.err, "no files matched: "):
				fc.Missing = append(fc.Missing, e.Path)
			}
		}
	}
	return fc, nil
}
