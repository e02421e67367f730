package history

import (
	"io"
	"strings"
	"unicode"

	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/mdtext"
)

// Section returns the Discussion History section of r, as `ctx history
// --format markdown` prints it and as the rendered context ends with it:
// the heading "## Discussion History", a blank line, [Markdown] of r and a
// final newline; the heading and a newline alone when no message remains.
func Section(r Result) string {
	body := Markdown(r)
	if body == "" {
		return mdtext.HistoryHeading + "\n"
	}
	return mdtext.HistoryHeading + "\n\n" + body + "\n"
}

// Markdown renders the messages of r in the aggregate output's Discussion History
// format: one entry per message, "### Discussion Excerpt {i}\n\n{role}: {content}"
// with i counting from 1, entries joined by "\n\n---\n\n"; a message
// without a role (a legacy string entry) is "{content}" alone, as Manual
// Slop's build_discussion_section shows a string entry. It returns the
// section body without the "## Discussion History" heading, which the
// caller adds, and "" for no messages.
//
// The content of a message is its parts, in order, joined by "\n\n", then
// stripped of surrounding white space (as Python's str.strip does):
//
//   - text and reasoning parts: their text (empty ones are skipped);
//   - image parts: "[image: {storageKey}]";
//   - (names and keys are data: their control characters are escaped,
//     mdtext.Escape, so that they add no line to the document)
//   - tool-call parts: "[tool call {toolName} {args}]" with the args as
//     compact JSON ("{}" when absent), followed on the next line by
//     "[tool result] {result}" for the result state, "[tool error] {result}"
//     for the error state, or "[tool call pending]" for the call and paused
//     states; results are compact JSON, so a stubbed result shows its stub;
//   - info parts and unknown part types are not shown.
//
// Attachments, stubs and drops are those that Build decided.
func Markdown(r Result) string {
	entries := make([]string, 0, len(r.Messages))
	for i, m := range r.Messages {
		text := pyStrip(markdownContent(m))
		if m.Role != "" {
			text = string(m.Role) + ": " + text
		}
		entries = append(entries, "### Discussion Excerpt "+itoa(i+1)+"\n\n"+text)
	}
	return strings.Join(entries, "\n\n---\n\n")
}

// markdownContent joins the visible parts of m.
func markdownContent(m Message) string {
	var pieces []string
	for _, p := range m.ContentParts {
		switch p.Type {
		case PartText, PartReasoning:
			if p.Text != "" {
				pieces = append(pieces, p.Text)
			}
		case PartImage:
			pieces = append(pieces, "[image: "+mdtext.Escape(p.StorageKey)+"]")
		case PartToolCall:
			args := "{}"
			if len(p.Args) > 0 {
				args = compactString(p.Args)
			}
			s := "[tool call " + mdtext.Escape(p.ToolName) + " " + args + "]\n"
			result := "null"
			if len(p.Result) > 0 {
				result = compactString(p.Result)
			}
			switch p.State {
			case StateResult:
				s += "[tool result] " + result
			case StateError:
				s += "[tool error] " + result
			default:
				s += "[tool call pending]"
			}
			pieces = append(pieces, s)
		}
	}
	return strings.Join(pieces, "\n\n")
}

// pyStrip is Python's str.strip(): it removes Unicode white space and the
// separators U+001C to U+001F from both ends.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}

// WriteJSON writes r as `ctx history` prints it: {"messages": [...],
// "report": {...}}.
func (r Result) WriteJSON(w io.Writer) error {
	msgs := r.Messages
	if msgs == nil {
		msgs = []Message{}
	}
	return jsonenc.Write(w, struct {
		Messages []Message `json:"messages"`
		Report   Report    `json:"report"`
	}{msgs, r.Report})
}
