package config

import (
	"fmt"
	"math"

	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/measure"
)

// History is the [history] table: the chat history that ctx render
// appends last, built as `ctx history` builds it. Every key but history is
// optional; nil pointers, empty strings and the zero Limit are absent keys,
// which keep the command's defaults.
//
// The keys mirror the flags of ctx history, with underscores for dashes
// (max_messages is --max-messages), so that [History.Check] can name
// either.
//
// The table was [discussion] before; a file that still says so is read
// the same, with a warning ([Config.Warnings]), and Table records which
// name it used, so that errors name the key as the file spells it.
type History struct {
	// Table is the table's name in the file: "history", or "discussion"
	// (the old name).
	Table string
	// Line is the line of the table's header; HistoryLine and
	// AttachmentsLine those of its history and attachments keys (0 when
	// absent).
	Line, HistoryLine, AttachmentsLine int
	// History is the history file, a {"messages": [...],
	// "compactionPoints": [...]} document, relative to the project
	// directory. Required.
	History string

	// MaxMessages is max_messages, the original's message limit: the zero
	// Limit (the key left out, or inf) is none, Max(0) keeps only the
	// current input.
	MaxMessages measure.Limit
	// MaxTokens is max_tokens, the token budget of the messages kept: 1
	// or more in the file, the zero Limit (left out, or inf) for none.
	MaxTokens measure.Limit
	// ToolCleanup is none, stub-old-results or auto; "" when absent
	// (none).
	ToolCleanup   history.ToolCleanupMode
	ContextWindow *int
	Threshold     *float64
	// KeepToolRounds is keep_tool_rounds.
	KeepToolRounds *int
	// Preserve lists message ids whose tool results are never stubbed.
	Preserve []string
	// Attachments is the directory of attachment files, relative to the
	// project directory.
	Attachments *string
	Sandbox     bool
	// ToolUseForFiles is tool_use_for_files.
	ToolUseForFiles bool

	// Fixes turns every fix of the original's weak points on; the
	// individual keys below, when present, override it.
	Fixes                  bool
	PinSummary             *bool
	CutAtRoundBoundary     *bool
	NoLargerStubs          *bool
	KeepCurrentTurn        *bool
	AttachmentAsOwnPart    *bool
	EscapeEnvelope         *bool
	FileSizeInBytes        *bool
	MarkMissingAttachments *bool
	// MaxErrorResultChars and MaxInlineBytes are max_error_result_chars
	// and max_inline_bytes: nil keeps the default (none, or the fixes'
	// bound with fixes), the zero Limit turns the bound off (0 or inf in
	// the file), Max(n) bounds at n.
	MaxErrorResultChars *measure.Limit
	MaxInlineBytes      *measure.Limit
}

// toolCleanupModes are the valid values of tool_cleanup.
func toolCleanupModes() []string { return []string{"none", "stub-old-results", "auto"} }

// Switch is one boolean fix of [history]: its key, where its value
// goes (nil while unset), and the field of history.Options it sets. One
// list ([History.Switches]) joins the three, so that none is matched to
// another by position.
type Switch struct {
	Key   string
	Value **bool
	Field func(*history.Options) *bool
}

// Switches returns the individual fix switches of d, in documentation
// order.
func (d *History) Switches() []Switch {
	return []Switch{
		{"pin_summary", &d.PinSummary, func(o *history.Options) *bool { return &o.PinSummary }},
		{"cut_at_round_boundary", &d.CutAtRoundBoundary, func(o *history.Options) *bool { return &o.CutAtRoundBoundary }},
		{"no_larger_stubs", &d.NoLargerStubs, func(o *history.Options) *bool { return &o.NoLargerStubs }},
		{"keep_current_turn", &d.KeepCurrentTurn, func(o *history.Options) *bool { return &o.KeepCurrentTurn }},
		{"attachment_as_own_part", &d.AttachmentAsOwnPart, func(o *history.Options) *bool { return &o.AttachmentAsOwnPart }},
		{"escape_envelope", &d.EscapeEnvelope, func(o *history.Options) *bool { return &o.EscapeEnvelope }},
		{"file_size_in_bytes", &d.FileSizeInBytes, func(o *history.Options) *bool { return &o.FileSizeInBytes }},
		{"mark_missing_attachments", &d.MarkMissingAttachments, func(o *history.Options) *bool { return &o.MarkMissingAttachments }},
	}
}

// HistoryBoolKeys returns the boolean keys of [history] that switch a
// single fix, in documentation order (the keys of [History.Switches]).
func HistoryBoolKeys() []string {
	var keys []string
	for _, sw := range new(History).Switches() {
		keys = append(keys, sw.Key)
	}
	return keys
}

