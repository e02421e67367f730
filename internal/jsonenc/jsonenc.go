// Package jsonenc is the one JSON encoder of ctx's documents: no HTML
// escaping (so "<", ">" and "&" stay as they are in paths and text), and,
// for documents, two-space indentation and a final newline.
package jsonenc

import (
	"bytes"
	"encoding/json"
	"io"
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
	return b.Bytes(), nil
}

// Compact returns v as compact JSON without a final newline.
func Compact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Write writes v to w as [Indent] does, in one Write call.
func Write(w io.Writer, v any) error {
	b, err := Indent(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
