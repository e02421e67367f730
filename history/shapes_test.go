package history

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The shapes of a history other than Chatbox's: Manual Slop's {"role",
// "content"} dictionaries and legacy strings, and OpenAI and Anthropic
// messages. Each golden holds the Discussion History section and, for the
// API shapes, the converted messages.
var shapeCases = []struct{ name, in string }{
	// build_discussion_section: role as written, content stripped, a
	// missing role "Unknown"
	{"shape_seed", `[
  {"role": "User", "content": "  Please review aggregate.py.\n"},
  {"role": "AI", "content": "It reads the files, then composes the sections."},
  {"content": "a note without a role"},
  {"role": "Vendor API", "content": ""}
]`},
	// legacy list of strings, shown as they are (stripped)
	{"shape_legacy", `{"messages": [
  "User: hello",
  "AI:\n  hi there  \n",
  "   a line without a speaker"
]}`},
	// the shapes mixed in one list
	{"shape_mixed", `{"messages": [
  {"id": "s", "role": "system", "contentParts": [{"type": "text", "text": "Be brief."}]},
  "User: what changed?",
  {"role": "assistant", "content": "Two files."}
]}`},
	{"shape_openai", `{"messages": [
  {"role": "system", "content": "You are terse."},
  {"role": "user", "content": [
    {"type": "text", "text": "What is in this picture?"},
    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "low"}}
  ]},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"q\": \"cat\"}"}}
  ]},
  {"role": "tool", "tool_call_id": "call_1", "content": "a cat on a mat"},
  {"role": "assistant", "content": "A cat.", "refusal": null}
]}`},
	{"shape_anthropic", `{"messages": [
  {"role": "user", "content": "Read main.go"},
  {"role": "assistant", "content": [
    {"type": "thinking", "thinking": "I should read the file.", "signature": "abc"},
    {"type": "text", "text": "Reading it."},
    {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "main.go"}}
  ]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "package main"}]}
  ]},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_2", "name": "run", "input": {"cmd": "go vet"}}
  ]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "exit 1", "is_error": true},
    {"type": "text", "text": "It failed?"}
  ]},
  {"role": "assistant", "content": [{"type": "text", "text": "Yes: vet found a problem.", "citations": null}]}
]}`},
}

func TestShapesGolden(t *testing.T) {
	t.Parallel()
	for _, c := range shapeCases {
		req, err := DecodeRequest(strings.NewReader(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r, err := Build(context.Background(), req.Messages, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		golden(t, c.name+".md", Section(r))
		if strings.Contains(c.name, "openai") || strings.Contains(c.name, "anthropic") {
			golden(t, c.name+".json", encodeIndent(t, r.Messages))
		}
	}
}

func TestShapesSeed(t *testing.T) {
	t.Parallel()
	// exactly build_discussion_section's text for each shape
	req, err := DecodeRequest(strings.NewReader(`[{"role": "User", "content": " hi "}, "  AI: yo  ", {"content": "x"}]`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(context.Background(), req.Messages, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "### Discussion Excerpt 1\n\nUser: hi\n\n---\n\n### Discussion Excerpt 2\n\nAI: yo\n\n---\n\n### Discussion Excerpt 3\n\nUnknown: x"
	if got := Markdown(r); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if req.Messages[1].Role != "" || req.Messages[2].Role != RoleUnknown {
		t.Errorf("roles %q %q", req.Messages[1].Role, req.Messages[2].Role)
	}
	// the content is counted, never dropped
	if r.Report.TokensBefore == 0 {
		t.Error("no tokens counted")
	}
}

// A {"role": ...} entry without content is the content shape with empty
// content, as the original's entry.get("content", "") reads it: "User: ".
func TestShapesRoleWithoutContent(t *testing.T) {
	t.Parallel()
	req, err := DecodeRequest(strings.NewReader(`[{"role": "User"}, {"role": "AI", "content": null}, {"role": "user"}]`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(context.Background(), req.Messages, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "### Discussion Excerpt 1\n\nUser: \n\n---\n\n### Discussion Excerpt 2\n\nAI: \n\n---\n\n### Discussion Excerpt 3\n\nuser: "
	if got := Markdown(r); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// A tool result whose content is a list of text parts (Anthropic's
// tool_result, OpenAI's tool message) is their text joined by newlines, as
// a string content is; a list with other parts stays as it is.
func TestShapesToolResultParts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
		   {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "a.txt"}, {"type": "text", "text": "<b>.txt"}]}]}]`,
			`"a.txt\n<b>.txt"`},
		{`[{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls"}}]},
		   {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}]`,
			`"x\ny"`},
		{`[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}]},
		   {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "a"}, {"type": "image", "source": {"type": "url", "url": "u"}}]}]}]`,
			`[{"type":"text","text":"a"},{"type":"image","source":{"type":"url","url":"u"}}]`},
	} {
		req, err := DecodeRequest(strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(req.Messages[0].ContentParts[0].Result); got != tc.want {
			t.Errorf("result %s, want %s", got, tc.want)
		}
	}
}

// A Chatbox message keeps a legacy "content" beside its contentParts, as
// before: contentParts is what is sent.
func TestShapesChatboxWithContent(t *testing.T) {
	t.Parallel()
	req, err := DecodeRequest(strings.NewReader(`[{"id": "1", "role": "user", "content": "old", "contentParts": [{"type": "text", "text": "new"}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	m := req.Messages[0]
	if len(m.ContentParts) != 1 || m.ContentParts[0].Text != "new" || string(m.Extra["content"]) != `"old"` {
		t.Errorf("message %+v", m)
	}
}

func TestShapesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"neither shape", `[{"id": "x"}]`, `message 0 (id "x"): invalid role "" (want system, user, assistant or tool, or "content" for a message in the {"role", "content"} shape)`},
		{"chatbox role", `[{"role": "User", "contentParts": []}]`, `message 0 (id ""): invalid role "User" (want system, user, assistant or tool)`},
		{"content type", `[{"role": "user", "content": 5}]`, `message 0: content must be a string, an array of parts or null, not a number`},
		{"part not object", `[{"role": "user", "content": ["x"]}]`, `message 0: content[0]: must be an object with a type, not a string`},
		{"unknown part", `[{"id": "m", "role": "user", "content": [{"type": "text", "text": "a"}, {"type": "document", "source": {}}]}]`,
			`message 0 (id "m"): content[1]: unsupported part type "document" (supported: text, input_text, output_text, refusal, thinking, image_url, input_image, image, tool_use, tool_result)`},
		{"text not string", `[{"role": "user", "content": [{"type": "text", "text": 1}]}]`, `message 0: content[0]: text must be a string, not a number`},
		{"data url", `[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]`, `message 0: content[0]: inline image data (a data: URL) is not supported`},
		{"base64 image", `[{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]}]`, `message 0: content[0]: image source "base64" is not supported`},
		{"redacted thinking", `[{"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]}]`, `holds no readable text`},
		{"orphan result", `[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "x"}]}]`, `message 0: tool result for "t9", which no earlier message calls`},
		{"orphan tool message", "[\n{\"role\": \"tool\", \"tool_call_id\": \"c1\", \"content\": \"x\"}]", `message 0: tool result for "c1"`},
		{"second result", `[{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n", "input": {}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}]`, `message 2: a second tool result for "t"`},
		{"function_call", `[{"role": "assistant", "content": null, "function_call": {"name": "f"}}]`, `message 0: function_call (OpenAI's deprecated form) is not supported`},
		{"tool_calls shape", `[{"role": "assistant", "tool_calls": [{"id": "c"}]}]`, `message 0: tool_calls[0]: function must be an object with a name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeRequest(strings.NewReader(tt.in))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", err, tt.want)
			}
		})
	}
	// the position is the message's
	_, err := DecodeRequest(strings.NewReader("[\n  \"a\",\n  {\"role\": \"user\", \"content\": 5}]"))
	var de *DecodeError
	if !errors.As(err, &de) || de.Line != 3 || de.Col != 3 {
		t.Errorf("got %v, want line 3:3", err)
	}
}
