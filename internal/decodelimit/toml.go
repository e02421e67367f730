package decodelimit

import "github.com/pelletier/go-toml/v2/unstable"

// The tables and values a TOML document may hold for its size: at most
// TablesBase tables plus one per TablesPerByte bytes, and ValuesBase
// values plus one per ValuesPerByte bytes. A table decodes to a map of a
// few hundred bytes and can be written in two (a. in a dotted key), so
// that a document of dotted keys decoded to 150 times its size; a value
// costs the parser about 200 bytes, and a document of one long array
// 100 times its size. Bounded, a document decodes to at most about 20
// times its size, plus a few hundred kilobytes. A configuration file holds
// a table every few lines and a value every few words.
const (
	TablesBase    = 1024
	TablesPerByte = 16
	ValuesBase    = 4096
	ValuesPerByte = 8
)

// TOML checks that data nests at most maxDepth levels (0 or less means
// MaxDepth), counting every table a value is in: the root table, each part
// of a table header ([a.b] is two tables below the root, [[a]] an array
// and a table), each part of a dotted key but the last, and each array and
// inline table. go-toml bounds arrays and inline tables (at 10,000 levels)
// but not dotted keys, and a deep document decodes to a map per level.
//
// It also checks that data defines at most TablesBase tables plus one per
// TablesPerByte bytes (the tables its headers and dotted keys name, the
// elements of its arrays of tables and its inline tables), and at most
// ValuesBase values plus one per ValuesPerByte bytes (the values of its
// keys and the elements of its arrays, and its tables).
//
// It returns an *Error at the key or value that breaks a check, or nil.
// A document the parser cannot read is let through, for the decoder to
// report.
func TOML(data []byte, maxDepth int) error {
	if maxDepth <= 0 {
		maxDepth = MaxDepth
	}
	maxValues := ValuesBase + len(data)/ValuesPerByte
	// the parser holds a whole expression (one key, one array) before it
	// returns it: what is certainly too much is refused before it parses
	if err := tomlScan(data, maxDepth, maxValues); err != nil {
		return err
	}
	c := tomlChecker{data: data, max: maxDepth, maxTables: TablesBase + len(data)/TablesPerByte,
		maxValues: maxValues, nodes: []tomlNode{{}}, edges: map[tomlEdge]int32{}}
	var p unstable.Parser
	p.Reset(data)
	table := tomlTable{node: 0, depth: 1} // the root
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			t, err := c.header(e)
			if err != nil {
				return err
			}
			table = t
		case unstable.KeyValue:
			if err := c.keyValue(e, table, -1); err != nil {
				return err
			}
		}
	}
	return nil
}

// tomlChecker follows the tables a document defines, as names below their
// parent, to count each once. It keeps at most maxTables of them: past
// that the document is refused.
type tomlChecker struct {
	data              []byte
	max               int
	tables, maxTables int
	values, maxValues int
	nodes             []tomlNode
	edges             map[tomlEdge]int32
}

type tomlNode struct {
	// last is the latest element of an array of tables, -1 for none
	// (the node is a table)
	last  int32
	array bool
}

type tomlEdge struct {
	parent int32
	name   string
}

// tomlTable is a table being filled: its node and depth.
type tomlTable struct {
	node  int32
	depth int
}

// child returns the node named name below parent, made (and counted as a
// table unless array) when it is new; n is the key part, for the position.
func (c *tomlChecker) child(parent int32, name []byte, array bool, n *unstable.Node, at int) (int32, error) {
	if id, ok := c.edges[tomlEdge{parent, string(name)}]; ok {
		return id, nil
	}
	if !array {
		if err := c.count(n, at); err != nil {
			return 0, err
		}
	}
	id := int32(len(c.nodes))
	c.nodes = append(c.nodes, tomlNode{last: -1, array: array})
	c.edges[tomlEdge{parent, string(name)}] = id
	return id, nil
}

// fresh makes an anonymous table (an element of an array of tables, an
// inline table), counted.
func (c *tomlChecker) fresh(n *unstable.Node, at int) (int32, error) {
	if err := c.count(n, at); err != nil {
		return 0, err
	}
	c.nodes = append(c.nodes, tomlNode{last: -1})
	return int32(len(c.nodes) - 1), nil
}

// count counts a table at node n (at offset at when n has no position).
func (c *tomlChecker) count(n *unstable.Node, at int) error {
	c.tables++
	if c.tables > c.maxTables {
		return c.tooMany(n, at, &Error{Tables: c.maxTables, Size: len(c.data)})
	}
	return c.countValue(n, at)
}

// countValue counts a value at node n.
func (c *tomlChecker) countValue(n *unstable.Node, at int) error {
	c.values++
	if c.values > c.maxValues {
		return c.tooMany(n, at, &Error{Values: c.maxValues, Size: len(c.data)})
	}
	return nil
}

func (c *tomlChecker) tooMany(n *unstable.Node, at int, e *Error) error {
	if n.Raw.Length > 0 {
		at = int(n.Raw.Offset)
	}
	return newError(c.data, max(at, 0), e)
}

