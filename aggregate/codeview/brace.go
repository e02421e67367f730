package codeview

import (
	"context"
	"sort"
	"strings"

	"github.com/ctxaudit/ctx/internal/treesitter"
)

// Brace languages: C, C++, Go, JavaScript, TypeScript, Rust, Java.
//
// The skeleton is the source with edits: each function body is replaced by
// "{ ... }" (the walk never enters a replaced body), and at the levels that
// hold declarations (file, namespace, class, impl, trait, preprocessor
// conditional) statements and comments that document nothing are deleted.

// elided replaces a function body in skeletons and signatures.
const elided = "{ ... }"

func isComment(n treesitter.Node) bool {
	switch n.Type() {
	case "comment", "line_comment", "block_comment":
		return true
	}
	return false
}

// funcBody returns the body of a function-like node (function, method,
// constructor, lambda with a block body, static initializer), or a null node.
func funcBody(lang Language, n treesitter.Node) treesitter.Node {
	var body treesitter.Node
	switch lang {
	case C, CPP:
		switch n.Type() {
		case "function_definition", "lambda_expression":
			body = n.ChildByField("body")
		}
	case Go:
		switch n.Type() {
		case "function_declaration", "method_declaration", "func_literal":
			body = n.ChildByField("body")
		}
	case JavaScript, TypeScript, TSX:
		switch n.Type() {
		case "function_declaration", "generator_function_declaration", "function_expression",
			"function", "generator_function", "method_definition", "arrow_function", "class_static_block":
			body = n.ChildByField("body")
		}
		if body.Type() != "statement_block" {
			return treesitter.Node{}
		}
	case Rust:
		switch n.Type() {
		case "function_item", "closure_expression":
			body = n.ChildByField("body")
		}
		if body.Type() != "block" {
			return treesitter.Node{}
		}
	case Java:
		switch n.Type() {
		case "method_declaration", "constructor_declaration", "compact_constructor_declaration", "lambda_expression":
			body = n.ChildByField("body")
			if body.Type() != "block" && body.Type() != "constructor_body" {
				return treesitter.Node{}
			}
		case "static_initializer":
			for _, c := range n.NamedChildren() {
				if c.Type() == "block" {
					body = c
				}
			}
		}
	}
	return body
}

// isContainerBody reports whether n, a child of a node of type parent,
// holds declarations whose statements and loose comments the skeleton
// filters. The parent's type is passed down by the walk: tree-sitter finds
// a node's parent from the root, which on deep nesting made the walk
// quadratic.
func isContainerBody(n treesitter.Node, parent string) bool {
	switch n.Type() {
	case "translation_unit", "program", "source_file", "declaration_list", "field_declaration_list",
		"class_body", "interface_body", "enum_body_declarations", "annotation_type_body",
		"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef":
		return true
	case "statement_block":
		switch parent {
		case "internal_module", "module":
			return true
		}
	}
	return false
}

// droppable reports whether a child of a container body is a statement the
// skeleton deletes (top-level code rather than a declaration).
func droppable(n treesitter.Node) bool {
	t := n.Type()
	switch t {
	case "import_statement", "export_statement":
		return false
	case "empty_statement":
		return true
	case "expression_statement":
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "internal_module", "module", "assignment_expression":
				return false
			}
		}
		return true
	}
	return strings.HasSuffix(t, "_statement")
}

type edit struct {
	start, end int
	text       string
}

type braceRenderer struct {
	canceler
	lang  Language
	src   []byte
	edits []edit
	deep  bool // a subtree deeper than maxWalkDepth was kept as it is
}

// visit walks n, a child of a node of type parent, depth levels down: a
// subtree deeper than maxWalkDepth is kept as it is (nothing in it is
// elided), so that hostile nesting costs no more than the text's length.
func (r *braceRenderer) visit(n treesitter.Node, parent string, depth int) {
	if !r.check() {
		return
	}
	if depth > maxWalkDepth {
		r.deep = true
		return
	}
	if body := funcBody(r.lang, n); !body.IsNull() {
		r.edits = append(r.edits, edit{body.StartByte(), body.EndByte(), elided})
		return
	}
	if isContainerBody(n, parent) {
		r.filter(n, depth)
		return
	}
	t := n.Type()
	for _, c := range n.Children() {
		r.visit(c, t, depth+1)
	}
}

