package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/discover"
)

// PathsRelative is the value of [Manifest].Paths in a relative manifest.
const PathsRelative = "relative"

// nativePrefix starts the id of a source from native_paths ("native:" and
// its path).
const nativePrefix = "native:"

// Relative reports whether m records its paths relative to the project
// directory (see [Relativize]).
func (m *Manifest) Relative() bool { return m.Paths == PathsRelative }

// Relativize returns a copy of m whose paths are recorded relative to its
// project directory, so that the same commit gives the same bytes in any
// clone. m itself is not changed; a manifest that is already relative is
// returned as a copy unchanged.
//
// Every absolute host path ctx recorded is rewritten by [RelativePath]:
// project_dir (which becomes "."), and of each source requested_path,
// path, canonical_path and scope (the discovered sources' scope is the
// project or workspace directory), the path inside a native's id
// ("native:" + path, and every duplicate_of, equivalent_to, fragment key
// and budget name that names it), history.file, and the profile's root,
// file ids and the paths of its import cycles. Paths that were not
// absolute (as written in ctx.toml, "~/..." and text sources' "") stay as
// they are, and so do the files rows, whose paths are relative to the
// files' base directory already. The top-level paths field becomes
// "relative"; readers resolve such paths with [ResolvePath].
//
// A path outside the project directory but inside the repository that
// holds it (the profile's root, else the nearest directory with a .git
// entry) is relative to the project directory with "../" segments, so that
// the repository root's CLAUDE.md of a project in pkg/app is
// "../../CLAUDE.md" in every clone. home is shown as ~ for the other paths
// (and for paths in a home directory inside the repository); "" shows no
// path with ~. Relativizing fails only when two sources would end up with
// the same id.
func Relativize(m *Manifest, home string) (*Manifest, error) {
	out := *m
	out.Budgets = append(Budgets{}, m.Budgets...)
	out.Fragments = append(Fragments{}, m.Fragments...)
	out.Sources = make([]Source, len(m.Sources))
	for i, s := range m.Sources {
		s.Audience = append([]string{}, s.Audience...)
		out.Sources[i] = s
	}
	if m.History != nil {
		h := *m.History
		out.History = &h
	}
	if m.Beads != nil {
		b := *m.Beads
		out.Beads = &b
	}
	if m.Profile != nil {
		p := *m.Profile
		p.Files = append([]ProfileFile{}, m.Profile.Files...)
		p.Issues = append([]ProfileIssue{}, m.Profile.Issues...)
		out.Profile = &p
	}
	out.Redactions = append([]Redaction(nil), m.Redactions...)
	out.Files = append([]FileRow(nil), m.Files...)
	if m.Relative() {
		return &out, nil
	}
	r := newRelativizer(m.ProjectDir, home)
	r.setRoot(repositoryRoot(m))
	ids := map[string]string{} // native ids, old → new
	seen := map[string]bool{}
	for i := range out.Sources {
		s := &out.Sources[i]
		if s.Kind == "native" && s.Path != "" && s.ID == nativePrefix+s.Path {
			ids[s.ID] = nativePrefix + r.path(s.Path)
		}
	}
	rename := func(id string) string {
		if n, ok := ids[id]; ok {
			return n
		}
		return id
	}
	for i := range out.Sources {
		s := &out.Sources[i]
		s.ID = rename(s.ID)
		if seen[s.ID] {
			return nil, fmt.Errorf("relative paths: two sources would have the id %q", s.ID)
		}
		seen[s.ID] = true
		s.DuplicateOf = rename(s.DuplicateOf)
		s.EquivalentTo = rename(s.EquivalentTo)
		s.RequestedPath = r.path(s.RequestedPath)
		s.Path = r.path(s.Path)
		s.CanonicalPath = r.path(s.CanonicalPath)
		s.Scope = r.path(s.Scope)
	}
	for i := range out.Fragments {
		out.Fragments[i].ID = rename(out.Fragments[i].ID)
	}
	for i := range out.Budgets {
		out.Budgets[i].Name = rename(out.Budgets[i].Name)
	}
	if out.History != nil {
		out.History.File = r.path(out.History.File)
	}
	for i := range out.Redactions {
		out.Redactions[i].ID = rename(out.Redactions[i].ID)
	}
	if m.readErrors != nil {
		out.readErrors = make(map[string]string, len(m.readErrors))
		for id, cause := range m.readErrors {
			out.readErrors[rename(id)] = cause
		}
	}
	for i := range out.Files {
		out.Files[i].RealPath = r.path(out.Files[i].RealPath)
	}
	if out.Beads != nil {
		out.Beads.File = r.path(out.Beads.File)
	}
	if p := out.Profile; p != nil {
		p.Root = r.path(p.Root)
		for i := range p.Files {
			p.Files[i].ID = rename(p.Files[i].ID)
			p.Files[i].ImportedBy = rename(p.Files[i].ImportedBy)
		}
		for i := range p.Issues {
			is := &p.Issues[i]
			is.SourceID = rename(is.SourceID)
			if is.Code == "import_cycle" {
				parts := strings.Split(is.Target, " → ")
				for j := range parts {
					parts[j] = r.path(parts[j])
				}
				is.Target = strings.Join(parts, " → ")
			}
		}
	}
	out.ProjectDir = r.path(m.ProjectDir)
	out.Paths = PathsRelative
	return &out, nil
}

