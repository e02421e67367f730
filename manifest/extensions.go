package manifest

import (
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/measure"
)

// Sections, files and history extend schema_version 1 compatibly: they are
// optional fields that older readers of version 1 never saw, and a manifest
// without them is exactly the original format.

// SectionID names a [Section].
type SectionID string

// Section ids, in rendering order: the files section holds the
// screenshots too.
const (
	SectionFiles   SectionID = "files"
	SectionBeads   SectionID = "beads"
	SectionHistory SectionID = "history"
)

// oldSectionHistory is the id SectionHistory had before. A manifest
// written with it is read as SectionHistory (see [Decode]), so that
// comparing it with a new one shows no change of name.
const oldSectionHistory SectionID = "discussion_history"

// renameOld gives the sections and redactions of a decoded manifest the
// ids of this version: oldSectionHistory becomes SectionHistory.
func renameOld(m *Manifest) {
	for i := range m.Sections {
		if m.Sections[i].ID == oldSectionHistory {
			m.Sections[i].ID = SectionHistory
		}
	}
	for i := range m.Redactions {
		if m.Redactions[i].ID == string(oldSectionHistory) {
			m.Redactions[i].ID = string(SectionHistory)
		}
	}
}

// Section is a block of rendered text that follows the instruction
// fragments: the aggregated files (with screenshots) first, the chat
// history last, so that the static prefix stays the same across turns.
type Section struct {
	ID     SectionID `json:"id"`
	Text   string    `json:"text"`
	Bytes  int       `json:"bytes"`
	Chars  int       `json:"chars"`
	Lines  int       `json:"lines"`
	Tokens int       `json:"tokens"`
	Hash   string    `json:"hash"`
}

// FileKind tells a screenshot row from a project file's.
type FileKind string

// FileKindScreenshot is the kind of a screenshot row; a project file's row
// has the kind "".
const FileKindScreenshot FileKind = "screenshot"

// FileRow records one aggregated project file: what was asked for, what was
// read, the view that was emitted and its sizes and hashes.
type FileRow struct {
	// Kind is "" for a project file and "screenshot" for an image the
	// section links to (its bytes are hashed, never inlined).
	Kind  FileKind `json:"kind,omitempty"`
	Entry string   `json:"entry"`
	Path  string   `json:"path"`
	// RealPath is the file's real path when it lies outside the project
	// directory (allowed by Options.AllowOutside); absent otherwise. The
	// audit reports it as outside_project.
	RealPath string             `json:"real_path,omitempty"`
	ViewMode aggregate.ViewMode `json:"view_mode"`
	// RequestedViewMode is the view asked for, when it differs from
	// ViewMode (a fallback or the token budget).
	RequestedViewMode aggregate.ViewMode `json:"requested_view_mode,omitempty"`
	Language          string             `json:"language"`
	// Status is "ok", "error", "binary", "excluded" (auto_aggregate false),
	// "omitted" (left out by the token budget), "degraded" (a cheaper view
	// chosen by the token budget) or "fallback" (the view fell back to a
	// summary): see aggregate.Item.RowStatus.
	Status   aggregate.Status `json:"status"`
	Error    string           `json:"error"`
	Fallback string           `json:"fallback"`
	// Degraded records the token budget's steps and limits, as
	// "full → skeleton (max_tokens 4000)"; "" when it left the file alone.
	Degraded string `json:"degraded,omitempty"`
	// Truncated says what a limit of the view left out (nesting deeper than
	// the outline lists, a view over its size limit): see
	// aggregate.Item.Truncated; "" when none did.
	Truncated string `json:"truncated,omitempty"`

	SourceBytes  *int    `json:"source_bytes"`
	SourceChars  *int    `json:"source_chars"`
	SourceLines  *int    `json:"source_lines"`
	SourceTokens *int    `json:"source_tokens"`
	SourceHash   *string `json:"source_hash"`

	EmittedBytes  int    `json:"emitted_bytes"`
	EmittedChars  int    `json:"emitted_chars"`
	EmittedLines  int    `json:"emitted_lines"`
	EmittedTokens int    `json:"emitted_tokens"`
	EmittedHash   string `json:"emitted_hash"`

	Slices []SliceRow `json:"slices,omitempty"`
}

