package aggregate

import (
	"context"
	"errors"

	"github.com/ctxaudit/ctx/aggregate/codeview"
)

// MaskMode says what the masked view shows of a symbol: the whole
// definition (def), the signature (sig) or nothing (hide).
type MaskMode = codeview.MaskMode

// The mask modes.
const (
	MaskDef  = codeview.MaskDef
	MaskSig  = codeview.MaskSig
	MaskHide = codeview.MaskHide
)

// ErrUnsupported is returned by an [Engine] view for a language it cannot
// render. The pipeline then falls back to the summary view and records why.
var ErrUnsupported = errors.New("language not supported by this view")

// ErrTruncated is matched (errors.Is) by every [*TruncatedError].
var ErrTruncated = errors.New("view cut by a limit")

// TruncatedError is returned by an [Engine] together with a view or symbol
// list that one of its limits cut (the default engine's are
// codeview.MaxDepth and codeview.MaxOutputBytes): the result is complete up
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

// Engine renders the structural views of source files. The default engine
// is package aggregate/codeview (tree-sitter); tests may pass their own.
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

// Summary returns the text summary of package codeview for every file:
// "**EXT** — N lines" and a preview of the first non-blank lines.
func (TextEngine) Summary(_ context.Context, p string, src []byte) string {
	return codeview.TextSummary(p, src)
}
