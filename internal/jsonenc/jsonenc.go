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
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/termsafe"
)

// Indent returns v as indented JSON with a final newline.
func Indent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return escapeControls(b.Bytes()), nil
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