// header follows a [table] or [[array table]] header from the root.
func (c *tomlChecker) header(e *unstable.Node) (tomlTable, error) {
	t := tomlTable{node: 0, depth: 1}
	array := e.Kind == unstable.ArrayTable
	for it := e.Key(); it.Next(); {
		n := it.Node()
		last := it.IsLast()
		t.depth++
		if last && array {
			t.depth++ // the array, then its new element
		}
		if t.depth > c.max {
			return t, c.fail(n, -1)
		}
		id, err := c.child(t.node, n.Data, last && array, n, -1)
		if err != nil {
			return t, err
		}
		if last && array {
			el, err := c.fresh(n, -1)
			if err != nil {
				return t, err
			}
			c.nodes[id].array = true
			c.nodes[id].last = el
			id = el
		} else if c.nodes[id].array && c.nodes[id].last >= 0 {
			id = c.nodes[id].last // [a.b] below [[a]]: the latest element
		}
		t.node = id
	}
	return t, nil
}

// keyValue checks a key-value in table t; at is the offset of the nearest
// node with a position, -1 for none.
func (c *tomlChecker) keyValue(kv *unstable.Node, t tomlTable, at int) error {
	for it := kv.Key(); it.Next(); {
		n := it.Node()
		if n.Raw.Length > 0 {
			at = int(n.Raw.Offset)
		}
		if it.IsLast() {
			break
		}
		t.depth++ // the table this part names
		if t.depth > c.max {
			return c.fail(n, at)
		}
		id, err := c.child(t.node, n.Data, false, n, at)
		if err != nil {
			return err
		}
		t.node = id
	}
	return c.value(kv.Value(), t.depth, at)
}

// value checks a value held in a container at depth d.
func (c *tomlChecker) value(v *unstable.Node, d, at int) error {
	if v == nil {
		return nil
	}
	if v.Raw.Length > 0 {
		at = int(v.Raw.Offset)
	}
	if v.Kind != unstable.InlineTable { // an inline table is counted as a table
		if err := c.countValue(v, at); err != nil {
			return err
		}
	}
	if v.Kind != unstable.Array && v.Kind != unstable.InlineTable {
		return nil
	}
	d++
	if d > c.max {
		return c.fail(v, at)
	}
	if v.Kind == unstable.InlineTable {
		id, err := c.fresh(v, at)
		if err != nil {
			return err
		}
		for it := v.Children(); it.Next(); {
			if n := it.Node(); n.Kind == unstable.KeyValue {
				if err := c.keyValue(n, tomlTable{node: id, depth: d}, at); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for it := v.Children(); it.Next(); {
		if err := c.value(it.Node(), d, at); err != nil {
			return err
		}
	}
	return nil
}

// fail is the *Error of a document too deep at node n, or at offset at
// when n has no position.
func (c *tomlChecker) fail(n *unstable.Node, at int) error {
	if n.Raw.Length > 0 {
		at = int(n.Raw.Offset)
	}
	return newError(c.data, max(at, 0), &Error{Depth: c.max})
}

// tomlScan reads data as bytes, outside its strings and comments, for two
// counts that the parsed document can only exceed: a comma follows a value
// (of an array or an inline table), and a dotted key of n parts is n-1
// tables deep (a dot between two digits is a number's, or a time's, and
// is not counted). It returns an *Error when the commas are more than
// maxValues or one key has more than maxDepth dots, or nil.
func tomlScan(data []byte, maxDepth, maxValues int) error {
	commas, dots := 0, 0
	digit := func(i int) bool { return i >= 0 && i < len(data) && data[i] >= '0' && data[i] <= '9' }
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			dots = 0
		case '"', '\'':
			// a string: a quoted key continues a dotted key
			i = tomlStringEnd(data, i)
		case ',':
			commas++
			if commas > maxValues {
				return newError(data, i, &Error{Values: maxValues, Size: len(data)})
			}
			dots = 0
		case '.':
			if digit(i-1) && digit(i+1) {
				continue
			}
			dots++
			if dots > maxDepth {
				return newError(data, i, &Error{Depth: maxDepth})
			}
		case ' ', '\t', '-', '_':
		default:
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				dots = 0
			}
		}
	}
	return nil
}

// tomlStringEnd returns the offset of the last byte of the string that
// starts at i: basic ("), literal ('), or either multi-line (""", ”'),
// where a basic string's backslash escapes the next byte. A single-line
// string ends at the end of its line at the latest.
func tomlStringEnd(data []byte, i int) int {
	q := data[i]
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		for j := i + 3; j < len(data); j++ {
			switch {
			case data[j] == '\\' && q == '"':
				j++
			case data[j] == q && j+2 < len(data) && data[j+1] == q && data[j+2] == q:
				j += 2
				for j+1 < len(data) && data[j+1] == q { // up to two quotes of the content
					j++
				}
				return j
			}
		}
		return len(data)
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case q, '\n':
			return j
		}
	}
	return len(data)
}
