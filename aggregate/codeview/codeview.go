package codeview

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxaudit/ctx/aggregate/engine"
	"github.com/ctxaudit/ctx/internal/treesitter"
)

// Language names a programming language that codeview can parse.
type Language string

// The languages with skeleton, outline and mask views.
const (
	Python     Language = "python"
	C          Language = "c"
	CPP        Language = "cpp"
	Go         Language = "go"
	JavaScript Language = "javascript"
	TypeScript Language = "typescript"
	TSX        Language = "tsx"
	Rust       Language = "rust"
	Java       Language = "java"
)

// ErrUnsupported is returned by the views for a language without a parser.
// Callers fall back to [Summary].
var ErrUnsupported = errors.New("codeview: language not supported")

// extensions maps a lower-case file extension to its language.
var extensions = map[string]Language{
	".py": Python, ".pyi": Python,
	".c": C, ".h": C,
	".cc": CPP, ".cpp": CPP, ".cxx": CPP, ".hpp": CPP, ".hh": CPP, ".hxx": CPP,
	".go": Go,
	".js": JavaScript, ".mjs": JavaScript, ".cjs": JavaScript, ".jsx": JavaScript,
	".ts": TypeScript, ".mts": TypeScript, ".cts": TypeScript,
	".tsx":  TSX,
	".rs":   Rust,
	".java": Java,
}

// Detect returns the language of path, chosen by its extension
// (case-insensitive): .py .pyi .c .h .cc .cpp .cxx .hpp .hh .hxx .go
// .js .mjs .cjs .jsx .ts .mts .cts .tsx .rs .java. A .h header is read as C.
func Detect(path string) (Language, bool) {
	l, ok := extensions[strings.ToLower(filepath.Ext(path))]
	return l, ok
}

// grammar returns the tree-sitter grammar for lang.
func grammar(lang Language) (treesitter.Grammar, bool) {
	switch lang {
	case Python:
		return treesitter.Python, true
	case C:
		return treesitter.C, true
	case CPP:
		return treesitter.CPP, true
	case Go:
		return treesitter.Go, true
	case JavaScript:
		return treesitter.JavaScript, true
	case TypeScript:
		return treesitter.TypeScript, true
	case TSX:
		return treesitter.TSX, true
	case Rust:
		return treesitter.Rust, true
	case Java:
		return treesitter.Java, true
	}
	return "", false
}

// Symbol is a named declaration found in a source file.
type Symbol struct {
	// Name is the symbol's own name, e.g. "send". For a C++ definition
	// written with a qualified name outside its class it is that name as
	// written, e.g. "Client::send".
	Name string
	// Path is the qualified name used by [Mask]: "Client.send" for Python,
	// JavaScript, TypeScript, Java and Go methods, "Outer::Inner::name" for
	// C++ and Rust.
	Path string
	// Kind is the label used in outlines, e.g. "Class", "Func", "Method".
	Kind string
	// StartLine and EndLine are the 1-based, inclusive lines of the
	// symbol's tree-sitter node (decorators and annotations included).
	StartLine int
	EndLine   int
	// Depth is the nesting level: 0 for a top-level symbol.
	Depth int
}

// sym is a symbol with what the views need from its node.
type sym struct {
	Symbol
	node treesitter.Node // the node whose range is the symbol's range
	doc  string          // first line of the docstring (Python only)
	// render returns the signature form: the declaration with its body
	// elided. Nil means the signature is the definition itself.
	sig func() string
	// end, when not 0, is where the symbol's text ends instead of the
	// node's end: after the ";" of a C or C++ declaration whose node does
	// not hold it (struct point { ... };)
	end int
}

// text is the symbol's definition in src.
func (s sym) text(src []byte) string {
	if s.end > s.node.EndByte() {
		return string(src[s.node.StartByte():s.end])
	}
	return s.node.Text(src)
}

// parsed holds a tree and its source, for one view or for several views
// of a [File]; the symbols are listed once.
type parsed struct {
	lang Language
	src  []byte
	tree *treesitter.Tree

	syms     []sym
	symErr   error // nil or a *TruncatedError
	symsDone bool
}

func parse(ctx context.Context, lang Language, src []byte) (*parsed, error) {
	g, ok := grammar(lang)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnsupported, lang)
	}
	t, err := treesitter.Parse(ctx, g, src)
	if err != nil {
		return nil, err
	}
	return &parsed{lang: lang, src: src, tree: t}, nil
}

func (p *parsed) close() { p.tree.Close() }

// symbols lists the symbols of a parsed file in source order. The error is
// a *TruncatedError, with the symbols listed, when a limit left some out.
// The list is kept for the next call, unless it failed (a context done
// mid-way).
func (p *parsed) symbols(ctx context.Context) ([]sym, error) {
	if p.symsDone {
		return p.syms, p.symErr
	}
	var ss []sym
	var err error
	if p.lang == Python {
		ss, err = pySymbols(ctx, p.src, p.tree.Root())
	} else {
		ss, err = braceSymbols(ctx, p.lang, p.src, p.tree.Root())
	}
	if err == nil || errors.Is(err, ErrTruncated) {
		p.syms, p.symErr, p.symsDone = ss, err, true
	}
	return ss, err
}

