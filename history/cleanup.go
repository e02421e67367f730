package history

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/ctxaudit/ctx/measure"
)

// The original's stub notes and limits.
const (
	noteClearedWithKey = "Old tool result cleared to save context space. Use the read_file tool with fullResultFileKey to re-read it if needed."
	noteCleared        = "Old tool result cleared to save context space. Call the tool again if this result is needed."
	noteArgsTruncated  = "Args truncated together with the cleared result."

	stubArgsMaxChars     = 2000
	stubArgsPreviewChars = 500
)

// StubbedResult reports one tool result replaced by a stub (or, with
// NoLargerStubs, one left whole because its stub would not be smaller).
type StubbedResult struct {
	// MessageID is the id of the message holding the call.
	MessageID string `json:"messageId"`
	// ToolCallID is the call's id.
	ToolCallID string `json:"toolCallId"`
	// ToolName is the tool's name.
	ToolName string `json:"toolName"`
	// ResultBytes and StubBytes are the compact JSON sizes of the result
	// before and after.
	ResultBytes int `json:"resultBytes"`
	StubBytes   int `json:"stubBytes"`
	// Kept is true when NoLargerStubs left the result in place.
	Kept bool `json:"kept,omitempty"`
	// ArgsTruncated is true when the args were cut to a preview.
	ArgsTruncated bool `json:"argsTruncated,omitempty"`

	pos int // position of the message in the output, before the token budget
}

// BoundedError reports one error-state tool result cut by
// MaxErrorResultChars.
type BoundedError struct {
	// MessageID is the id of the message holding the call.
	MessageID string `json:"messageId"`
	// ToolCallID is the call's id.
	ToolCallID string `json:"toolCallId"`
	// ToolName is the tool's name.
	ToolName string `json:"toolName"`
	// Chars is the result's length in UTF-16 units before it was cut.
	Chars int `json:"chars"`

	pos int // position of the message in the output, before the token budget
}

// recentRoundsStart is the index of the first message of the rounds-th most
// recent round, counting from the end: an assistant message opens a round,
// the user message before it closes it. It returns len(msgs) for rounds <= 0
// and 0 when there are fewer rounds.
func recentRoundsStart(msgs []Message, rounds int) int {
	if rounds <= 0 {
		return len(msgs)
	}
	count := 0
	inRound := false
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role {
		case RoleAssistant:
			inRound = true
		case RoleUser:
			if inRound {
				count++
				inRound = false
				if count >= rounds {
					return i
				}
			}
		}
	}
	return 0
}

// applyToolCleanup stubs old tool results in msgs, in place (msgs are the
// builder's own copies), and bounds error results.
func applyToolCleanup(ctx context.Context, msgs []Message, o Options, rep *Report) error {
	if o.MaxErrorResultChars.IsSet() {
		for i := range msgs {
			for j := range msgs[i].ContentParts {
				p := &msgs[i].ContentParts[j]
				if p.Type == PartToolCall && p.State == StateError {
					if b, ok := boundErrorResult(p, o.MaxErrorResultChars); ok {
						b.MessageID, b.pos = msgs[i].ID, i
						rep.BoundedErrors = append(rep.BoundedErrors, b)
					}
				}
			}
		}
	}
	keep := o.keepRounds()
	if o.ToolCleanupMode == CleanupNone || len(msgs) == 0 || keep < 0 {
		return nil
	}
	boundary := recentRoundsStart(msgs, keep)
	if o.KeepCurrentTurn {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == RoleUser {
				boundary = min(boundary, i)
				break
			}
		}
	}
	preserve := make(map[string]bool, len(o.PreserveToolCallMessageIDs))
	for _, id := range o.PreserveToolCallMessageIDs {
		preserve[id] = true
	}
	for i := 0; i < boundary; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if preserve[msgs[i].ID] {
			continue
		}
		for j := range msgs[i].ContentParts {
			p := &msgs[i].ContentParts[j]
			if p.Type != PartToolCall || p.State != StateResult {
				continue
			}
			s := stubPart(p, o.NoLargerStubs)
			s.MessageID, s.pos = msgs[i].ID, i
			rep.Stubbed = append(rep.Stubbed, s)
		}
	}
	return nil
}

// stubPart replaces p's result with the original's stub object and cuts
// oversized args to a preview.
func stubPart(p *ContentPart, noLarger bool) StubbedResult {
	var stub bytes.Buffer
	stub.WriteString(`{"_cleared":true,`)
	if p.ResultStorageKey != "" {
		stub.WriteString(`"fullResultFileKey":`)
		stub.WriteString(jsQuote(p.ResultStorageKey))
		stub.WriteString(`,"note":` + jsQuote(noteClearedWithKey) + `}`)
	} else {
		stub.WriteString(`"note":` + jsQuote(noteCleared) + `}`)
	}
	before := compactLen(p.Result)
	r := StubbedResult{ToolCallID: p.ToolCallID, ToolName: p.ToolName, ResultBytes: before, StubBytes: stub.Len()}
	if noLarger && stub.Len() >= before {
		r.Kept = true
		r.StubBytes = before
	} else {
		p.Result = json.RawMessage(stub.Bytes())
		p.ResultStorageKey = ""
	}
	if s, ok := serializedArgs(p.Args); ok && jsLen(s) > stubArgsMaxChars {
		p.Args = json.RawMessage(`{"_cleared":true,"preview":` + jsQuote(jsSlice(s, stubArgsPreviewChars)) +
			`,"note":` + jsQuote(noteArgsTruncated) + `}`)
		r.ArgsTruncated = true
	}
	return r
}

// serializedArgs is the original's serializeArgsLength: nothing for absent
// or null args, the string itself for a JSON string, JSON.stringify
// otherwise.
func serializedArgs(raw json.RawMessage) (string, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return "", false
	}
	if t[0] == '"' {
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return "", false
		}
		return s, true
	}
	s, err := jsStringify(t)
	if err != nil {
		return "", false
	}
	return s, true
}

// boundErrorResult cuts an error result longer than bound UTF-16 units to
// a preview object.
func boundErrorResult(p *ContentPart, bound measure.Limit) (BoundedError, bool) {
	s, ok := serializedArgs(p.Result)
	n := jsLen(s)
	if !ok || !bound.Exceeded(int64(n)) {
		return BoundedError{}, false
	}
	limit := bound.Int(n) // below n, so an int
	p.Result = json.RawMessage(`{"_truncated":true,"preview":` + jsQuote(jsSlice(s, limit)) +
		`,"note":` + jsQuote("Error result truncated to its first "+itoa(limit)+" of "+itoa(n)+" characters.") + `}`)
	return BoundedError{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Chars: n}, true
}

// compactLen returns the length of raw as compact JSON (0 when absent).
func compactLen(raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return len(raw)
	}
	return b.Len()
}
