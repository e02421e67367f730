package history

import (
	"errors"
	"fmt"

	"github.com/ctxaudit/ctx/secrets"

	"github.com/ctxaudit/ctx/measure"
)

// ToolCleanupMode says what happens to old tool results.
type ToolCleanupMode string

// The tool cleanup modes. The empty mode is CleanupNone.
const (
	// CleanupNone keeps every tool call and result intact.
	CleanupNone ToolCleanupMode = "none"
	// CleanupStubOldResults keeps the calls but replaces the results older
	// than the last KeepToolCallRounds rounds with a small stub.
	CleanupStubOldResults ToolCleanupMode = "stub-old-results"
	// CleanupAuto measures the selected messages ([Pressure], with
	// Options.Pressure) and stubs old results when the original would:
	// at or above 80% of the compaction threshold. The report records the
	// assessment and the mode applied.
	CleanupAuto ToolCleanupMode = "auto"
)

// DefaultKeepToolCallRounds is the number of recent rounds whose tool results
// stay intact when KeepToolCallRounds is nil.
const DefaultKeepToolCallRounds = 2

// DefaultReadConcurrency is the number of attachments read at once when
// ReadConcurrency is 0.
const DefaultReadConcurrency = 4

// unlimitedCount is JavaScript's Number.MAX_SAFE_INTEGER: the original
// treats a message limit at or above it as no limit.
const unlimitedCount = 1<<53 - 1

// Errors for invalid options. Build and SelectContextMessages wrap them with
// the offending value.
var (
	// ErrNegativeLimit means a count or budget option was negative.
	ErrNegativeLimit = errors.New("limit must not be negative")
	// ErrTokenBudget means MaxContextTokens is smaller than what can never
	// be dropped: the pinned messages and the last message.
	ErrTokenBudget = errors.New("token budget too small")
)

// Options configure [Build]. The zero value reproduces the original with
// no tool cleanup.
type Options struct {
	// AttachmentResolver reads attachment content by storage key. Nil means
	// no attachment can be read (all are missing); it is never called in
	// SandboxMode.
	AttachmentResolver AttachmentResolver

	// MaxContextMessageCount limits the history to the most recent N
	// messages plus the current input, in the original's sticky chunks.
	// The zero Limit is no limit (as are values of 2^53-1 or more).
	MaxContextMessageCount measure.Limit

	// CompactionPoints are the history's compaction points; the latest one
	// whose summary and boundary are both present applies.
	CompactionPoints []CompactionPoint

	// ToolCleanupMode is CleanupNone (also for ""), CleanupStubOldResults
	// or CleanupAuto.
	ToolCleanupMode ToolCleanupMode

	// Pressure configures CleanupAuto; its zero value is the original's
	// defaults (a 128,000-token window, threshold 0.6). The estimator is
	// Options.Estimator.
	Pressure PressureOptions

	// KeepToolCallRounds is the number of recent rounds kept intact by
	// CleanupStubOldResults. Nil means DefaultKeepToolCallRounds (2); 0
	// stubs every result.
	KeepToolCallRounds *int

	// PreserveToolCallMessageIDs lists messages whose tool results are never
	// stubbed.
	PreserveToolCallMessageIDs []string

	// ModelSupportToolUseForFile says the model can read files with tools:
	// attachments over 500 lines are cut to their first 100 lines, and files
	// with only a local path get a tool-only block.
	ModelSupportToolUseForFile bool

	// SandboxMode injects attachment metadata (sandbox paths) instead of
	// content; the resolver is not called and links are not injected.
	SandboxMode bool

	// Estimator counts tokens for the report and MaxContextTokens. Nil means
	// measure.Default().
	Estimator measure.Estimator

	// ReadConcurrency bounds the attachment reads in flight. 0 means
	// DefaultReadConcurrency.
	ReadConcurrency int

	// The fixes for the original's known weak points. Each is off by
	// default (the original's behaviour) except where noted; see the package
	// documentation, "Fixes".

	// MaxContextTokens drops the oldest messages (never the pinned ones
	// nor the last) until the estimate of the built output is at most this
	// many tokens. The zero Limit is no budget.
	MaxContextTokens measure.Limit

	// PinSummary keeps the compaction summary when the message limit or the
	// token budget drops history, like the leading system message.
	PinSummary bool

	// CutAtRoundBoundary makes the message limit and the token budget start
	// the kept history at a user message, so no round is cut in half.
	CutAtRoundBoundary bool

	// LegacyNegativeLimits restores the original's handling of negative
	// values: a negative MaxContextMessageCount drops every message but the
	// system head, a negative KeepToolCallRounds disables stubbing. By
	// default negative values are rejected with ErrNegativeLimit.
	LegacyNegativeLimits bool

	// NoLargerStubs keeps a tool result when its stub would not be smaller.
	NoLargerStubs bool

	// MaxErrorResultChars bounds every error-state tool result to a
	// preview of this many characters (UTF-16 units, like the args
	// preview). The zero Limit keeps error results whole; Max(0) leaves
	// an empty preview and the note.
	MaxErrorResultChars measure.Limit

	// KeepCurrentTurn never stubs the results from the last user message
	// on, even with KeepToolCallRounds 0.
	KeepCurrentTurn bool

	// AttachmentAsOwnPart appends the attachment blocks as a new text part
	// at the end of the message, leaving every other part in place. The
	// original merges them into the first text part, moves the non-text
	// parts before it and drops the other text parts.
	AttachmentAsOwnPart bool

	// EscapeEnvelope XML-escapes FILE_NAME and FILE_KEY and neutralises the
	// envelope's own tags inside attachment content ("<" becomes "&lt;"
	// before ATTACHMENT_FILE, FILE_CONTENT and the other envelope tag
	// names), so a file cannot close its envelope or forge a block.
	EscapeEnvelope bool

	// FileSizeInBytes reports FILE_SIZE in UTF-8 bytes. The original counts
	// UTF-16 code units but labels them bytes.
	FileSizeInBytes bool

	// MaxInlineBytes cuts attachment content to at most this many UTF-8
	// bytes (at a character boundary), with a TRUNCATED note, whether or
	// not the model can use tools. The zero Limit is no byte cap; Max(0)
	// leaves only the note. It bounds what is sent, so it is a Limit, not
	// a safety cap: the resolver's own cap bounds what is read.
	MaxInlineBytes measure.Limit

	// MarkMissingAttachments leaves a visible block for an attachment that
	// could not be read (missing, empty or failed), instead of dropping it.
	MarkMissingAttachments bool

	// Redact, when not nil, replaces every credential it finds with
	// "[REDACTED:rule]" in the messages kept (text, reasoning, OCR
	// results, tool arguments and results) before they are cleaned up and
	// cut, and in attachment contents before they are injected;
	// Report.Redactions records them.
	Redact secrets.Scanner
}