// File is a source file parsed once, for several of its views: each
// method returns what the function of the same name returns for the file
// (Skeleton, Outline, Symbols, Mask, Summary), without parsing it again,
// and the symbols are listed once for all of them. A File is not safe for
// concurrent use; Close frees its tree.
type File struct {
	p *parsed
}

// Parse parses src as lang for the views of a [File]: [ErrUnsupported]
// for a language without a parser, the context's error when ctx is done.
func Parse(ctx context.Context, lang Language, src []byte) (*File, error) {
	p, err := parse(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	return &File{p: p}, nil
}

// Close frees the file's tree. It is safe to call more than once.
func (f *File) Close() {
	if f != nil && f.p != nil {
		f.p.close()
	}
}

// Language returns the language the file was parsed as.
func (f *File) Language() Language { return f.p.lang }

// Symbols is [Symbols] of the file.
func (f *File) Symbols(ctx context.Context) ([]Symbol, error) {
	ss, err := f.p.symbols(ctx)
	if err != nil && !errors.Is(err, ErrTruncated) {
		return nil, err
	}
	out := make([]Symbol, len(ss))
	for i, s := range ss {
		out[i] = s.Symbol
	}
	return out, err
}

// Skeleton is [Skeleton] of the file.
func (f *File) Skeleton(ctx context.Context) (string, error) {
	p := f.p
	var out string
	var err error
	deep := false
	if p.lang == Python {
		out, err = pySkeleton(ctx, p.src, p.tree.Root())
	} else {
		out, deep, err = braceSkeleton(ctx, p.lang, p.src, p.tree.Root())
	}
	if err != nil {
		return "", err
	}
	out, err = capOutput(out, len(p.src))
	if deep {
		err = joinTruncated(&TruncatedError{Reason: fmt.Sprintf("code nested deeper than %d syntax levels is shown as it is", maxWalkDepth)}, err)
	}
	return withNote(out, err), err
}

// Summary is [Summary] of the file under the name path: the structural
// summary of its language from the parsed tree when path names that
// language, else what Summary gives (TOML, Markdown, text).
func (f *File) Summary(ctx context.Context, path string) string {
	return summary(ctx, path, f.p.src, func(lang Language) (string, error) {
		if lang != f.p.lang {
			return codeSummary(ctx, lang, f.p.src)
		}
		return f.p.codeSummary(ctx)
	})
}

// Symbols lists the symbols (classes, functions, methods, types, ...) of src
// in source order, parents before their children. Symbols nested deeper
// than [MaxDepth], and those past the symbol budget, are not listed: the
// list is then returned with a [*TruncatedError].
func Symbols(ctx context.Context, lang Language, src []byte) ([]Symbol, error) {
	f, err := Parse(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Symbols(ctx)
}

// Skeleton returns src with every function and method body elided, keeping
// imports, type and class declarations, signatures and docstrings or doc
// comments. See the package documentation for the exact rules per language.
// A skeleton longer than [MaxOutputBytes] is cut, ends with a line saying
// so, and comes with a [*TruncatedError].
func Skeleton(ctx context.Context, lang Language, src []byte) (string, error) {
	f, err := Parse(ctx, lang, src)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return f.Skeleton(ctx)
}

// Outline returns one line per symbol: two spaces of indent per depth, then
// "[Kind] name (Lines s-e)". For Python, the first line of a docstring
// follows its symbol, indented one level deeper. Symbols nested deeper than
// [MaxDepth] are not listed and the outline stops at [MaxOutputBytes]; a cut
// outline ends with a line saying why and comes with a [*TruncatedError].
func Outline(ctx context.Context, lang Language, src []byte) (string, error) {
	f, err := Parse(ctx, lang, src)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return f.Outline(ctx)
}

// Outline is [Outline] of the file.
func (f *File) Outline(ctx context.Context) (string, error) {
	p, src := f.p, f.p.src
	ss, trunc := p.symbols(ctx)
	if trunc != nil && !errors.Is(trunc, ErrTruncated) {
		return "", trunc
	}
	limit := MaxOutputBytes(len(src))
	var b strings.Builder
	for _, s := range ss {
		indent := strings.Repeat("  ", s.Depth)
		label := s.Name
		if s.Depth == 0 {
			label = s.Path
		}
		line := fmt.Sprintf("%s[%s] %s (Lines %d-%d)\n", indent, s.Kind, label, s.StartLine, s.EndLine)
		if s.doc != "" {
			line += indent + "  " + s.doc + "\n"
		}
		if b.Len()+len(line) > limit {
			trunc = joinTruncated(trunc, &TruncatedError{Reason: fmt.Sprintf("cut at %d bytes", limit)})
			break
		}
		b.WriteString(line)
	}
	return withNote(b.String(), trunc), trunc
}

// MaskMode says what [Mask] shows of a symbol (engine.MaskMode).
type MaskMode = engine.MaskMode

// Mask modes accepted by [Mask].
const (
	MaskDef  = engine.MaskDef  // the whole definition
	MaskSig  = engine.MaskSig  // the declaration with its body elided
	MaskHide = engine.MaskHide // nothing
)

// UnknownSymbolsError reports mask entries that name no symbol of the file
// or carry an invalid mode.
type UnknownSymbolsError struct {
	Names []string // sorted symbol paths not found in the file
	Modes []string // sorted "path=mode" entries with a mode other than def, sig, hide
}

func (e *UnknownSymbolsError) Error() string {
	var parts []string
	if len(e.Names) > 0 {
		q := make([]string, len(e.Names))
		for i, n := range e.Names {
			q[i] = fmt.Sprintf("%q", n)
		}
		parts = append(parts, "unknown symbols in mask: "+strings.Join(q, ", "))
	}
	if len(e.Modes) > 0 {
		parts = append(parts, "invalid mask modes (want def, sig or hide): "+strings.Join(e.Modes, ", "))
	}
	return "codeview: " + strings.Join(parts, "; ")
}

// Mask renders, for each entry of mask (symbol path -> "def" | "sig" |
// "hide"), the definition, the signature only, or nothing, in source order,
// joined by "\n\n". A path that matches several symbols (overloads, a
// property's getter and setter) renders each of them. A definition or
// signature is copied from the start of its first line, so it keeps its
// original indentation.
//
// Entries naming no symbol, or with another mode, are reported by an
// *[UnknownSymbolsError]; the entries that did resolve are still rendered
// and returned with it. Symbols deeper than [MaxDepth] cannot be masked; a
// mask longer than [MaxOutputBytes] stops before the piece that would cross
// it, ends with a line saying so, and comes with a [*TruncatedError] (when
// every entry resolved).
func Mask(ctx context.Context, lang Language, src []byte, mask map[string]MaskMode) (string, error) {
	f, err := Parse(ctx, lang, src)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return f.Mask(ctx, mask)
}

// Mask is [Mask] of the file.
func (f *File) Mask(ctx context.Context, mask map[string]MaskMode) (string, error) {
	p, src := f.p, f.p.src
	ss, trunc := p.symbols(ctx)
	if trunc != nil && !errors.Is(trunc, ErrTruncated) {
		return "", trunc
	}
	limit := MaxOutputBytes(len(src))
	size, cut := 0, false
	found := map[string]bool{}
	var parts []string
	for _, s := range ss {
		mode, ok := mask[s.Path]
		if !ok {
			continue
		}
		found[s.Path] = true
		if cut || (mode != MaskDef && mode != MaskSig) {
			continue
		}
		text := s.text(src)
		if mode == MaskSig && s.sig != nil {
			text = s.sig()
		}
		// Some grammars end preprocessor lines and comments with their newline.
		piece := linePrefix(src, s.node.StartByte()) + strings.TrimRight(text, " \t\r\n")
		if size+len(piece)+2 > limit {
			cut = true
			trunc = joinTruncated(trunc, &TruncatedError{Reason: fmt.Sprintf("cut at %d bytes", limit)})
			continue
		}
		size += len(piece) + 2
		parts = append(parts, piece)
	}
	uerr := &UnknownSymbolsError{}
	for path, mode := range mask {
		if !found[path] {
			uerr.Names = append(uerr.Names, path)
		}
		if mode != MaskDef && mode != MaskSig && mode != MaskHide {
			uerr.Modes = append(uerr.Modes, path+"="+string(mode))
		}
	}
	out := strings.Join(parts, "\n\n")
	if len(uerr.Names) > 0 || len(uerr.Modes) > 0 {
		sort.Strings(uerr.Names)
		sort.Strings(uerr.Modes)
		return out, uerr
	}
	if trunc != nil {
		return withNote(out, trunc), trunc
	}
	return out, nil
}

// linePrefix returns the whitespace between the start of the line holding
// offset and offset, or "" when that stretch holds anything else.
func linePrefix(src []byte, offset int) string {
	start := lineStart(src, offset)
	pre := src[start:offset]
	for _, c := range pre {
		if c != ' ' && c != '\t' && c != '\f' {
			return ""
		}
	}
	return string(pre)
}

// lineStart returns the offset of the first byte of the line holding offset.
func lineStart(src []byte, offset int) int {
	for offset > 0 && src[offset-1] != '\n' {
		offset--
	}
	return offset
}

// canceler stops a tree walk promptly when its context ends, checking the
// context every 256 steps.
type canceler struct {
	ctx   context.Context
	steps int
	err   error
}

// check counts a step and reports whether the walk may go on.
func (c *canceler) check() bool {
	if c.err != nil {
		return false
	}
	c.steps++
	if c.steps&255 == 0 {
		c.err = c.ctx.Err()
	}
	return c.err == nil
}

// Identity names the grammar behind the views of lang, as compiled into
// this binary (see treesitter.Identity), so that a cache of views can tell
// when they may change; "" for a language without a parser.
func Identity(lang Language) string {
	g, ok := grammar(lang)
	if !ok {
		return ""
	}
	return treesitter.Identity(g)
}
