package history

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxaudit/ctx/measure"
)

// Result is what [Build] returns: the messages to send and a report of how
// they were chosen.
type Result struct {
	// Messages are the messages to send, deep copies of the input's.
	Messages []Message `json:"messages"`
	// Report says how they were chosen.
	Report Report `json:"report"`
}

// Report says what Build did. Slices are never nil, so the JSON form always
// has every key; entries follow input order.
type Report struct {
	// Estimator names the token estimator used for the counts.
	Estimator string `json:"estimator"`
	// ToolCleanupMode is the mode that was applied: none or
	// stub-old-results (CleanupAuto applies one of them, see Pressure).
	ToolCleanupMode ToolCleanupMode `json:"toolCleanupMode"`
	// MessagesIn and MessagesOut count the input and output messages.
	MessagesIn  int `json:"messagesIn"`
	MessagesOut int `json:"messagesOut"`
	// TokensBefore estimates every input message as given (no attachment
	// content); TokensAfter estimates the output, attachments included.
	TokensBefore int `json:"tokensBefore"`
	TokensAfter  int `json:"tokensAfter"`
	// Compaction is the compaction point that was applied, if any.
	Compaction *CompactionPoint `json:"compaction,omitempty"`
	// Dropped lists every input message left out, with the reason.
	Dropped []Drop `json:"dropped"`
	// Stubbed lists the tool results replaced by stubs.
	Stubbed []StubbedResult `json:"stubbed"`
	// BoundedErrors lists the error results cut by MaxErrorResultChars.
	BoundedErrors []BoundedError `json:"boundedErrors"`
	// Attachments lists every file and link of the output messages.
	Attachments []AttachmentReport `json:"attachments"`
	// Pressure is the assessment that chose the mode under CleanupAuto;
	// nil otherwise.
	Pressure *PressureAssessment `json:"pressure,omitempty"`
	// Redactions lists the credentials replaced (Options.Redact), in
	// message order then attachments; absent when none were.
	Redactions []Redaction `json:"redactions,omitempty"`
}

// Build prepares messages for a model, as the original's buildContext does:
//
//  1. restore the causal order of steered messages and drop messages that
//     are generating or fork markers;
//  2. apply the latest applicable compaction point and drop error messages;
//  3. apply the message count limit;
//  4. stub old tool results (ToolCleanupMode);
//  5. inject attachments through the AttachmentResolver;
//
// and then, with MaxContextTokens, drop the oldest messages until the
// estimate fits. Build never modifies messages: the output is a deep copy.
// It fails on invalid options, when ctx is done, and with ErrTokenBudget
// when the budget cannot be met.
func Build(ctx context.Context, messages []Message, opts Options) (Result, error) {
	if err := opts.validate(); err != nil {
		return Result{}, err
	}
	est := opts.estimator()
	if opts.ToolCleanupMode == "" {
		opts.ToolCleanupMode = CleanupNone
	}
	rep := Report{
		Estimator:       est.Name(),
		ToolCleanupMode: opts.ToolCleanupMode,
		MessagesIn:      len(messages),
		Dropped:         []Drop{},
		Stubbed:         []StubbedResult{},
		BoundedErrors:   []BoundedError{},
		Attachments:     []AttachmentReport{},
	}
	before, err := tokens(ctx, est, messages)
	if err != nil {
		return Result{}, err
	}
	rep.TokensBefore = before

	sel, err := selectIndices(ctx, messages, opts)
	if err != nil {
		return Result{}, err
	}
	rep.Compaction = sel.compaction
	rep.Dropped = append(rep.Dropped, sel.drops...)

	out := make([]Message, len(sel.idx))
	for i, j := range sel.idx {
		out[i] = messages[j].Clone()
	}
	if opts.Redact != nil {
		if err := redactMessages(ctx, opts.Redact, out, &rep); err != nil {
			return Result{}, err
		}
	}
	if opts.ToolCleanupMode == CleanupAuto {
		po := opts.Pressure
		po.Estimator = est
		a, err := Pressure(ctx, out, po)
		if err != nil {
			return Result{}, err
		}
		rep.Pressure = &a
		opts.ToolCleanupMode = a.Level.ToolCleanupMode()
		rep.ToolCleanupMode = opts.ToolCleanupMode
	}
	if err := applyToolCleanup(ctx, out, opts, &rep); err != nil {
		return Result{}, err
	}
	if err := injectAttachments(ctx, out, opts, &rep); err != nil {
		return Result{}, err
	}
	if opts.MaxContextTokens.IsSet() {
		out, err = applyTokenBudget(ctx, messages, out, sel, opts, &rep)
		if err != nil {
			return Result{}, err
		}
	}
	after, err := tokens(ctx, est, out)
	if err != nil {
		return Result{}, err
	}
	rep.TokensAfter = after
	rep.MessagesOut = len(out)
	return Result{Messages: out, Report: rep}, nil
}

