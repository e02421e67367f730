package aggregate

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"path"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/internal/version"
	"github.com/ctxaudit/ctx/measure"
)

// Cache keeps what is costly to derive from a file's bytes between runs
// (Options.Cache): the skeleton, outline, summary and masked views, token
// counts of the exact estimators, and symbol counts. Keys name everything
// the value depends on: the BLAKE3 of the bytes, the view and its
// settings, the engine and its grammar ([CacheableEngine]), the estimator,
// and the build of ctx; a value is used only when it is stored under
// exactly its key, so a stale or foreign value can never be shown.
//
// Get returns the value stored under key, or false; Put stores one, and
// may drop it (a cache is best effort). Implementations must be safe for
// concurrent use by the workers of a run, and the values they return must
// not be changed by the caller. Package cache's *cache.Dir keeps them in a
// directory, safely under concurrent runs.
type Cache interface {
	Get(key string) ([]byte, bool)
	Put(key string, value []byte)
}

// CacheableEngine is an [Engine] whose views Options.Cache may keep. Its
// views must depend only on the file's bytes, its extension, the view's
// settings (the mask) and what CacheID names.
type CacheableEngine interface {
	Engine
	// CacheID names the engine's code and, for a file in lang, its grammar
	// ("" lang for a file no grammar parses); it must change whenever a
	// view it renders may change.
	CacheID(lang string) string
}

// Below these sizes a file's views and symbols, and a text's tokens, are
// computed, never cached: a parse of a small file or a count of a small
// text costs less than writing an entry, which on some file systems takes
// the better part of a millisecond.
const (
	minCachedSource = 2 << 10
	minCachedTokens = 4 << 10
)

// cacheKey joins the parts of a key, each on its own line after the kind
// and the build of ctx.
func cacheKey(kind string, parts ...string) string {
	var b strings.Builder
	b.WriteString("ctx ")
	b.WriteString(kind)
	b.WriteString(" v1\n")
	b.WriteString(version.Build())
	for _, p := range parts {
		b.WriteByte('\n')
		b.WriteString(p)
	}
	return b.String()
}

// cacheable reports whether the views of a file may be cached, with the
// engine's id for the file's language.
func (o Options) cacheable(label string) (string, bool) {
	if o.Cache == nil {
		return "", false
	}
	ce, ok := o.Engine.(CacheableEngine)
	if !ok {
		return "", false
	}
	lang, _ := o.Engine.Detect(label)
	return ce.CacheID(lang), true
}

// cachedViewModes are the views worth keeping: those an engine computes.
// The full, none and custom views are the bytes, a constant and slices.
func cachedView(mode ViewMode) bool {
	switch mode {
	case ViewSkeleton, ViewOutline, ViewSummary, ViewMasked:
		return true
	}
	return false
}

// maskKey is the part of a file's settings the masked view depends on.
func maskKey(f FileItem) string {
	var b strings.Builder
	b.WriteString("sig=" + strconv.FormatBool(f.ASTSignatures) + " def=" + strconv.FormatBool(f.ASTDefinitions))
	for _, k := range sortedKeys(f.ASTMask) {
		b.WriteString(" " + strconv.Quote(k) + "=" + strconv.Quote(string(f.ASTMask[k])))
	}
	return b.String()
}

// view renders one file as [View] does, through o.Cache when the view and
// the engine allow it: a view found under its key is used when it is of
// the mode asked for (or a fallback to the summary), in the fence its mode
// and label give ([viewFence]: the cache holds no fence, and the length of
// a fence always comes from the text it holds), and a view computed
// without error is stored. hash is the BLAKE3 of src. eng is o.Engine or
// an engine of the same code that parses src once ([sharedParse]).
func (o Options) view(ctx context.Context, eng Engine, label string, src []byte, hash string, f FileItem, mode ViewMode) ViewResult {
	id, ok := o.cacheable(label)
	if mode == "" {
		mode = ViewFull
	}
	if !ok || !cachedView(mode) || len(src) < minCachedSource || IsBinary(src) {
		return o.gated(ctx, eng, label, src, f, mode)
	}
	key := cacheKey("view", id, "mode "+string(mode), "ext "+strings.ToLower(path.Ext(label)), "settings "+viewSettings(f, mode), hash)
	if b, ok := o.Cache.Get(key); ok {
		if res, err := decodeView(b); err == nil && cachedMode(res, mode) {
			res.Fence = viewFence(res.Mode, label)
			res.Language = languageOf(eng, label)
			if len(f.CustomSlices) > 0 {
				res.Slices = make([]slice.Result, len(f.CustomSlices))
				for i, s := range f.CustomSlices {
					res.Slices[i] = slice.Resolve(src, s)
				}
			}
			return res
		}
	}
	res := o.gated(ctx, eng, label, src, f, mode)
	if res.Err == nil && ctx.Err() == nil {
		o.Cache.Put(key, encodeView(res))
	}
	return res
}

// gated is [View] of a structural view within o's parse gate (see
// parseGate); eng parsing a file once for several views takes the gate
// for all of them (ladder), so it is not taken again.
func (o Options) gated(ctx context.Context, eng Engine, label string, src []byte, f FileItem, mode ViewMode) ViewResult {
	if !isShared(eng) && o.gate != nil && mode != ViewFull && mode != ViewNone && mode != ViewCustom {
		if _, ok := eng.Detect(label); ok {
			if err := o.gate.acquire(ctx, len(src)); err != nil {
				return View(ctx, eng, label, src, f, mode) // a done context: View says so
			}
			defer o.gate.release(len(src))
		}
	}
	return View(ctx, eng, label, src, f, mode)
}

