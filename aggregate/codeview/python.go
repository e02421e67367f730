package codeview

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"github.com/ctxaudit/ctx/internal/treesitter"
)

// Python views. The skeleton is rebuilt block by block from byte ranges of
// the source: a kept statement is copied whole (or rendered recursively when
// it holds blocks), a function body is replaced as a whole, and nothing is
// ever edited inside an elided body.

// pyClauses are the children of compound statements that carry their own block.
var pyClauses = map[string]bool{
	"elif_clause": true, "else_clause": true, "except_clause": true,
	"except_group_clause": true, "finally_clause": true, "case_clause": true,
}

// pyCompound are the compound statements whose blocks are filtered like a
// module or class body.
var pyCompound = map[string]bool{
	"if_statement": true, "for_statement": true, "while_statement": true,
	"try_statement": true, "with_statement": true, "match_statement": true,
}

func pyIsDef(n treesitter.Node) bool {
	switch n.Type() {
	case "function_definition", "class_definition", "decorated_definition":
		return true
	}
	return false
}

// pyDefinition returns the class or function inside a decorated definition,
// or n itself.
func pyDefinition(n treesitter.Node) treesitter.Node {
	if n.Type() == "decorated_definition" {
		if d := n.ChildByField("definition"); !d.IsNull() {
			return d
		}
	}
	return n
}

// pyIsAssignment reports whether n is an assignment statement (plain,
// annotated or augmented).
func pyIsAssignment(n treesitter.Node) bool {
	if n.Type() != "expression_statement" {
		return false
	}
	for _, c := range n.NamedChildren() {
		switch c.Type() {
		case "assignment", "augmented_assignment":
			return true
		}
	}
	return false
}

// pyDocstring returns the string statement that opens block b, if any.
func pyDocstring(b treesitter.Node) (treesitter.Node, bool) {
	f := pyFirstStatement(b)
	if f.Type() != "expression_statement" {
		return treesitter.Node{}, false
	}
	kids := f.NamedChildren()
	if len(kids) != 1 {
		return treesitter.Node{}, false
	}
	switch kids[0].Type() {
	case "string", "concatenated_string":
		return f, true
	}
	return treesitter.Node{}, false
}

// pyFirstStatement returns the first named child of b that is not a comment.
func pyFirstStatement(b treesitter.Node) treesitter.Node {
	for _, c := range b.NamedChildren() {
		if c.Type() != "comment" {
			return c
		}
	}
	return treesitter.Node{}
}

// pyColonEnd returns the end offset of the ':' that introduces block b
// (its nearest preceding ':' sibling), or b's start when there is none.
func pyColonEnd(b treesitter.Node) int {
	for s := b.PrevSibling(); !s.IsNull(); s = s.PrevSibling() {
		if s.Type() == ":" {
			return s.EndByte()
		}
	}
	return b.StartByte()
}

// lineIndex maps byte offsets to 0-based line numbers.
type lineIndex []int // offsets of line starts

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the 0-based line of offset.
func (l lineIndex) line(offset int) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > offset }) - 1
}

type pyRenderer struct {
	canceler
	src   []byte
	lines lineIndex
}

// keep reports whether statement s of a module, class or compound block
// stays in the skeleton (docstrings and comments are decided by the caller).
func (r *pyRenderer) keep(s treesitter.Node) bool {
	switch s.Type() {
	case "import_statement", "import_from_statement", "future_import_statement",
		"type_alias_statement", "function_definition", "class_definition", "decorated_definition":
		return true
	case "expression_statement":
		return pyIsAssignment(s)
	}
	if pyCompound[s.Type()] {
		return r.compoundKeeps(s)
	}
	return false
}

// compoundKeeps reports whether a compound statement holds, in any of its
// blocks (not inside function bodies), a statement the skeleton keeps.
func (r *pyRenderer) compoundKeeps(n treesitter.Node) bool {
	for _, c := range n.Children() {
		switch {
		case c.Type() == "block":
			for _, s := range c.NamedChildren() {
				if s.Type() == "case_clause" {
					if r.compoundKeeps(s) {
						return true
					}
					continue
				}
				if r.keep(s) {
					return true
				}
			}
		case pyClauses[c.Type()]:
			if r.compoundKeeps(c) {
				return true
			}
		}
	}
	return false
}

// render renders a kept statement.
func (r *pyRenderer) render(n treesitter.Node) string {
	if !r.check() {
		return ""
	}
	if n.HasError() {
		// Parse errors: keep the original text, eliding only clean definitions.
		return r.verbatim(n)
	}
	switch n.Type() {
	case "function_definition":
		return r.function(n)
	case "class_definition":
		body := n.ChildByField("body")
		if body.IsNull() {
			return n.Text(r.src)
		}
		ce := pyColonEnd(body)
		return string(r.src[n.StartByte():ce]) + r.block(body, ce, false)
	case "decorated_definition":
		d := pyDefinition(n)
		if d.Equal(n) {
			return n.Text(r.src)
		}
		return string(r.src[n.StartByte():d.StartByte()]) + r.render(d)
	}
	if pyCompound[n.Type()] || pyClauses[n.Type()] {
		return r.compound(n)
	}
	return n.Text(r.src)
}

