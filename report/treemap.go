package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
)

// The treemap: a squarified layout (Bruls, Huizing and van Wijk, 2000) of
// a tree of nodes whose leaves are what the agent is given, the area of
// each leaf proportional to its tokens. Leaves partition the map exactly
// (no padding), so that areas stay proportional across groups; groups are
// drawn as outlines over their leaves.

// Map size in the SVG's user units.
const (
	mapWidth  = 1000
	mapHeight = 560
)

// DefaultMinTileArea is the smallest tile, in square units of the
// 1000×560 map, that is drawn on its own: smaller siblings merge into one
// "N more files" tile.
const DefaultMinTileArea = 150

// rect is a rectangle in the map's units.
type rect struct{ x, y, w, h float64 }

func (r rect) area() float64 { return r.w * r.h }

// squarify lays values out in r, each rectangle's area proportional to its
// value: values must be positive and in decreasing order. Rows are added
// along the shorter side of what is left while the worst aspect ratio of
// the row does not get worse; the last rectangle of a row and the last
// row reach the edges exactly, so that the rectangles cover r.
func squarify(values []float64, r rect) []rect {
	out := make([]rect, len(values))
	total := 0.0
	for _, v := range values {
		total += v
	}
	if total <= 0 || r.w <= 0 || r.h <= 0 {
		return out
	}
	scale := r.area() / total
	areas := make([]float64, len(values))
	for i, v := range values {
		areas[i] = v * scale
	}
	for i := 0; i < len(areas); {
		side := min(r.w, r.h)
		j, s := i+1, areas[i]
		for j < len(areas) && worst(areas[i:j+1], s+areas[j], side) <= worst(areas[i:j], s, side) {
			s += areas[j]
			j++
		}
		last := j == len(areas)
		if r.w >= r.h {
			// a column on the left, the full height
			w := s / r.h
			if last {
				w = r.w
			}
			y := r.y
			for k := i; k < j; k++ {
				h := areas[k] / w
				if k == j-1 {
					h = r.y + r.h - y
				}
				out[k] = rect{r.x, y, w, h}
				y += h
			}
			r.x, r.w = r.x+w, r.w-w
		} else {
			// a row at the top, the full width
			h := s / r.w
			if last {
				h = r.h
			}
			x := r.x
			for k := i; k < j; k++ {
				w := areas[k] / h
				if k == j-1 {
					w = r.x + r.w - x
				}
				out[k] = rect{x, r.y, w, h}
				x += w
			}
			r.y, r.h = r.y+h, r.h-h
		}
		i = j
	}
	return out
}

// worst is the largest aspect ratio of a row of areas (in decreasing
// order) whose sum is s, laid along a side of length side.
func worst(row []float64, s, side float64) float64 {
	s2, w2 := s*s, side*side
	return max(w2*row[0]/s2, s2/(w2*row[len(row)-1]))
}

// node is a tile of the treemap (a leaf) or a group of them.
type node struct {
	kind   string // the tile's colour: one of the kind* constants
	label  string // shown in the tile, already escaped for people
	id     string // data-id: a source id, a file's path (escaped when drawn)
	tip    string // the tooltip, already escaped for people
	tokens int
	// files counts the leaves below (1 for a leaf); noun names them in
	// "N more files".
	files    int
	noun     string
	children []*node
	// dir marks a directory of files, whose tip is its path.
	dir bool
}

// Tile kinds, which are also CSS classes (k-...).
const (
	kindSource     = "source"
	kindNative     = "native"
	kindFile       = "file"
	kindReduced    = "reduced" // a file sent in a cheaper view than full
	kindScreenshot = "screenshot"
	kindBeads      = "beads"
	kindHistory    = "history"
	kindMore       = "more"
	kindAgent      = "agent" // what the agent sends of its own (ctx observe): system prompt, tools, environment, ...
	kindGroup      = "group"
)

// total sums the tokens of the leaves below n (and sets files).
func (n *node) total() int {
	if len(n.children) == 0 {
		if n.files == 0 {
			n.files = 1
		}
		return n.tokens
	}
	n.tokens, n.files = 0, 0
	for _, c := range n.children {
		n.tokens += c.total()
		n.files += c.files
	}
	return n.tokens
}

// tile is a laid-out node, its numbers formatted for the page.
type tile struct {
	X, Y, W, H string
	Kind       string
	ID         string
	Tip        string
	Tokens     int
	Depth      int
	// Lines are the labels that fit: the directory (on the largest tile
	// of a directory), the name, the tokens.
	Lines []textLine
	// Dark is dark text, for light fills.
	Dark bool
}

// textLine is one line of a tile's label.
type textLine struct {
	X, Y, Text, Class string
}

