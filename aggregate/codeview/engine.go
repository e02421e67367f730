package codeview

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxaudit/ctx/aggregate/engine"
)

// Engine returns the tree-sitter engine for package aggregate: the views
// of this package (Python, C, C++, Go, JavaScript, TypeScript, Rust and
// Java, and the heuristic summaries), one parse shared by the views of a
// file ([engine.SharedParser]), and a CacheID for the view cache.
func Engine() engine.Engine { return codeviewEngine{} }

// codeviewEngine adapts this package to [engine.Engine].
type codeviewEngine struct{}

func (codeviewEngine) Detect(p string) (string, bool) {
	l, ok := Detect(p)
	return string(l), ok
}

func (codeviewEngine) Symbols(ctx context.Context, lang string, src []byte) ([]engine.Symbol, error) {
	ss, err := Symbols(ctx, Language(lang), src)
	if err != nil && !errors.Is(err, ErrTruncated) {
		return nil, unsupported(err)
	}
	out := make([]engine.Symbol, len(ss))
	for i, s := range ss {
		out[i] = engine.Symbol{Name: s.Name, Path: s.Path, Kind: s.Kind, StartLine: s.StartLine, EndLine: s.EndLine, Depth: s.Depth}
	}
	return out, unsupported(err)
}

func (codeviewEngine) Skeleton(ctx context.Context, lang string, src []byte) (string, error) {
	s, err := Skeleton(ctx, Language(lang), src)
	return s, unsupported(err)
}

func (codeviewEngine) Outline(ctx context.Context, lang string, src []byte) (string, error) {
	s, err := Outline(ctx, Language(lang), src)
	return s, unsupported(err)
}

func (codeviewEngine) Mask(ctx context.Context, lang string, src []byte, mask map[string]engine.MaskMode) (string, error) {
	s, err := Mask(ctx, Language(lang), src, mask)
	return s, unsupported(err)
}

func (codeviewEngine) Summary(ctx context.Context, p string, src []byte) string {
	return Summary(ctx, p, src)
}

// unsupported maps ErrUnsupported to engine.ErrUnsupported and a
// *TruncatedError to an *engine.TruncatedError.
func unsupported(err error) error {
	var te *TruncatedError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrUnsupported):
		return fmt.Errorf("%w (%w)", engine.ErrUnsupported, err)
	case errors.As(err, &te):
		return &engine.TruncatedError{Reason: te.Reason}
	}
	return err
}

// CacheID names the code behind the views: codeview and the tree-sitter
// grammar of lang ([CacheableEngine]).
func (codeviewEngine) CacheID(lang string) string {
	return "codeview; " + Identity(Language(lang))
}

// Shared returns an engine that renders the views of src, a file in lang,
// from one parse (File); close frees the parse. Views of other bytes or of
// another language are rendered as usual. It is for one goroutine.
func (codeviewEngine) Shared(lang string, src []byte) (e engine.Engine, close func()) {
	s := &sharedEngine{lang: Language(lang), src: src}
	return s, s.close
}

// sharedEngine is codeview's engine with one file parsed once.
type sharedEngine struct {
	codeviewEngine
	lang Language
	src  []byte
	file *File
	err  error // of the parse, when it failed
}

// parsed returns the parsed file when lang and src are the engine's, after
// parsing it the first time; nil when they are not (or the parse failed).
func (s *sharedEngine) parsed(ctx context.Context, lang string, src []byte) *File {
	if Language(lang) != s.lang || len(src) != len(s.src) || &src[0] != &s.src[0] {
		return nil
	}
	if s.file == nil && s.err == nil {
		s.file, s.err = Parse(ctx, s.lang, s.src)
		if s.err != nil {
			s.err = nil // a context done: the next call parses again
			return nil
		}
	}
	return s.file
}

func (s *sharedEngine) close() { s.file.Close() }

// SharedParse marks the engine as [engine.Shared].
func (*sharedEngine) SharedParse() {}

func (s *sharedEngine) Symbols(ctx context.Context, lang string, src []byte) ([]engine.Symbol, error) {
	f := s.parsed(ctx, lang, src)
	if f == nil {
		return s.codeviewEngine.Symbols(ctx, lang, src)
	}
	ss, err := f.Symbols(ctx)
	if err != nil && !errors.Is(err, ErrTruncated) {
		return nil, unsupported(err)
	}
	out := make([]engine.Symbol, len(ss))
	for i, x := range ss {
		out[i] = engine.Symbol{Name: x.Name, Path: x.Path, Kind: x.Kind, StartLine: x.StartLine, EndLine: x.EndLine, Depth: x.Depth}
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

func (s *sharedEngine) Mask(ctx context.Context, lang string, src []byte, mask map[string]engine.MaskMode) (string, error) {
	f := s.parsed(ctx, lang, src)
	if f == nil {
		return s.codeviewEngine.Mask(ctx, lang, src, mask)
	}
	out, err := f.Mask(ctx, mask)
	return out, unsupported(err)
}

func (s *sharedEngine) Summary(ctx context.Context, p string, src []byte) string {
	lang, _ := Detect(p)
	if f := s.parsed(ctx, string(lang), src); f != nil {
		return f.Summary(ctx, p)
	}
	return s.codeviewEngine.Summary(ctx, p, src)
}