// applyTokenBudget drops the oldest messages of out that are neither pinned
// nor last until the estimate is at most the budget; with CutAtRoundBoundary
// it goes on until the first unpinned message is a user message.
func applyTokenBudget(ctx context.Context, in, out []Message, sel selection, o Options, rep *Report) ([]Message, error) {
	est := o.estimator()
	per := make([]int, len(out))
	total := 0
	for i := range out {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		per[i] = MessageTokens(est, out[i])
		total += per[i]
	}
	budget := o.MaxContextTokens.Int(0)
	if total <= budget {
		return out, nil
	}
	head := pinnedHead(in, sel.idx, o, sel.summary)
	// Droppable: out[head : len(out)-1].
	n := head
	last := len(out) - 1
	for n < last && total > budget {
		total -= per[n]
		n++
	}
	if o.CutAtRoundBoundary {
		for n < last && out[n].Role != RoleUser {
			total -= per[n]
			n++
		}
	}
	if total > budget {
		return nil, fmt.Errorf("%w: %d tokens cannot be dropped (pinned messages and the last message), budget %d",
			ErrTokenBudget, total, budget)
	}
	var drops []Drop
	for k := head; k < n; k++ {
		j := sel.idx[k]
		drops = append(drops, Drop{Index: j, ID: in[j].ID, Reason: DropOverTokenBudget})
	}
	rep.Dropped = append(rep.Dropped, drops...)
	sortDrops(rep.Dropped)
	kept := append(out[:head:head], out[n:]...)
	// Forget what was reported about the dropped messages.
	gone := func(pos int) bool { return pos >= head && pos < n }
	rep.Attachments = slices.DeleteFunc(rep.Attachments, func(a AttachmentReport) bool { return gone(a.pos) })
	rep.Stubbed = slices.DeleteFunc(rep.Stubbed, func(s StubbedResult) bool { return gone(s.pos) })
	rep.BoundedErrors = slices.DeleteFunc(rep.BoundedErrors, func(b BoundedError) bool { return gone(b.pos) })
	return kept, nil
}

// MessageText returns the text of m that ctx counts as sent to the model,
// one piece per line: text and reasoning parts as they are, an image's OCR
// result, and a tool call as its name, then its args and result as compact
// JSON. Info parts and unknown part types are not sent and not counted.
func MessageText(m Message) string {
	var pieces []string
	for _, p := range m.ContentParts {
		switch p.Type {
		case PartText, PartReasoning:
			pieces = append(pieces, p.Text)
		case PartImage:
			if p.OCRResult != "" {
				pieces = append(pieces, p.OCRResult)
			}
		case PartToolCall:
			pieces = append(pieces, p.ToolName)
			if len(p.Args) > 0 {
				pieces = append(pieces, compactString(p.Args))
			}
			if len(p.Result) > 0 {
				pieces = append(pieces, compactString(p.Result))
			}
		}
	}
	return strings.Join(pieces, "\n")
}

// MessageTokens estimates the tokens of MessageText(m) with est (nil means
// measure.Default()).
func MessageTokens(est measure.Estimator, m Message) int {
	if est == nil {
		est = measure.Default()
	}
	return est.Tokens([]byte(MessageText(m)))
}

// tokens sums MessageTokens over msgs.
func tokens(ctx context.Context, est measure.Estimator, msgs []Message) (int, error) {
	n := 0
	for i := range msgs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		n += MessageTokens(est, msgs[i])
	}
	return n, nil
}

// compactString returns raw as compact JSON text.
func compactString(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
