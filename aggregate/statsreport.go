package aggregate

import (
	"cmp"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// StatsReport is every file [Stats] measured, and their total: what
// `ctx stats` prints, grouped by directory, as the largest files or as a
// token tree.
type StatsReport struct {
	// Files are in path order (directory by directory: "a/z" before
	// "a-b/c").
	Files []FileStats
	// Total sums every file without an error, inside the base directory
	// or not.
	Total StatsTotals
	// Ignored is what the default ignore list left out ([Result.Ignored]).
	Ignored []IgnoredPath
}

// Warnings returns the problems of the files that could not be measured,
// for people, one message each (escaped, after the path when the error
// does not name it): a missing file, an entry that matched nothing.
func (r *StatsReport) Warnings() []string {
	var out []string
	for _, f := range r.Files {
		if f.Error != "" {
			it := Item{Path: f.Path, Error: f.Error}
			out = append(out, it.Warnings()...)
		}
	}
	return out
}

// ignored is Ignored, never nil (an empty JSON list).
func (r *StatsReport) ignored() []IgnoredPath {
	if r.Ignored == nil {
		return []IgnoredPath{}
	}
	return r.Ignored
}

// LeftOut says what the default ignore list left out, as the summary of
// ctx aggregate does ("left out by the default ignores: .env,
// node_modules/ (...)"); "" when it left out nothing.
func (r *StatsReport) LeftOut() string { return leftOutLine(r.Ignored) }

// WriteLeftOut writes [StatsReport.LeftOut] for people as the summary of
// ctx aggregate writes its lines: "ctx: " lines wrapped at width columns
// (0 or less: SummaryWidth); nothing when nothing was left out.
func (r *StatsReport) WriteLeftOut(w io.Writer, width int) error {
	l := r.LeftOut()
	if l == "" {
		return nil
	}
	if width <= 0 {
		width = SummaryWidth
	}
	_, err := io.WriteString(w, wrapPrefixed(l, "ctx: ", "ctx:   ", width))
	return err
}

// NewStatsReport returns the report of files (as [ComputeFileStats]
// measures them, labels relative to the base directory with forward
// slashes), sorted by path.
func NewStatsReport(files []FileStats) *StatsReport {
	r := &StatsReport{Files: slices.Clone(files)}
	slices.SortStableFunc(r.Files, func(a, b FileStats) int { return comparePaths(a.Path, b.Path) })
	for _, f := range r.Files {
		r.Total.add(f)
	}
	return r
}

// StatsSort is the order of the stats.
type StatsSort string

// The orders. The zero value is each view's default: by path for the
// directories and the tree, by tokens for the largest files.
const (
	// StatsByPath: directories and files by path, a directory before
	// what it holds.
	StatsByPath StatsSort = "path"
	// StatsByTokens: the most tokens first; ties by path.
	StatsByTokens StatsSort = "tokens"
)

// ParseStatsSort checks s: path or tokens.
func ParseStatsSort(s string) (StatsSort, error) {
	switch StatsSort(s) {
	case StatsByPath, StatsByTokens:
		return StatsSort(s), nil
	}
	return "", fmt.Errorf("must be path or tokens, not %q", s)
}

// Dirs returns a row per directory that holds a file, directly or below
// it, with the totals of its whole subtree and its own files as entries
// (a directory with no file of its own and a single subdirectory has no
// row: it would repeat its subdirectory's; "." always has one):
// in path order, or, by tokens, the largest subtree first (and in each
// directory the largest file first). The base directory is "."; a
// directory outside it ("../lib") has its own rows and is not counted in
// ".".
func (r *StatsReport) Dirs(by StatsSort) []DirStats {
	idx := map[string]int{}
	var out []DirStats
	row := func(d string) *DirStats {
		i, ok := idx[d]
		if !ok {
			i = len(out)
			idx[d] = i
			out = append(out, DirStats{Dir: d, Entries: []FileStats{}})
		}
		return &out[i]
	}
	subdirs := map[string]map[string]bool{}
	for _, f := range r.Files {
		d := path.Dir(f.Path)
		own := row(d)
		own.Entries = append(own.Entries, f)
		chain := dirChain(d)
		for i, a := range chain {
			row(a).add(f)
			if i > 0 {
				if subdirs[a] == nil {
					subdirs[a] = map[string]bool{}
				}
				subdirs[a][chain[i-1]] = true
			}
		}
	}
	// a directory with no file of its own and one subdirectory would
	// repeat that subdirectory's row
	kept := out[:0]
	for _, d := range out {
		if d.Dir == "." || len(d.Entries) > 0 || len(subdirs[d.Dir]) > 1 {
			kept = append(kept, d)
		}
	}
	out = kept
	if by == StatsByTokens {
		slices.SortStableFunc(out, func(a, b DirStats) int {
			return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), comparePaths(a.Dir, b.Dir))
		})
		for i := range out {
			sortFilesByTokens(out[i].Entries)
		}
	} else {
		slices.SortStableFunc(out, func(a, b DirStats) int { return comparePaths(a.Dir, b.Dir) })
	}
	return out
}

