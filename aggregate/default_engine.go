package aggregate

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxaudit/ctx/aggregate/codeview"
)

// DefaultEngine returns the engine of package codeview (tree-sitter views
// for Python, C, C++, Go, JavaScript, TypeScript, Rust and Java, and
// heuristic summaries). A nil Engine means this engine wherever an Engine
// is taken: [Options], [View] and [ComputeFileStats].
func DefaultEngine() Engine { return codeviewEngine{} }

// engineOr returns e, or the default engine for nil.
func engineOr(e Engine) Engine {
	if e == nil {
		return DefaultEngine()
	}
	return e
}

// codeviewEngine adapts package codeview to [Engine].
type codeviewEngine struct{}

func (codeviewEngine) Detect(p string) (string, bool) {
	l, ok := codeview.Detect(p)
	return string(l), ok
}

func (codeviewEngine) Symbols(ctx context.Context, lang string, src []byte) ([]Symbol, error) {
	ss, err := codeview.Symbols(ctx, codeview.Language(lang), src)
	if err != nil && !errors.Is(err, codeview.ErrTruncated) {
		return nil, unsupported(err)
	}
	out := make([]Symbol, len(ss))
	for i, s := range ss {
		out[i] = Symbol{Name: s.Name, Path: s.Path, Kind: s.Kind, StartLine: s.StartLine, EndLine: s.EndLine, Depth: s.Depth}
	}
	return out, unsupported(err)
}

func (codeviewEngine) Skeleton(ctx context.Context, lang string, src []byte) (string, error) {
	s, err := codeview.Skeleton(ctx, codeview.Language(lang), src)
	return s, unsupported(err)
}

func (codeviewEngine) Outline(ctx context.Context, lang string, src []byte) (string, error) {
	s, err := codeview.Outline(ctx, codeview.Language(lang), src)
	return s, unsupported(err)
}

func (codeviewEngine) Mask(ctx context.Context, lang string, src []byte, mask map[string]MaskMode) (string, error) {
	s, err := codeview.Mask(ctx, codeview.Language(lang), src, mask)
	return s, unsupported(err)
}

func (codeviewEngine) Summary(ctx context.Context, p string, src []byte) string {
	return codeview.Summary(ctx, p, src)
}

// unsupported maps codeview.ErrUnsupported to ErrUnsupported and a
// *codeview.TruncatedError to a *TruncatedError.
func unsupported(err error) error {
	var te *codeview.TruncatedError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, codeview.ErrUnsupported):
		return fmt.Errorf("%w (%w)", ErrUnsupported, err)
	case errors.As(err, &te):
		return &TruncatedError{Reason: te.Reason}
	}
	return err
}
