// Package engine is what package aggregate asks of the code that renders
// structural views (skeleton, outline, masked, summary): the [Engine]
// interface, its types and errors, and [TextEngine], which needs no parser.
// It has no cgo and no parser in its dependencies, so that a runtime that
// builds manifests without file views (manifest, render, audit) does not
// link tree-sitter; package aggregate/codeview is the tree-sitter engine
// (codeview.Engine), which config gives aggregate.
package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/measure"
)

// MaskMode says what the masked view shows of a symbol: the whole
// definition (def), the signature (sig) or nothing (hide).
type MaskMode string

// The mask modes.
const (
	MaskDef  MaskMode = "def"  // the whole definition
	MaskSig  MaskMode = "sig"  // the declaration with its body elided
	MaskHide MaskMode = "hide" // nothing
)

// ErrUnsupported is returned by an [Engine] view for a language it cannot
// render. The pipeline then falls back to the summary view and records why.
var ErrUnsupported = errors.New("language not supported by this view")

// ErrTruncated is matched (errors.Is) by every [*TruncatedError].
var ErrTruncated = errors.New("view cut by a limit")

// TruncatedError is returned by an [Engine] together with a view or symbol
// list that one of its limits cut (codeview's are codeview.MaxDepth and
// codeview.MaxOutputBytes): the result is complete up
// to the limit. The pipeline shows the view and records Reason in
// Item.Truncated.
type TruncatedError struct {
	Reason string
}

func (e *TruncatedError) Error() string { return "view cut: " + e.Reason }

// Is makes errors.Is(err, ErrTruncated) true.
func (e *TruncatedError) Is(target error) bool { return target == ErrTruncated }

// Symbol is a named declaration found by an [Engine].
type Symbol struct {
	Name, Path, Kind   string
	StartLine, EndLine int
	Depth              int
}

// Engine renders the structural views of source files: codeview.Engine
// (tree-sitter) in ctx, [TextEngine] where no parser is wanted; tests may
// pass their own.
//
// Every method must be a pure function of its arguments and safe for
// concurrent use, so that views can be cached by content hash. Symbols,
// Skeleton, Outline and Mask may return their result together with a
// [*TruncatedError] when a limit cut it.
type Engine interface {
	// Detect returns the language of path, or false when the structural
	// views do not support it.
	Detect(path string) (lang string, ok bool)
	Symbols(ctx context.Context, lang string, src []byte) ([]Symbol, error)
	Skeleton(ctx context.Context, lang string, src []byte) (string, error)
	Outline(ctx context.Context, lang string, src []byte) (string, error)
	// Mask renders, per symbol path, "def" (definition), "sig" (signature)
	// or "hide" (nothing).
	Mask(ctx context.Context, lang string, src []byte, mask map[string]MaskMode) (string, error)
	// Summary summarises any text file.
	Summary(ctx context.Context, path string, src []byte) string
}

// TextEngine is an [Engine] with no structural views: Detect reports no
// language and Summary gives the line count and a preview. It is what the
// pipeline uses when no parser is available.
type TextEngine struct{}

// Detect always reports false.
func (TextEngine) Detect(string) (string, bool) { return "", false }

// Symbols returns ErrUnsupported.
func (TextEngine) Symbols(context.Context, string, []byte) ([]Symbol, error) {
	return nil, ErrUnsupported
}

// Skeleton returns ErrUnsupported.
func (TextEngine) Skeleton(context.Context, string, []byte) (string, error) {
	return "", ErrUnsupported
}

// Outline returns ErrUnsupported.
func (TextEngine) Outline(context.Context, string, []byte) (string, error) {
	return "", ErrUnsupported
}

// Mask returns ErrUnsupported.
func (TextEngine) Mask(context.Context, string, []byte, map[string]MaskMode) (string, error) {
	return "", ErrUnsupported
}

// Summary returns [TextSummary] for every file:
// "**EXT** — N lines" and a preview of the first non-blank lines.
func (TextEngine) Summary(_ context.Context, p string, src []byte) string {
	return TextSummary(p, src)
}

// SharedParser is an [Engine] that can render several views of one file
// from one parse: the token budget's ladder asks for each cheaper view of
// a file in turn.
type SharedParser interface {
	Engine
	// Shared returns an engine that renders the views of src, a file in
	// lang, from one parse (views of other bytes go to the engine as
	// usual), and the function that frees the parse. It is for one
	// goroutine. The engine it returns is a [Shared].
	Shared(lang string, src []byte) (e Engine, close func())
}

// Shared is an engine from [SharedParser.Shared]: it parses its file once
// for all its views, so a caller that bounds the bytes parsed at once
// takes the bound once for all of them.
type Shared interface {
	Engine
	// SharedParse marks the engine; it does nothing.
	SharedParse()
}

// maxPreviewLine caps the bytes shown of one preview line of a text
// summary, and previewLines is the number of non-blank lines it shows.
const (
	maxPreviewLine = 200
	previewLines   = 8
)

// SummaryHeader is the first line of every summary: "**KIND** — N lines".
func SummaryHeader(kind string, src []byte) string {
	return fmt.Sprintf("**%s** — %d lines", kind, measure.Lines(src))
}

// TextSummary is the summary of a file that has no structural summary:
// "**EXT** — N lines" and a fenced preview of its first non-blank lines.
func TextSummary(path string, src []byte) string {
	ext := strings.ToLower(filepath.Ext(path))
	kind := strings.ToUpper(strings.TrimPrefix(ext, "."))
	info := strings.TrimPrefix(ext, ".")
	if kind == "" {
		kind, info = "TEXT", "text"
	}
	var lines []string
	for _, l := range strings.Split(string(src), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(l) > maxPreviewLine {
			cut := maxPreviewLine
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			l = l[:cut] + "…"
		}
		lines = append(lines, l)
		if len(lines) == previewLines {
			break
		}
	}
	h := SummaryHeader(kind, src)
	if len(lines) == 0 {
		return h
	}
	return h + "\n" + mdtext.Fence(info, strings.Join(lines, "\n"))
}
