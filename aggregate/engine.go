package aggregate

import "github.com/ctxaudit/ctx/aggregate/engine"

// The engine's types, as package engine defines them (see there): an
// [Engine] renders the structural views; a nil Engine is [TextEngine].

// MaskMode says what the masked view shows of a symbol.
type MaskMode = engine.MaskMode

// The mask modes.
const (
	MaskDef  = engine.MaskDef
	MaskSig  = engine.MaskSig
	MaskHide = engine.MaskHide
)

// ErrUnsupported is returned by an [Engine] view for a language it cannot
// render. The pipeline then falls back to the summary view and records why.
var ErrUnsupported = engine.ErrUnsupported

// ErrTruncated is matched (errors.Is) by every [*TruncatedError].
var ErrTruncated = engine.ErrTruncated

// TruncatedError is a view or symbol list cut by one of the engine's
// limits.
type TruncatedError = engine.TruncatedError

// Symbol is a named declaration found by an [Engine].
type Symbol = engine.Symbol

// Engine renders the structural views of source files.
type Engine = engine.Engine

// TextEngine is an [Engine] with no structural views, what a nil Engine
// means.
type TextEngine = engine.TextEngine

// engineOr returns e, or [TextEngine] for nil.
func engineOr(e Engine) Engine {
	if e == nil {
		return TextEngine{}
	}
	return e
}

// sharedParse returns an engine that renders the views of src, a file in
// lang, from one parse when eng can ([engine.SharedParser]), else eng
// itself; close frees the parse.
func sharedParse(eng Engine, lang string, src []byte) (e Engine, close func()) {
	if sp, ok := eng.(engine.SharedParser); ok && len(src) > 0 {
		return sp.Shared(lang, src)
	}
	return eng, func() {}
}

// isShared reports whether eng parses its file once for all its views.
func isShared(eng Engine) bool {
	_, ok := eng.(engine.Shared)
	return ok
}
