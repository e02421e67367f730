package aggregate

import (
	"io"
	"strings"

	"github.com/ctxaudit/ctx/measure"
)

// document writes the markdown as [Compose] and [FilesSection] join it,
// a piece at a time: sections joined by "\n\n---\n\n", empty ones left
// out, blocks of a section joined the same way. It counts the document's
// tokens as it goes ([docTokens]) and, for [Run], keeps the text.
type document struct {
	w    io.Writer        // nil: nothing written
	keep *strings.Builder // nil: the text is not kept
	toks docTokens
	err  error

	sections  int    // sections started
	heading   string // the heading of the section to start with its first block
	blocks    int    // blocks of the current section
	staticLen int    // len(keep) before the history section
}

func newDocument(w io.Writer, keep bool, est measure.Estimator) *document {
	d := &document{w: w, toks: newDocTokens(est)}
	if keep {
		d.keep = &strings.Builder{}
	}
	return d
}

// put writes one piece of the document; tokens are its tokens when known
// (-1 when not).
func (d *document) put(b []byte, tokens, chars int) {
	if d.err != nil || len(b) == 0 {
		return
	}
	if d.w != nil {
		_, d.err = d.w.Write(b)
	}
	if d.keep != nil {
		d.keep.Write(b)
	}
	d.toks.add(b, tokens, chars)
}

// text writes a piece whose tokens are not known.
func (d *document) text(s string) { d.put([]byte(s), -1, -1) }

// section makes heading ("## Files\n\n", or a whole section) the start of
// the next section, written with its first block (section, with no block
// to wait for, writes it at once: see whole).
func (d *document) section(heading string) {
	d.heading = heading
	d.blocks = 0
}

// block writes one block of the current section: the section's heading
// first when it is the first block, else the separator. m measures b.
func (d *document) block(b []byte, m Measured) {
	if d.blocks == 0 {
		if d.sections > 0 {
			d.text(sep)
		}
		d.sections++
		d.text(d.heading)
	} else {
		d.text(sep)
	}
	d.blocks++
	d.put(b, m.Tokens, m.Chars)
}

// whole writes a whole section (screenshots, Beads, history); "" is none.
func (d *document) whole(s string) {
	if s == "" {
		return
	}
	if d.sections > 0 {
		d.text(sep)
	}
	d.sections++
	d.text(s)
	d.blocks = 1
}

// markStatic records that what was written so far is the static prefix.
func (d *document) markStatic() {
	if d.keep != nil {
		d.staticLen = d.keep.Len()
	}
}

// docTokens counts the tokens of a document given a piece at a time, as
// the estimator counts the whole document, without counting every piece
// again when its count is known (a block measured by the pipeline):
//
//   - chars4 counts characters, which add up;
//   - o200k and cl100k split text into pieces with a regular expression
//     before merging bytes, and never across a line break followed by an
//     ASCII character other than white space and "/" (every alternative of
//     their patterns either cannot hold a line break or ends with line
//     breaks that such a character cannot continue), so the count of a
//     document is the sum of the counts of its parts cut there. Pieces
//     are grouped until such a cut; a group that is a known block and
//     what follows it up to the next cut (the separator) is counted as the
//     block's count, less its last line's, plus the count of that line
//     with the rest;
//   - any other estimator is summed over the same groups (its count of
//     the whole document may differ: [Run] counts its document whole).
type docTokens struct {
	est   measure.Estimator
	kind  int
	total int
	chars int
	group []docPiece
}

type docPiece struct {
	s      []byte
	tokens int // -1: unknown
}

const (
	countChars = iota
	countBPE
	countOther
)

func newDocTokens(est measure.Estimator) docTokens {
	if est == nil {
		est = measure.Default()
	}
	t := docTokens{est: est, kind: countOther}
	if _, ok := measure.TokensForChars(est, 0); ok {
		t.kind = countChars
	} else if builtinEstimator(est) {
		t.kind = countBPE
	}
	return t
}

func (t *docTokens) add(s []byte, tokens, chars int) {
	if t.kind == countChars {
		if chars < 0 {
			chars = measure.Chars(s)
		}
		t.chars += chars
		return
	}
	if n := len(t.group); n > 0 {
		last := t.group[n-1].s
		if last[len(last)-1] == '\n' && cutBefore(s[0]) {
			t.flush()
		}
	}
	t.group = append(t.group, docPiece{s: s, tokens: tokens})
}

// cutBefore reports whether the exact estimators' pre-tokenizers always
// start a piece at c after a line break.
func cutBefore(c byte) bool {
	return c < 0x80 && c > ' ' && c != '/' && c != 0x7f
}

// flush counts the group.
func (t *docTokens) flush() {
	g := t.group
	t.group = t.group[:0]
	switch {
	case len(g) == 0:
	case len(g) == 1 && g[0].tokens >= 0:
		t.total += g[0].tokens
	case g[0].tokens >= 0 && t.kind == countBPE:
		// the block's last line onwards, counted with the rest
		b := g[0].s
		cut := lastCut(b)
		if cut <= 0 {
			t.total += t.count(g)
			return
		}
		rest := append([]byte(nil), b[cut:]...)
		for _, p := range g[1:] {
			rest = append(rest, p.s...)
		}
		t.total += g[0].tokens - t.est.Tokens(b[cut:]) + t.est.Tokens(rest)
	default:
		t.total += t.count(g)
	}
}

func (t *docTokens) count(g []docPiece) int {
	var b []byte
	for _, p := range g {
		b = append(b, p.s...)
	}
	return t.est.Tokens(b)
}

// lastCut returns the last offset of s after a line break at which the
// pre-tokenizers start a piece, or 0.
func lastCut(s []byte) int {
	for i := len(s) - 1; i > 0; i-- {
		if s[i-1] == '\n' && cutBefore(s[i]) {
			return i
		}
	}
	return 0
}

// result returns the document's tokens.
func (t *docTokens) result() int {
	if t.kind == countChars {
		n, _ := measure.TokensForChars(t.est, t.chars)
		return n
	}
	t.flush()
	return t.total
}