// cachedMode reports whether a cached view can be a view in mode: one of
// that mode, or the summary a view fell back to, with the reason.
func cachedMode(res ViewResult, mode ViewMode) bool {
	if res.Mode == mode {
		return res.Fallback == ""
	}
	return res.Mode == ViewSummary && res.Fallback != ""
}

// viewSettings is what of f a view depends on.
func viewSettings(f FileItem, mode ViewMode) string {
	if mode == ViewMasked {
		return maskKey(f)
	}
	return ""
}

// encodeView stores the parts of a view that do not depend on the label
// or the slices: mode, fallback, truncation and text. The fence is not
// stored: it is derived again from the mode and the label ([viewFence]),
// so that no entry, whoever wrote it, decides how its text is shown.
func encodeView(res ViewResult) []byte {
	var b []byte
	for _, s := range []string{string(res.Mode), res.Fallback, res.Truncated, res.Text} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

var errBadView = errors.New("malformed cached view")

func decodeView(b []byte) (ViewResult, error) {
	var parts [4]string
	for i := range parts {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return ViewResult{}, errBadView
		}
		parts[i] = string(b[k : k+int(n)])
		b = b[k+int(n):]
	}
	if len(b) != 0 {
		return ViewResult{}, errBadView
	}
	return ViewResult{Mode: ViewMode(parts[0]), Fallback: parts[1], Truncated: parts[2], Text: parts[3]}, nil
}

// measure returns the sizes and hash of b, from one pass over it
// ([measure.Scan]); tokens are derived from the characters (chars4),
// looked up in o.Cache by the hash (the exact estimators, for a text of
// some size), or counted.
func (o Options) measure(b []byte) Measured {
	sz, h := measure.Scan(b)
	sz.Tokens = o.tokens(b, sz.Chars, h)
	return Measured{Sizes: sz, Hash: h}
}

// measureFull measures the block of a file in the full view, whose text
// (the file's) counts textTokens: an exact estimator does not count the
// text again when the pre-tokenizer must cut before and after it in the
// block (see [docTokens]): the text ends with a line break before the
// closing fence, and starts with a character the pre-tokenizer always cuts
// before after a line break, or with "/" after the fence's info string
// when that ends with a letter or digit (the line break is then a piece of
// its own: only punctuation takes line breaks and slashes after it).
func (o Options) measureFull(block []byte, text string, textTokens int) Measured {
	if !builtinEstimator(o.Estimator) || text == "" || text[len(text)-1] != '\n' {
		return o.measure(block)
	}
	// block is header, "\n\n", fence, info, "\n", text, fence
	fence := len(block) - len(bytes.TrimRight(block, "`"))
	start := len(block) - fence - len(text)
	if fence < 3 || start < 2 || block[start-1] != '\n' || string(block[start:start+len(text)]) != text {
		return o.measure(block)
	}
	if c := text[0]; !cutBefore(c) && (c != '/' || !alnum(block[start-2])) {
		return o.measure(block)
	}
	head, tail := block[:start], block[start+len(text):]
	sz, h := measure.Scan(block)
	sz.Tokens = o.Estimator.Tokens(head) + textTokens + o.Estimator.Tokens(tail)
	return Measured{Sizes: sz, Hash: h}
}

// tokens counts the tokens of b, whose characters and hash are known.
func (o Options) tokens(b []byte, chars int, hash string) int {
	if t, ok := measure.TokensForChars(o.Estimator, chars); ok {
		return t
	}
	if o.Cache == nil || len(b) < minCachedTokens || !builtinEstimator(o.Estimator) {
		return o.Estimator.Tokens(b)
	}
	key := cacheKey("tokens", o.Estimator.Name(), hash)
	if v, ok := o.Cache.Get(key); ok {
		if n, k := binary.Uvarint(v); k == len(v) && k > 0 {
			return int(n)
		}
	}
	n := o.Estimator.Tokens(b)
	o.Cache.Put(key, binary.AppendUvarint(nil, uint64(n)))
	return n
}

// builtinEstimator reports whether est is one of the exact estimators of
// package measure, whose names say how they count (a name of another
// estimator could be anyone's).
func builtinEstimator(est measure.Estimator) bool {
	return est == measure.O200kBase() || est == measure.Cl100kBase()
}

// symbolCount is the number of symbols the engine finds in src (0 when it
// cannot), through o.Cache when it can.
func (o Options) symbolCount(ctx context.Context, label string, src []byte, hash string) int {
	lang, ok := o.Engine.Detect(label)
	if !ok {
		return 0
	}
	id, cacheable := o.cacheable(label)
	cacheable = cacheable && len(src) >= minCachedSource
	var key string
	if cacheable {
		key = cacheKey("symbols", id, "lang "+lang, hash)
		if v, ok := o.Cache.Get(key); ok {
			if n, k := binary.Uvarint(v); k == len(v) && k > 0 {
				return int(n)
			}
		}
	}
	if err := o.gate.acquire(ctx, len(src)); err != nil {
		return 0
	}
	syms, err := o.Engine.Symbols(ctx, lang, src)
	o.gate.release(len(src))
	if err != nil && !errors.Is(err, ErrTruncated) {
		return 0
	}
	if cacheable && ctx.Err() == nil {
		o.Cache.Put(key, binary.AppendUvarint(nil, uint64(len(syms))))
	}
	return len(syms)
}

// alnum reports whether c is an ASCII letter or digit.
func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