// RelativePath shows the host path p as a relative manifest records it:
// "." for the project directory itself; below it, the rest of p after the
// project directory and "/", as spelled (so "<project>/./a.md" gives
// "./a.md" and "<project>/../ws/USER.md" gives "../ws/USER.md"); below
// home, "~/" and the rest; anything else, and any p that is not absolute,
// unchanged. Both project and home are matched also in their
// symlink-resolved form.
func RelativePath(p, project, home string) string {
	return newRelativizer(project, home).path(p)
}

// ResolvePath is the inverse of [RelativePath]: the host path of p, a path
// of a relative manifest, for the project directory dir and the home
// directory home. "." is dir; "~" and "~/..." expand to home; an absolute
// path stays; anything else is joined to dir without cleaning (the path
// rule of package discover), so ResolvePath(RelativePath(p, dir, home),
// dir, home) is p for every absolute path p (for a file named ~ in the
// project, "<dir>/./~", the same file).
func ResolvePath(p, dir, home string) string {
	if p == "." {
		return dir
	}
	return discover.Join(dir, home, p)
}

// relativizer rewrites host paths for one project directory and home.
type relativizer struct {
	projects []string // the project directory and its resolved form
	homes    []string
	roots    []anchor // the repository root above the project, in its forms
}

// anchor is a form of the repository root and the "../" segments that lead
// to it from the project directory.
type anchor struct {
	dir, up string
}

// repositoryRoot is the root of the repository that holds m's project
// directory: the root its profile recorded, else the nearest directory at
// or above the project directory with a .git entry; "" when there is none
// (or the project directory is not on this host).
func repositoryRoot(m *Manifest) string {
	if m.Profile != nil && filepath.IsAbs(m.Profile.Root) {
		return m.Profile.Root
	}
	if !filepath.IsAbs(m.ProjectDir) {
		return ""
	}
	for d := filepath.Clean(m.ProjectDir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// setRoot makes paths below root, a directory at or above the project
// directory, relative to the project directory with "../" segments.
func (r *relativizer) setRoot(root string) {
	for _, rf := range forms(root) {
		for _, pf := range r.projects {
			below, ok := strings.CutPrefix(pf, rf+"/")
			if !ok || below == "" {
				continue
			}
			up := strings.Repeat("../", strings.Count(below, "/")+1)
			r.roots = append(r.roots, anchor{dir: rf, up: strings.TrimSuffix(up, "/")})
			break
		}
	}
}

func newRelativizer(project, home string) *relativizer {
	return &relativizer{projects: forms(project), homes: forms(home)}
}

// forms returns dir without a final slash and, when it differs, its
// symlink-resolved form; none for "" and "/".
func forms(dir string) []string {
	d := strings.TrimSuffix(dir, "/")
	if d == "" || !filepath.IsAbs(d) {
		return nil
	}
	out := []string{d}
	if r, err := filepath.EvalSymlinks(d); err == nil && r != d {
		out = append(out, r)
	}
	return out
}

func (r *relativizer) path(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	for _, d := range r.projects {
		if p == d {
			return "."
		}
		if strings.HasPrefix(p, d+"/") {
			rest := p[len(d)+1:]
			switch {
			case rest == "":
				return "."
			case rest == "~" || strings.HasPrefix(rest, "~/"):
				// a file named ~ in the project, not the home directory
				return "./" + rest
			}
			return rest
		}
	}
	// the deeper of the repository root and home that holds p (home on a
	// tie): a file of the repository relative to the project, a file of
	// the user's with ~
	out, depth := p, -1
	for _, a := range r.roots {
		if (p == a.dir || strings.HasPrefix(p, a.dir+"/")) && len(a.dir) > depth {
			out, depth = a.up+p[len(a.dir):], len(a.dir)
		}
	}
	for _, h := range r.homes {
		if (p == h || strings.HasPrefix(p, h+"/")) && len(h) >= depth {
			out, depth = "~"+p[len(h):], len(h)
		}
	}
	return out
}

// OutsideProject reports whether the path p, as m records it, lies outside
// the project directory: an absolute path not below project_dir, or in a
// relative manifest a path that starts with "..", "~" or "/".
func (m *Manifest) OutsideProject(p string) bool {
	if p == "" {
		return false
	}
	if m.Relative() {
		return filepath.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") || p == "~" || strings.HasPrefix(p, "~/")
	}
	if !filepath.IsAbs(p) || m.ProjectDir == "" || !filepath.IsAbs(m.ProjectDir) {
		return false
	}
	rel, err := filepath.Rel(m.ProjectDir, p)
	return err != nil || !filepath.IsLocal(rel) && rel != "."
}
