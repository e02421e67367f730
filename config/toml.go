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
	lines map[string]int
}

// Parse parses data, read from file (used in messages only).
func parseDoc(file string, data []byte) (*doc, error) {
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
	d := &doc{File: file, Root: root, lines: map[string]int{}}
	d.indexLines(data, newLineIndex(data))
	return d, nil
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

// indexLines records the line of every key path, using the same path syntax
// as Error.Field: dots between keys, [i] for array elements.
func (d *doc) indexLines(data []byte, li *lineIndex) {
	var p unstable.Parser
	p.Reset(data)
	prefix := ""
	arrayCount := map[string]int{}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			it := e.Key()
			var parts []string
			line := 0
			for it.Next() {
				n := it.Node()
				parts = append(parts, string(n.Data))
				if line == 0 {
					line = li.line(n.Raw)
				}
			}
			path := resolve(parts, arrayCount)
			if e.Kind == unstable.ArrayTable {
				i := arrayCount[path]
				arrayCount[path] = i + 1
				path = fmt.Sprintf("%s[%d]", path, i)
			}
			prefix = path
			d.setLine(path, line)
		case unstable.KeyValue:
			d.indexKeyValue(li, prefix, e)
		}
	}
}

// resolve maps a header's raw key parts to a path. A header that passes
// through an array table refers to its latest element, so the index of that
// element is attached (the header's own last part is left to the caller).
func resolve(parts []string, arrayCount map[string]int) string {
	path := ""
	for i, k := range parts {
		if path != "" {
			path += "."
		}
		path += quoteKey(k)
		if n := arrayCount[path]; n > 0 && i < len(parts)-1 {
			path = fmt.Sprintf("%s[%d]", path, n-1)
		}
	}
	return path
}

func (d *doc) indexKeyValue(li *lineIndex, prefix string, e *unstable.Node) {
	it := e.Key()
	path := prefix
	line := 0
	for it.Next() {
		n := it.Node()
		if path != "" {
			path += "."
		}
		path += quoteKey(string(n.Data))
		if line == 0 {
			line = li.line(n.Raw)
		}
	}
	d.setLine(path, line)
	d.indexValue(li, path, e.Value(), line)
}

func (d *doc) indexValue(li *lineIndex, path string, v *unstable.Node, line int) {
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			kv := it.Node()
			d.indexKeyValue(li, path, kv)
		}
	case unstable.Array:
		it := v.Children()
		i := 0
		for it.Next() {
			c := it.Node()
			ep := fmt.Sprintf("%s[%d]", path, i)
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
			d.setLine(ep, l)
			d.indexValue(li, ep, c, l)
			i++
		}
	}
}

func (d *doc) setLine(path string, line int) {
	if _, ok := d.lines[path]; !ok && line > 0 {
		d.lines[path] = line
	}
}

// Line returns the line where path is defined, or the line of its nearest
// ancestor, or 0.
func (d *doc) Line(path string) int {
	for path != "" {
		if l, ok := d.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return 0
		}
		path = path[:i]
	}
	return 0
}

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
