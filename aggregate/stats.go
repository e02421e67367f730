package aggregate

import (
	"context"
	"errors"

	"github.com/ctxaudit/ctx/measure"
)

// FileStats are the measurements of one file.
type FileStats struct {
	Path    string `json:"path"`
	Lines   int    `json:"lines"`
	Symbols int    `json:"symbols"`
	Bytes   int    `json:"bytes"`
	Tokens  int    `json:"tokens"`
	Binary  bool   `json:"binary,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ComputeFileStats measures src: lines, bytes and tokens ([measure.Measure]
// with est; nil is measure.Default()) and the number of symbols the engine
// finds (0 when the language is not supported; a nil engine is
// [TextEngine], which finds none). A binary file counts its bytes only.
func ComputeFileStats(ctx context.Context, eng Engine, est measure.Estimator, label string, src []byte) FileStats {
	eng = engineOr(eng)
	fs := FileStats{Path: label, Bytes: len(src)}
	if IsBinary(src) {
		fs.Binary = true
		return fs
	}
	sz := measure.Measure(src, est)
	fs.Lines, fs.Tokens = sz.Lines, sz.Tokens
	if lang, ok := eng.Detect(label); ok {
		if syms, err := eng.Symbols(ctx, lang, src); err == nil || errors.Is(err, ErrTruncated) {
			fs.Symbols = len(syms)
		}
	}
	return fs
}

// MeasureFiles resolves opts.Files like [BuildItems] and measures every
// file ([ComputeFileStats], through opts.Cache for the tokens and the
// symbols), in the order of the entries; a file that cannot be read, or an
// entry that names nothing, has its error. ignored is what the default
// ignore list left out, as in [Result.Ignored]. Package stats builds
// `ctx stats` of them.
func MeasureFiles(ctx context.Context, opts Options) (files []FileStats, ignored []IgnoredPath, err error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, nil, err
	}
	r := o.fileResolver()
	targets, err := r.resolveAll(ctx, o.Files)
	if err != nil {
		return nil, nil, err
	}
	files = make([]FileStats, len(targets))
	err = parallel(ctx, len(targets), o.Concurrency, o.Progress, func(i int) {
		t := targets[i]
		if t.err != "" {
			files[i] = FileStats{Path: t.label, Error: t.err}
			return
		}
		d := readBounded(t.abs, t.label, o.MaxFileBytes, o.bound)
		if d.err != "" {
			files[i] = FileStats{Path: t.label, Error: d.err}
			return
		}
		files[i] = o.fileStats(ctx, t.label, d.src)
	})
	if err != nil {
		return nil, nil, err
	}
	return files, r.ignored(), nil
}

// fileStats is [ComputeFileStats] with o's engine and estimator, through
// o.Cache for the tokens and the symbols.
func (o Options) fileStats(ctx context.Context, label string, src []byte) FileStats {
	fs := FileStats{Path: label, Bytes: len(src)}
	if IsBinary(src) {
		fs.Binary = true
		return fs
	}
	m := o.measure(src)
	fs.Lines, fs.Tokens = m.Lines, m.Tokens
	fs.Symbols = o.symbolCount(ctx, label, src, m.Hash)
	return fs
}
