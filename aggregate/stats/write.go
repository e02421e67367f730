package stats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctxaudit/ctx/format"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/internal/table"
)

// Format is an output format of [Write]: table, markdown or json, of
// [format.Format]'s names.
type Format = format.Format

// The formats.
const (
	// Table: a plain-text table fitted to [WriteOptions.Width]
	// (the tree as plain text), numbers with thousands separators.
	Table = format.Table
	// Markdown: a markdown table (the tree in a code block), numbers
	// with thousands separators.
	Markdown = format.Markdown
	// JSON: the numbers as they are, for scripts.
	JSON = format.JSON
)

// ParseFormat checks s: table, markdown or json.
func ParseFormat(s string) (Format, error) { return format.Parse(s, Table, Markdown, JSON) }

// DefaultWidth is the width of the table format when
// [WriteOptions.Width] is 0: what fits a terminal whose width is
// unknown (as in `ctx audit`).
const DefaultWidth = table.DefaultWidth

// WriteOptions say what [Write] prints. The default is a row
// per directory ([Report.Dirs]) followed by its own files; Top prints
// the largest files instead, Tree the token tree. Every view ends with the
// total of all files.
type WriteOptions struct {
	Format Format // "" is Table
	// Sort orders the rows (see [Sort]); "" is by path, or by tokens
	// for Top.
	Sort Sort
	// Top, when 1 or more, prints only the Top files with the most tokens
	// ([Report.Top]).
	Top int
	// Tree prints the token tree ([Report.Tree]), folding the entries
	// under TreeThreshold tokens. Tree and Top cannot be used together.
	Tree          bool
	TreeThreshold int
	// Width is the most terminal columns a line of the table format takes;
	// 0 (or less) is [DefaultWidth]. Paths are cut keeping the file
	// name ([table.CutPath]), notes wrapped, and the names of the tree cut
	// in the middle to fit (the tree of the markdown format is not cut).
	Width int
}