// verbatim copies n as it is, except that each function inside it (not
// inside another function) is replaced by its skeleton and each class
// rendered as in a skeleton. It is the fallback for parse errors: the
// source between definitions stays byte for byte.
func (r *pyRenderer) verbatim(n treesitter.Node) string {
	var b strings.Builder
	pos := n.StartByte()
	var walk func(n treesitter.Node)
	walk = func(n treesitter.Node) {
		for _, c := range n.Children() {
			if !r.check() {
				return
			}
			switch c.Type() {
			case "function_definition", "class_definition":
				b.Write(r.src[pos:c.StartByte()])
				b.WriteString(r.render(c))
				pos = c.EndByte()
			default:
				walk(c)
			}
		}
	}
	walk(n)
	b.Write(r.src[pos:n.EndByte()])
	return b.String()
}

// compound copies a compound statement (or clause), replacing each of its
// blocks by the filtered block.
func (r *pyRenderer) compound(n treesitter.Node) string {
	var b strings.Builder
	pos := n.StartByte()
	for _, c := range n.Children() {
		switch {
		case c.Type() == "block" && n.Type() == "match_statement":
			// A match body holds case clauses, not statements.
			b.Write(r.src[pos:c.StartByte()])
			b.WriteString(r.compound(c))
			pos = c.EndByte()
		case c.Type() == "block":
			ce := pyColonEnd(c)
			if ce < pos {
				ce = c.StartByte()
			}
			b.Write(r.src[pos:ce])
			b.WriteString(r.block(c, ce, false))
			pos = c.EndByte()
		case pyClauses[c.Type()]:
			b.Write(r.src[pos:c.StartByte()])
			b.WriteString(r.compound(c))
			pos = c.EndByte()
		}
	}
	b.Write(r.src[pos:n.EndByte()])
	return b.String()
}

// function renders a function: its header copied as is, its body replaced by
// the docstring (when there is one) and "...".
func (r *pyRenderer) function(n treesitter.Node) string {
	body := n.ChildByField("body")
	if body.IsNull() {
		return n.Text(r.src)
	}
	ce := pyColonEnd(body)
	head := string(r.src[n.StartByte():ce])
	first := pyFirstStatement(body)
	doc, hasDoc := pyDocstring(body)
	if first.IsNull() || r.lines.line(first.StartByte()) == r.lines.line(ce) {
		// Body on the header's line: `def f(): return 1`.
		if hasDoc {
			return head + " " + doc.Text(r.src) + "; ..."
		}
		return head + " ..."
	}
	indent := linePrefix(r.src, first.StartByte())
	if indent == "" {
		indent = linePrefix(r.src, n.StartByte()) + "    "
	}
	if hasDoc {
		return head + "\n" + indent + doc.Text(r.src) + "\n" + indent + "..."
	}
	return head + "\n" + indent + "..."
}

// block renders the replacement of src[colonEnd:b.End): the kept statements
// of block b on their own lines, at the block's indentation, or "..." when
// none is kept. Module is true for the module itself (no colon, no indent).
func (r *pyRenderer) block(b treesitter.Node, colonEnd int, module bool) string {
	first := pyFirstStatement(b)
	if first.IsNull() {
		if module {
			return ""
		}
		return string(r.src[colonEnd:b.EndByte()])
	}
	indent := ""
	if !module {
		if r.lines.line(first.StartByte()) == r.lines.line(colonEnd) {
			// A one-line block holds only simple statements.
			return string(r.src[colonEnd:b.EndByte()])
		}
		indent = linePrefix(r.src, first.StartByte())
		if indent == "" {
			return string(r.src[colonEnd:b.EndByte()])
		}
	}
	kids := b.NamedChildren()
	keep := make([]bool, len(kids))
	doc, hasDoc := pyDocstring(b)
	for i, k := range kids {
		switch {
		case k.Type() == "comment":
		case k.HasError():
			keep[i] = true
		case hasDoc && k.Equal(doc):
			keep[i] = true
		default:
			keep[i] = r.keep(k)
		}
	}
	// Comments stay when they sit right above a kept statement (a chain of
	// comment lines with no blank line), and, at the top of a module, when
	// they are a shebang or an encoding declaration.
	for i := len(kids) - 1; i >= 0; i-- {
		k := kids[i]
		if k.Type() != "comment" {
			continue
		}
		if module && k.StartLine() <= 2 && pyMagicComment.MatchString(k.Text(r.src)) {
			keep[i] = true
			continue
		}
		if i+1 < len(kids) && keep[i+1] && kids[i+1].StartLine() <= k.EndLine()+1 &&
			lineStart(r.src, k.StartByte()) != lineStart(r.src, kids[i+1].StartByte()) {
			keep[i] = true
		}
	}
	var out strings.Builder
	prevEnd := -1
	for i, k := range kids {
		if !keep[i] {
			continue
		}
		if !r.check() {
			return ""
		}
		switch {
		case prevEnd < 0 && module:
		case prevEnd < 0:
			out.WriteString("\n")
		default:
			out.WriteString("\n")
			out.WriteString(strings.Repeat("\n", blankLines(r.src, prevEnd, k.StartByte(), 2)))
		}
		out.WriteString(indent)
		out.WriteString(r.render(k))
		prevEnd = k.EndByte()
	}
	if prevEnd < 0 {
		if module {
			return ""
		}
		return "\n" + indent + "..."
	}
	if module {
		out.WriteString("\n")
	}
	return out.String()
}

