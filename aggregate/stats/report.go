// Package stats is `ctx stats`: every file of a set of [files] entries
// measured (lines, symbols, bytes, tokens; [aggregate.MeasureFiles]),
// totalled per directory subtree ([Report.Dirs]), the largest files
// ([Report.Top]), the token tree ([Report.Tree]) and their table,
// markdown and JSON ([Write]).
package stats

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
)

// Report is every file [Run] measured, and their total: what `ctx
// stats` prints, grouped by directory, as the largest files or as a
// token tree.
type Report struct {
	// Files are in path order (directory by directory: "a/z" before
	// "a-b/c").
	Files []aggregate.FileStats
	// Total sums every file without an error, inside the base directory
	// or not.
	Total Totals
	// Ignored is what the default ignore list left out
	// ([aggregate.Result.Ignored]).
	Ignored []aggregate.IgnoredPath
}

// Run resolves opts.Files like [aggregate.BuildItems] and measures every
// file ([aggregate.MeasureFiles]). Files that cannot be read are listed
// with their error. The report's methods group them by directory
// ([Report.Dirs]), pick the largest ([Report.Top]) or build the token
// tree ([Report.Tree]); [Write] prints them. What the default ignore list
// left out is in Report.Ignored, as in [aggregate.Result.Ignored].
func Run(ctx context.Context, opts aggregate.Options) (*Report, error) {
	files, ignored, err := aggregate.MeasureFiles(ctx, opts)
	if err != nil {
		return nil, err
	}
	rep := New(files)
	rep.Ignored = ignored
	return rep, nil
}

// Totals are the sums over a set of files; files with an error are not
// counted.
type Totals struct {
	Files   int `json:"files"`
	Lines   int `json:"lines"`
	Symbols int `json:"symbols"`
	Bytes   int `json:"bytes"`
	Tokens  int `json:"tokens"`
}

func (t *Totals) add(f aggregate.FileStats) {
	if f.Error != "" {
		return
	}
	t.Files++
	t.Lines += f.Lines
	t.Symbols += f.Symbols
	t.Bytes += f.Bytes
	t.Tokens += f.Tokens
}

func (t *Totals) addTotals(o Totals) {
	t.Files += o.Files
	t.Lines += o.Lines
	t.Symbols += o.Symbols
	t.Bytes += o.Bytes
	t.Tokens += o.Tokens
}

// Dir totals the files of one directory and of its subdirectories;
// Entries are the directory's own files.
type Dir struct {
	Dir string `json:"dir"`
	Totals
	Entries []aggregate.FileStats `json:"entries"`
}

// Warnings returns the problems of the files that could not be measured,
// for people, one message each (escaped, after the path when the error
// does not name it): a missing file, an entry that matched nothing.
func (r *Report) Warnings() []string {
	var out []string
	for _, f := range r.Files {
		if f.Error != "" {
			it := aggregate.Item{Path: f.Path, Error: f.Error}
			out = append(out, it.Warnings()...)
		}
	}
	return out
}

// ignored is Ignored, never nil (an empty JSON list).
func (r *Report) ignored() []aggregate.IgnoredPath {
	if r.Ignored == nil {
		return []aggregate.IgnoredPath{}
	}
	return r.Ignored
}

// LeftOut says what the default ignore list left out, as the summary of
// ctx aggregate does ([aggregate.LeftOut]: "left out by the default
// ignores: .env, node_modules/ (...)"); "" when it left out nothing.
func (r *Report) LeftOut() string { return aggregate.LeftOut(r.Ignored) }

// WriteLeftOut writes [Report.LeftOut] for people as the summary of ctx
// aggregate writes its lines ([aggregate.WriteLeftOut]): "ctx: " lines
// wrapped at width columns (0 or less: aggregate.SummaryWidth); nothing
// when nothing was left out.
func (r *Report) WriteLeftOut(w io.Writer, width int) error {
	return aggregate.WriteLeftOut(w, r.Ignored, width)
}

// New returns the report of files (as [aggregate.ComputeFileStats]
// measures them, labels relative to the base directory with forward
// slashes), sorted by path.
func New(files []aggregate.FileStats) *Report {
	r := &Report{Files: slices.Clone(files)}
	slices.SortStableFunc(r.Files, func(a, b aggregate.FileStats) int { return comparePaths(a.Path, b.Path) })
	for _, f := range r.Files {
		r.Total.add(f)
	}
	return r
}

// Sort is the order of the stats.
type Sort string

// The orders. The zero value is each view's default: by path for the
// directories and the tree, by tokens for the largest files.
const (
	// ByPath: directories and files by path, a directory before
	// what it holds.
	ByPath Sort = "path"
	// ByTokens: the most tokens first; ties by path.
	ByTokens Sort = "tokens"
)

