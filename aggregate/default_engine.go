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

// CacheID names the code behind the views: codeview and the tree-sitter
// grammar of lang ([CacheableEngine]).
func (codeviewEngine) CacheID(lang string) string {
	return "codeview; " + codeview.Identity(codeview.Language(lang))
}

// sharedParse returns an engine that renders the views of src, a file in
// lang, from one parse (codeview.File) when eng is the default engine,
// else eng itself; close frees the parse. Views of other bytes or of
// another language go to eng as usual. It is for one goroutine.
func sharedParse(eng Engine, lang string, src []byte) (e Engine, close func()) {
	if _, ok := eng.(codeviewEngine); !ok || len(src) == 0 {
		return eng, func() {}
	}
	s := &sharedEngine{lang: codeview.Language(lang), src: src}
	return s, s.close
}

// sharedEngine is the default engine with one file parsed once.
type sharedEngine struct {
	codeviewEngine
	lang codeview.Language
	src  []byte
	file *codeview.File
	err  error // of the parse, when it failed
}

// parsed returns the parsed file when lang and src are the engine's, after
// parsing it the first time; nil when they are not (or the parse failed).
func (s *sharedEngine) parsed(ctx context.Context, lang string, src []byte) *codeview.File {
	if codeview.Language(lang) != s.lang || len(src) != len(s.src) || &src[0] != &s.src[0] {
		return nil
	}
	if s.file == nil && s.err == nil {
		s.file, s.err = codeview.Parse(ctx, s.lang, s.src)
		if s.err != nil {
			s.err = nil // a context done: the next call parses again
			return nil
		}
	}
	return s.file
}

func (s *sharedEngine) close() { s.file.Close() }

func (s *sharedEngine) Symbols(ctx context.Context, lang string, src []byte) ([]Symbol, error) {
	f := s.parsed(ctx, lang, src)
	if f == nil {
		return s.codeviewEngine.Symbols(ctx, lang, src)
	}
	ss, err := f.Symbols(ctx)
	if err != nil && !errors.Is(err, codeview.ErrTruncated) {
		return nil, unsupported(err)
	}
	out := make([]Symbol, len(ss))
	for i, x := range ss {
		out[i] = Symbol{Name: x.Name, Path: x.Path, Kind: x.Kind, StartLine: x.StartLine, EndLine: x.EndLine, Depth: x.Depth}
	}
	return out, unsupported(err)
}

func (s *sharedEngine) Skeleton(ctx context.Context, lang string, src []byte) (string, error) {
	f := s.parsed(ctx, lang, src)
	if f == nil {
		return s.codeviewEngine.Skeleton(ctx, lang, src)
	}
	out, err := f.Skeleton(ctx)
	return out, unsupported(err)
}

func (s *sharedEngine) Outline(ctx context.Context, lang string, src []byte) (string, error) {
	f := s.parsed(ctx, lang, src)
	if f == nil {
		return s.codeviewEngine.Outline(ctx, lang, src)
	}
	out, err := f.Outline(ctx)
	return out, unsupported(err)
}

func (s *sharedEngine) Mask(ctx context.Context, lang string, src []byte, mask map[string]MaskMode) (string, error) {
	f := s.parsed(ctx, lang, src)
	if f == nil {
		return s.codeviewEngine.Mask(ctx, lang, src, mask)
	}
	out, err := f.Mask(ctx, mask)
	return out, unsupported(err)
}

func (s *sharedEngine) Summary(ctx context.Context, p string, src []byte) string {
	lang, _ := codeview.Detect(p)
	if f := s.parsed(ctx, string(lang), src); f != nil {
		return f.Summary(ctx, p)
	}
	return s.codeviewEngine.Summary(ctx, p, src)
}