// coord formats a coordinate with a fixed precision, so that pages are
// byte-stable.
func coord(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

// Label metrics: the labels are 10-unit monospace text.
const (
	charWidth  = 6.1
	lineHeight = 12
)

// fit cuts label to the characters that fit in a width w, with "…"; ""
// when fewer than three fit.
func fit(label string, w float64) string {
	n := int((w - 6) / charWidth)
	r := []rune(label)
	switch {
	case len(r) <= n:
		return label
	case n < minLabel:
		// a name cut to a few letters says nothing: the tile's tooltip
		// holds it
		return ""
	}
	return string(r[:n-1]) + "…"
}

// minLabel is the fewest characters a cut label keeps: fewer, and the tile
// shows none.
const minLabel = 5

// fitTail is fit with the start cut instead ("…sys/unix/"), for
// directories, whose last names say most; the cut falls after a slash
// when one is near.
func fitTail(label string, w float64) string {
	n := int((w - 6) / charWidth)
	r := []rune(label)
	switch {
	case len(r) <= n:
		return label
	case n < minLabel:
		return ""
	}
	tail := string(r[len(r)-(n-1):])
	if i := strings.IndexByte(tail, '/'); i >= 0 && i < len(tail)-1 && utf8.RuneCountInString(tail[i+1:]) >= (n-1)/2 {
		tail = tail[i+1:]
	}
	return "…" + tail
}

// layout lays n out in r: leaves become tiles, groups outlines (drawn
// over the tiles). Siblings whose tiles would be under minArea merge into
// one "N more" tile; a group whose children would all be that small is
// one tile. dir, when not "", is the directory the tile at r's corner
// names.
func layout(n *node, r rect, minArea float64, depth int, dir string, tiles, groups *[]tile) {
	if len(n.children) == 0 {
		*tiles = append(*tiles, makeTile(n, r, depth, dir))
		return
	}
	kids := mergeSmall(n, r.area(), minArea)
	if kids == nil {
		// every child is too small: the group is one tile
		more := &node{kind: kindMore, id: n.id, tokens: n.tokens, files: n.files,
			label: strings.TrimSuffix(n.label, "/") + "/ (" + display.Plural(n.files, n.noun) + ")",
			tip:   n.tip + "\n" + display.Plural(n.files, n.noun) + ", too small to show one by one"}
		*tiles = append(*tiles, makeTile(more, r, depth, ""))
		return
	}
	values := make([]float64, len(kids))
	for i, k := range kids {
		values[i] = float64(k.tokens)
	}
	// a directory's largest child is at its top left corner: its tile
	// names the directory
	if n.dir {
		dir = n.tip
	}
	for i, kr := range squarify(values, r) {
		d := ""
		if i == 0 {
			d = dir
		}
		layout(kids[i], kr, minArea, depth+1, d, tiles, groups)
	}
	if depth > 0 {
		g := makeTile(n, r, depth, "")
		g.Kind, g.Lines = kindGroup, nil
		*groups = append(*groups, g)
	}
}

// mergeSmall returns the children of n to lay out in an area, largest
// first, with those whose share would be under minArea merged into one
// "N more" node (a single small child stays as it is); nil when all of
// them are that small and there is more than one.
func mergeSmall(n *node, area, minArea float64) []*node {
	kids := slices.Clone(n.children)
	slices.SortStableFunc(kids, func(a, b *node) int {
		if c := cmp.Compare(b.tokens, a.tokens); c != 0 {
			return c
		}
		return cmp.Compare(a.label, b.label)
	})
	for len(kids) > 0 && kids[len(kids)-1].tokens <= 0 {
		kids = kids[:len(kids)-1]
	}
	if len(kids) == 0 || n.tokens <= 0 {
		return nil
	}
	per := area / float64(n.tokens)
	cut := len(kids)
	for cut > 0 && float64(kids[cut-1].tokens)*per < minArea {
		cut--
	}
	if len(kids)-cut < 2 {
		return kids
	}
	if cut == 0 {
		return nil
	}
	more := &node{kind: kindMore, id: n.id + "…"}
	for _, k := range kids[cut:] {
		more.tokens += k.tokens
		more.files += k.files
	}
	more.label = display.Plural(more.files, "more "+n.noun)
	where := ""
	if n.label != "" {
		where = " in " + n.label
	}
	more.tip = display.Plural(more.files, "more "+n.noun) + where + "\n" + tokens(more.tokens)
	kids = append(kids[:cut], more)
	slices.SortStableFunc(kids, func(a, b *node) int { return cmp.Compare(b.tokens, a.tokens) })
	return kids
}

func makeTile(n *node, r rect, depth int, dir string) tile {
	t := tile{X: coord(r.x), Y: coord(r.y), W: coord(r.w), H: coord(r.h), Kind: n.kind, ID: mdtext.Escape(n.id),
		Tip: n.tip, Tokens: n.tokens, Depth: depth}
	switch n.kind {
	case kindReduced, kindHistory, kindMore:
		t.Dark = true
	}
	fits := int((r.h - 3) / lineHeight)
	label := fit(n.label, r.w)
	if fits < 1 || label == "" {
		return t
	}
	var lines []textLine
	if d := fitTail(dir, r.w); d != "" && fits >= 2 {
		lines = append(lines, textLine{Text: d, Class: "dir"})
		fits--
	}
	lines = append(lines, textLine{Text: label})
	if fits >= 2 {
		if s := fit(tokens(n.tokens), r.w); s != "" {
			lines = append(lines, textLine{Text: s, Class: "sub"})
		}
	}
	for i := range lines {
		lines[i].X, lines[i].Y = coord(r.x+3), coord(r.y+float64(i+1)*lineHeight)
		if t.Dark {
			lines[i].Class = strings.TrimSpace(lines[i].Class + " t-dark")
		}
	}
	t.Lines = lines
	return t
}
