package aggregate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/measure"
)

// The total token budget (max_tokens) bounds the whole document as it is
// written, final newline included: the files heading, every block, the
// separators, the list of what was left out and the sections after the
// files (screenshots, Beads, the Discussion History). It is counted a
// piece at a time, never by counting the document again:
//
//   - chars4 counts characters, which add up (the budget is kept in
//     characters and turned into tokens at the end);
//   - o200k and cl100k never merge across a line break followed by an
//     ASCII character other than white space and "/" (see [docTokens]).
//     Every piece of the document (a block, the list of what was left
//     out, a section) starts with "#" after a line break, so the document
//     is the sum of its pieces, each counted with what follows it up to
//     the next piece: the separator, or the final newline. A piece's
//     count with its follower is its own count, less that of its last
//     line (from its last cut), plus that line's count with the follower:
//     two counts of a few bytes (see [docUnits.seg]).
//
// An estimator of the caller's own is counted the same way, which is
// exact only when its counts add up at the same places.

// segCost is what one piece of the document costs in the budget's units,
// followed by the separator (join) or by the document's final newline
// (end).
type segCost struct{ join, end int }

// docUnits counts the budget's units: characters for chars4, else tokens.
type docUnits struct {
	est   measure.Estimator
	chars bool
}

func newDocUnits(est measure.Estimator) docUnits {
	if est == nil {
		est = measure.Default()
	}
	_, chars := measure.TokensForChars(est, 0)
	return docUnits{est: est, chars: chars}
}

// of returns the units of b.
func (u docUnits) of(b string) int {
	if u.chars {
		return measure.Chars([]byte(b))
	}
	return u.est.Tokens([]byte(b))
}

// tokens turns units into tokens.
func (u docUnits) tokens(units int) int {
	if u.chars {
		n, _ := measure.TokensForChars(u.est, units)
		return n
	}
	return units
}

// seg returns the cost of the piece b, whose tokens and characters are
// known, followed by the separator and by the final newline.
func (u docUnits) seg(b []byte, tokens, chars int) segCost {
	if u.chars {
		return segCost{join: chars + sepChars, end: chars + 1}
	}
	tail := b[max(lastCut(b), 0):]
	base := tokens - u.est.Tokens(tail)
	withSep := make([]byte, 0, len(tail)+len(sep))
	withSep = append(append(withSep, tail...), sep...)
	return segCost{join: base + u.est.Tokens(withSep), end: base + u.est.Tokens(withSep[:len(tail)+1])}
}

// segOf is seg of a piece whose sizes are not known.
func (u docUnits) segOf(s string) segCost {
	b := []byte(s)
	if u.chars {
		return u.seg(b, 0, measure.Chars(b))
	}
	return u.seg(b, u.est.Tokens(b), 0)
}

// blockCost is the cost of an item's block in the document under
// max_tokens; zero without it (nothing needs it).
func (o Options) blockCost(block []byte, m Measured) segCost {
	if !o.MaxTokens.IsSet() || len(block) == 0 {
		return segCost{}
	}
	return newDocUnits(o.Estimator).seg(block, m.Tokens, m.Chars)
}

// sepChars is the characters of the separator.
const sepChars = len(sep)

// docShape is what the files section's budget needs to know of the rest
// of the document: the files heading, and the sections after the files
// section ("" for none).
type docShape struct {
	heading string
	tail    []string
}

// docBudget is the document's total in the budget's units, kept up to
// date as the budget degrades items: the sum of the blocks' costs, the
// list of what was left out at its shortest (its count alone: the names
// are added at the end, as far as they fit), the sections after the files.
type docBudget struct {
	u     docUnits
	max   int64
	items []Item

	heading   int       // the files heading
	blocks    int       // the join costs of the items with a block
	withBlock int       // items with a block
	last      int       // the last item with a block, while none is omitted
	omitted   int       // items omitted
	tail      []segCost // the sections after the files section
	tailNames []string  // what each of them is, for the error
	errors    int       // error blocks, which the budget never takes out

	minFor  int     // the count minList is for
	minList segCost // the list of the omitted items, as a count alone
}

func newDocBudget(o Options, items []Item, shape docShape) *docBudget {
	max, _ := o.MaxTokens.Value()
	d := &docBudget{u: newDocUnits(o.Estimator), max: max, items: items, last: -1, minFor: -1}
	d.heading = d.u.of(shape.heading)
	for i := range items {
		it := &items[i]
		switch {
		case !it.AutoAggregate:
		case it.Status == StatusOmitted:
			d.omitted++
		default:
			d.blocks += it.cost.join
			d.withBlock++
			d.last = i
			if it.Status == StatusError {
				d.errors++
			}
		}
	}
	for _, s := range shape.tail {
		if s != "" {
			d.tail = append(d.tail, d.u.segOf(s))
			d.tailNames = append(d.tailNames, sectionName(s))
		}
	}
	return d
}

// sectionName names a section after the files section for people.
func sectionName(s string) string {
	switch {
	case strings.HasPrefix(s, "## Screenshots"):
		return "the screenshots"
	case strings.HasPrefix(s, "## Beads"):
		return "the Beads section"
	}
	return "the Discussion History"
}