// ints returns the keys and pointers of the whole-number options that
// are not limits.
func (d *History) ints() []struct {
	key string
	dst **int
} {
	return []struct {
		key string
		dst **int
	}{{"context_window", &d.ContextWindow}, {"keep_tool_rounds", &d.KeepToolRounds}}
}

// limits returns the keys and values of the limits, nil for the absent
// optional ones.
func (d *History) limits() []struct {
	key string
	l   *measure.Limit
} {
	return []struct {
		key string
		l   *measure.Limit
	}{
		{"max_messages", &d.MaxMessages}, {"max_tokens", &d.MaxTokens},
		{"max_error_result_chars", d.MaxErrorResultChars}, {"max_inline_bytes", d.MaxInlineBytes},
	}
}

// Check validates the option values (not History) and returns the key of
// the first invalid one and what is wrong with it, or "", "". The rules:
// counts and sizes are nonnegative, context_window is positive, threshold
// is a fraction in (0, 1], tool_cleanup is none, stub-old-results or auto, and
// context_window and threshold need tool_cleanup auto. The messages name no
// syntax, so that ctx history can report them for its flags.
func (d *History) Check() (key, msg string) {
	if d.ToolCleanup != "" && !oneOf(string(d.ToolCleanup), toolCleanupModes()) {
		return "tool_cleanup", fmt.Sprintf("must be none, stub-old-results or auto, not %q", d.ToolCleanup)
	}
	for _, kv := range d.limits() {
		if kv.l != nil && kv.l.Negative() {
			return kv.key, fmt.Sprintf("must not be negative, not %s", kv.l)
		}
	}
	for _, kv := range d.ints() {
		if *kv.dst != nil && **kv.dst < 0 {
			return kv.key, fmt.Sprintf("must not be negative, not %d", **kv.dst)
		}
	}
	if d.ContextWindow != nil && *d.ContextWindow == 0 {
		return "context_window", "must be a positive number of tokens, not 0"
	}
	if t := d.Threshold; t != nil && !(*t > 0 && *t <= 1) {
		return "threshold", fmt.Sprintf("must be a fraction in (0, 1], not %v", *t)
	}
	if d.ToolCleanup != history.CleanupAuto {
		if d.ContextWindow != nil {
			return "context_window", "applies only when tool cleanup is auto"
		}
		if d.Threshold != nil {
			return "threshold", "applies only when tool cleanup is auto"
		}
	}
	for i, p := range d.Preserve {
		if isBlank(p) {
			return fmt.Sprintf("preserve[%d]", i), "must not be empty"
		}
	}
	if d.Attachments != nil && isBlank(*d.Attachments) {
		return "attachments", "must not be empty"
	}
	return "", ""
}

// historyTable is the name of the [history] table; oldHistoryTable is
// its old name, still read.
const (
	historyTable    = "history"
	oldHistoryTable = "discussion"
)

// withoutKey returns t without key (t itself when it has none).
func withoutKey(t table, key string) table {
	if !t.Has(key) {
		return t
	}
	m := make(map[string]any, len(t.M))
	for k, v := range t.M {
		if k != key {
			m[k] = v
		}
	}
	t.M = m
	return t
}