// Rounds returns a pointer to n, for KeepToolCallRounds.
func Rounds(n int) *int { return &n }

// WithFixes returns o with every fix of the original's weak points turned
// on: PinSummary, CutAtRoundBoundary, NoLargerStubs, MaxErrorResultChars
// Max(2000), KeepCurrentTurn, AttachmentAsOwnPart, EscapeEnvelope,
// FileSizeInBytes, MaxInlineBytes Max(256 KiB) and MarkMissingAttachments. The
// token budget, MaxContextTokens, is left as it is.
func (o Options) WithFixes() Options {
	o.PinSummary = true
	o.CutAtRoundBoundary = true
	o.LegacyNegativeLimits = false
	o.NoLargerStubs = true
	o.MaxErrorResultChars = measure.Max(2000)
	o.KeepCurrentTurn = true
	o.AttachmentAsOwnPart = true
	o.EscapeEnvelope = true
	o.FileSizeInBytes = true
	o.MaxInlineBytes = measure.Max(256 << 10)
	o.MarkMissingAttachments = true
	return o
}

// estimator returns the configured estimator or measure.Default().
func (o Options) estimator() measure.Estimator {
	if o.Estimator != nil {
		return o.Estimator
	}
	return measure.Default()
}

// keepRounds returns KeepToolCallRounds or its default.
func (o Options) keepRounds() int {
	if o.KeepToolCallRounds == nil {
		return DefaultKeepToolCallRounds
	}
	return *o.KeepToolCallRounds
}

// validateSelection checks the options steps 1-3 use.
func (o Options) validateSelection() error {
	if o.MaxContextMessageCount.Negative() && !o.LegacyNegativeLimits {
		return fmt.Errorf("invalid MaxContextMessageCount %s: %w", o.MaxContextMessageCount, ErrNegativeLimit)
	}
	return nil
}

// validate checks every option.
func (o Options) validate() error {
	if err := o.validateSelection(); err != nil {
		return err
	}
	switch o.ToolCleanupMode {
	case "", CleanupNone, CleanupStubOldResults, CleanupAuto:
	default:
		return fmt.Errorf("unknown tool cleanup mode %q (want none, stub-old-results or auto)", string(o.ToolCleanupMode))
	}
	if o.MaxContextTokens.Negative() {
		return fmt.Errorf("invalid MaxContextTokens %s: %w", o.MaxContextTokens, ErrNegativeLimit)
	}
	if k := o.keepRounds(); k < 0 && !o.LegacyNegativeLimits {
		return fmt.Errorf("invalid KeepToolCallRounds %d: %w", k, ErrNegativeLimit)
	}
	for _, c := range []struct {
		name string
		l    measure.Limit
	}{
		{"MaxErrorResultChars", o.MaxErrorResultChars},
		{"MaxInlineBytes", o.MaxInlineBytes},
	} {
		if c.l.Negative() {
			return fmt.Errorf("invalid %s %s: %w", c.name, c.l, ErrNegativeLimit)
		}
	}
	if o.ReadConcurrency < 0 {
		return fmt.Errorf("invalid ReadConcurrency %d: %w", o.ReadConcurrency, ErrNegativeLimit)
	}
	return nil
}
