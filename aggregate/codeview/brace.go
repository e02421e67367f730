package codeview

import (
	"context"

	"github.com/ctxaudit/ctx/internal/treesitter"
)

func braceSymbols(ctx context.Context, lang Language, src []byte, root treesitter.Node) ([]sym, error) {
	return nil, ErrUnsupported
}

func braceSkeleton(ctx context.Context, lang Language, src []byte, root treesitter.Node) (string, error) {
	return "", ErrUnsupported
}
