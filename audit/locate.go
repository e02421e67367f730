package audit

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
)

// location is where a finding points in the repository, for the github and
// sarif formats: a path relative to the root with forward slashes ("" for
// none) and a line (0 when unknown).
type location struct {
	path string
	line int
}

// locator places findings in the repository.
type locator struct {
	rep    *Report
	ix     *index
	root   string // absolute; "" when unknown
	config string // root-relative path of the configuration file, or ""
}

func newLocator(rep *Report, o WriteOptions) locator {
	l := locator{rep: rep, ix: newIndex(rep), root: o.Root}
	project := ""
	if rep.Manifest != nil {
		project = rep.Manifest.ProjectDir
	}
	if l.root == "" && project != "" {
		l.root = repoRoot(project)
	}
	if l.root != "" {
		if abs, err := filepath.Abs(l.root); err == nil {
			l.root = abs
		}
	}
	if o.Config != "" {
		if abs, err := filepath.Abs(o.Config); err == nil {
			l.config = l.rel(abs)
		}
	}
	return l
}

// repoRoot is the nearest directory at or above dir that has a .git entry
// (a directory, or a file in a worktree), else dir.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// rel is p relative to the root with forward slashes, or "" when p is not
// absolute or lies outside the root.
func (l locator) rel(p string) string {
	if l.root == "" || !filepath.IsAbs(p) {
		return ""
	}
	r, err := filepath.Rel(l.root, p)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return ""
	}
	return filepath.ToSlash(r)
}

// declared reports whether s was named by the configuration rather than
// discovered: an extra source or a native path.
func declared(s *manifest.Source) bool {
	switch s.ID {
	case discover.IDShared, discover.IDProjectAgents, discover.IDProjectClaude, discover.IDWorkspaceUser, discover.IDWorkspaceSoul:
		return s.Origin != "" || s.ConfigPath != ""
	}
	return true
}

// locate is where f points: the file a source or file row names (the
// first line cut for a truncation, the slice's first line for an orphaned
// slice); the configuration file for what it declares (extra sources that
// are missing or inline text, audiences, native evidence) and for the
// total; none when that is outside the root or unknown.
func (l locator) locate(f Finding) location {
	src, file := l.ix.rowOf(f)
	switch {
	case file != nil:
		loc := location{path: l.rel(l.filePath(file))}
		if s := orphan(file, f); f.Code == CodeSliceOrphaned && s != nil {
			loc.line = s.StartLine
		}
		if f.Code == CodeSecret {
			loc.line = f.Line
		}
		return loc
	case src != nil:
		if src.Path == "" {
			return location{path: l.config}
		}
		switch f.Code {
		case CodeMissing, CodeAudienceExcluded, CodeNativeAudienceMismatch, CodeNativeEvidenceMissing:
			if declared(src) && l.config != "" {
				return location{path: l.config}
			}
		case CodeTruncated:
			if p := l.rel(src.Path); p != "" {
				return location{path: p, line: firstCutLine(src)}
			}
		case CodeSecret:
			return location{path: l.rel(src.Path), line: f.Line}
		}
		return location{path: l.rel(src.Path)}
	case f.SourceID == "":
		return location{path: l.config}
	}
	return location{}
}

// filePath is the absolute path of a file row: its label joined to the
// project directory (the default base_dir; the manifest does not record
// another one).
func (l locator) filePath(r *manifest.FileRow) string {
	if filepath.IsAbs(r.Path) || l.rep.Manifest == nil {
		return r.Path
	}
	return filepath.Join(l.rep.Manifest.ProjectDir, filepath.FromSlash(r.Path))
}

// firstCutLine is the first line of s that the agent is not given (1 when
// nothing is): after the last line kept when lines were cut, else the line
// where the characters ran out.
func firstCutLine(s *manifest.Source) int {
	el := deref(s.EmittedLines)
	if deref(s.EmittedChars) == 0 {
		return 1
	}
	if unit, _ := cutBy(s); unit == "char" || unit == "token" {
		return max(el, 1)
	}
	return el + 1
}