// SliceRow records one custom slice and how it was found again.
type SliceRow struct {
	Tag        string           `json:"tag"`
	Comment    string           `json:"comment"`
	StartLine  int              `json:"start_line"`
	EndLine    int              `json:"end_line"`
	Resolution slice.Resolution `json:"resolution"`
	// NewStartLine and NewEndLine are where the slice was found; 0 when orphaned.
	NewStartLine int    `json:"new_start_line"`
	NewEndLine   int    `json:"new_end_line"`
	ContentHash  string `json:"content_hash"`
	// PinAlgorithm is the algorithm of the slice's content_hash in
	// ctx.toml: "blake3" (ctx slice add) or "sha256" (Manual Slop); absent
	// for an unpinned slice, or when the text changed and ctx.toml does
	// not say.
	PinAlgorithm string `json:"pin_algorithm,omitempty"`
}

// Beads records the Beads store read for the Beads section
// (execution_mode = "beads").
type Beads struct {
	// File is the store read, or the place it was looked for when there is
	// none (beads_path as configured, or .beads).
	File string `json:"file"`
	// SourceHash is the BLAKE3 of the store's bytes; null when there is no
	// store.
	SourceHash *string `json:"source_hash"`
	// Completed and Active count the beads: status closed, and the rest
	// (deleted ones are not counted).
	Completed int `json:"completed"`
	Active    int `json:"active"`
	// Hash is the BLAKE3 of the section text ("" when there is no
	// section).
	Hash string `json:"hash"`
}

// History records the chat history that was rendered last.
type History struct {
	// File is the history file as configured (HistoryOptions.Name).
	File         string                     `json:"file"`
	SourceHash   string                     `json:"source_hash"`
	MessagesIn   int                        `json:"messages_in"`
	MessagesOut  int                        `json:"messages_out"`
	TokensBefore int                        `json:"tokens_before"`
	TokensAfter  int                        `json:"tokens_after"`
	Dropped      map[history.DropReason]int `json:"dropped"`
	Stubbed      int                        `json:"stubbed"`
	// Hash is the BLAKE3 of the rendered section text.
	Hash string `json:"hash"`
	// Unread lists the attachments of the messages sent whose content
	// could not be read: missing, empty, or refused by the resolver (a
	// key that leads out of the attachments directory, a special file);
	// absent when every one was read.
	Unread []UnreadAttachment `json:"unread_attachments,omitempty"`

	redactions []Redaction // what HistoryOptions.Options.Redact replaced
}

// UnreadAttachment is an attachment whose content was not sent.
type UnreadAttachment struct {
	MessageID string                   `json:"message_id"`
	Name      string                   `json:"name"`
	Key       string                   `json:"key"`
	Status    history.AttachmentStatus `json:"status"`
	Error     string                   `json:"error,omitempty"`
}

// NewSection measures text and returns it as a section (est nil uses
// measure.Default()).
func NewSection(id SectionID, text string, est measure.Estimator) Section {
	b := []byte(text) // one copy for both (a files section may be 100 MB)
	z := measure.Measure(b, est)
	return Section{ID: id, Text: text, Bytes: z.Bytes, Chars: z.Chars, Lines: z.Lines, Tokens: z.Tokens, Hash: measure.Sum(b).String()}
}

// FileBlock is the text of one aggregated file's block in the files
// section: what aggregate.Item.Block returned for it.
type FileBlock struct {
	// Row is the index of the file's row in Manifest.Files.
	Row int
	// Offset is the byte offset of the block in the section's text.
	Offset int
	Text   string
}

// FileBlocks finds the block of every project file row with emitted text
// in the files section, in order, by the rows' emitted sizes and hashes:
// the section is "## {title}\n\n" and the blocks joined by
// aggregate.Separator. ok is false when the section does not hold the
// blocks as the rows record them (the blocks found until then are
// returned); a manifest without files has none, and ok.
func (m *Manifest) FileBlocks() (blocks []FileBlock, ok bool) {
	var text string
	found := false
	for _, s := range m.Sections {
		if s.ID == SectionFiles {
			text, found = s.Text, true
			break
		}
	}
	off := -1
	for i, r := range m.Files {
		if r.Kind != "" || r.EmittedBytes == 0 {
			continue
		}
		if !found {
			return blocks, false
		}
		if off < 0 {
			nl := strings.Index(text, "\n\n")
			if !strings.HasPrefix(text, "## ") || nl < 0 {
				return blocks, false
			}
			off = nl + 2
		} else {
			if !strings.HasPrefix(text[off:], aggregate.Separator) {
				return blocks, false
			}
			off += len(aggregate.Separator)
		}
		end := off + r.EmittedBytes
		if end > len(text) || measure.Hash([]byte(text[off:end])) != r.EmittedHash {
			return blocks, false
		}
		blocks = append(blocks, FileBlock{Row: i, Offset: off, Text: text[off:end]})
		off = end
	}
	return blocks, true
}
