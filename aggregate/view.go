package aggregate

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/mdtext"
)

// IsBinary reports whether src looks binary: a NUL byte in the first 8000
// bytes, or invalid UTF-8 anywhere ([fileio.IsBinary], which
// aggregate/slice shares).
func IsBinary(src []byte) bool { return fileio.IsBinary(src) }

// FenceLanguage is the info string of a file's code fence: its extension in
// lower case (letters, digits, "+", "-" and "_" only), or "text".
func FenceLanguage(p string) string {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(p), "."))
	if ext == "" {
		return "text"
	}
	for _, c := range ext {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '_') {
			return "text"
		}
	}
	return ext
}

// ViewResult is the outcome of [View].
type ViewResult struct {
	Mode     ViewMode // the view rendered (after a fallback)
	Language string
	// Text is the view's text without a fence: the file's text, the
	// skeleton, the outline, the summary, the slices, or "ERROR: ..."
	// when the view failed.
	Text string
	// Fence is the info string of the code fence the markdown puts Text
	// in, or "" when Text is shown as it is (summary, none, binary).
	Fence    string
	Binary   bool
	Fallback string
	// Truncated says what a limit of the engine left out of the view
	// (see [TruncatedError]); the view is still shown.
	Truncated string
	Slices    []slice.Result
	Err       error // the view failed; Text holds the error
}

// Body returns the view as the markdown shows it: Text in its fence, if any.
func (r ViewResult) Body() string {
	if r.Fence == "" {
		return r.Text
	}
	return mdtext.Fence(r.Fence, r.Text)
}

// View renders one file. It is a pure function of (label, src, item, mode)
// and the engine: the same inputs give the same result, so a cache may key
// it by content hash. label is the slash-separated relative path (it picks
// the language); mode is the view to render (the planner has already applied
// force_full, the strategy and the focus rules). A failing view never
// panics: it yields Err and an error body.
func View(ctx context.Context, eng Engine, label string, src []byte, item FileItem, mode ViewMode) (res ViewResult) {
	eng = engineOr(eng)
	if mode == "" {
		mode = ViewFull
	}
	res.Mode = mode
	lang, structured := eng.Detect(label)
	res.Language = languageOf(eng, label)
	if IsBinary(src) {
		res.Binary = true
		res.Text = fmt.Sprintf("(binary file not inlined: %d bytes)", len(src))
		return res
	}
	if len(item.CustomSlices) > 0 {
		res.Slices = make([]slice.Result, len(item.CustomSlices))
		for i, s := range item.CustomSlices {
			res.Slices[i] = slice.Resolve(src, s)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			res.Err = fmt.Errorf("panic: %v", p)
			res.Text, res.Fence = ViewErrorText(mode, label, res.Err), errorFence
		}
	}()
	if err := ctx.Err(); err != nil {
		res.Err = err
		res.Text, res.Fence = ViewErrorText(mode, label, err), errorFence
		return res
	}
	fenceLang := FenceLanguage(label)
	fallback := func(why string) {
		res.Fallback = why
		res.Mode = ViewSummary
		res.Text = eng.Summary(ctx, label, src)
	}
	var err error
	switch mode {
	case ViewFull:
		res.Text = string(src)
	case ViewSummary:
		res.Text = eng.Summary(ctx, label, src)
	case ViewNone:
		res.Text = "(context excluded)"
	case ViewSkeleton, ViewOutline, ViewMasked:
		if !structured {
			fallback(fmt.Sprintf("%s view not supported for %s files; summary shown", mode, fenceLang))
			break
		}
		var out string
		switch mode {
		case ViewSkeleton:
			out, err = eng.Skeleton(ctx, lang, src)
		case ViewOutline:
			out, err = eng.Outline(ctx, lang, src)
		default:
			var mask map[string]MaskMode
			mask, err = effectiveMask(ctx, eng, lang, src, item)
			if err == nil {
				out, err = eng.Mask(ctx, lang, src, mask)
			}
		}
		if errors.Is(err, ErrUnsupported) {
			fallback(fmt.Sprintf("%s view not supported for %s: %v; summary shown", mode, lang, err))
			err = nil
			break
		}
		if te := (*TruncatedError)(nil); errors.As(err, &te) {
			res.Truncated, err = te.Reason, nil
		}
		if err == nil {
			res.Text = out
		}
	case ViewCustom:
		if len(item.CustomSlices) == 0 {
			fallback("custom view without custom_slices; summary shown")
			break
		}
		parts := make([]string, len(res.Slices))
		for i, r := range res.Slices {
			parts[i] = renderSlice(r)
		}
		res.Text = strings.Join(parts, "\n\n")
	default:
		err = fmt.Errorf("unknown view mode %q", mode)
	}
	if err != nil {
		res.Err = err
		res.Text, res.Fence = ViewErrorText(mode, label, err), errorFence
		return res
	}
	res.Fence = viewFence(res.Mode, label)
	return res
}

