package config

// A doc is the parsed file plus the line of every key, so that each
// section's decoder can report precise errors with the typed accessors
// below.

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ctxaudit/ctx/internal/decodelimit"
)

// Error is an invalid configuration value or a malformed file.
type Error struct {
	File  string // the file as given by the user
	Line  int    // 1-based; 0 when unknown
	Field string // dotted path such as "budgets.memory.max_chars" or "sources[1].id"
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// doc is a parsed TOML document with the line of each key path.
type doc struct {
	File  string
	Root  map[string]any
	lines keyLines
}

// Parse parses data, read from file (used in messages only). A file nested
// too deep, or with more tables than its size can hold, is refused before
// it is decoded (decodelimit.TOML).
func parseDoc(file string, data []byte) (*doc, error) {
	if err := decodelimit.TOML(data, 0); err != nil {
		var le *decodelimit.Error
		if errors.As(err, &le) {
			return nil, &Error{File: file, Line: le.Line, Msg: err.Error()}
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	root := map[string]any{}
	if err := toml.Unmarshal(data, &root); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, _ := de.Position()
			msg := de.Error()
			msg = strings.TrimPrefix(msg, "toml: ")
			field := ""
			if k := de.Key(); len(k) > 0 {
				field = strings.Join(k, ".")
			}
			return nil, &Error{File: file, Line: row, Field: field, Msg: "invalid TOML: " + msg}
		}
		return nil, &Error{File: file, Msg: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: ")}
	}
	d := &doc{File: file, Root: root}
	d.indexLines(data, newLineIndex(data))
	return d, nil
}

// keyLines holds the line of every key path as a tree of its parts, so
// that each key costs its own name and not the path above it (paths held
// as strings grew with the square of the nesting, and a long table name
// was held again for every key below it).
type keyLines struct {
	nodes    []keyNode
	children map[keyEdge]int32
}

type keyNode struct {
	line int32
	// arrays counts the elements of the array of tables at this path
	arrays int32
	// lines holds, for an array, the (index, line) of each of its scalar
	// elements that starts a line of the array: an element lies on the
	// line of the last of them at or before it; elems is its length
	lines []int32
	elems int32
}

// keyEdge names a node below parent: a key as paths quote it, or an
// array index (name "").
type keyEdge struct {
	parent int32
	index  int32
	name   string
}

// elementLine returns the line of scalar element i of the array at n, or
// 0.
func (n *keyNode) elementLine(i int32) int {
	if i >= n.elems {
		return 0
	}
	j := sort.Search(len(n.lines)/2, func(j int) bool { return n.lines[2*j] > i })
	if j == 0 {
		return 0
	}
	return int(n.lines[2*j-1])
}

// root is the node of the document.
func (k *keyLines) root() int32 {
	if k.nodes == nil {
		k.nodes = []keyNode{{}}
		k.children = map[keyEdge]int32{}
	}
	return 0
}

// child returns the node of key (quoted as in paths) below parent,
// made when it is new.
func (k *keyLines) child(parent int32, key string) int32 {
	return k.edge(keyEdge{parent: parent, index: -1, name: key})
}

// element returns the node of element i of the array at parent.
func (k *keyLines) element(parent int32, i int) int32 {
	return k.edge(keyEdge{parent: parent, index: int32(i)})
}

func (k *keyLines) edge(e keyEdge) int32 {
	if id, ok := k.children[e]; ok {
		return id
	}
	id := int32(len(k.nodes))
	k.nodes = append(k.nodes, keyNode{})
	k.children[e] = id
	return id
}

// set records the line of node n, unless it has one.
func (k *keyLines) set(n int32, line int) {
	if k.nodes[n].line == 0 && line > 0 {
		k.nodes[n].line = int32(line)
	}
}

// line returns the line of path (as Error.Field writes it), or of its
// nearest ancestor that has one, or 0.
func (k *keyLines) line(path string) int {
	if k.nodes == nil {
		return 0
	}
	n, line := int32(0), 0
	for path != "" {
		var e keyEdge
		switch {
		case path[0] == '[':
			j := strings.IndexByte(path, ']')
			i, err := strconv.Atoi(path[1:max(j, 1)])
			if j < 0 || err != nil {
				return line
			}
			e = keyEdge{parent: n, index: int32(i)}
			path = path[j+1:]
		case path[0] == '"':
			q, err := strconv.QuotedPrefix(path)
			if err != nil {
				return line
			}
			e = keyEdge{parent: n, index: -1, name: q}
			path = path[len(q):]
		default:
			j := strings.IndexAny(path, ".[")
			if j < 0 {
				j = len(path)
			}
			e = keyEdge{parent: n, index: -1, name: path[:j]}
			path = path[j:]
		}
		path = strings.TrimPrefix(path, ".")
		id, ok := k.children[e]
		if !ok {
			if e.name == "" && e.index >= 0 {
				if l := k.nodes[n].elementLine(e.index); l > 0 {
					line = l
				}
			}
			return line
		}
		n = id
		if l := k.nodes[n].line; l > 0 {
			line = int(l)
		}
	}
	return line
}

// lineIndex maps byte offsets of a file to 1-based line numbers from the
// offsets of its newlines, found in one pass. The parser's own Shape counts
// the newlines from the start of the file on every call, which made loading
// a file grow with the square of its size.
type lineIndex struct {
	newlines []int // offsets of the '\n' bytes, increasing
	next     int   // the number of newlines before the last offset asked for
	steps    int   // newlines stepped over by line, for the test of linear loading
}

func newLineIndex(data []byte) *lineIndex {
	li := &lineIndex{}
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		li.newlines = append(li.newlines, i+j)
		i += j + 1
	}
	return li
}

// line returns the line where r starts. The keys of a file are
// asked for in order, so the search walks forward from the last answer;
// an earlier offset falls back to a binary search.
func (li *lineIndex) line(r unstable.Range) int {
	off := int(r.Offset)
	n := li.next
	if n > 0 && li.newlines[n-1] >= off {
		n = sort.SearchInts(li.newlines, off)
	}
	for n < len(li.newlines) && li.newlines[n] < off {
		n++
		li.steps++
	}
	li.next = n
	return n + 1
}

// indexLines records the line of every key path, as paths are written in
// Error.Field: dots between keys, [i] for array elements.
func (d *doc) indexLines(data []byte, li *lineIndex) {
	var p unstable.Parser
	p.Reset(data)
	k := &d.lines
	prefix := k.root()
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			// a header that passes through an array of tables refers to
			// its latest element
			n := k.root()
			line := 0
			for it := e.Key(); it.Next(); {
				kn := it.Node()
				n = k.child(n, quoteKey(string(kn.Data)))
				if line == 0 {
					line = li.line(kn.Raw)
				}
				if !it.IsLast() {
					if c := k.nodes[n].arrays; c > 0 {
						n = k.element(n, int(c-1))
					}
				}
			}
			if e.Kind == unstable.ArrayTable {
				i := k.nodes[n].arrays
				k.nodes[n].arrays++
				n = k.element(n, int(i))
			}
			prefix = n
			k.set(n, line)
		case unstable.KeyValue:
			d.indexKeyValue(li, prefix, e)
		}
	}
}

