// Package treesitter keeps the tree-sitter binding (github.com/smacker/go-tree-sitter)
// behind a small interface of ours, so that a later switch of binding stays local.
//
// A [Parser] is not safe for concurrent use: create one per call or per goroutine
// and never share it. Trees must be closed with [Tree.Close] once their nodes are
// no longer needed; nodes must not be used after their tree is closed.
// The package holds no mutable package-level state.
package treesitter

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime/debug"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Grammar names a tree-sitter grammar known to this package.
type Grammar string

// The grammars compiled into ctx.
const (
	Python     Grammar = "python"
	C          Grammar = "c"
	CPP        Grammar = "cpp"
	Go         Grammar = "go"
	JavaScript Grammar = "javascript"
	TypeScript Grammar = "typescript"
	TSX        Grammar = "tsx"
	Rust       Grammar = "rust"
	Java       Grammar = "java"
)

// ErrUnknownGrammar is returned by [NewParser] for a grammar this package does not know.
var ErrUnknownGrammar = errors.New("unknown tree-sitter grammar")

// language returns the binding's language for g. Each call builds a fresh
// *sitter.Language value (a thin wrapper around a static C pointer), so
// nothing mutable is shared between parsers.
func language(g Grammar) *sitter.Language {
	switch g {
	case Python:
		return python.GetLanguage()
	case C:
		return c.GetLanguage()
	case CPP:
		return cpp.GetLanguage()
	case Go:
		return golang.GetLanguage()
	case JavaScript:
		return javascript.GetLanguage()
	case TypeScript:
		return typescript.GetLanguage()
	case TSX:
		return tsx.GetLanguage()
	case Rust:
		return rust.GetLanguage()
	case Java:
		return java.GetLanguage()
	}
	return nil
}

// Parser parses source text with one grammar. It is not safe for concurrent
// use; close it with [Parser.Close] when done.
type Parser struct {
	p *sitter.Parser
}

// NewParser returns a parser for grammar g.
func NewParser(g Grammar) (*Parser, error) {
	lang := language(g)
	if lang == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownGrammar, g)
	}
	p := sitter.NewParser()
	p.SetLanguage(lang)
	return &Parser{p: p}, nil
}

// ParseCtx parses src. It stops early and returns ctx.Err() when ctx is done.
// The caller must close the returned tree.
func (p *Parser) ParseCtx(ctx context.Context, src []byte) (*Tree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := p.p.ParseCtx(ctx, nil, src)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("failed to parse: %w", err)
	}
	return &Tree{t: t}, nil
}

// Close frees the parser. It is safe to call more than once.
func (p *Parser) Close() {
	if p != nil && p.p != nil {
		p.p.Close()
		p.p = nil
	}
}

// Parse is a convenience that parses src with a fresh parser for g, which it
// closes before returning. The caller must close the returned tree.
func Parse(ctx context.Context, g Grammar, src []byte) (*Tree, error) {
	p, err := NewParser(g)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.ParseCtx(ctx, src)
}

// Tree is a parsed syntax tree. It is not safe for concurrent use.
type Tree struct {
	t *sitter.Tree
	// steps counts the work of the node methods (see [Tree.Steps])
	steps int64
}

// Root returns the root node of the tree.
func (t *Tree) Root() Node {
	t.steps++
	return Node{n: t.t.RootNode(), tree: t}
}

// Steps is the work the methods of the tree's nodes have done so far: one
// step for each node a method reaches, and for a method that tree-sitter
// answers by descending from the root (Parent, NextSibling, PrevSibling) one
// per level of the node's depth. It is a measure of growth that a busy
// machine does not change: a walk that is linear in the tree takes steps
// linear in its size.
func (t *Tree) Steps() int64 { return t.steps }

// Close frees the tree. It is safe to call more than once.
func (t *Tree) Close() {
	if t != nil && t.t != nil {
		t.t.Close()
		t.t = nil
	}
}

// Node is a node of a [Tree]. The zero Node is null (see [Node.IsNull]);
// methods on a null node return zero values.
type Node struct {
	n *sitter.Node
	// live is set for a node known to be present (one a cursor stands
	// on), which saves asking the binding, a call into C, on every use
	live bool
	// tree counts the steps; depth is the node's depth below the root
	tree  *Tree
	depth int
}