// filter visits the kept children of a container body and deletes the
// others: statements, and comments that neither sit right above a kept
// declaration (comment chains included) nor trail one on its last line.
func (r *braceRenderer) filter(n treesitter.Node, depth int) {
	kids := n.NamedChildren()
	keep := make([]bool, len(kids))
	for i, k := range kids {
		keep[i] = !isComment(k) && !droppable(k)
	}
	for i := len(kids) - 1; i >= 0; i-- {
		k := kids[i]
		if !isComment(k) {
			continue
		}
		if r.lang == Rust && (strings.HasPrefix(k.Text(r.src), "//!") || strings.HasPrefix(k.Text(r.src), "/*!")) {
			keep[i] = true // inner doc comments document the enclosing module
			continue
		}
		if i+1 < len(kids) && keep[i+1] && kids[i+1].StartLine() <= k.EndLine()+1 {
			keep[i] = true
		}
		if i > 0 && !isComment(kids[i-1]) && keep[i-1] && kids[i-1].EndLine() == k.StartLine() {
			keep[i] = true
		}
	}
	t := n.Type()
	for i := 0; i < len(kids); i++ {
		if keep[i] {
			if !isComment(kids[i]) {
				r.visit(kids[i], t, depth+1)
			}
			continue
		}
		// Merge a run of dropped children separated by whitespace only.
		start, end := kids[i].StartByte(), kids[i].EndByte()
		for i+1 < len(kids) && !keep[i+1] && strings.TrimSpace(string(r.src[end:kids[i+1].StartByte()])) == "" {
			i++
			end = kids[i].EndByte()
		}
		r.delete(start, end)
	}
}

// delete removes src[a:b), together with its whole lines when nothing else
// is on them, and then the blank lines that follow when a blank line (or the
// start of the file, or an opening brace) precedes it.
func (r *braceRenderer) delete(a, b int) {
	src := r.src
	ls := lineStart(src, a)
	if strings.TrimSpace(string(src[ls:a])) != "" {
		r.edits = append(r.edits, edit{a, b, ""})
		return
	}
	le := b
	if !(b > a && src[b-1] == '\n') {
		j := b
		for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
			j++
		}
		if j < len(src) && src[j] != '\n' {
			r.edits = append(r.edits, edit{a, b, ""})
			return
		}
		le = j
		if j < len(src) {
			le = j + 1
		}
	}
	if ls == 0 || prevLineBlankOrOpen(src, ls) {
		for le < len(src) {
			j := le
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
				j++
			}
			if j < len(src) && src[j] == '\n' {
				le = j + 1
				continue
			}
			if j == len(src) {
				le = j
			}
			break
		}
	}
	r.edits = append(r.edits, edit{ls, le, ""})
}

// prevLineBlankOrOpen reports whether the line before the one starting at ls
// is blank or ends with an opening brace.
func prevLineBlankOrOpen(src []byte, ls int) bool {
	if ls == 0 {
		return true
	}
	prev := strings.TrimSpace(string(src[lineStart(src, ls-1) : ls-1]))
	return prev == "" || strings.HasSuffix(prev, "{")
}

