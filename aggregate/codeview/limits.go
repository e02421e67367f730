package codeview

import (
	"errors"
	"fmt"
	"strings"
)

// Limits that keep every view linear in the size of its source whatever
// its nesting. Without them a file of deeply nested declarations gives an
// outline that grows with the square of the depth (each line is indented by
// its depth, each path repeats its parents): 560 KB of nested C++
// namespaces asked for gigabytes.
const (
	// MaxDepth is how deep symbols are listed: a symbol at Depth MaxDepth
	// or deeper (nested in 64 others) is not listed, and its scope is not
	// walked, by [Symbols], [Outline], [Mask] and [Summary].
	MaxDepth = 64
	// symbolOverhead is what one listed symbol costs besides its name and
	// path, for the symbol budget.
	symbolOverhead = 64
	// maxWalkDepth is how deep the skeleton of a brace language walks the
	// syntax tree (nodes, not symbols: a namespace is a few levels): a
	// deeper subtree is shown as it is, so that hostile nesting costs no
	// more than the text's length.
	maxWalkDepth = 512
)

// MaxOutputBytes is the most bytes of a skeleton, outline or mask of a
// source of n bytes: 64 KiB plus 4 bytes per source byte. A longer view is
// cut at the last whole line within it.
func MaxOutputBytes(n int) int { return 64<<10 + 4*n }

// maxSymbolBytes bounds the symbols listed for a source of n bytes: their
// names and paths, plus symbolOverhead each, stay within 1 MiB plus 16
// bytes per source byte. Paths repeat their parents' names, so without it a
// few long names around many small declarations make the list quadratic.
func maxSymbolBytes(n int) int { return 1<<20 + 16*n }

// ErrTruncated is matched (errors.Is) by every [*TruncatedError].
var ErrTruncated = errors.New("codeview: view cut by a limit")

// TruncatedError is returned together with a view (or symbol list) that a
// limit cut: the result is complete up to the limit, and Reason says what
// was left out. The text of a cut outline, skeleton or mask ends with a line
// that says so.
type TruncatedError struct {
	// Reason is, for example, "symbols nested deeper than 64 levels are
	// not listed" or "cut at 70000 bytes".
	Reason string
}

func (e *TruncatedError) Error() string { return "codeview: " + e.Reason }

// Is makes errors.Is(err, ErrTruncated) true.
func (e *TruncatedError) Is(target error) bool { return target == ErrTruncated }

// symLimits bounds one symbol walk: the depth and the symbol budget.
type symLimits struct {
	budget int  // bytes left for names, paths and overheads
	deep   bool // a symbol deeper than MaxDepth was left out
	full   bool // the budget ran out: nothing more is listed
}

func newSymLimits(srcLen int) symLimits { return symLimits{budget: maxSymbolBytes(srcLen)} }

// admit reports whether a symbol at depth whose name and path take size
// bytes may be listed; it is asked before the path is built, so a refused
// symbol costs nothing.
func (l *symLimits) admit(depth, size int) bool {
	if l.full {
		return false
	}
	if depth >= MaxDepth {
		l.deep = true
		return false
	}
	l.budget -= size + symbolOverhead
	if l.budget < 0 {
		l.full = true
		return false
	}
	return true
}

// err is the *TruncatedError of the walk, or nil when nothing was left out.
func (l *symLimits) err(srcLen int) error {
	var why []string
	if l.deep {
		why = append(why, fmt.Sprintf("symbols nested deeper than %d levels are not listed", MaxDepth))
	}
	if l.full {
		why = append(why, fmt.Sprintf("symbols past %d bytes of names and paths are not listed", maxSymbolBytes(srcLen)))
	}
	if len(why) == 0 {
		return nil
	}
	return &TruncatedError{Reason: strings.Join(why, "; ")}
}

// joinTruncated returns the reason of a and b together (either may be nil).
func joinTruncated(a, b error) error {
	var ta, tb *TruncatedError
	errors.As(a, &ta)
	errors.As(b, &tb)
	switch {
	case ta == nil && tb == nil:
		return nil
	case ta == nil:
		return tb
	case tb == nil:
		return ta
	}
	return &TruncatedError{Reason: ta.Reason + "; " + tb.Reason}
}

// capOutput cuts out at the last whole line within MaxOutputBytes(srcLen)
// and reports it; a view within the limit is returned as it is.
func capOutput(out string, srcLen int) (string, error) {
	limit := MaxOutputBytes(srcLen)
	if len(out) <= limit {
		return out, nil
	}
	cut := strings.LastIndexByte(out[:limit], '\n') + 1
	return out[:cut], &TruncatedError{Reason: fmt.Sprintf("cut at %d bytes", limit)}
}

// withNote ends a cut view with a line that says what a limit left out.
func withNote(out string, err error) string {
	var te *TruncatedError
	if !errors.As(err, &te) {
		return out
	}
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out + "… (view cut: " + te.Reason + ")\n"
}
