package aggregate

import (
	"fmt"
	"time"

	"github.com/ctxaudit/ctx/measure"
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
	ASTMask map[string]string `json:"ast_mask,omitempty"`
	// CustomSlices are the line ranges shown by the custom view.
	CustomSlices []Slice `json:"custom_slices,omitempty"`
	// ASTSignatures and ASTDefinitions give the masked view a default for
	// every top-level symbol that ASTMask does not name: its signature, or
	// its whole definition (definitions win when both are set). They have no
	// effect in the other views.
	ASTSignatures  bool `json:"ast_signatures,omitempty"`
	ASTDefinitions bool `json:"ast_definitions,omitempty"`
}

// Status values of an [Item].
const (
	StatusOK     = "ok"
	StatusError  = "error"
	StatusBinary = "binary"
)

// Measured is a text's sizes plus its BLAKE3 hash ([measure.Hash]).
type Measured struct {
	measure.Sizes
	Hash string `json:"hash"`
}

func measured(b []byte) Measured {
	return Measured{Sizes: measure.Measure(b, nil), Hash: measure.Hash(b)}
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
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Fallback says why ViewMode differs from RequestedViewMode when the
	// view is not supported for the file.
	Fallback string `json:"fallback,omitempty"`
	// Degraded says what the token budget did to the item, "" when it left
	// it alone: the views from RequestedViewMode on and the limit behind each
	// step, as "full → skeleton → omitted (max_tokens 4000)".
	Degraded string `json:"degraded,omitempty"`
	// AutoAggregate is false for items kept out of the markdown.
	AutoAggregate bool `json:"auto_aggregate"`
	ForceFull     bool `json:"force_full,omitempty"`
	Tier          int  `json:"tier,omitempty"`
	Focus         bool `json:"focus,omitempty"`
	// Header is the block heading, "### `{label}`" plus an optional suffix.
	Header string `json:"header"`
	// Content is the block body rendered under Header.
	Content string `json:"content"`
	// Source measures the file's bytes (zero for missing files).
	Source Measured `json:"source"`
	// Emitted measures the block (Header, "\n\n", Content) as it appears in
	// the markdown; zero when the item is not aggregated.
	Emitted Measured `json:"emitted"`
	// MTime is the file's modification time; zero for missing files.
	MTime time.Time `json:"mtime,omitzero"`
	// Slices reports the resolution of every custom slice.
	Slices []SliceResult `json:"slices,omitempty"`

	file  FileItem     // the settings in effect
	abs   string       // host path, never printed
	src   []byte       // the bytes read, kept while a token budget applies
	steps []budgetStep // what the token budget did
}

// Block returns the item's markdown block, or "" when it is not aggregated
// (auto_aggregate = false, or omitted by the token budget).
func (it *Item) Block() string {
	if !it.AutoAggregate || it.Status == StatusOmitted {
		return ""
	}
	return it.Header + "\n\n" + it.Content
}

// Settings returns the FileItem settings the item was built with (Path is
// the entry).
func (it *Item) Settings() FileItem { return it.file }