func (d *doc) indexKeyValue(li *lineIndex, prefix int32, e *unstable.Node) {
	k := &d.lines
	n := prefix
	line := 0
	for it := e.Key(); it.Next(); {
		kn := it.Node()
		n = k.child(n, quoteKey(string(kn.Data)))
		if line == 0 {
			line = li.line(kn.Raw)
		}
	}
	k.set(n, line)
	d.indexValue(li, n, e.Value(), line)
}

func (d *doc) indexValue(li *lineIndex, n int32, v *unstable.Node, line int) {
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			kv := it.Node()
			d.indexKeyValue(li, n, kv)
		}
	case unstable.Array:
		it := v.Children()
		i := 0
		for it.Next() {
			c := it.Node()
			l := line
			if c.Raw.Length > 0 {
				l = li.line(c.Raw)
			} else if c.Kind == unstable.InlineTable {
				// an inline table carries no range; use its first key's line
				if cc := c.Children(); cc.Next() && cc.Node().Kind == unstable.KeyValue {
					if k := cc.Node().Key(); k.Next() && k.Node().Raw.Length > 0 {
						l = li.line(k.Node().Raw)
					}
				}
			}
			if c.Kind == unstable.Array || c.Kind == unstable.InlineTable {
				ep := d.lines.element(n, i)
				d.lines.set(ep, l)
				d.indexValue(li, ep, c, l)
			} else if ls := d.lines.nodes[n].lines; l > 0 && (len(ls) == 0 || ls[len(ls)-1] != int32(l)) {
				// a scalar costs nothing unless it starts a line
				d.lines.nodes[n].lines = append(ls, int32(i), int32(l))
			}
			i++
		}
		d.lines.nodes[n].elems = int32(i)
	}
}

// Line returns the line where path is defined, or the line of its nearest
// ancestor, or 0.
func (d *doc) Line(path string) int { return d.lines.line(path) }

// Errorf returns an *Error for field path.
// at names the key at path for messages: "ctx.toml:9: files.max_tokens".
func (d *doc) at(path string) string { return at(d.File, d.Line(path), path) }

// at is "file:line: field" ("file: field" without a line).
func at(file string, line int, field string) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, line, field)
	}
	return file + ": " + field
}

func (d *doc) Errorf(path, format string, args ...any) *Error {
	return &Error{File: d.File, Line: d.Line(path), Field: path, Msg: fmt.Sprintf(format, args...)}
}

