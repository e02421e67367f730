// Package termsafe is the one rule of which characters a terminal acts on
// rather than shows: the C0 controls, DEL and the C1 controls, the line and
// paragraph separators and the bidirectional controls. Names are escaped
// by it (internal/mdtext), JSON writes them as \u escapes
// (internal/jsonenc), and every line ctx writes to stderr goes through
// [Writer].
package termsafe

import (
	"bytes"
	"fmt"
	"io"
)

// IsControl reports whether a terminal could act on r: move the cursor,
// start an escape sequence, recolour or reorder text.
func IsControl(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi controls
		return true
	}
	return false
}

// Writer writes to W what it is given with every control but the newline
// and the tab shown as \xHH (C0) or \uHHHH, so that no message can act on
// the terminal, whatever string it quotes. Give it whole lines (it escapes
// rune by rune; a write that ends inside a character shows the bytes as
// they are).
type Writer struct{ W io.Writer }

func lineControl(r rune) bool { return r != '\n' && r != '\t' && IsControl(r) }

// Write writes p with its controls escaped; it returns len(p) when the
// write succeeds.
func (w Writer) Write(p []byte) (int, error) {
	if !bytes.ContainsFunc(p, lineControl) {
		return w.W.Write(p)
	}
	var b bytes.Buffer
	for _, r := range string(p) {
		switch {
		case r < 0x20 && lineControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case lineControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	if _, err := w.W.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer it writes to.
func (w Writer) Unwrap() io.Writer { return w.W }
