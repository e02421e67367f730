package aggregate

import (
	"fmt"
	"time"

	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
)

// ViewMode selects how a file's bytes are rendered into the markdown.
type ViewMode string

// The view modes. The empty ViewMode means [ViewFull].
const (
	ViewFull     ViewMode = "full"     // the bytes as they are, fenced
	ViewSummary  ViewMode = "summary"  // a heuristic summary (codeview.Summary)
	ViewSkeleton ViewMode = "skeleton" // declarations and signatures, bodies elided
	ViewOutline  ViewMode = "outline"  // one line per symbol with its line range
	ViewMasked   ViewMode = "masked"   // per-symbol choice from FileItem.ASTMask
	ViewNone     ViewMode = "none"     // the header and "(context excluded)"
	ViewCustom   ViewMode = "custom"   // only FileItem.CustomSlices
)

// ParseViewMode checks s; "" is [ViewFull].
func ParseViewMode(s string) (ViewMode, error) {
	if s == "" {
		return ViewFull, nil
	}
	switch m := ViewMode(s); m {
	case ViewFull, ViewSummary, ViewSkeleton, ViewOutline, ViewMasked, ViewNone, ViewCustom:
		return m, nil
	}
	return "", fmt.Errorf("unknown view mode %q (want full, summary, skeleton, outline, masked, none or custom)", s)
}

// FileItem is one entry of the files list: a path, a glob or a directory,
// with the per-file curation settings of ctx.toml. The zero value (apart
// from Path) is the default: aggregated, full view.
type FileItem struct {
	// Path is a file, a directory (walked) or a glob with ** support,
	// relative to the base directory unless absolute.
	Path string `json:"path"`
	// NoAutoAggregate is auto_aggregate = false: the file is read, measured
	// and listed among the items but kept out of the markdown.
	NoAutoAggregate bool `json:"no_auto_aggregate,omitempty"`
	// ForceFull renders the file in full whatever ViewMode or the strategy says.
	ForceFull bool     `json:"force_full,omitempty"`
	ViewMode  ViewMode `json:"view_mode,omitempty"`
	// Tier 3 items are rendered in full in a Tier 3 context.
	Tier int `json:"tier,omitempty"`
	// ASTMask maps a symbol path (Class.method, Outer::Inner::name) to
	// "def" (the whole definition), "sig" (the signature) or "hide".
	ASTMask map[string]MaskMode `json:"ast_mask,omitempty"`
	// CustomSlices are the line ranges shown by the custom view.
	CustomSlices []slice.Slice `json:"custom_slices,omitempty"`
	// ASTSignatures and ASTDefinitions give the masked view a default for
	// every top-level symbol that ASTMask does not name: its signature, or
	// its whole definition (definitions win when both are set). On a file
	// in the full view (the default) they are the original's
	// skeleton-equivalent shortcuts: ASTSignatures renders the skeleton,
	// ASTDefinitions the masked view with every top-level definition.
	// force_full, the summary strategy and Tier 3 override them; the other
	// views ignore them.
	ASTSignatures  bool `json:"ast_signatures,omitempty"`
	ASTDefinitions bool `json:"ast_definitions,omitempty"`
	// At says where the entry was written, for the error of a path that
	// does not exist ([MissingError]): "ctx.toml:4: files.paths[0]"; ""
	// for an argument.
	At string `json:"-"`
	// Optional leaves the entry out, without an error, when it names a
	// path that does not exist: the files of a preset, which may name
	// what another project has (presets.Preset.Apply; the command warns).
	Optional bool `json:"-"`
}

// Status is the status of an aggregated file: of an [Item] (ok, error,
// binary, omitted) and of the file's row in a manifest, which adds
// excluded, degraded and fallback (see [Item.RowStatus]). Package manifest
// records these values and package audit reads them; neither spells them
// out.
type Status string

// The statuses.
const (
	// StatusOK: the file was read and its view rendered.
	StatusOK Status = "ok"
	// StatusError: missing, unreadable, too large, matched nothing, or the
	// view failed.
	StatusError Status = "error"
	// StatusBinary: the file is binary and was not inlined.
	StatusBinary Status = "binary"
	// StatusOmitted: the token budget left the file out.
	StatusOmitted Status = "omitted"
	// StatusExcluded: auto_aggregate = false kept the file out of the
	// document (a row status only).
	StatusExcluded Status = "excluded"
	// StatusDegraded: the token budget rendered a cheaper view (a row
	// status only).
	StatusDegraded Status = "degraded"
	// StatusFallback: the view is not supported for the file, so its
	// summary was shown (a row status only).
	StatusFallback Status = "fallback"
)

// Measured is a text's sizes plus its BLAKE3 hash ([measure.Hash]).
type Measured struct {
	measure.Sizes
	Hash string `json:"hash"`
}

func measured(b []byte, est measure.Estimator) Measured {
	return Measured{Sizes: measure.Measure(b, est), Hash: measure.Hash(b)}
}

