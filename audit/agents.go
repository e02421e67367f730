package audit

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/profile"
)

// AllProfiles is the profile name of `ctx audit --profile all`: every
// instruction file against every agent ([Agents]).
const AllProfiles = "all"

// MatrixAgents returns the agents [Agents] compares, in the order of its
// columns: every profile but generic, which loads nothing by itself.
func MatrixAgents() []profile.Name {
	return []profile.Name{profile.Codex, profile.Claude, profile.Gemini, profile.Copilot, profile.Cursor}
}

// Reach is how an agent meets an instruction file.
type Reach string

// The reaches, from the most to the least of the file.
const (
	// ReachLoaded: the agent loads the whole file in every session (or
	// as an import of one it loads).
	ReachLoaded Reach = "loaded"
	// ReachCut: the agent loads the file in every session but keeps only
	// its first LoadedBytes, by its own limit (Codex's 32 KiB); 0 is
	// none of it.
	ReachCut Reach = "cut"
	// ReachConditional: the agent loads the file only when Condition
	// holds (a subfolder it works in, globs, applyTo, paths, a rule it
	// is asked for).
	ReachConditional Reach = "conditional"
	// ReachBlank: the agent would load the file, but it holds only white
	// space.
	ReachBlank Reach = "blank"
	// ReachUnreadable: the agent looks for the file where it is, but it
	// cannot be read (a FIFO, over the size limit).
	ReachUnreadable Reach = "unreadable"
	// ReachSkipped: the agent deliberately skips the file for another one
	// of its folder, By (Claude Code's AGENTS.md beside CLAUDE.md, Codex's
	// AGENTS.md beside AGENTS.override.md).
	ReachSkipped Reach = "skipped"
	// ReachNever: no rule of the agent finds the file.
	ReachNever Reach = "never"
)

// AgentCell is how one agent meets one file of a [Matrix].
type AgentCell struct {
	Reach Reach `json:"reach"`
	// LoadedBytes is how much of the file the agent keeps (loaded, cut,
	// conditional).
	LoadedBytes int `json:"loaded_bytes"`
	// Condition says when the agent loads a conditional file, in full;
	// Short in a few words (see profile.Chain.ShortCondition).
	Condition string `json:"condition,omitempty"`
	Short     string `json:"short_condition,omitempty"`
	// ImportedBy is the file (as [MatrixFile].Path shows paths) whose
	// import brought this one in; "" for a file a rule loads.
	ImportedBy string `json:"imported_by,omitempty"`
	// By is the file the agent loads instead of a skipped one.
	By string `json:"by,omitempty"`
}

// MatrixFile is one instruction file of a [Matrix] and how each agent
// meets it.
type MatrixFile struct {
	// Path is the file relative to the project directory (../ up to the
	// repository root), else with home as ~, else absolute.
	Path string `json:"path"`
	// Bytes is the file's size (0 when no agent read it).
	Bytes  int                        `json:"bytes"`
	Agents map[profile.Name]AgentCell `json:"agents"`
}

// Matrix is every instruction file that an agent loads by itself in a
// working directory, against every agent of [MatrixAgents]: which rule
// reaches whom.
type Matrix struct {
	// Dir is the working directory the agents start in (absolute).
	Dir    string         `json:"-"`
	Agents []profile.Name `json:"agents"`
	// Files are ordered by where they are: the user's and managed files
	// (~, absolute), the repository's above the working directory (../),
	// then the working directory's, each directory's files together.
	Files []MatrixFile `json:"files"`
}

