package aggregate

import (
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/internal/mdtext"
)

// BinaryShown is how many binary files [Result.OtherWarnings] names
// before counting the rest (and how many files the redaction note names).
const BinaryShown = 5

// ItemWarnings returns what `ctx aggregate` reports on stderr about the
// items, one message each, without a prefix: each item's error (after its
// path when the error does not name it) and each orphaned slice. Names are
// escaped (control characters as \n, \x1b), so a file name cannot add a
// line or a terminal escape sequence to what people read.
func (res *Result) ItemWarnings() []string {
	var out []string
	for _, it := range res.Items {
		out = append(out, it.Warnings()...)
	}
	return out
}

// Warnings returns the item's problems for people (see
// [Result.ItemWarnings]).
func (it *Item) Warnings() []string {
	var out []string
	path := mdtext.Escape(it.Path)
	if it.Error != "" {
		msg := it.Error
		if !strings.Contains(msg, path) {
			msg = path + ": " + msg
		}
		out = append(out, msg)
	}
	for _, sl := range it.Slices {
		if sl.Orphaned() {
			out = append(out, fmt.Sprintf("%s: slice %s (lines %d-%d) is orphaned: %s", path, sliceName(sl), sl.OldStart, sl.OldEnd, sl.Reason))
		}
	}
	return out
}

// sliceName names a slice in messages: its tag quoted, or "(untagged)".
func sliceName(sl slice.Result) string {
	if sl.Tag != "" {
		return fmt.Sprintf("%q", sl.Tag)
	}
	return "(untagged)"
}

// OtherWarnings returns what `ctx aggregate` reports on stderr after the
// items' warnings: the binary files, listed but not inlined (one line; a
// project can hold hundreds, so at most BinaryShown by name), each
// screenshot that could not be resolved or read, and each focus that
// matched no file. Names are escaped.
func (res *Result) OtherWarnings() []string {
	var out []string
	var binary []string
	for _, it := range res.Items {
		if it.Status == StatusBinary {
			binary = append(binary, mdtext.Escape(it.Path))
		}
	}
	switch n := len(binary); {
	case n == 1:
		out = append(out, binary[0]+": binary file, listed but not inlined")
	case n > 1:
		out = append(out, fmt.Sprintf("%d binary files, listed but not inlined: %s", n, shownList(binary, BinaryShown)))
	}
	for _, sh := range res.Screenshots {
		if sh.Error != "" {
			out = append(out, "screenshots: "+sh.Error)
		}
	}
	for _, f := range res.UnmatchedFocus {
		out = append(out, FocusWarning(f))
	}
	return out
}

// FocusWarning says that the Tier 3 focus f matched no file: with it, Tier
// 3 renders the other files in a structural view, which is rarely what was
// meant.
func FocusWarning(f string) string {
	return fmt.Sprintf("focus %q matched no file (by entry, path, name or absolute path)", f)
}

// shownList joins names with commas, the first max of them, then "and N
// more".
func shownList(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
}