// step adds k steps to the node's tree.
func (n Node) step(k int) {
	if n.tree != nil {
		n.tree.steps += int64(k)
	}
}

// child is c, a child of n, with n's tree and the depth below it.
func (n Node) child(c *sitter.Node, live bool) Node {
	n.step(1)
	return Node{n: c, live: live, tree: n.tree, depth: n.depth + 1}
}

// sibling is c, a sibling of n that tree-sitter found from the root.
func (n Node) sibling(c *sitter.Node) Node {
	n.step(n.depth + 1)
	return Node{n: c, tree: n.tree, depth: n.depth}
}

// IsNull reports whether the node is absent.
func (n Node) IsNull() bool { return !n.live && (n.n == nil || n.n.IsNull()) }

// Type returns the grammar's node type, e.g. "function_definition".
func (n Node) Type() string {
	if n.IsNull() {
		return ""
	}
	return n.n.Type()
}

// IsNamed reports whether the node is a named node (not punctuation).
func (n Node) IsNamed() bool { return !n.IsNull() && n.n.IsNamed() }

// IsError reports whether the node is an ERROR node.
func (n Node) IsError() bool { return !n.IsNull() && n.n.IsError() }

// IsMissing reports whether the parser inserted the node to recover from an error.
func (n Node) IsMissing() bool { return !n.IsNull() && n.n.IsMissing() }

// HasError reports whether the node or a descendant is an ERROR or MISSING node.
func (n Node) HasError() bool { return !n.IsNull() && n.n.HasError() }

// StartByte returns the byte offset where the node starts.
func (n Node) StartByte() int {
	if n.IsNull() {
		return 0
	}
	return int(n.n.StartByte())
}

// EndByte returns the byte offset just past the node.
func (n Node) EndByte() int {
	if n.IsNull() {
		return 0
	}
	return int(n.n.EndByte())
}

// StartLine returns the 1-based line where the node starts.
func (n Node) StartLine() int {
	if n.IsNull() {
		return 0
	}
	return int(n.n.StartPoint().Row) + 1
}

// EndLine returns the 1-based line of the node's last byte. It is
// tree-sitter's end row plus one, except for a non-empty node that ends just
// after a newline (tree-sitter then reports column 0 of the next line; some
// grammars put the newline inside comments and preprocessor lines): that
// node ends on the line of the newline.
func (n Node) EndLine() int {
	if n.IsNull() {
		return 0
	}
	end := n.n.EndPoint()
	if end.Column == 0 && end.Row > 0 && n.n.EndByte() > n.n.StartByte() {
		return int(end.Row)
	}
	return int(end.Row) + 1
}

// StartColumn returns the 0-based byte column where the node starts.
func (n Node) StartColumn() int {
	if n.IsNull() {
		return 0
	}
	return int(n.n.StartPoint().Column)
}

// Text returns the node's source text.
func (n Node) Text(src []byte) string {
	if n.IsNull() {
		return ""
	}
	return string(src[n.StartByte():n.EndByte()])
}

// Parent returns the node's parent, or a null node at the root.
// tree-sitter finds it from the root, in steps of the node's depth.
func (n Node) Parent() Node {
	if n.IsNull() {
		return Node{}
	}
	n.step(n.depth + 1)
	return Node{n: n.n.Parent(), tree: n.tree, depth: max(n.depth-1, 0)}
}

// ChildByField returns the child stored in the grammar field name, or a null node.
func (n Node) ChildByField(name string) Node {
	if n.IsNull() {
		return Node{}
	}
	n.step(int(n.n.ChildCount()))
	return n.child(n.n.ChildByFieldName(name), false)
}

// ChildCount returns the number of children, named or not.
func (n Node) ChildCount() int {
	if n.IsNull() {
		return 0
	}
	return int(n.n.ChildCount())
}

// Children returns all children, named and anonymous, in order. It walks with
// a cursor, so it is linear in the number of children.
func (n Node) Children() []Node {
	if n.IsNull() || n.n.ChildCount() == 0 {
		return nil
	}
	out := make([]Node, 0, n.n.ChildCount())
	cur := sitter.NewTreeCursor(n.n)
	defer cur.Close()
	if !cur.GoToFirstChild() {
		return nil
	}
	for {
		out = append(out, n.child(cur.CurrentNode(), true))
		if !cur.GoToNextSibling() {
			break
		}
	}
	return out
}