// apply returns src with the edits applied (overlapping edits, which the
// walk never produces, are skipped).
func applyEdits(src []byte, edits []edit) string {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		if e.start < pos {
			continue
		}
		b.Write(src[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.Write(src[pos:])
	return b.String()
}

// braceSkeleton returns the skeleton of a brace language, and whether a
// subtree deeper than maxWalkDepth was kept as it is.
func braceSkeleton(ctx context.Context, lang Language, src []byte, root treesitter.Node) (string, bool, error) {
	r := &braceRenderer{canceler: canceler{ctx: ctx}, lang: lang, src: src}
	r.visit(root, "", 0)
	if r.err != nil {
		return "", false, r.err
	}
	out := applyEdits(src, r.edits)
	out = strings.TrimLeft(out, "\n")
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out, r.deep, nil
}

// Symbols of brace languages.

type braceSymbolizer struct {
	canceler
	lim  symLimits
	lang Language
	src  []byte
	sep  string
	out  []sym
}

// scope is where a walk stands: the qualified prefix, the depth of symbols
// found there, and whether they are members of a type.
type scope struct {
	prefix  string
	depth   int
	inClass bool
}

func (sc scope) path(sep, name string) string {
	if sc.prefix == "" {
		return name
	}
	return sc.prefix + sep + name
}

// add records a symbol whose range is rangeNode's and whose signature elides
// body (when not null). It returns the scope for the symbol's members, and
// false when the limits left the symbol out (its members are then not
// walked).
func (s *braceSymbolizer) add(sc scope, kind, name string, rangeNode, body treesitter.Node) (scope, bool) {
	if !s.lim.admit(sc.depth, len(sc.prefix)+len(s.sep)+2*len(name)) {
		return scope{}, false
	}
	path := sc.path(s.sep, name)
	src := s.src
	sy := sym{
		Symbol: Symbol{Name: name, Path: path, Kind: kind,
			StartLine: rangeNode.StartLine(), EndLine: rangeNode.EndLine(), Depth: sc.depth},
		node: rangeNode,
	}
	end := rangeNode.EndByte()
	if s.lang == C || s.lang == CPP {
		// a struct, union, enum or class declared on its own: the ";" that
		// ends the declaration is its parent's child, the node's sibling
		if next := rangeNode.NextSibling(); !next.IsNull() && !next.IsNamed() && next.Type() == ";" {
			end = next.EndByte()
			sy.end = end
		}
	}
	if !body.IsNull() && body.StartByte() >= rangeNode.StartByte() && body.EndByte() <= rangeNode.EndByte() {
		rn, b := rangeNode, body
		sy.sig = func() string {
			return string(src[rn.StartByte():b.StartByte()]) + elided + string(src[b.EndByte():end])
		}
	}
	s.out = append(s.out, sy)
	return scope{prefix: path, depth: sc.depth + 1}, true
}

func braceSymbols(ctx context.Context, lang Language, src []byte, root treesitter.Node) ([]sym, error) {
	s := &braceSymbolizer{canceler: canceler{ctx: ctx}, lim: newSymLimits(len(src)), lang: lang, src: src, sep: "."}
	if lang == CPP || lang == Rust {
		s.sep = "::"
	}
	s.children(root, scope{})
	if s.err != nil {
		return nil, s.err
	}
	return s.out, s.lim.err(len(src))
}

// children walks the named children of n.
func (s *braceSymbolizer) children(n treesitter.Node, sc scope) {
	for _, c := range n.NamedChildren() {
		if !s.check() || s.lim.full {
			return
		}
		s.node(c, sc, c)
	}
}

// node looks at one node: it records the symbols it declares (with the range
// of rangeNode) and walks into the scopes it opens.
func (s *braceSymbolizer) node(n treesitter.Node, sc scope, rangeNode treesitter.Node) {
	if n.IsError() {
		// Parse errors: look for declarations inside.
		s.children(n, sc)
		return
	}
	switch s.lang {
	case C, CPP:
		s.cNode(n, sc, rangeNode)
	case Go:
		s.goNode(n, sc)
	case JavaScript, TypeScript, TSX:
		s.jsNode(n, sc, rangeNode)
	case Rust:
		s.rustNode(n, sc)
	case Java:
		s.javaNode(n, sc)
	}
}

// C and C++.

// declName unwraps a C/C++ declarator to its name. isFunc reports a function
// declarator (not a function pointer).
func declName(d treesitter.Node, src []byte) (name string, isFunc bool) {
	for i := 0; i < 32 && !d.IsNull(); i++ {
		switch d.Type() {
		case "function_declarator":
			inner := d.ChildByField("declarator")
			if inner.Type() == "parenthesized_declarator" {
				n, _ := declName(inner, src)
				return n, false
			}
			n, _ := declName(inner, src)
			return n, true
		case "pointer_declarator", "reference_declarator", "parenthesized_declarator", "init_declarator",
			"attributed_declarator", "array_declarator", "abstract_pointer_declarator":
			next := d.ChildByField("declarator")
			if next.IsNull() {
				kids := d.NamedChildren()
				if len(kids) == 0 {
					return "", false
				}
				next = kids[len(kids)-1]
			}
			d = next
		default:
			return d.Text(src), false
		}
	}
	return "", false
}

func (s *braceSymbolizer) cNode(n treesitter.Node, sc scope, rn treesitter.Node) {
	src := s.src
	switch n.Type() {
	case "function_definition":
		name, _ := declName(n.ChildByField("declarator"), src)
		if name == "" {
			return
		}
		kind := "Func"
		if sc.inClass {
			kind = "Method"
		}
		s.add(sc, kind, name, rn, n.ChildByField("body"))
	case "declaration", "field_declaration":
		if t := n.ChildByField("type"); !t.IsNull() {
			s.cNode(t, sc, t)
		}
		for _, d := range n.FieldChildren("declarator") {
			name, isFunc := declName(d, src)
			switch {
			case name == "":
			case isFunc && sc.inClass:
				s.add(sc, "Method", name, rn, treesitter.Node{})
			case isFunc:
				s.add(sc, "Func", name, rn, treesitter.Node{})
			case n.Type() == "declaration" && !sc.inClass:
				s.add(sc, "Var", name, rn, treesitter.Node{})
			}
		}
	case "struct_specifier", "union_specifier", "class_specifier", "enum_specifier":
		body := n.ChildByField("body")
		name := n.ChildByField("name")
		if body.IsNull() || name.IsNull() {
			return
		}
		kind := map[string]string{"struct_specifier": "Struct", "union_specifier": "Union",
			"class_specifier": "Class", "enum_specifier": "Enum"}[n.Type()]
		inner, ok := s.add(sc, kind, name.Text(src), rn, body)
		if ok && s.lang == CPP && kind != "Enum" {
			inner.inClass = true
			s.children(body, inner)
		}
	case "type_definition":
		for _, d := range n.FieldChildren("declarator") {
			if name, _ := declName(d, src); name != "" {
				s.add(sc, "Typedef", name, rn, treesitter.Node{})
			}
		}
	case "alias_declaration":
		if name := n.ChildByField("name"); !name.IsNull() {
			s.add(sc, "Type", name.Text(src), rn, treesitter.Node{})
		}
	case "namespace_definition":
		name := "(anonymous)"
		if nn := n.ChildByField("name"); !nn.IsNull() {
			name = nn.Text(src)
		}
		body := n.ChildByField("body")
		inner, ok := s.add(sc, "Namespace", name, rn, body)
		if ok && !body.IsNull() {
			s.children(body, inner)
		}
	case "template_declaration":
		// The templated declaration takes the range of the whole template.
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "template_parameter_list", "requires_clause", "comment":
				continue
			}
			s.cNode(c, sc, n)
		}
	case "preproc_def":
		if n.ChildByField("value").IsNull() {
			return // include guards and flags
		}
		s.add(sc, "Macro", n.ChildByField("name").Text(src), rn, treesitter.Node{})
	case "preproc_function_def":
		s.add(sc, "Macro", n.ChildByField("name").Text(src), rn, treesitter.Node{})
	case "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef",
		"linkage_specification", "declaration_list":
		for _, c := range n.NamedChildren() {
			if !s.check() {
				return
			}
			s.cNode(c, sc, c)
		}
	}
}

