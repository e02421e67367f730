// Package table prints plain-text tables. It keeps the third-party table
// library behind two functions ([Write] and [WriteFitted]) so a change of
// library stays here.
package table

import (
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// DefaultWidth is the width, in terminal columns, of every table and text
// fitted to a terminal when the width is unknown (not a terminal, no
// COLUMNS): the one default of ctx's outputs.
const DefaultWidth = 100

// Write prints header and rows as an ASCII table. Cells are printed as given:
// no wrapping, no case changes.
func Write(w io.Writer, header []string, rows [][]string) error {
	cols := make([]Column, len(header))
	for i, h := range header {
		cols[i] = Column{Header: h}
	}
	return render(w, cols, rows)
}

// Align is how the cells of a column line up.
type Align int

// The alignments.
const (
	Left  Align = iota // text
	Right              // numbers
)

// Fit is what a column does when the table is wider than its limit.
type Fit int

// The ways a column gives up width.
const (
	// FitKeep: the column stays as wide as its widest cell.
	FitKeep Fit = iota
	// FitCutMiddle: cells too wide are cut in the middle, with "…" in
	// place of what is cut (ids and paths keep their start and their end).
	FitCutMiddle
	// FitWrap: cells too wide are wrapped at spaces onto more lines (a
	// word wider than the column is broken).
	FitWrap
	// FitCutPath: cells too wide are slash paths cut as [CutPath] cuts
	// them: the file name stays whole, the directories give up width.
	FitCutPath
	// FitWrapPath: cells too wide are slash paths wrapped as [WrapPath]
	// wraps them, after a slash where they can: nothing of them is lost.
	FitWrapPath
)

// Column describes one column of [WriteFitted].
type Column struct {
	Header string
	Align  Align
	Fit    Fit
	// Min is the narrowest the column gets when it gives up width; the
	// header's width when that is larger.
	Min int
	// Late columns give up width only once the others of their Rank that
	// may are at their Min.
	Late bool
	// Rank orders the columns that give up width: all those of rank 0
	// first (down to their Min), then those of rank 1, and so on; within
	// a rank, the widest first, Late ones last.
	Rank int
}

// WriteFitted prints rows as an ASCII table whose lines are at most width
// terminal columns wide (0: no limit). When the table is too wide, the
// columns that may give up width (every [Fit] but [FitKeep]) do, by
// [Column.Rank], the widest first (Late ones last), down to their Min; if
// that is not enough the table stays wider. Cells may hold several lines
// ("\n").
func WriteFitted(w io.Writer, cols []Column, rows [][]string, width int) error {
	widths := fitWidths(cols, rows, width)
	fitted := make([][]string, len(rows))
	for r, row := range rows {
		fitted[r] = make([]string, len(row))
		for i, c := range row {
			if i < len(cols) && Width(c) > widths[i] {
				switch cols[i].Fit {
				case FitCutMiddle:
					c = cutMiddleLines(c, widths[i])
				case FitCutPath:
					c = CutPath(c, widths[i])
				case FitWrap:
					c = WrapText(c, widths[i])
				case FitWrapPath:
					c = wrapPathLines(c, widths[i])
				}
			}
			fitted[r][i] = c
		}
	}
	return render(w, cols, fitted)
}

// fitWidths returns the width of each column's content in the table that
// [WriteFitted] prints at most width wide (0: no limit).
func fitWidths(cols []Column, rows [][]string, width int) []int {
	widths := make([]int, len(cols))
	floor := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = Width(c.Header)
		floor[i] = max(widths[i], c.Min)
	}
	for _, row := range rows {
		for i, c := range row {
			if i < len(cols) {
				widths[i] = max(widths[i], Width(c))
			}
		}
	}
	if width <= 0 {
		return widths
	}
	total := Overhead(len(cols))
	for _, w := range widths {
		total += w
	}
	ranks := []int{}
	for _, c := range cols {
		if !slices.Contains(ranks, c.Rank) {
			ranks = append(ranks, c.Rank)
		}
	}
	slices.Sort(ranks)
	for _, rank := range ranks {
		for _, late := range []bool{false, true} {
			for ; total > width; total-- {
				// the widest column that may still give up width; the last on a tie
				best := -1
				for i, c := range cols {
					if c.Fit != FitKeep && c.Rank == rank && c.Late == late && widths[i] > floor[i] && (best < 0 || widths[i] >= widths[best]) {
						best = i
					}
				}
				if best < 0 {
					break
				}
				widths[best]--
			}
		}
	}
	return widths
}