// Top returns the n files with the most tokens (ties by path), largest
// first, or in path order by [StatsByPath]. Files with an error are left
// out; n <= 0 returns none.
func (r *StatsReport) Top(n int, by StatsSort) []FileStats {
	var out []FileStats
	for _, f := range r.Files {
		if f.Error == "" {
			out = append(out, f)
		}
	}
	sortFilesByTokens(out)
	out = out[:min(max(n, 0), len(out))]
	if by == StatsByPath {
		slices.SortStableFunc(out, func(a, b FileStats) int { return comparePaths(a.Path, b.Path) })
	}
	return out
}

// StatsNode is a directory or a file of the token tree ([StatsReport.Tree]).
type StatsNode struct {
	// Name is the last element of Path ("." for the base directory).
	Name string `json:"name"`
	Path string `json:"path"`
	Dir  bool   `json:"dir,omitempty"`
	// StatsTotals are a directory's subtree totals, or a file's own
	// numbers (Files 1, or 0 with an error).
	StatsTotals
	Binary bool   `json:"binary,omitempty"`
	Error  string `json:"error,omitempty"`
	// Children are a directory's entries, files and directories together.
	Children []*StatsNode `json:"children,omitempty"`
	// Folded sums the entries of a directory below the tree's threshold,
	// which Children leave out; nil when none is.
	Folded *StatsFolded `json:"folded,omitempty"`

	errors int // entries with an error in the subtree: never folded
}

// StatsFolded sums the entries of a directory below the threshold of the
// token tree.
type StatsFolded struct {
	// Entries is the number of files and directories folded.
	Entries int `json:"entries"`
	StatsTotals
}

// Tree returns the token tree of the files, rooted at the base directory
// ("."), like repomix's token-count tree: each directory with its subtree
// totals, its entries by name, or by tokens (the largest first; ties by
// name). Entries with fewer than threshold tokens are folded into their
// directory's Folded (none when threshold <= 0); the root never is, nor
// is a file with an error or a directory that holds one (an error has no
// tokens, and folding would hide it). The
// root's totals are those of every file ([StatsReport.Total]): files
// outside the base directory hang below it under "..".
func (r *StatsReport) Tree(by StatsSort, threshold int) *StatsNode {
	root := &StatsNode{Name: ".", Path: ".", Dir: true}
	dirs := map[string]*StatsNode{".": root}
	var dirOf func(p string) *StatsNode
	dirOf = func(p string) *StatsNode {
		if n, ok := dirs[p]; ok {
			return n
		}
		pp := path.Dir(p)
		if pp == p { // "/": a label that could not be made relative
			pp = "."
		}
		parent := dirOf(pp)
		n := &StatsNode{Name: path.Base(p), Path: p, Dir: true}
		parent.Children = append(parent.Children, n)
		dirs[p] = n
		return n
	}
	for _, f := range r.Files {
		n := &StatsNode{Name: path.Base(f.Path), Path: f.Path, Binary: f.Binary, Error: f.Error}
		n.add(f)
		if f.Error != "" {
			n.errors = 1
		}
		d := dirOf(path.Dir(f.Path))
		d.Children = append(d.Children, n)
	}
	var finish func(n *StatsNode)
	finish = func(n *StatsNode) {
		for _, c := range n.Children {
			if c.Dir {
				finish(c)
			}
			n.addTotals(c.StatsTotals)
			n.errors += c.errors
		}
	}
	finish(root)
	var order func(n *StatsNode)
	order = func(n *StatsNode) {
		slices.SortStableFunc(n.Children, func(a, b *StatsNode) int {
			if by == StatsByTokens {
				if c := cmp.Compare(b.Tokens, a.Tokens); c != 0 {
					return c
				}
			}
			return strings.Compare(a.Name, b.Name)
		})
		kept := n.Children[:0]
		for _, c := range n.Children {
			if threshold > 0 && c.Tokens < threshold && c.errors == 0 {
				if n.Folded == nil {
					n.Folded = &StatsFolded{}
				}
				n.Folded.Entries++
				n.Folded.addTotals(c.StatsTotals)
				continue
			}
			if c.Dir {
				order(c)
			}
			kept = append(kept, c)
		}
		n.Children = kept
	}
	order(root)
	return root
}

func sortFilesByTokens(fs []FileStats) {
	slices.SortStableFunc(fs, func(a, b FileStats) int {
		return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), comparePaths(a.Path, b.Path))
	})
}

// dirChain returns d and the directories above it up to the base directory
// ("."), or, for a directory outside it, up to its last "..".
func dirChain(d string) []string {
	chain := []string{d}
	for d != "." && d != "/" && d != ".." && !strings.HasSuffix(d, "/..") {
		d = path.Dir(d)
		chain = append(chain, d)
	}
	return chain
}

// comparePaths orders slash paths element by element, so that a directory
// comes right before what it holds; "." comes first.
func comparePaths(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == ".":
		return -1
	case b == ".":
		return 1
	}
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if c := strings.Compare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}