// changed records that item i went from a block that cost before to its
// current state.
func (d *docBudget) changed(i int, before segCost) {
	it := &d.items[i]
	d.blocks -= before.join
	if it.Status == StatusOmitted {
		d.withBlock--
		d.omitted++
		return
	}
	d.blocks += it.cost.join
}

// list returns the cost of the list of n omitted items reduced to its
// count.
func (d *docBudget) list(n int) segCost {
	if n != d.minFor {
		d.minFor, d.minList = n, d.u.segOf(OmittedHeading+"\n\n"+omittedCount(0, n))
	}
	return d.minList
}

// total returns the document's units with the omitted items counted, not
// listed.
func (d *docBudget) total() int {
	t := d.blocks
	if d.withBlock > 0 || d.omitted > 0 {
		t += d.heading
	}
	adj := 0 // the last piece is followed by the final newline
	if d.omitted > 0 {
		l := d.list(d.omitted)
		t += l.join
		adj = l.end - l.join
	} else if d.withBlock > 0 {
		c := d.items[d.last].cost
		adj = c.end - c.join
	}
	for _, s := range d.tail {
		t += s.join
		adj = s.end - s.join
	}
	return t + adj
}

func (d *docBudget) fits(units int) bool { return int64(d.u.tokens(units)) <= d.max }

func (d *docBudget) over() bool { return !d.fits(d.total()) }

// fill lists the omitted items, in order, as far as they fit; the others
// are marked unlisted and counted ("… and 12 more files left out").
func (d *docBudget) fill() {
	if d.omitted == 0 {
		return
	}
	var om []*Item
	for i := range d.items {
		if it := &d.items[i]; it.AutoAggregate && it.Status == StatusOmitted {
			om = append(om, it)
		}
	}
	n := len(om)
	l := d.list(n)
	follow := "\n"
	rest := d.total() - l.end // the document without the list
	if len(d.tail) > 0 {
		follow = sep
		rest = d.total() - l.join
	}
	head := d.u.of(OmittedHeading + "\n\n")
	best, prefix := 0, 0 // prefix: the units of the first k lines
	for k := 0; k <= n; k++ {
		var last string
		if k < n {
			last = omittedCount(k, n)
		} else {
			last = omittedLine(om[n-1])
			prefix -= d.u.of(last + "\n")
		}
		if d.fits(rest + head + prefix + d.u.of(last+follow)) {
			best = k
		}
		if k == n {
			break
		}
		prefix += d.u.of(omittedLine(om[k]) + "\n")
		if k+1 < n && !d.fits(rest+head+prefix) {
			break // no longer list fits
		}
	}
	for k, it := range om {
		it.unlisted = k >= best
	}
}

// tooSmall is the error of a budget that what it cannot leave out
// exceeds.
func (d *docBudget) tooSmall(o Options) error {
	var what []string
	if d.omitted > 0 {
		what = append(what, "the files heading and the line that counts them")
	}
	if d.errors > 0 {
		what = append(what, display.Plural(d.errors, "error block"))
	}
	what = append(what, d.tailNames...)
	return &BudgetError{At: o.MaxTokensAt, Limit: d.max, Tokens: d.u.tokens(d.total()), Omitted: d.omitted, What: what}
}

// BudgetError is the error of a total token budget (Options.MaxTokens)
// smaller than what it cannot leave out: the files heading and the count
// of the files it left out, error blocks, the screenshots, the Beads
// section and the Discussion History. Nothing is written.
type BudgetError struct {
	At      string // Options.MaxTokensAt
	Limit   int64
	Tokens  int      // the document with every file left out
	Omitted int      // the files left out
	What    []string // what the document holds then, for people
}

func (e *BudgetError) Error() string {
	at := reasonTotal + " " + strconv.FormatInt(e.Limit, 10)
	if e.At != "" {
		at = e.At + ": " + strconv.FormatInt(e.Limit, 10)
	}
	even := "what it cannot leave out takes"
	switch {
	case e.Omitted == 1:
		even = "even with the file left out, the document takes"
	case e.Omitted == 2:
		even = "even with both files left out, the document takes"
	case e.Omitted > 2:
		even = "even with all " + display.Int(e.Omitted) + " files left out, the document takes"
	}
	return fmt.Sprintf("%s is too small: %s %s (%s)", at, even, display.Plural(e.Tokens, "token"), strings.Join(e.What, ", "))
}

// omittedLine is the line of an omitted file in the list of what the
// budget left out: "- `big.py` (2,985 tokens)".
func omittedLine(it *Item) string {
	return "- " + codeSpan(it.Path) + " (" + display.Plural(it.Source.Tokens, "token") + ")"
}

// omittedCount is the last line of a list that names listed of the n
// omitted files: "- … and 12 more files left out", or "- 14 files left
// out" when it names none.
func omittedCount(listed, n int) string {
	if listed == 0 {
		return "- " + display.Plural(n, "file") + " left out"
	}
	more, word := n-listed, "files"
	if more == 1 {
		word = "file"
	}
	return "- … and " + display.Int(more) + " more " + word + " left out"
}