// Overhead is the number of terminal columns that borders and padding take
// in a table of n columns: "| " before each cell, " " after it, and the
// final "|".
func Overhead(n int) int { return 3*n + 1 }

// Width returns the number of terminal columns s takes, as the table is
// drawn: the widest line for text of several lines.
func Width(s string) int {
	w := 0
	for line := range strings.SplitSeq(s, "\n") {
		w = max(w, twwidth.Width(line))
	}
	return w
}

// CutMiddle shortens s to at most w terminal columns by replacing its
// middle with "…", keeping a third of it for the start and the rest for the
// end (the file name of a path, the tail of an id). s is returned as it is when it
// fits.
func CutMiddle(s string, w int) string {
	if twwidth.Width(s) <= w {
		return s
	}
	if w < 1 {
		return ""
	}
	rs := []rune(s)
	headW := (w - 1) / 3
	tailW := w - 1 - headW
	var head, tail []rune
	for _, r := range rs {
		if twwidth.Width(string(head))+twwidth.Width(string(r)) > headW {
			break
		}
		head = append(head, r)
	}
	for i := len(rs) - 1; i >= len(head); i-- {
		if twwidth.Width(string(tail))+twwidth.Width(string(rs[i])) > tailW {
			break
		}
		tail = append([]rune{rs[i]}, tail...)
	}
	return string(head) + "…" + string(tail)
}

// CutPath shortens the slash path s to at most w terminal columns keeping
// its last element (the file name) whole and as many of the directories
// just above it as fit, and the start of the path before "…/":
// "packages/server/src/handlers/user.test.ts" at 24 columns is
// "packages/s…/user.test.ts", never "pac….test.ts", which could be any test.
// A name too long to keep whole (with two columns to spare) is cut in the
// middle ([CutMiddle]), without its directories.
func CutPath(s string, w int) string {
	if twwidth.Width(s) <= w {
		return s
	}
	i := strings.LastIndexByte(strings.TrimRight(s, "/"), '/')
	if i < 0 {
		return CutMiddle(s, w)
	}
	switch name := s[i+1:]; {
	case twwidth.Width(name)+1 == w:
		return "…" + name
	case twwidth.Width(name)+2 > w:
		return CutMiddle(name, w)
	}
	tail := s[i+1:]
	dir := s[:i]
	// the directories just above the name, while the start of the path
	// keeps a few columns
	for {
		j := strings.LastIndexByte(dir, '/')
		if j < 0 {
			break
		}
		next := dir[j+1:] + "/" + tail
		if twwidth.Width(next)+2+min(4, twwidth.Width(dir[:j])) > w {
			break
		}
		tail, dir = next, dir[:j]
	}
	room := w - twwidth.Width(tail) - 2 // "…" and "/"
	var head []rune
	for _, r := range dir {
		if twwidth.Width(string(head))+twwidth.Width(string(r)) > room {
			break
		}
		head = append(head, r)
	}
	return string(head) + "…/" + tail
}