// ParseSort checks s: path or tokens.
func ParseSort(s string) (Sort, error) {
	switch Sort(s) {
	case ByPath, ByTokens:
		return Sort(s), nil
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
func (r *Report) Dirs(by Sort) []Dir {
	idx := map[string]int{}
	var out []Dir
	row := func(d string) *Dir {
		i, ok := idx[d]
		if !ok {
			i = len(out)
			idx[d] = i
			out = append(out, Dir{Dir: d, Entries: []aggregate.FileStats{}})
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
	if by == ByTokens {
		slices.SortStableFunc(out, func(a, b Dir) int {
			return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), comparePaths(a.Dir, b.Dir))
		})
		for i := range out {
			sortFilesByTokens(out[i].Entries)
		}
	} else {
		slices.SortStableFunc(out, func(a, b Dir) int { return comparePaths(a.Dir, b.Dir) })
	}
	return out
}

// Top returns the n files with the most tokens (ties by path), largest
// first, or in path order by [ByPath]. Files with an error are left
// out; n <= 0 returns none.
func (r *Report) Top(n int, by Sort) []aggregate.FileStats {
	var out []aggregate.FileStats
	for _, f := range r.Files {
		if f.Error == "" {
			out = append(out, f)
		}
	}
	sortFilesByTokens(out)
	out = out[:min(max(n, 0), len(out))]
	if by == ByPath {
		slices.SortStableFunc(out, func(a, b aggregate.FileStats) int { return comparePaths(a.Path, b.Path) })
	}
	return out
}

// Node is a directory or a file of the token tree ([Report.Tree]).
type Node struct {
	// Name is the last element of Path ("." for the base directory).
	Name string `json:"name"`
	Path string `json:"path"`
	Dir  bool   `json:"dir,omitempty"`
	// Totals are a directory's subtree totals, or a file's own
	// numbers (Files 1, or 0 with an error).
	Totals
	Binary bool   `json:"binary,omitempty"`
	Error  string `json:"error,omitempty"`
	// Children are a directory's entries, files and directories together.
	Children []*Node `json:"children,omitempty"`
	// Folded sums the entries of a directory below the tree's threshold,
	// which Children leave out; nil when none is.
	Folded *Folded `json:"folded,omitempty"`

	errors int // entries with an error in the subtree: never folded
}

// Folded sums the entries of a directory below the threshold of the
// token tree.
type Folded struct {
	// Entries is the number of files and directories folded.
	Entries int `json:"entries"`
	Totals
}

// Tree returns the token tree of the files, rooted at the base directory
// ("."), like repomix's token-count tree: each directory with its subtree
// totals, its entries by name, or by tokens (the largest first; ties by
// name). Entries with fewer than threshold tokens are folded into their
// directory's Folded (none when threshold <= 0); the root never is, nor
// is a file with an error or a directory that holds one (an error has no
// tokens, and folding would hide it). The
// root's totals are those of every file ([Report.Total]): files
// outside the base directory hang below it under "..".
func (r *Report) Tree(by Sort, threshold int) *Node {
	root := &Node{Name: ".", Path: ".", Dir: true}
	dirs := map[string]*Node{".": root}
	var dirOf func(p string) *Node
	dirOf = func(p string) *Node {
		if n, ok := dirs[p]; ok {
			return n
		}
		pp := path.Dir(p)
		if pp == p { // "/": a label that could not be made relative
			pp = "."
		}
		parent := dirOf(pp)
		n := &Node{Name: path.Base(p), Path: p, Dir: true}
		parent.Children = append(parent.Children, n)
		dirs[p] = n
		return n
	}
	for _, f := range r.Files {
		n := &Node{Name: path.Base(f.Path), Path: f.Path, Binary: f.Binary, Error: f.Error}
		n.add(f)
		if f.Error != "" {
			n.errors = 1
		}
		d := dirOf(path.Dir(f.Path))
		d.Children = append(d.Children, n)
	}
	var finish func(n *Node)
	finish = func(n *Node) {
		for _, c := range n.Children {
			if c.Dir {
				finish(c)
			}
			n.addTotals(c.Totals)
			n.errors += c.errors
		}
	}
	finish(root)
	var order func(n *Node)
	order = func(n *Node) {
		slices.SortStableFunc(n.Children, func(a, b *Node) int {
			if by == ByTokens {
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
					n.Folded = &Folded{}
				}
				n.Folded.Entries++
				n.Folded.addTotals(c.Totals)
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

func sortFilesByTokens(fs []aggregate.FileStats) {
	slices.SortStableFunc(fs, func(a, b aggregate.FileStats) int {
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