// decodeHistory decodes the [history] table, or the same table under its
// old name [discussion] with a warning; both at once is an error.
func decodeHistory(t table, c *Config) error {
	name := historyTable
	if t.Has(oldHistoryTable) {
		line := t.doc.Line(t.Field(oldHistoryTable))
		if t.Has(historyTable) {
			return &Error{File: t.doc.File, Line: line, Msg: "[discussion] and [history] are the same table; keep [history]"}
		}
		name = oldHistoryTable
		c.Warnings = append(c.Warnings, at(t.doc.File, line, "[discussion] is now [history]"))
	}
	dt, ok, err := t.Sub(name)
	if err != nil || !ok {
		return err
	}
	d := &History{Table: name, Line: dt.doc.Line(dt.Path)}
	keys := []string{"history", "max_messages", "max_tokens", "tool_cleanup", "context_window", "threshold",
		"keep_tool_rounds", "preserve", "attachments", "sandbox", "tool_use_for_files", "fixes"}
	keys = append(keys, HistoryBoolKeys()...)
	keys = append(keys, "max_error_result_chars", "max_inline_bytes")
	if err := dt.CheckKeys(keys...); err != nil {
		return err
	}
	h, ok, err := dt.String("history")
	if err != nil {
		return err
	}
	if !ok {
		return t.Errorf(name, "missing history (the history file, such as \"history.json\")")
	}
	if isBlank(h) {
		return dt.Errorf("history", "must not be empty")
	}
	d.History = h
	d.HistoryLine = dt.doc.Line(dt.Field("history"))
	d.AttachmentsLine = dt.doc.Line(dt.Field("attachments"))
	if d.MaxMessages, _, err = limit(dt, "max_messages", 0, wantLimit); err != nil {
		return err
	}
	// a token budget, as in [files]: 1 or more, or inf
	if d.MaxTokens, _, err = limit(dt, "max_tokens", 1, wantTokens); err != nil {
		return err
	}
	for _, kv := range []struct {
		key string
		dst **measure.Limit
	}{{"max_error_result_chars", &d.MaxErrorResultChars}, {"max_inline_bytes", &d.MaxInlineBytes}} {
		l, ok, err := limit(dt, kv.key, 0, wantLimit)
		if err != nil {
			return err
		}
		if ok {
			// 0 has always turned the bound off, as inf does
			l = l.ZeroIsNone()
			*kv.dst = &l
		}
	}
	for _, kv := range d.ints() {
		n, ok, err := dt.Int(kv.key)
		if err != nil {
			return err
		}
		if ok {
			if n > math.MaxInt32 {
				return dt.Errorf(kv.key, "must be at most %d, not %d", math.MaxInt32, n)
			}
			v := int(n)
			*kv.dst = &v
		}
	}
	if s, ok, err := dt.String("tool_cleanup"); err != nil {
		return err
	} else if ok {
		if s == "" {
			return dt.Errorf("tool_cleanup", "must be none, stub-old-results or auto, not \"\"")
		}
		d.ToolCleanup = history.ToolCleanupMode(s)
	}
	if f, ok, err := dt.Number("threshold"); err != nil {
		return err
	} else if ok {
		d.Threshold = &f
	}
	if v, ok := dt.M["preserve"]; ok {
		if _, isArr := v.([]any); !isArr {
			return dt.Errorf("preserve", "must be an array of message ids, not %s", typeName(v))
		}
		if d.Preserve, _, err = dt.Strings("preserve"); err != nil {
			return err
		}
	}
	if s, ok, err := dt.String("attachments"); err != nil {
		return err
	} else if ok {
		d.Attachments = &s
	}
	for _, kv := range []struct {
		key string
		dst *bool
	}{{"sandbox", &d.Sandbox}, {"tool_use_for_files", &d.ToolUseForFiles}, {"fixes", &d.Fixes}} {
		b, _, err := dt.Bool(kv.key)
		if err != nil {
			return err
		}
		*kv.dst = b
	}
	for _, sw := range d.Switches() {
		b, ok, err := dt.Bool(sw.Key)
		if err != nil {
			return err
		}
		if ok {
			*sw.Value = &b
		}
	}
	if key, msg := d.Check(); key != "" {
		return dt.doc.Errorf(dt.Path+"."+key, "%s", msg)
	}
	c.History = d
	return nil
}

// HistoryOptions turns the [history] options (or the flags of ctx
// history, which share these keys) into history.Options, without a
// resolver and compaction points, which come from the files: every fix with
// fixes, then each fix key that is set, the limits, and the cleanup mode
// with its pressure options.
func (d *History) HistoryOptions() history.Options {
	var o history.Options
	if d.Fixes {
		o = o.WithFixes()
	}
	o.MaxContextMessageCount, o.MaxContextTokens = d.MaxMessages, d.MaxTokens
	if d.KeepToolRounds != nil {
		o.KeepToolCallRounds = history.Rounds(*d.KeepToolRounds)
	}
	o.PreserveToolCallMessageIDs = append([]string(nil), d.Preserve...)
	o.SandboxMode = d.Sandbox
	o.ModelSupportToolUseForFile = d.ToolUseForFiles
	for _, sw := range d.Switches() {
		if *sw.Value != nil {
			*sw.Field(&o) = **sw.Value
		}
	}
	if d.MaxErrorResultChars != nil {
		o.MaxErrorResultChars = *d.MaxErrorResultChars
	}
	if d.MaxInlineBytes != nil {
		o.MaxInlineBytes = *d.MaxInlineBytes
	}
	o.ToolCleanupMode = d.ToolCleanup
	if d.ContextWindow != nil {
		o.Pressure.ContextWindow = *d.ContextWindow
	}
	if d.Threshold != nil {
		o.Pressure.CompactionThreshold = *d.Threshold
	}
	return o
}