// viewFence is the info string of the fence a view of label in mode is
// shown in: "" for the views shown as they are (summary, none), "text" for
// the outline, else the file's [FenceLanguage]. A cached view takes its
// fence from here, never from the cache.
func viewFence(mode ViewMode, label string) string {
	switch mode {
	case ViewSummary, ViewNone:
		return ""
	case ViewOutline:
		return "text"
	}
	return FenceLanguage(label)
}

// ViewErrorText is the text of a view that failed, as the original writes
// it: "ERROR in {mode} view mode for {label}:\n{detail}". The detail is the
// error (for a panic, "panic: " and its value); the original has Python's
// traceback there, which a Go stack trace would not make deterministic.
func ViewErrorText(mode ViewMode, label string, err error) string {
	return fmt.Sprintf("ERROR in %s view mode for %s:\n%v", mode, label, err)
}

// fallbackSuffix is the header suffix of a view that fell back to the
// summary, in the form of the other suffixes ("(Skeleton; token budget)"):
// " (Summary; skeleton not supported)", or " (Summary; no custom slices)"
// for a custom view without slices.
func fallbackSuffix(requested ViewMode) string {
	if requested == ViewCustom {
		return " (Summary; no custom slices)"
	}
	return " (Summary; " + string(requested) + " not supported)"
}

// effectiveMask is item.ASTMask plus, for ast_definitions or ast_signatures,
// "def" or "sig" for every top-level symbol the mask does not name.
func effectiveMask(ctx context.Context, eng Engine, lang string, src []byte, item FileItem) (map[string]MaskMode, error) {
	mask := make(map[string]MaskMode, len(item.ASTMask))
	for k, v := range item.ASTMask {
		mask[k] = v
	}
	if item.ASTDefinitions || item.ASTSignatures {
		// a list cut by a limit masks what it lists (Mask reports the cut)
		syms, err := eng.Symbols(ctx, lang, src)
		if err != nil && !errors.Is(err, ErrTruncated) {
			return nil, err
		}
		def := MaskSig
		if item.ASTDefinitions {
			def = MaskDef
		}
		for _, s := range syms {
			if s.Depth != 0 {
				continue
			}
			p := s.Path
			if p == "" {
				p = s.Name
			}
			if _, ok := mask[p]; !ok {
				mask[p] = def
			}
		}
	}
	if len(mask) == 0 && !item.ASTDefinitions && !item.ASTSignatures {
		return nil, errors.New("masked view needs ast_mask (or ast_signatures or ast_definitions)")
	}
	return mask, nil
}

// renderSlice renders one resolved slice:
//
//	[Slice: <tag>] (<comment>)
//	Lines <start>-<end>:
//	<content>
//
// An untagged slice shows "[Slice]"; without a comment the " (<comment>)"
// part is left out. An orphaned slice shows its last known range and a
// marker instead of content.
func renderSlice(r slice.Result) string {
	var b strings.Builder
	b.WriteString("[Slice")
	if r.Tag != "" {
		b.WriteString(": " + r.Tag)
	}
	b.WriteString("]")
	if r.Comment != "" {
		b.WriteString(" (" + r.Comment + ")")
	}
	b.WriteString("\n")
	if r.Orphaned() {
		fmt.Fprintf(&b, "Lines %d-%d: ORPHANED (not shown: %s)", r.OldStart, r.OldEnd, r.Reason)
		return b.String()
	}
	fmt.Fprintf(&b, "Lines %d-%d:\n%s", r.NewStart, r.NewEnd, r.Content)
	return b.String()
}

// errorFence is the info string of an error's fence.
const errorFence = "text"

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// languageOf names the language of label: the engine's when it parses the
// file, else the fence language from the extension.
func languageOf(eng Engine, label string) string {
	if lang, structured := eng.Detect(label); structured {
		return lang
	}
	return FenceLanguage(label)
}
