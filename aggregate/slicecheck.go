package aggregate

import (
	"context"
	"fmt"
	"io"

	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/measure"
)

// SliceCheck is the outcome of [CheckSlices].
type SliceCheck struct {
	// Items are the files of the entries that have custom slices, with
	// Slices resolved against the current files.
	Items []Item
	// Orphaned counts the slices that could not be found (all the slices of
	// a file that could not be read); Moved those found elsewhere (moved,
	// anchored or fuzzy).
	Orphaned, Moved int
}

// CheckSlices resolves the custom slices of the entries of opts.Files that
// have any, against the current files, without rendering views.
func CheckSlices(ctx context.Context, opts Options) (*SliceCheck, error) {
	var files []FileItem
	for _, f := range opts.Files {
		if len(f.CustomSlices) > 0 {
			f.ViewMode = ViewNone
			f.ForceFull = false
			files = append(files, f)
		}
	}
	r := &SliceCheck{}
	if len(files) == 0 {
		return r, nil
	}
	opts.Files, opts.Screenshots, opts.Strategy, opts.SummaryOnly = files, nil, StrategyFull, false
	opts.Tier3, opts.Focus, opts.MaxTokens, opts.MaxFileTokens = false, nil, measure.Limit{}, measure.Limit{}
	items, err := BuildItems(ctx, opts)
	if err != nil {
		return nil, err
	}
	r.Items = items
	for _, it := range items {
		if it.Error != "" {
			r.Orphaned += len(it.file.CustomSlices)
			continue
		}
		for _, sl := range it.Slices {
			switch sl.Resolution {
			case slice.ResolutionOrphaned:
				r.Orphaned++
			case slice.ResolutionMoved, slice.ResolutionAnchored, slice.ResolutionFuzzy:
				r.Moved++
			}
		}
	}
	return r, nil
}

// Problems says what the check found, for people, "" for what it did not
// find: orphaned is "1 orphaned slice; re-pin it with 'ctx slice add'" and
// moved "2 slices moved; re-pin them with 'ctx slice add' to update their
// ranges".
func (r *SliceCheck) Problems() (orphaned, moved string) {
	it := func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	}
	if r.Orphaned > 0 {
		orphaned = display.Count(r.Orphaned, "orphaned slice", "orphaned slices") + "; re-pin " + it(r.Orphaned, "it", "them") + " with 'ctx slice add'"
	}
	if r.Moved > 0 {
		moved = display.Count(r.Moved, "slice moved", "slices moved") + "; re-pin " + it(r.Moved, "it", "them") +
			" with 'ctx slice add' to update " + it(r.Moved, "its range", "their ranges")
	}
	return orphaned, moved
}

// sliceColumns are the columns of [SliceCheck.WriteTable]: paths cut in
// their directories, tags in the middle, the resolution wrapped.
var sliceColumns = []table.Column{
	{Header: "file", Fit: table.FitCutPath, Min: 16, Late: true},
	{Header: "tag", Fit: table.FitCutMiddle, Min: 8},
	{Header: "lines"},
	{Header: "now"},
	{Header: "resolution", Fit: table.FitWrap, Min: 20},
}

// SliceTableWidth is the width of [SliceCheck.WriteTable] when the
// terminal's is unknown.
const SliceTableWidth = table.DefaultWidth

// WriteTable writes the check as `ctx slice check` prints it: file, tag,
// recorded lines, lines now and resolution, a row per slice (one row for a
// file that could not be read), fitted to width columns (0 or less:
// SliceTableWidth); "no custom slices" when there are none.
func (r *SliceCheck) WriteTable(w io.Writer, width int) error {
	if len(r.Items) == 0 {
		_, err := fmt.Fprintln(w, "no custom slices")
		return err
	}
	var rows [][]string
	for _, it := range r.Items {
		path := mdtext.Escape(it.Path)
		if it.Error != "" {
			rows = append(rows, []string{path, "", "", "", "error: " + it.Error})
			continue
		}
		for _, sl := range it.Slices {
			now := "-"
			if !sl.Orphaned() {
				now = fmt.Sprintf("%d-%d", sl.NewStart, sl.NewEnd)
			}
			status := string(sl.Resolution)
			if sl.Orphaned() {
				status += ": " + sl.Reason
			}
			rows = append(rows, []string{path, mdtext.Escape(sl.Tag), fmt.Sprintf("%d-%d", sl.OldStart, sl.OldEnd), now, status})
		}
	}
	if width <= 0 {
		width = SliceTableWidth
	}
	return table.WriteFitted(w, sliceColumns, rows, width)
}
