package aggregate

import (
	"context"
	"errors"
	"io"
	"sort"
	"strconv"

	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/table"
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

// DirStats totals the files of one directory (not its subdirectories).
type DirStats struct {
	Dir     string      `json:"dir"`
	Files   int         `json:"files"`
	Lines   int         `json:"lines"`
	Symbols int         `json:"symbols"`
	Bytes   int         `json:"bytes"`
	Tokens  int         `json:"tokens"`
	Entries []FileStats `json:"entries"`
}

// ComputeFileStats measures src: lines, bytes and tokens ([measure.Measure]
// with est; nil is measure.Default()) and the number of symbols the engine
// finds (0 when the language is not supported; a nil engine is
// [DefaultEngine]). A binary file counts its bytes only.
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

// Stats resolves opts.Files like [BuildItems] and returns per-directory
// totals with per-file entries, directories sorted by path, files by label.
// Files that cannot be read are listed with their error.
func Stats(ctx context.Context, opts Options) ([]DirStats, error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	r := &resolver{base: o.BaseDir, ign: o.Ignore, skip: o.skipSet()}
	targets, err := r.resolveAll(ctx, o.Files)
	if err != nil {
		return nil, err
	}
	files := make([]FileStats, len(targets))
	err = parallel(ctx, len(targets), o.Concurrency, o.Progress, func(i int) {
		t := targets[i]
		if t.err != "" {
			files[i] = FileStats{Path: t.label, Error: t.err}
			return
		}
		d := readBounded(t.abs, t.label, o.MaxFileBytes)
		if d.err != "" {
			files[i] = FileStats{Path: t.label, Error: d.err}
			return
		}
		files[i] = ComputeFileStats(ctx, o.Engine, o.Estimator, t.label, d.src)
	})
	if err != nil {
		return nil, err
	}
	return groupStats(files), nil
}

func groupStats(files []FileStats) []DirStats {
	groups := groupByDir(files, func(f FileStats) string { return f.Path })
	out := make([]DirStats, len(groups))
	for i, g := range groups {
		ds := DirStats{Dir: g.dir, Entries: g.items}
		for _, f := range g.items {
			if f.Error == "" {
				ds.Files++
				ds.Lines += f.Lines
				ds.Symbols += f.Symbols
				ds.Bytes += f.Bytes
				ds.Tokens += f.Tokens
			}
		}
		sort.SliceStable(ds.Entries, func(a, b int) bool { return ds.Entries[a].Path < ds.Entries[b].Path })
		out[i] = ds
	}
	return out
}

// WriteStatsTable writes dirs as `ctx stats` prints them: per directory its
// totals, then each file (with its error or "binary" as a note).
func WriteStatsTable(w io.Writer, dirs []DirStats) error {
	itoa := strconv.Itoa
	var rows [][]string
	for _, d := range dirs {
		name := d.Dir + "/"
		if d.Dir == "." {
			name = "./"
		}
		rows = append(rows, []string{name, itoa(d.Files), itoa(d.Lines), itoa(d.Symbols), itoa(d.Bytes), itoa(d.Tokens), ""})
		for _, f := range d.Entries {
			note := ""
			switch {
			case f.Error != "":
				note = "error: " + f.Error
			case f.Binary:
				note = "binary"
			}
			rows = append(rows, []string{"  " + f.Path, "", itoa(f.Lines), itoa(f.Symbols), itoa(f.Bytes), itoa(f.Tokens), note})
		}
	}
	return table.Write(w, []string{"path", "files", "lines", "symbols", "bytes", "tokens", "note"}, rows)
}

// WriteStatsJSON writes dirs as `ctx stats --format json` prints them:
// {"dirs": [...]}.
func WriteStatsJSON(w io.Writer, dirs []DirStats) error {
	if dirs == nil {
		dirs = []DirStats{}
	}
	return jsonenc.Write(w, struct {
		Dirs []DirStats `json:"dirs"`
	}{dirs})
}