// NamedChildren returns the named children in order.
func (n Node) NamedChildren() []Node {
	all := n.Children()
	out := all[:0:0]
	for _, c := range all {
		if c.IsNamed() {
			out = append(out, c)
		}
	}
	return out
}

// FieldChildren returns the children stored in grammar field name, in order
// (a field may hold several children, e.g. a decorated definition's decorators).
func (n Node) FieldChildren(name string) []Node {
	if n.IsNull() || n.n.ChildCount() == 0 {
		return nil
	}
	var out []Node
	cur := sitter.NewTreeCursor(n.n)
	defer cur.Close()
	if !cur.GoToFirstChild() {
		return nil
	}
	for {
		n.step(1)
		if cur.CurrentFieldName() == name {
			out = append(out, Node{n: cur.CurrentNode(), live: true, tree: n.tree, depth: n.depth + 1})
		}
		if !cur.GoToNextSibling() {
			break
		}
	}
	return out
}

// NextSibling returns the next sibling (named or not), or a null node.
// tree-sitter finds it from the root, in steps of the node's depth.
func (n Node) NextSibling() Node {
	if n.IsNull() {
		return Node{}
	}
	return n.sibling(n.n.NextSibling())
}

// PrevSibling returns the previous sibling (named or not), or a null node.
// tree-sitter finds it from the root, in steps of the node's depth.
func (n Node) PrevSibling() Node {
	if n.IsNull() {
		return Node{}
	}
	return n.sibling(n.n.PrevSibling())
}

// Equal reports whether n and o are the same node of the same tree.
func (n Node) Equal(o Node) bool {
	if n.IsNull() || o.IsNull() {
		return n.IsNull() == o.IsNull()
	}
	return n.n.Equal(o.n)
}

// String returns the node's S-expression, handy for goldens and debugging.
func (n Node) String() string {
	if n.IsNull() {
		return "<null>"
	}
	return n.n.String()
}

// Walk calls fn for n and, when fn returns true, for its descendants, depth first
// in source order. It stops early and returns ctx.Err() when ctx is done.
func Walk(ctx context.Context, n Node, fn func(Node) bool) error {
	if n.IsNull() {
		return nil
	}
	cur := sitter.NewTreeCursor(n.n)
	defer cur.Close()
	steps, depth := 0, n.depth
	for {
		steps++
		if steps&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n.step(1)
		descend := fn(Node{n: cur.CurrentNode(), live: true, tree: n.tree, depth: depth})
		if descend && cur.GoToFirstChild() {
			depth++
			continue
		}
		for !cur.GoToNextSibling() {
			if !cur.GoToParent() {
				return nil
			}
			depth--
			if cur.CurrentNode().Equal(n.n) {
				return nil
			}
		}
	}
}

// bindingModule is the module of the binding and of its grammars.
const bindingModule = "github.com/smacker/go-tree-sitter"

// identities memoizes Identity: a grammar compiled in never changes.
var identities sync.Map // Grammar -> string

// Identity names grammar g as this binary has it: the binding's module
// version and checksum (the grammars are compiled from its source), and
// the number and a digest of the grammar's node types, so that anything
// kept by grammar (a cache of views) is never used with another one. It is
// "" for an unknown grammar.
func Identity(g Grammar) string {
	if id, ok := identities.Load(g); ok {
		return id.(string)
	}
	lang := language(g)
	if lang == nil {
		return ""
	}
	h := fnv.New64a()
	n := lang.SymbolCount()
	for s := range n {
		h.Write([]byte(lang.SymbolName(sitter.Symbol(s))))
		h.Write([]byte{0})
	}
	id := fmt.Sprintf("%s %s; %d node types %016x", g, moduleVersion(), n, h.Sum64())
	identities.Store(g, id)
	return id
}

// moduleVersion is the version and checksum of the binding's module in the
// build, "unknown" when the build does not say.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range bi.Deps {
		if d.Path != bindingModule {
			continue
		}
		if d.Replace != nil {
			d = d.Replace
		}
		return d.Path + "@" + d.Version + " " + d.Sum
	}
	return "unknown"
}
