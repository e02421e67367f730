package history

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

// Fixture helpers: small constructors so each test reads as its conversation.

func txt(s string) ContentPart { return ContentPart{Type: PartText, Text: s} }

func msg(id string, role Role, text string) Message {
	return Message{ID: id, Role: role, ContentParts: []ContentPart{txt(text)}}
}

func user(id string) Message      { return msg(id, RoleUser, "question "+id) }
func assistant(id string) Message { return msg(id, RoleAssistant, "answer "+id) }
func system(id string) Message    { return msg(id, RoleSystem, "You are a careful reviewer.") }

// summary is an assistant summary message.
func summary(id string) Message {
	m := msg(id, RoleAssistant, "Summary of the earlier discussion.")
	m.IsSummary = true
	return m
}

// toolMsg is an assistant message with one tool call in state result.
func toolMsg(id string, result string) Message {
	m := msg(id, RoleAssistant, "Let me look.")
	m.ContentParts = append(m.ContentParts, ContentPart{
		Type: PartToolCall, State: StateResult, ToolCallID: "call-" + id, ToolName: "read_file",
		Args: json.RawMessage(`{"path":"main.go"}`), Result: json.RawMessage(result),
	})
	return m
}

// alternating returns n messages with ids prefix0..prefix(n-1), user first.
func alternating(n int, prefix string) []Message {
	out := make([]Message, n)
	for i := range out {
		id := prefix + itoa(i)
		if i%2 == 0 {
			out[i] = user(id)
		} else {
			out[i] = assistant(id)
		}
	}
	return out
}

func ids(ms []Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func joinIDs(ms []Message) string { return strings.Join(ids(ms), ",") }

// mustSelect runs SelectContextMessages and fails the test on error.
func mustSelect(t *testing.T, msgs []Message, o Options) []Message {
	t.Helper()
	out, err := SelectContextMessages(context.Background(), msgs, o)
	if err != nil {
		t.Fatalf("SelectContextMessages: %v", err)
	}
	return out
}

// mustBuild runs Build (with CleanupNone unless a mode is set).
func mustBuild(t *testing.T, msgs []Message, o Options) Result {
	t.Helper()
	if o.ToolCleanupMode == "" {
		o.ToolCleanupMode = CleanupNone
	}
	r, err := Build(context.Background(), msgs, o)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return r
}

// snapshot is a deep JSON snapshot of v.
func snapshot(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}

// firstText returns the text of the first text part of m.
func firstText(m Message) string {
	for _, p := range m.ContentParts {
		if p.Type == PartText {
			return p.Text
		}
	}
	return ""
}

func findPart(m Message, t PartType) *ContentPart {
	for i := range m.ContentParts {
		if m.ContentParts[i].Type == t {
			return &m.ContentParts[i]
		}
	}
	return nil
}

func byID(ms []Message, id string) (Message, bool) {
	for _, m := range ms {
		if m.ID == id {
			return m, true
		}
	}
	return Message{}, false
}

// withTokens returns o with the token budget n.
func withTokens(o Options, n int64) Options {
	o.MaxContextTokens = measure.Max(n)
	return o
}