// Item is one file after resolution, reading and rendering: what ctx gave
// the agent for that file and where it came from.
type Item struct {
	// Path is the label: the path relative to the base directory with
	// forward slashes (never a host path). For an entry that matched
	// nothing it is the entry as written.
	Path string `json:"path"`
	// Entry is the files entry (path or glob) that produced the item.
	Entry string `json:"entry"`
	// ViewMode is the view actually rendered; RequestedViewMode is the view
	// asked for by the entry, the strategy or the focus rules.
	ViewMode          ViewMode `json:"view_mode"`
	RequestedViewMode ViewMode `json:"requested_view_mode"`
	// Language is the codeview language, else the fence language.
	Language string `json:"language"`
	// Status is ok, error, binary or omitted (left out by the token
	// budget).
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`
	// Fallback says why ViewMode differs from RequestedViewMode when the
	// view is not supported for the file.
	Fallback string `json:"fallback,omitempty"`
	// Degraded says what the token budget did to the item, "" when it left
	// it alone: the views from RequestedViewMode on and the limit behind each
	// step, as "full → skeleton → omitted (max_tokens 4000)".
	Degraded string `json:"degraded,omitempty"`
	// Truncated says what a limit of the view left out, "" when none did:
	// symbols nested deeper than codeview.MaxDepth, or a view longer than
	// codeview.MaxOutputBytes (the view's text ends with a line saying so).
	Truncated string `json:"truncated,omitempty"`
	// AutoAggregate is false for items kept out of the markdown.
	AutoAggregate bool `json:"auto_aggregate"`
	ForceFull     bool `json:"force_full,omitempty"`
	Tier          int  `json:"tier,omitempty"`
	Focus         bool `json:"focus,omitempty"`
	// Header is the block heading, "### `{label}`" plus an optional suffix.
	Header string `json:"header"`
	// Content is the view's text as a runtime would embed it, without the
	// markdown heading and fence: the file's text for the full view, the
	// skeleton, the outline, the summary, the custom slices, or "ERROR: ..."
	// for an error item. [Item.Block] adds the heading and, where the view
	// has one, the fence.
	Content string `json:"content"`
	// Source measures the file's bytes (zero for missing files).
	Source Measured `json:"source"`
	// Emitted measures the markdown block ([Item.Block]: Header, a blank
	// line and the fenced Content) as it appears in the document, not
	// Content alone; zero when the item is not aggregated.
	Emitted Measured `json:"emitted"`
	// RealPath is the file's real path when it lies outside the project
	// (in a directory of Options.AllowOutside): the audit reports it;
	// "" for a file in the project.
	RealPath string `json:"real_path,omitempty"`
	// Redacted lists the credentials replaced in the file's text before its
	// view was made (Options.Redact); nil when none were.
	Redacted *Redaction `json:"redacted,omitempty"`
	// Secrets are the credentials Options.Scan found in the file's text
	// that its view still holds (a summary or skeleton that drops the
	// line holding a secret does not send it): the rule, line and column
	// of each in the file, never the secret; nil when none were (or the
	// file was not scanned).
	Secrets []secrets.Finding `json:"secrets,omitempty"`
	// MTime is the file's modification time; zero for missing files.
	MTime time.Time `json:"mtime,omitzero"`
	// Slices reports the resolution of every custom slice.
	Slices []slice.Result `json:"slices,omitempty"`

	fence string       // the info string of Content's fence; "" for none
	file  FileItem     // the settings in effect
	abs   string       // host path, never printed
	steps []budgetStep // what the token budget did

	// under a token budget: the view's text was let go (Content is "") and
	// is rendered again, or taken from the cache, when it is written
	dropped bool
	// under a token budget: the redacted text, which cannot be read again
	redacted []byte
	// under a token budget: the file was read and rendered, so the budget
	// may give it another view
	rendered bool
	// the credentials the scan found in the file's text, whatever its view
	// (Secrets are those the view holds)
	found []secrets.Finding
	// under a token budget: the cheaper views, once computed
	ladder *ladderViews
	// under max_tokens: what the block costs in the document
	cost segCost
	// omitted, and counted rather than named in the list of what the
	// budget left out (the names did not fit)
	unlisted bool
}

// Block returns the item's markdown block, or "" when it is not aggregated
// (auto_aggregate = false, or omitted by the token budget): the heading, a
// blank line and the body, which is Content in a code fence for the views
// that have one (full, skeleton, outline, masked, custom, errors) and
// Content as it is for the others (summary, none, binary).
func (it *Item) Block() string {
	if !it.AutoAggregate || it.Status == StatusOmitted {
		return ""
	}
	return it.Header + "\n\n" + it.body()
}

func (it *Item) body() string {
	if it.fence == "" {
		return it.Content
	}
	return mdtext.Fence(it.fence, it.Content)
}

// appendBlock appends [Item.Block] to dst, or nothing when the item has
// no block.
func (it *Item) appendBlock(dst []byte) []byte {
	if !it.AutoAggregate || it.Status == StatusOmitted {
		return dst
	}
	dst = append(dst, it.Header...)
	dst = append(dst, "\n\n"...)
	if it.fence == "" {
		return append(dst, it.Content...)
	}
	return mdtext.AppendFence(dst, it.fence, it.Content)
}

// RowStatus is the status of the item's row in a manifest, the first that
// applies: error, excluded (auto_aggregate = false), binary, omitted,
// degraded (by the token budget), fallback (an unsupported view shown as a
// summary), ok.
func (it *Item) RowStatus() Status {
	switch {
	case it.Status == StatusError:
		return StatusError
	case !it.AutoAggregate:
		return StatusExcluded
	case it.Status == StatusBinary:
		return StatusBinary
	case it.Status == StatusOmitted:
		return StatusOmitted
	case it.Degraded != "":
		return StatusDegraded
	case it.Fallback != "":
		return StatusFallback
	}
	return StatusOK
}

// MarshalJSON writes the item's fields and "row_status", the status of its
// manifest row ([Item.RowStatus]): "status" says what became of the file
// (ok, error, binary, omitted), "row_status" what the manifest and the
// summary count it as (excluded for auto_aggregate = false, degraded,
// fallback), so that `ctx aggregate --format json` and `ctx manifest` agree.
func (it Item) MarshalJSON() ([]byte, error) {
	type plain Item
	return jsonenc.Compact(struct {
		plain
		RowStatus Status `json:"row_status"`
	}{plain(it), it.RowStatus()})
}

// Settings returns the FileItem settings the item was built with (Path is
// the entry).
func (it *Item) Settings() FileItem { return it.file }
