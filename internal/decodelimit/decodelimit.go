// Package decodelimit checks a document before it is decoded: how deep it
// nests and, for JSON, whether an object has a key twice. Every decoder of
// user input runs it first (the history's messages, stored manifests, the
// Beads store, ctx.toml, the summary view of TOML files, agents' own
// settings), so that a document nested thousands of levels deep is refused
// with one clear error instead of being decoded, re-encoded and indented
// level after level.
//
// The checks read the document once, in linear time; they keep one small
// frame per open level and, for duplicate keys, the keys of the objects
// still open, so their memory is bounded by the input (and by the nesting
// for the frames).
//
// A document that is not well-formed is let through: its decoder reports
// the syntax error, in its own words and with its own position.
package decodelimit

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting a document may have: a value inside
// MaxDepth objects and arrays (JSON), or tables, inline tables and arrays
// (TOML), is decoded; one more level is refused. The documents ctx reads
// nest fewer than ten levels; the tool calls of a chat history carry what
// a model wrote, which rarely nests beyond twenty.
const MaxDepth = 256

// Error is a document refused by [JSON] or [TOML].
type Error struct {
	// Offset is the byte offset of what was refused: the bracket or brace
	// one level too deep, or the first quote of the repeated key. Line
	// and Col count from 1 (Col in characters).
	Offset    int64
	Line, Col int
	// Depth is the limit that was passed, for a document too deep.
	Depth int
	// Duplicate is true for a repeated key, Key.
	Duplicate bool
	Key       string
	// Tables or Values is the limit that was passed, for a TOML document
	// of Size bytes with too many tables or values.
	Tables, Values, Size int
}

// Error returns what is wrong, without the position (the callers name
// the file and the position their own way): "nesting deeper than 256
// levels", `duplicate key "role"`, or "more than 4262 tables in 52000
// bytes of TOML (...)".
func (e *Error) Error() string {
	switch {
	case e.Duplicate:
		return fmt.Sprintf("duplicate key %q", e.Key)
	case e.Tables > 0:
		return fmt.Sprintf("more than %d tables in %d bytes of TOML (at most %d, and one per %d bytes: the parts of headers and dotted keys, inline tables)", e.Tables, e.Size, TablesBase, TablesPerByte)
	case e.Values > 0:
		return fmt.Sprintf("more than %d values in %d bytes of TOML (at most %d, and one per %d bytes: values of keys, elements of arrays, tables)", e.Values, e.Size, ValuesBase, ValuesPerByte)
	}
	return fmt.Sprintf("nesting deeper than %d levels", e.Depth)
}

// Options are the checks of [JSON].
type Options struct {
	// MaxDepth is the deepest nesting allowed; 0 (or less) means MaxDepth.
	MaxDepth int
	// UniqueKeys refuses an object that has a key twice. Keys are compared
	// as encoding/json decodes them: escapes resolved, invalid UTF-8
	// replaced. encoding/json keeps the last of the two, and another
	// reader may keep the first: {"role": "user", "role": "system"} would
	// be sent as system while a reviewer reads user.
	UniqueKeys bool
}

// frame is an open object or array.
type frame struct {
	object bool
	// the keys of an object, with UniqueKeys: a list while it is short,
	// a set after that
	keys []string
	set  map[string]struct{}
}

// shortObject is the number of keys an object's frame compares one by one
// before it keeps them in a set.
const shortObject = 8

// JSON checks data, one JSON value or a sequence of them (JSON Lines),
// against o. It returns an *Error for the first place that breaks a
// check, or nil.
func JSON(data []byte, o Options) error {
	maxDepth := o.MaxDepth
	if maxDepth <= 0 {
		maxDepth = MaxDepth
	}
	// frames are kept when their level closes, so that the next object
	// at the same depth reuses their storage
	var stack []frame
	depth := 0
	expectKey := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			end, escaped := stringEnd(data, i+1)
			if end < 0 {
				return nil // not terminated: the decoder reports it
			}
			if expectKey && o.UniqueKeys {
				if err := addKey(&stack[depth-1], data, i, end, escaped); err != nil {
					return err
				}
			}
			expectKey = false
			i = end
		case '{', '[':
			if depth == maxDepth {
				return newError(data, i, &Error{Depth: maxDepth})
			}
			if depth == len(stack) {
				stack = append(stack, frame{})
			}
			f := &stack[depth]
			f.object = c == '{'
			f.keys = f.keys[:0]
			if f.set != nil {
				clear(f.set)
			}
			depth++
			expectKey = f.object
		case '}', ']':
			if depth == 0 {
				return nil // not well-formed: the decoder reports it
			}
			depth--
			expectKey = false
		case ',':
			expectKey = depth > 0 && stack[depth-1].object
		}
	}
	return nil
}

// stringEnd returns the offset of the quote that closes the string whose
// content starts at i, and whether the string holds an escape; -1 when it
// is not closed.
func stringEnd(data []byte, i int) (int, bool) {
	escaped := false
	for ; i < len(data); i++ {
		switch data[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i, escaped
		}
	}
	return -1, escaped
}

// addKey records the key data[start:end+1] (quotes included) in f, or
// returns an *Error when f already has it.
func addKey(f *frame, data []byte, start, end int, escaped bool) error {
	raw := data[start+1 : end]
	var key string
	if escaped || !utf8.Valid(raw) {
		// as encoding/json reads it; a key it cannot read is its error
		if json.Unmarshal(data[start:end+1], &key) != nil {
			return nil
		}
	} else {
		key = string(raw)
	}
	dup := false
	if f.set != nil {
		_, dup = f.set[key]
	} else {
		for _, k := range f.keys {
			if k == key {
				dup = true
				break
			}
		}
	}
	if dup {
		return newError(data, start, &Error{Duplicate: true, Key: key})
	}
	switch {
	case f.set != nil:
		f.set[key] = struct{}{}
	case len(f.keys) < shortObject:
		f.keys = append(f.keys, key)
	default:
		f.set = make(map[string]struct{}, 2*shortObject)
		for _, k := range f.keys {
			f.set[k] = struct{}{}
		}
		f.set[key] = struct{}{}
		f.keys = f.keys[:0]
	}
	return nil
}

// newError sets the position of e to offset off of data.
func newError(data []byte, off int, e *Error) *Error {
	e.Offset = int64(off)
	e.Line, e.Col = Position(data, off)
	return e
}

// Position returns the line and column (in characters), both from 1, of
// byte offset off in data.
func Position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1
	start := 0
	for i := 0; i < off; i++ {
		if data[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCount(data[start:off]) + 1
}