// Go.

func goReceiverType(m treesitter.Node, src []byte) string {
	recv := m.ChildByField("receiver")
	for _, p := range recv.NamedChildren() {
		if p.Type() != "parameter_declaration" {
			continue
		}
		t := p.ChildByField("type")
		for i := 0; i < 8; i++ {
			switch t.Type() {
			case "pointer_type", "parenthesized_type":
				kids := t.NamedChildren()
				if len(kids) == 0 {
					return t.Text(src)
				}
				t = kids[len(kids)-1]
			case "generic_type":
				t = t.ChildByField("type")
			case "type_identifier":
				return t.Text(src)
			default:
				return "" // not a valid receiver type
			}
		}
		return ""
	}
	return ""
}

func (s *braceSymbolizer) goNode(n treesitter.Node, sc scope) {
	src := s.src
	switch n.Type() {
	case "function_declaration":
		s.add(sc, "Func", n.ChildByField("name").Text(src), n, n.ChildByField("body"))
	case "method_declaration":
		name := n.ChildByField("name").Text(src)
		recv := goReceiverType(n, src)
		path := name
		if recv != "" {
			path = recv + "." + name
		}
		if _, ok := s.add(sc, "Method", path, n, n.ChildByField("body")); ok {
			s.out[len(s.out)-1].Name = name
		}
	case "type_declaration":
		specs := n.NamedChildren()
		var typeSpecs []treesitter.Node
		for _, sp := range specs {
			if sp.Type() == "type_spec" || sp.Type() == "type_alias" {
				typeSpecs = append(typeSpecs, sp)
			}
		}
		for _, sp := range typeSpecs {
			rn := sp
			if len(typeSpecs) == 1 && !strings.Contains(string(src[n.StartByte():sp.StartByte()]), "(") {
				rn = n
			}
			kind := "Type"
			var body treesitter.Node
			switch t := sp.ChildByField("type"); t.Type() {
			case "struct_type":
				kind = "Struct"
				for _, c := range t.NamedChildren() {
					if c.Type() == "field_declaration_list" {
						body = c
					}
				}
			case "interface_type":
				kind = "Interface"
			}
			s.add(sc, kind, sp.ChildByField("name").Text(src), rn, body)
		}
	case "const_declaration", "var_declaration":
		kind := "Const"
		if n.Type() == "var_declaration" {
			kind = "Var"
		}
		var specs []treesitter.Node
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "const_spec", "var_spec":
				specs = append(specs, c)
			case "var_spec_list":
				for _, v := range c.NamedChildren() {
					if v.Type() == "var_spec" {
						specs = append(specs, v)
					}
				}
			}
		}
		for _, sp := range specs {
			rn := sp
			if len(specs) == 1 && !strings.Contains(string(src[n.StartByte():sp.StartByte()]), "(") {
				rn = n
			}
			for _, name := range sp.FieldChildren("name") {
				if name.Type() != "identifier" || name.Text(src) == "_" {
					continue
				}
				s.add(sc, kind, name.Text(src), rn, treesitter.Node{})
			}
		}
	}
}