// Write writes r to w as o says, in one Write call.
func Write(w io.Writer, r *Report, o WriteOptions) error {
	if o.Format == "" {
		o.Format = Table
	}
	if _, err := ParseFormat(string(o.Format)); err != nil {
		return fmt.Errorf("format: %w", err)
	}
	if o.Sort != "" {
		if _, err := ParseSort(string(o.Sort)); err != nil {
			return fmt.Errorf("sort: %w", err)
		}
	}
	switch {
	case o.Top < 0:
		return fmt.Errorf("top: must not be negative, not %d", o.Top)
	case o.TreeThreshold < 0:
		return fmt.Errorf("tree threshold: must not be negative, not %d", o.TreeThreshold)
	case o.Top > 0 && o.Tree:
		return errors.New("the largest files (top) and the tree cannot be printed together")
	}
	var b bytes.Buffer
	var err error
	switch {
	case o.Tree:
		tree := r.Tree(o.Sort, o.TreeThreshold)
		switch o.Format {
		case JSON:
			err = jsonenc.Write(&b, struct {
				Total   Totals                  `json:"total"`
				Tree    *Node                   `json:"tree"`
				Ignored []aggregate.IgnoredPath `json:"ignored"`
			}{r.Total, tree, r.ignored()})
		case Markdown:
			b.WriteString(mdtext.Fence("text", treeText(tree, o.TreeThreshold, 0)) + "\n")
		default:
			width := o.Width
			if width <= 0 {
				width = DefaultWidth
			}
			b.WriteString(treeText(tree, o.TreeThreshold, width))
		}
	case o.Top > 0:
		by := o.Sort
		if by == "" {
			by = ByTokens
		}
		top := r.Top(o.Top, by)
		if o.Format == JSON {
			if top == nil {
				top = []aggregate.FileStats{}
			}
			err = jsonenc.Write(&b, struct {
				Total   Totals                  `json:"total"`
				Top     []aggregate.FileStats   `json:"top"`
				Ignored []aggregate.IgnoredPath `json:"ignored"`
			}{r.Total, top, r.ignored()})
			break
		}
		var rows [][]string
		for _, f := range top {
			rows = append(rows, fileRow(f, ""))
		}
		// the files column holds only the total's count, which the note
		// under the table says: a table of files has none
		err = writeStatsRows(&b, o, append(rows, totalRow(r.Total, len(r.Files), len(top))), 1)
	default:
		dirs := r.Dirs(o.Sort)
		if o.Format == JSON {
			if dirs == nil {
				dirs = []Dir{}
			}
			err = jsonenc.Write(&b, struct {
				Total   Totals                  `json:"total"`
				Dirs    []Dir                   `json:"dirs"`
				Ignored []aggregate.IgnoredPath `json:"ignored"`
			}{r.Total, dirs, r.ignored()})
			break
		}
		var rows [][]string
		for _, d := range dirs {
			rows = append(rows, []string{dirLabel(d.Dir), num(d.Files), num(d.Lines), num(d.Symbols), num(d.Bytes), num(d.Tokens), ""})
			for _, f := range d.Entries {
				rows = append(rows, fileRow(f, "  "))
			}
		}
		err = writeStatsRows(&b, o, append(rows, totalRow(r.Total, len(r.Files), -1)), -1)
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

var statsColumns = []table.Column{
	{Header: "path", Fit: table.FitCutPath, Min: 10, Late: true},
	{Header: "files", Align: table.Right},
	{Header: "lines", Align: table.Right},
	{Header: "symbols", Align: table.Right},
	{Header: "bytes", Align: table.Right},
	{Header: "tokens", Align: table.Right},
	{Header: "note", Fit: table.FitWrap, Min: 6},
}

// statsTotalLabel is the path cell of the total row; a path is never
// empty and never holds a space, so it cannot be mistaken for one.
const statsTotalLabel = "total"

func dirLabel(d string) string {
	if d == "." {
		return "./"
	}
	return mdtext.Escape(d) + "/"
}

func num(n int) string { return display.Int(n) }

// fileRow is a file's row: its numbers, or its error as the note.
func fileRow(f aggregate.FileStats, indent string) []string {
	if f.Error != "" {
		return []string{indent + mdtext.Escape(f.Path), "", "", "", "", "", "error: " + f.Error}
	}
	note := ""
	if f.Binary {
		note = "binary"
	}
	return []string{indent + mdtext.Escape(f.Path), "", num(f.Lines), num(f.Symbols), num(f.Bytes), num(f.Tokens), note}
}

// totalRow is the last row: every file, and how many of the listed are
// shown (shown < 0: all) or could not be read.
func totalRow(t Totals, listed, shown int) []string {
	var notes []string
	if shown >= 0 {
		notes = append(notes, fmt.Sprintf("top %s of %s", display.Int(shown), display.Count(t.Files, "file", "files")))
	}
	if e := listed - t.Files; e > 0 {
		notes = append(notes, display.Count(e, "file not read", "files not read"))
	}
	return []string{statsTotalLabel, num(t.Files), num(t.Lines), num(t.Symbols), num(t.Bytes), num(t.Tokens), strings.Join(notes, "; ")}
}

// writeStatsRows writes rows as a fitted table or a markdown table. The
// fitted table leaves out column drop (none when < 0) and the note column
// when no row but the total has a note, and prints the total's note on a
// line below the table, where it takes no width from the paths.
func writeStatsRows(b *bytes.Buffer, o WriteOptions, rows [][]string, drop int) error {
	if o.Format != Markdown {
		width := o.Width
		if width <= 0 {
			width = DefaultWidth
		}
		last := len(statsColumns) - 1
		note := rows[len(rows)-1][last]
		rows[len(rows)-1][last] = ""
		notes := false
		for _, r := range rows {
			notes = notes || r[last] != ""
		}
		var cols []table.Column
		var keep []int
		for i, c := range statsColumns {
			if i != drop && (i != last || notes) {
				cols, keep = append(cols, c), append(keep, i)
			}
		}
		fitted := make([][]string, len(rows))
		for i, r := range rows {
			for _, k := range keep {
				fitted[i] = append(fitted[i], r[k])
			}
		}
		if err := table.WriteFitted(b, cols, fitted, width); err != nil {
			return err
		}
		if note != "" {
			b.WriteString(table.WrapText(note, width) + "\n")
		}
		return nil
	}
	b.WriteString("|")
	for _, c := range statsColumns {
		b.WriteString(" " + c.Header + " |")
	}
	b.WriteString("\n|")
	for _, c := range statsColumns {
		if c.Align == table.Right {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	for i, r := range rows {
		cells := make([]string, len(r))
		for j, c := range r {
			c = strings.TrimSpace(c)
			switch {
			case j == 0 && i == len(rows)-1:
				c = "**" + c + "**"
			case j == 0 && strings.HasSuffix(c, "/"):
				c = "**" + mdtext.CodeSpan(c) + "**"
			case j == 0:
				c = mdtext.CodeSpan(c)
			}
			cells[j] = strings.NewReplacer("|", `\|`, "\n", " ").Replace(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return nil
}

// treeText draws the tree as repomix draws its token-count tree, one entry
// a line with its tokens; a line wider than width (0: no limit) has its
// name cut in the middle, down to 8 columns.
func treeText(root *Node, threshold, width int) string {
	var b strings.Builder
	line := func(prefix string, n *Node) string {
		l := prefix + nodeLine(n, 0)
		if over := table.Width(l) - width; width > 0 && over > 0 {
			if w := table.Width(mdtext.Escape(n.Name)) - over; w >= 8 {
				l = prefix + nodeLine(n, w)
			}
		}
		return l
	}
	b.WriteString(line("", root) + "\n")
	var walk func(n *Node, prefix string)
	walk = func(n *Node, prefix string) {
		last := len(n.Children) - 1
		if n.Folded != nil {
			last++
		}
		for i, c := range n.Children {
			branch, next := "├── ", "│   "
			if i == last {
				branch, next = "└── ", "    "
			}
			b.WriteString(line(prefix+branch, c) + "\n")
			if c.Dir {
				walk(c, prefix+next)
			}
		}
		if f := n.Folded; f != nil {
			sums := fmt.Sprintf("(%s, %s)", display.Count(f.Tokens, "token", "tokens"), display.Count(f.Files, "file", "files"))
			l := fmt.Sprintf("%s└── … %s below %s %s", prefix, display.Count(f.Entries, "more entry", "more entries"),
				display.Count(threshold, "token", "tokens"), sums)
			if width > 0 && table.Width(l) > width {
				// too wide: the threshold is the same on every such line
				l = fmt.Sprintf("%s└── … %s more %s", prefix, display.Int(f.Entries), sums)
			}
			if width > 0 && table.Width(l) > width {
				l = fmt.Sprintf("%s└── … %s more (%s)", prefix, display.Int(f.Entries), display.Count(f.Tokens, "token", "tokens"))
			}
			b.WriteString(l + "\n")
		}
	}
	walk(root, "")
	return b.String()
}

// nodeLine is an entry of the tree: its name (cut in the middle to cut
// columns when cut > 0) and its numbers.
func nodeLine(n *Node, cut int) string {
	name := mdtext.Escape(n.Name)
	if cut > 0 {
		name = table.CutMiddle(name, cut)
	}
	switch {
	case n.Dir:
		name := name + "/"
		if n.Path == "." {
			name = "./"
		}
		return fmt.Sprintf("%s (%s, %s)", name, display.Count(n.Tokens, "token", "tokens"), display.Count(n.Files, "file", "files"))
	case n.Error != "":
		return name + " (error: " + n.Error + ")"
	case n.Binary:
		return fmt.Sprintf("%s (binary, %s)", name, display.Count(n.Bytes, "byte", "bytes"))
	}
	return fmt.Sprintf("%s (%s)", name, display.Count(n.Tokens, "token", "tokens"))
}