// Agents applies the profile of every agent of [MatrixAgents] to the
// project of o (o.Profile is ignored; o.ProfileOptions and the discovery
// options apply to each, as [manifest.Discover] applies them) and returns
// the matrix of their files. It reads the files the profiles read, no
// other.
func Agents(ctx context.Context, o manifest.Options) (*Matrix, error) {
	home := o.Discover.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	mx := &Matrix{Agents: MatrixAgents(), Files: []MatrixFile{}}
	byPath := map[string]int{}
	row := func(p string) *MatrixFile {
		p = filepath.Clean(p)
		i, ok := byPath[p]
		if !ok {
			i = len(mx.Files)
			byPath[p] = i
			cells := map[profile.Name]AgentCell{}
			for _, a := range mx.Agents {
				cells[a] = AgentCell{Reach: ReachNever}
			}
			mx.Files = append(mx.Files, MatrixFile{Path: p, Agents: cells})
		}
		return &mx.Files[i]
	}
	var chains []*profile.Chain
	for _, name := range mx.Agents {
		po := o
		po.Profile = name
		res, chain, err := manifest.Discover(ctx, po)
		if err != nil {
			return nil, err
		}
		mx.Dir = res.ProjectDir
		chains = append(chains, chain)
	}
	root := ""
	for _, c := range chains {
		if c.Root != "" {
			root = c.Root
			break
		}
	}
	rel := func(p string) string { return matrixPath(p, mx.Dir, root, home) }
	for i, chain := range chains {
		name := mx.Agents[i]
		for _, f := range chain.Files {
			r := row(f.Path)
			r.Bytes = max(r.Bytes, f.Size)
			c := AgentCell{Reach: ReachLoaded, LoadedBytes: f.Loaded}
			switch {
			case f.Unreadable != "":
				c = AgentCell{Reach: ReachUnreadable}
			case f.Blank:
				c.Reach = ReachBlank
			case f.Condition != "":
				c.Reach, c.Condition, c.Short = ReachConditional, f.Condition, chain.ShortCondition(f)
			case f.Loaded < f.Size:
				c.Reach = ReachCut
			}
			if f.ImportedBy != "" {
				c.ImportedBy = rel(f.ImportedBy)
			}
			r.Agents[name] = c
		}
		for _, s := range chain.Shadowed {
			if r := row(s.Path); r.Agents[name].Reach == ReachNever {
				r.Agents[name] = AgentCell{Reach: ReachSkipped, By: rel(s.By)}
			}
		}
	}
	for i := range mx.Files {
		mx.Files[i].Path = rel(mx.Files[i].Path)
	}
	slices.SortStableFunc(mx.Files, func(a, b MatrixFile) int {
		return cmp.Or(cmp.Compare(place(a.Path), place(b.Path)), cmp.Compare(path.Dir(a.Path), path.Dir(b.Path)),
			cmp.Compare(a.Path, b.Path))
	})
	return mx, nil
}

// foldMatrix folds the rows of the files of one directory that every
// agent treats alike (their cells equal) into one, "dir/" and the count,
// as the sources table folds conditional natives; it returns the rows and
// how many files were folded.
func foldMatrix(mx *Matrix, rows [][]string) ([][]string, int) {
	// the files of a group: one directory, the same cells; shown where
	// its first file is, even when a file treated otherwise sorts between
	key := func(i int) string { return path.Dir(mx.Files[i].Path) + "\x00" + strings.Join(rows[i][1:], "\x00") }
	count := map[string]int{}
	for i := range rows {
		count[key(i)]++
	}
	var out [][]string
	folded := 0
	shown := map[string]bool{}
	for i := range rows {
		k := key(i)
		switch n := count[k]; {
		case n == 1:
			out = append(out, rows[i])
		case !shown[k]:
			shown[k] = true
			out = append(out, append([]string{fmt.Sprintf("%s/\n(%d files)", mdtext.Escape(path.Dir(mx.Files[i].Path)), n)}, rows[i][1:]...))
			folded += n
		}
	}
	return out, folded
}