// WrapPath breaks the slash path s into lines of at most w terminal
// columns without losing a character: after a slash where it can; a part
// between slashes too long for a line of its own after a "-" or "_" in
// it; a piece still too long after its dots, then where the line is full.
// ".claude/rules/backend/legacy-model-migration-patterns.md" at 24 is
// ".claude/rules/backend/", "legacy-model-migration-" and "patterns.md";
// "project_agents" at 12 is "project_" and "agents". s is returned as it
// is when it fits.
func WrapPath(s string, w int) string {
	if w < 1 {
		w = 1
	}
	if twwidth.Width(s) <= w {
		return s
	}
	var lines []string
	line, lineW := "", 0
	var put func(piece string)
	put = func(piece string) {
		pw := twwidth.Width(piece)
		if lineW > 0 && lineW+pw > w {
			lines = append(lines, line)
			line, lineW = "", 0
		}
		if pw <= w {
			line, lineW = line+piece, lineW+pw
			return
		}
		if i := strings.IndexByte(piece, '.'); i >= 0 && i < len(piece)-1 {
			// a name too long for a line: after its dots
			put(piece[:i+1])
			put(piece[i+1:])
			return
		}
		for _, r := range piece {
			rw := twwidth.Width(string(r))
			if lineW > 0 && lineW+rw > w {
				lines = append(lines, line)
				line, lineW = "", 0
			}
			line, lineW = line+string(r), lineW+rw
		}
	}
	for part := range strings.SplitAfterSeq(s, "/") {
		if twwidth.Width(part) <= w {
			put(part)
			continue
		}
		// too long for a line of its own: its words, on the line begun
		start := 0
		for i, r := range part {
			if r == '-' || r == '_' {
				put(part[start : i+1])
				start = i + 1
			}
		}
		if start < len(part) {
			put(part[start:])
		}
	}
	return strings.Join(append(lines, line), "\n")
}

func wrapPathLines(s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = WrapPath(l, w)
	}
	return strings.Join(lines, "\n")
}

func cutMiddleLines(s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = CutMiddle(l, w)
	}
	return strings.Join(lines, "\n")
}

// WrapText breaks s into lines of at most w terminal columns, at spaces
// where it can; a word wider than w is broken. Existing line breaks stay.
func WrapText(s string, w int) string {
	if w < 1 {
		w = 1
	}
	var out []string
	for para := range strings.SplitSeq(s, "\n") {
		line, lineW := "", 0
		flush := func() {
			out = append(out, line)
			line, lineW = "", 0
		}
		words := strings.Fields(para)
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		for _, word := range words {
			ww := twwidth.Width(word)
			if lineW > 0 && lineW+1+ww <= w {
				line, lineW = line+" "+word, lineW+1+ww
				continue
			}
			if lineW > 0 {
				flush()
			}
			if ww > w {
				// break a word that no line can hold, in one pass (a long
				// word cut again and again from its start took time
				// quadratic in its length)
				rs := []rune(word)
				start, pw := 0, 0
				for i, r := range rs {
					rw := twwidth.Width(string(r))
					if pw+rw > w && i > start {
						out = append(out, string(rs[start:i]))
						start, pw = i, 0
					}
					pw += rw
				}
				word, ww = string(rs[start:]), pw
				if ww > w { // one character wider than a line
					out = append(out, word)
					word, ww = "", 0
				}
			}
			line, lineW = word, ww
		}
		flush()
	}
	return strings.Join(out, "\n")
}

func render(w io.Writer, cols []Column, rows [][]string) error {
	align := make([]tw.Align, len(cols))
	hdr := make([]any, len(cols))
	for i, c := range cols {
		align[i] = tw.AlignLeft
		if c.Align == Right {
			align[i] = tw.AlignRight
		}
		hdr[i] = c.Header
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{Global: tw.AlignLeft, PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: tw.AlignLeft, PerColumn: align}),
		tablewriter.WithTrimSpace(tw.Off),
	)
	t.Header(hdr...)
	for _, r := range rows {
		cells := make([]any, len(r))
		for i, c := range r {
			cells[i] = c
		}
		if err := t.Append(cells...); err != nil {
			return err
		}
	}
	return t.Render()
}