// blankLines counts the whitespace-only lines strictly between the line
// holding offset a and the line holding offset b, up to max.
func blankLines(src []byte, a, b, max int) int {
	n := 0
	lines := strings.Split(string(src[a:b]), "\n")
	if len(lines) < 3 {
		return 0
	}
	for _, l := range lines[1 : len(lines)-1] {
		if strings.TrimSpace(l) == "" {
			n++
		}
	}
	if n > max {
		n = max
	}
	return n
}

var pyMagicComment = regexp.MustCompile(`^#!|coding[:=]`)

func pySkeleton(ctx context.Context, src []byte, root treesitter.Node) (string, error) {
	r := &pyRenderer{canceler: canceler{ctx: ctx}, src: src, lines: newLineIndex(src)}
	out := r.block(root, 0, true)
	if r.err != nil {
		return "", r.err
	}
	return out, nil
}

// pySymbols lists classes and functions, nested ones included (a function
// nested in a function is a "Func" under its parent).
func pySymbols(ctx context.Context, src []byte, root treesitter.Node) ([]sym, error) {
	r := &pyRenderer{canceler: canceler{ctx: ctx}, src: src, lines: newLineIndex(src)}
	lim := newSymLimits(len(src))
	var out []sym
	var walk func(n treesitter.Node, prefix string, depth int, inClass bool)
	walk = func(n treesitter.Node, prefix string, depth int, inClass bool) {
		for _, c := range n.Children() {
			if !r.check() || lim.full {
				return
			}
			switch {
			case pyIsDef(c):
				d := pyDefinition(c)
				name := d.ChildByField("name").Text(src)
				if !lim.admit(depth, len(prefix)+1+2*len(name)) {
					continue // nor its body
				}
				path := name
				if prefix != "" {
					path = prefix + "." + name
				}
				s := sym{Symbol: Symbol{Name: name, Path: path, StartLine: c.StartLine(), EndLine: c.EndLine(), Depth: depth}, node: c}
				body := d.ChildByField("body")
				if doc, ok := pyDocstring(body); ok {
					s.doc = pyDocFirstLine(doc.Text(src))
				}
				isClass := d.Type() == "class_definition"
				async := false
				for _, k := range d.Children() {
					if k.Type() == "async" {
						async = true
					}
				}
				switch {
				case isClass:
					s.Kind = "Class"
				case inClass && async:
					s.Kind = "Async Method"
				case inClass:
					s.Kind = "Method"
				case async:
					s.Kind = "Async Func"
				default:
					s.Kind = "Func"
				}
				node := c
				s.sig = func() string { return r.signature(node) }
				out = append(out, s)
				if !body.IsNull() {
					walk(body, path, depth+1, isClass)
				}
			case c.Type() == "block" || pyCompound[c.Type()] || pyClauses[c.Type()] || c.IsError():
				// a parse error may wrap definitions (up to the whole
				// module): look inside it, as the skeleton and the brace
				// languages do
				walk(c, prefix, depth, inClass)
			}
		}
	}
	walk(root, "", 0, false)
	if r.err != nil {
		return nil, r.err
	}
	return out, lim.err(len(src))
}

// signature renders a definition with its body elided: decorators, the
// header, the docstring when there is one, and "...".
func (r *pyRenderer) signature(n treesitter.Node) string {
	d := pyDefinition(n)
	pre := string(r.src[n.StartByte():d.StartByte()])
	if d.Type() == "function_definition" {
		return pre + r.function(d)
	}
	body := d.ChildByField("body")
	if body.IsNull() {
		return n.Text(r.src)
	}
	// A class signature is rendered like a function: header, docstring, "...".
	ce := pyColonEnd(body)
	head := string(r.src[d.StartByte():ce])
	first := pyFirstStatement(body)
	doc, hasDoc := pyDocstring(body)
	if first.IsNull() || r.lines.line(first.StartByte()) == r.lines.line(ce) {
		return pre + head + " ..."
	}
	indent := linePrefix(r.src, first.StartByte())
	if hasDoc {
		return pre + head + "\n" + indent + doc.Text(r.src) + "\n" + indent + "..."
	}
	return pre + head + "\n" + indent + "..."
}

var pyStringPrefix = regexp.MustCompile(`^[rRuUbBfF]{0,2}("""|'''|"|')`)

// pyDocFirstLine returns the first non-blank line of a docstring literal,
// without its quotes.
func pyDocFirstLine(lit string) string {
	m := pyStringPrefix.FindStringSubmatch(lit)
	if m != nil {
		lit = lit[len(m[0]):]
		lit = strings.TrimSuffix(lit, m[1])
	}
	for _, line := range strings.Split(lit, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}
