// Package jsonenc is the one JSON encoder of ctx's documents: no HTML
// escaping (so "<", ">" and "&" stay as they are in paths and text), and,
// for documents, two-space indentation and a final newline. The
// characters a terminal could act on that encoding/json leaves as they are
// (DEL, the C1 controls and the bidirectional controls) are written as
// \u escapes, so that a document shown in a terminal cannot move the
// cursor or reorder text; the value is the same.
package jsonenc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/termsafe"
)

// MaxIndent is the deepest level [Indent] puts on lines of its own: a
// value nested deeper is written compactly, on its parent's line. Every
// indented line costs two spaces a level, so indenting a value nested n
// levels deep would write n² bytes; bounded, an indented document is at
// most about MaxIndent times its compact form. The documents ctx writes
// nest fewer than ten levels; what nests deeper is data passed through (the
// tool arguments of a chat history).
const MaxIndent = 16

// Indent returns v as indented JSON with a final newline: two spaces a
// level, as encoding/json indents, down to MaxIndent levels.
func Indent(v any) ([]byte, error) {
	var w indentWriter
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return escapeControls(w.out), nil
}

// indentWriter indents each document the encoder writes as it is
// written, so that the compact form is never copied.
type indentWriter struct{ out []byte }

func (iw *indentWriter) Write(b []byte) (int, error) {
	src := bytes.TrimSuffix(b, []byte("\n"))
	w := indenter{}
	w.indent(src) // the size, so that the document is allocated once
	w = indenter{out: slices.Grow(iw.out, w.n+1), write: true}
	w.indent(src)
	iw.out = append(w.out, '\n')
	return len(b), nil
}

// indenter writes compact JSON indented, or only counts the bytes it
// would write.
type indenter struct {
	out   []byte
	n     int
	write bool
}

func (w *indenter) add(b []byte) {
	w.n += len(b)
	if w.write {
		w.out = append(w.out, b...)
	}
}

func (w *indenter) addByte(c byte) {
	w.n++
	if w.write {
		w.out = append(w.out, c)
	}
}

const spaces = "                                " // 2*MaxIndent

func (w *indenter) newline(depth int) {
	w.addByte('\n')
	w.n += 2 * depth
	if w.write {
		w.out = append(w.out, spaces[:2*depth]...)
	}
}

// indent writes src, compact JSON as encoding/json encodes it, as
// encoding/json's Indent does with two spaces, except that an object or
// array whose elements would be deeper than MaxIndent is copied as it is.
func (w *indenter) indent(src []byte) {
	depth := 0
	open := false // a '{' or '[' was written, whose first element is to come
	for i := 0; i < len(src); {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			w.newline(depth)
		}
		switch c {
		case '"':
			j := stringEnd(src, i)
			w.add(src[i:j])
			i = j
			continue
		case '{', '[':
			if depth == MaxIndent {
				j := valueEnd(src, i)
				w.add(src[i:j])
				i = j
				continue
			}
			open = true
			w.addByte(c)
		case ',':
			w.addByte(c)
			w.newline(depth)
		case ':':
			w.add([]byte(": "))
		case '}', ']':
			if open {
				open = false // an empty object or array: {} or []
			} else {
				depth--
				w.newline(depth)
			}
			w.addByte(c)
		default:
			w.addByte(c)
		}
		i++
	}
}

// stringEnd returns the offset just after the string that starts at i.
func stringEnd(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(src)
}

// valueEnd returns the offset just after the object or array that starts
// at i.
func valueEnd(src []byte, i int) int {
	depth := 0
	for i < len(src) {
		switch src[i] {
		case '"':
			i = stringEnd(src, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return len(src)
}

// Compact returns v as compact JSON without a final newline.
func Compact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return escapeControls(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// escapeControls writes DEL, U+0080..U+009F and the bidirectional
// controls of b as \u escapes. They can only be inside strings (JSON's
// own syntax is ASCII), where an escape means the same character.
func escapeControls(b []byte) []byte {
	if !bytes.ContainsFunc(b, terminalControl) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if terminalControl(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// terminalControl: the controls encoding/json leaves as they are (it
// escapes those under 0x20 itself, and U+2028 and U+2029).
func terminalControl(r rune) bool { return r >= 0x20 && termsafe.IsControl(r) }

// Write writes v to w as [Indent] does, in one Write call.
func Write(w io.Writer, v any) error {
	b, err := Indent(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