// JavaScript and TypeScript.

func hasChildType(n treesitter.Node, t string) bool {
	for _, c := range n.Children() {
		if c.Type() == t {
			return true
		}
	}
	return false
}

func (s *braceSymbolizer) jsNode(n treesitter.Node, sc scope, rn treesitter.Node) {
	src := s.src
	name := n.ChildByField("name").Text(src)
	switch n.Type() {
	case "export_statement", "ambient_declaration":
		// The declaration takes the range of the statement (decorators and
		// the export keyword included).
		for _, c := range n.NamedChildren() {
			if c.Type() != "decorator" && !isComment(c) {
				s.jsNode(c, sc, n)
			}
		}
	case "expression_statement":
		for _, c := range n.NamedChildren() {
			if c.Type() == "internal_module" || c.Type() == "module" {
				s.jsNode(c, sc, n)
			}
		}
	case "class_declaration", "abstract_class_declaration", "class":
		if name == "" {
			return
		}
		body := n.ChildByField("body")
		if inner, ok := s.add(sc, "Class", name, rn, body); ok {
			inner.inClass = true
			s.children(body, inner)
		}
	case "function_declaration", "generator_function_declaration", "function_signature":
		kind := "Func"
		if hasChildType(n, "async") {
			kind = "Async Func"
		}
		s.add(sc, kind, name, rn, n.ChildByField("body"))
	case "method_definition", "abstract_method_signature":
		kind := "Method"
		if hasChildType(n, "async") {
			kind = "Async Method"
		}
		s.add(sc, kind, name, rn, n.ChildByField("body"))
	case "public_field_definition", "field_definition":
		v := n.ChildByField("value")
		if v.Type() == "arrow_function" || v.Type() == "function_expression" || v.Type() == "function" {
			prop := n.ChildByField("name")
			if prop.IsNull() {
				prop = n.ChildByField("property")
			}
			kind := "Method"
			if hasChildType(v, "async") {
				kind = "Async Method"
			}
			s.add(sc, kind, prop.Text(src), rn, funcBody(s.lang, v))
		}
	case "lexical_declaration", "variable_declaration":
		for _, d := range n.NamedChildren() {
			if d.Type() != "variable_declarator" {
				continue
			}
			v := d.ChildByField("value")
			dn := d.ChildByField("name")
			if dn.Type() != "identifier" {
				continue
			}
			switch v.Type() {
			case "arrow_function", "function_expression", "function", "generator_function":
				kind := "Func"
				if hasChildType(v, "async") {
					kind = "Async Func"
				}
				s.add(sc, kind, dn.Text(src), rn, funcBody(s.lang, v))
			case "class":
				body := v.ChildByField("body")
				if inner, ok := s.add(sc, "Class", dn.Text(src), rn, body); ok {
					inner.inClass = true
					s.children(body, inner)
				}
			}
		}
	case "interface_declaration":
		s.add(sc, "Interface", name, rn, n.ChildByField("body"))
	case "type_alias_declaration":
		s.add(sc, "Type", name, rn, treesitter.Node{})
	case "enum_declaration":
		s.add(sc, "Enum", name, rn, n.ChildByField("body"))
	case "internal_module", "module":
		kind := "Namespace"
		if n.Type() == "module" {
			kind = "Module"
		}
		body := n.ChildByField("body")
		inner, ok := s.add(sc, kind, name, rn, body)
		if ok && !body.IsNull() {
			s.children(body, inner)
		}
	}
}