func quoteKey(k string) string {
	for _, c := range k {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// Join appends key to path with the quoting used in field names.
func joinKey(path, key string) string {
	if path == "" {
		return quoteKey(key)
	}
	return path + "." + quoteKey(key)
}

// Index appends [i] to path.
func indexKey(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// table is a TOML table being decoded, with its field path for messages.
type table struct {
	doc  *doc
	Path string
	M    map[string]any
}

// Root returns the document's top-level table.
func (d *doc) table() table { return table{doc: d, M: d.Root} }

// Has reports whether key is set.
func (t table) Has(key string) bool { _, ok := t.M[key]; return ok }

// Field returns the path of key.
func (t table) Field(key string) string { return joinKey(t.Path, key) }

// Errorf reports an error at key.
func (t table) Errorf(key, format string, args ...any) *Error {
	return t.doc.Errorf(t.Field(key), format, args...)
}

// CheckKeys rejects keys that are not in allowed, in sorted order.
func (t table) CheckKeys(allowed ...string) error {
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	var bad []string
	for k := range t.M {
		if !ok[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Slice(bad, func(i, j int) bool {
		return t.doc.Line(t.Field(bad[i])) < t.doc.Line(t.Field(bad[j])) || (t.doc.Line(t.Field(bad[i])) == t.doc.Line(t.Field(bad[j])) && bad[i] < bad[j])
	})
	return t.Errorf(bad[0], "unknown key (allowed: %s)", strings.Join(allowed, ", "))
}

// Sub returns the table at key; ok is false when the key is absent.
func (t table) Sub(key string) (table, bool, error) {
	v, ok := t.M[key]
	if !ok {
		return table{}, false, nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		return table{}, true, t.Errorf(key, "must be a table, not %s", typeName(v))
	}
	return table{doc: t.doc, Path: t.Field(key), M: m}, true, nil
}

// Tables returns the array of tables at key.
func (t table) Tables(key string) ([]table, bool, error) {
	v, ok := t.M[key]
	if !ok {
		return nil, false, nil
	}
	arr, isArr := v.([]any)
	if !isArr {
		return nil, true, t.Errorf(key, "must be an array of tables, not %s", typeName(v))
	}
	out := make([]table, 0, len(arr))
	for i, e := range arr {
		m, isMap := e.(map[string]any)
		p := indexKey(t.Field(key), i)
		if !isMap {
			return nil, true, t.doc.Errorf(p, "must be a table, not %s", typeName(e))
		}
		out = append(out, table{doc: t.doc, Path: p, M: m})
	}
	return out, true, nil
}

// String returns the string at key.
func (t table) String(key string) (string, bool, error) {
	v, ok := t.M[key]
	if !ok {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", true, t.Errorf(key, "must be a string, not %s", typeName(v))
	}
	return s, true, nil
}

// Bool returns the boolean at key.
func (t table) Bool(key string) (bool, bool, error) {
	v, ok := t.M[key]
	if !ok {
		return false, false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, true, t.Errorf(key, "must be a boolean (true or false), not %s", typeName(v))
	}
	return b, true, nil
}

// Number returns the number (integer or float) at key as a float64.
func (t table) Number(key string) (float64, bool, error) {
	v, ok := t.M[key]
	if !ok {
		return 0, false, nil
	}
	switch n := v.(type) {
	case int64:
		return float64(n), true, nil
	case float64:
		return n, true, nil
	}
	return 0, true, t.Errorf(key, "must be a number, not %s", typeName(v))
}

// Int returns the integer at key; a float with no fractional part counts.
func (t table) Int(key string) (int64, bool, error) {
	v, ok := t.M[key]
	if !ok {
		return 0, false, nil
	}
	switch n := v.(type) {
	case int64:
		return n, true, nil
	case float64:
		if n == math.Trunc(n) && !math.IsInf(n, 0) && math.Abs(n) < 1<<53 {
			return int64(n), true, nil
		}
	}
	return 0, true, t.Errorf(key, "must be a whole number, not %s", describe(v))
}

// Strings returns a string or an array of strings at key as a list.
func (t table) Strings(key string) ([]string, bool, error) {
	v, ok := t.M[key]
	if !ok {
		return nil, false, nil
	}
	switch x := v.(type) {
	case string:
		return []string{x}, true, nil
	case []any:
		out := make([]string, 0, len(x))
		for i, e := range x {
			s, isStr := e.(string)
			if !isStr {
				return nil, true, t.doc.Errorf(indexKey(t.Field(key), i), "must be a string, not %s", typeName(e))
			}
			out = append(out, s)
		}
		return out, true, nil
	}
	return nil, true, t.Errorf(key, "must be a string or an array of strings, not %s", typeName(v))
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case nil:
		return "nothing"
	}
	return "a date or time"
}

func describe(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return typeName(v)
}