// matrixPath shows p relative to the working directory dir when it lies
// in the repository (root, "" for none) or below dir ("../AGENTS.md" of the
// repository's root above a package), else as a relative manifest records
// it (home as ~, else absolute).
func matrixPath(p, dir, root, home string) string {
	inside := func(d string) bool {
		r, err := filepath.Rel(d, p)
		return d != "" && err == nil && r != ".." && !strings.HasPrefix(r, "../")
	}
	if inside(dir) || inside(root) {
		if r, err := filepath.Rel(dir, p); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return manifest.RelativePath(p, dir, home)
}

// place orders the paths of a matrix: the user's and managed files, those
// above the working directory, then its own.
func place(p string) int {
	switch {
	case strings.HasPrefix(p, "~") || filepath.IsAbs(p):
		return 0
	case p == ".." || strings.HasPrefix(p, "../"):
		return 1
	}
	return 2
}

// matrixLegend says what the cells of the matrix mean.
const matrixLegend = "loaded: in every session; cut at N: the agent keeps the first N bytes, by its own limit; " +
	"if paths, globs, applyTo: only for the files its frontmatter names; in folder: when the agent works in the " +
	"file's folder; on request: when the agent chooses to read it; manual: when it is mentioned; skipped: the agent " +
	"reads another file of the folder instead; blank: white space only; —: never seen. An import counts as its importer."

// cell shows c in a few words: in full (markdown), or in fewer still for
// a column of a terminal, where the patterns of a condition and the file a
// skipped one gives way to are left to the legend and the JSON.
func (c AgentCell) cell(full bool) string {
	switch c.Reach {
	case ReachLoaded:
		return "loaded"
	case ReachCut:
		return "cut at " + display.Int(c.LoadedBytes)
	case ReachConditional:
		short := c.Short
		switch kind, _, _ := strings.Cut(short, " "); {
		case kind == "paths" || kind == "globs" || kind == "applyTo":
			short = "if " + short
			if !full {
				short = "if " + kind
			}
		case short == "in its folder" && !full:
			short = "in folder"
		}
		return mdtext.Escape(short)
	case ReachSkipped:
		if full {
			return "skipped for " + mdtext.Escape(c.By)
		}
		return "skipped"
	case ReachNever:
		return "—"
	}
	return string(c.Reach)
}

// WriteMatrix writes mx in format f: the table fitted to o.Width (with
// a heading and the legend), markdown, or JSON (the Matrix itself). The
// github and sarif formats have no matrix.
func WriteMatrix(w io.Writer, mx *Matrix, f Format, o WriteOptions) error {
	var b bytes.Buffer
	home := o.home()
	header := []string{"file"}
	for _, a := range mx.Agents {
		header = append(header, string(a))
	}
	rows := func(full bool) [][]string {
		out := make([][]string, 0, len(mx.Files))
		for _, file := range mx.Files {
			r := []string{mdtext.Escape(file.Path)}
			for _, a := range mx.Agents {
				r = append(r, file.Agents[a].cell(full))
			}
			out = append(out, r)
		}
		return out
	}
	switch f {
	case FormatJSON:
		if err := jsonenc.Write(&b, mx); err != nil {
			return err
		}
	case FormatTable:
		width := o.width()
		heading := fmt.Sprintf("The instruction files each agent loads by itself, started in %s:", display.Path(mx.Dir, home))
		b.WriteString(table.WrapText(heading, width) + "\n")
		if len(mx.Files) == 0 {
			b.WriteString("none\n")
			break
		}
		// the widest gives up width first, the paths wrapped after a slash,
		// the cells at spaces (never a word as short as "skipped")
		cols := []table.Column{{Header: "file", Fit: table.FitWrapPath, Min: 12}}
		for _, a := range mx.Agents {
			cols = append(cols, table.Column{Header: string(a), Fit: table.FitWrap, Min: max(len(a), len("skipped"))})
		}
		shown, folded := rows(false), 0
		if !o.Details && len(shown) > FilesShown {
			shown, folded = foldMatrix(mx, shown)
		}
		if err := table.WriteFitted(&b, cols, shown, width); err != nil {
			return err
		}
		if folded > 0 {
			b.WriteString(table.WrapText(fmt.Sprintf("%s that every agent treats alike are folded by directory (--details lists each)",
				display.Plural(folded, "file")), width) + "\n")
		}
		b.WriteString(table.WrapText(matrixLegend, width) + "\n")
	case FormatMarkdown:
		fmt.Fprintf(&b, "# ctx audit: every agent\n\nThe instruction files each agent loads by itself, started in %s.\n\n", mdEscape(display.Path(mx.Dir, home)))
		if len(mx.Files) == 0 {
			b.WriteString("None.\n")
			break
		}
		mdTable(&b, header, nil, rows(true))
		b.WriteString("\n" + matrixLegend + "\n")
	default:
		if _, err := ParseFormat(string(f)); err != nil {
			return err
		}
		return fmt.Errorf("the %s format has no matrix of the agents: use table, markdown or json", f)
	}
	_, err := w.Write(b.Bytes())
	return err
}