// Rust.

func (s *braceSymbolizer) rustNode(n treesitter.Node, sc scope) {
	src := s.src
	name := n.ChildByField("name").Text(src)
	switch n.Type() {
	case "function_item", "function_signature_item":
		kind := "Func"
		if sc.inClass {
			kind = "Method"
		}
		s.add(sc, kind, name, n, n.ChildByField("body"))
	case "struct_item":
		s.add(sc, "Struct", name, n, n.ChildByField("body"))
	case "enum_item":
		s.add(sc, "Enum", name, n, n.ChildByField("body"))
	case "union_item":
		s.add(sc, "Union", name, n, n.ChildByField("body"))
	case "type_item":
		s.add(sc, "Type", name, n, treesitter.Node{})
	case "const_item":
		s.add(sc, "Const", name, n, treesitter.Node{})
	case "static_item":
		s.add(sc, "Var", name, n, treesitter.Node{})
	case "macro_definition":
		s.add(sc, "Macro", name, n, treesitter.Node{})
	case "trait_item":
		body := n.ChildByField("body")
		if inner, ok := s.add(sc, "Trait", name, n, body); ok {
			inner.inClass = true
			s.children(body, inner)
		}
	case "mod_item":
		body := n.ChildByField("body")
		inner, ok := s.add(sc, "Module", name, n, body)
		if ok && !body.IsNull() {
			s.children(body, inner)
		}
	case "impl_item":
		typ := n.ChildByField("type").Text(src)
		label := typ
		if tr := n.ChildByField("trait"); !tr.IsNull() {
			label = tr.Text(src) + " for " + typ
		}
		body := n.ChildByField("body")
		if _, ok := s.add(sc, "Impl", label, n, body); !ok {
			return
		}
		// Methods are qualified by the implementing type, without generics.
		if i := strings.IndexByte(typ, '<'); i >= 0 {
			typ = typ[:i]
		}
		inner := scope{prefix: sc.path(s.sep, typ), depth: sc.depth + 1, inClass: true}
		if !body.IsNull() {
			s.children(body, inner)
		}
	case "foreign_mod_item", "declaration_list":
		for _, c := range n.NamedChildren() {
			s.rustNode(c, sc)
		}
	}
}

// Java.

func (s *braceSymbolizer) javaNode(n treesitter.Node, sc scope) {
	src := s.src
	name := n.ChildByField("name").Text(src)
	kinds := map[string]string{
		"class_declaration": "Class", "interface_declaration": "Interface", "enum_declaration": "Enum",
		"record_declaration": "Record", "annotation_type_declaration": "Interface",
	}
	switch t := n.Type(); t {
	case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
		body := n.ChildByField("body")
		inner, ok := s.add(sc, kinds[t], name, n, body)
		if !ok {
			return
		}
		inner.inClass = true
		for _, c := range body.NamedChildren() {
			if c.Type() == "enum_body_declarations" {
				s.children(c, inner)
			} else {
				s.javaNode(c, inner)
			}
		}
	case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
		s.add(sc, "Method", name, n, n.ChildByField("body"))
	}
}
