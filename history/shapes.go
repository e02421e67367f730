package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/internal/jsonenc"
)

// RoleUnknown is the role of a message in the content shape that has no
// "role" key, as Manual Slop's build_discussion_section names it.
const RoleUnknown Role = "Unknown"

// Message shapes other than Chatbox's, converted by [DecodeRequest] into
// Message and ContentPart values (see the package documentation,
// "Shapes").

// shapeError is a conversion error; decodeRequest adds the position.
type shapeError struct{ msg string }

func (e *shapeError) Error() string { return e.msg }

func shapeErrorf(format string, a ...any) error { return &shapeError{fmt.Sprintf(format, a...)} }

// messageName names message i in errors: "message 3" or
// `message 3 (id "m3")`.
func messageName(i int, id string) string {
	if id == "" {
		return fmt.Sprintf("message %d", i)
	}
	return fmt.Sprintf("message %d (id %q)", i, id)
}

// legacyMessage is a legacy string entry ("User: hello"): a message
// without a role whose one text part is the string. [Markdown] shows it as
// it is, as the original's build_discussion_section does.
func legacyMessage(s string) Message {
	return Message{ContentParts: []ContentPart{{Type: PartText, Text: s}}}
}

// shapeKeys are the keys of a message object that tell its shape, and the
// raw role.
type shapeKeys struct {
	role                     json.RawMessage
	hasRole, hasID, hasParts bool
	// content, tool_calls or tool_call_id
	hasContent bool
}

// messageShape returns the shape keys of raw, a valid JSON object.
func messageShape(raw json.RawMessage) shapeKeys {
	var k shapeKeys
	_ = objectMembers(raw, func(key string, v json.RawMessage) error {
		switch key {
		case "role":
			k.role, k.hasRole = v, true
		case "id":
			k.hasID = true
		case "contentParts":
			k.hasParts = true
		case "content", "tool_calls", "tool_call_id":
			k.hasContent = true
		}
		return nil
	})
	return k
}

// contentShape reports whether the keys of a message object are those of
// the content shape ({"role", "content"} as Manual Slop, OpenAI and
// Anthropic write it) rather than Chatbox's: a message with contentParts
// is Chatbox's whatever else it has (a legacy "content" beside it is kept
// in Extra, as before).
func contentShape(keys shapeKeys) bool { return !keys.hasParts && keys.hasContent }

// toolCallRef locates a tool-call part converted from a tool_use or
// tool_calls entry, so that its result can be attached to it.
type toolCallRef struct{ msg, part int }

// converter turns content-shape messages into Chatbox messages.
type converter struct {
	out   []Message
	calls map[string]toolCallRef
}

// resultOnly reports that a converted message carried only tool results,
// which were attached to their calls: it is not kept.
var errResultOnly = errors.New("result only")

// convert converts message i (m decoded with its unknown keys in Extra,
// keys its raw keys) and appends it to c.out, unless it carried only tool
// results.
func (c *converter) convert(i int, m Message, keys shapeKeys) error {
	name := messageName(i, m.ID)
	if !keys.hasRole || isNull(keys.role) || m.Role == "" {
		m.Role = RoleUnknown
	}
	extra := m.Extra
	m.Extra = nil
	for k, v := range extra {
		switch k {
		case "content", "tool_calls", "tool_call_id", "refusal":
		case "function_call":
			return shapeErrorf("%s: function_call (OpenAI's deprecated form) is not supported; use tool_calls", name)
		default:
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[k] = v
		}
	}
	var results []pendingResult
	if raw, ok := extra["content"]; ok {
		parts, res, err := c.contentParts(name, raw)
		if err != nil {
			return err
		}
		m.ContentParts, results = parts, res
	}
	if raw, ok := extra["refusal"]; ok && !isNull(raw) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return shapeErrorf("%s: refusal must be a string", name)
		}
		m.ContentParts = append(m.ContentParts, ContentPart{Type: PartText, Text: s})
	}
	if raw, ok := extra["tool_calls"]; ok && !isNull(raw) {
		parts, err := toolCalls(name, raw)
		if err != nil {
			return err
		}
		m.ContentParts = append(m.ContentParts, parts...)
	}
	if raw, ok := extra["tool_call_id"]; ok {
		// an OpenAI tool message: its content is the call's result
		var id string
		if err := json.Unmarshal(raw, &id); err != nil || id == "" {
			return shapeErrorf("%s: tool_call_id must be a non-empty string", name)
		}
		result, err := toolMessageResult(name, extra["content"])
		if err != nil {
			return err
		}
		results = append(results, pendingResult{id: id, result: result})
		m.ContentParts = nil
	}
	for _, r := range results {
		ref, ok := c.calls[r.id]
		if !ok {
			return shapeErrorf("%s: tool result for %q, which no earlier message calls", name, r.id)
		}
		p := &c.out[ref.msg].ContentParts[ref.part]
		if p.State != StateCall {
			return shapeErrorf("%s: a second tool result for %q", name, r.id)
		}
		p.State, p.Result = StateResult, r.result
		if r.isError {
			p.State = StateError
		}
	}
	if len(results) > 0 && len(m.ContentParts) == 0 {
		return errResultOnly
	}
	for j, p := range m.ContentParts {
		if p.Type != PartToolCall || p.ToolCallID == "" {
			continue
		}
		if _, dup := c.calls[p.ToolCallID]; dup {
			return shapeErrorf("%s: tool call id %q is used twice", name, p.ToolCallID)
		}
		c.calls[p.ToolCallID] = toolCallRef{msg: len(c.out), part: j}
	}
	c.out = append(c.out, m)
	return nil
}

// pendingResult is a tool_result part or an OpenAI tool message, waiting to be
// attached to its call.
type pendingResult struct {
	id      string
	result  json.RawMessage
	isError bool
}

// supportedParts lists the part types of the content shape, for messages.
const supportedParts = "text, input_text, output_text, refusal, thinking, image_url, input_image, image, tool_use, tool_result"

// contentParts converts a content value: a string (one text part), null
// (no parts) or an array of typed parts.
func (c *converter) contentParts(name string, raw json.RawMessage) ([]ContentPart, []pendingResult, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case isNull(raw):
		return nil, nil, nil
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, shapeErrorf("%s: content: %v", name, err)
		}
		return []ContentPart{{Type: PartText, Text: s}}, nil, nil
	case len(raw) == 0 || raw[0] != '[':
		return nil, nil, shapeErrorf("%s: content must be a string, an array of parts or null, not %s", name, jsonKind(raw))
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, nil, shapeErrorf("%s: content: %v", name, err)
	}
	var parts []ContentPart
	var results []pendingResult
	for k, e := range elems {
		where := fmt.Sprintf("%s: content[%d]", name, k)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(e, &obj); err != nil || obj == nil {
			return nil, nil, shapeErrorf("%s: must be an object with a type, not %s", where, jsonKind(e))
		}
		typ, err := stringField(obj, "type", true)
		if err != nil {
			return nil, nil, shapeErrorf("%s: %v", where, err)
		}
		part, res, err := convertPart(typ, obj)
		if err != nil {
			return nil, nil, shapeErrorf("%s: %v", where, err)
		}
		if res != nil {
			results = append(results, *res)
			continue
		}
		parts = append(parts, part)
	}
	return parts, results, nil
}

// convertPart converts one typed part; a tool_result yields a result to
// attach instead of a part. The keys a part type does not use are kept in
// the part's Extra.
func convertPart(typ string, obj map[string]json.RawMessage) (ContentPart, *pendingResult, error) {
	used := map[string]bool{"type": true}
	take := func(key string, required bool) (string, error) {
		used[key] = true
		return stringField(obj, key, required)
	}
	var p ContentPart
	var err error
	switch typ {
	case "text", "input_text", "output_text":
		p.Type = PartText
		p.Text, err = take("text", true)
	case "refusal":
		p.Type = PartText
		p.Text, err = take("refusal", true)
	case "thinking":
		p.Type = PartReasoning
		p.Text, err = take("thinking", true)
	case "image_url":
		p.Type = PartImage
		used["image_url"] = true
		p.StorageKey, err = imageURL(obj["image_url"])
	case "input_image":
		p.Type = PartImage
		if _, ok := obj["file_id"]; ok {
			p.StorageKey, err = take("file_id", true)
		} else {
			used["image_url"] = true
			p.StorageKey, err = imageURL(obj["image_url"])
		}
	case "image":
		p.Type = PartImage
		used["source"] = true
		p.StorageKey, err = imageSource(obj["source"])
	case "tool_use":
		p.Type, p.State = PartToolCall, StateCall
		if p.ToolCallID, err = take("id", true); err != nil {
			return p, nil, err
		}
		if p.ToolName, err = take("name", true); err != nil {
			return p, nil, err
		}
		used["input"] = true
		if in, ok := obj["input"]; ok && !isNull(in) {
			p.Args = compactRaw(in)
		}
	case "tool_result":
		id, err := take("tool_use_id", true)
		if err != nil {
			return p, nil, err
		}
		res := &pendingResult{id: id, result: json.RawMessage(`""`)}
		if c, ok := obj["content"]; ok && !isNull(c) {
			res.result = resultContent(c)
		}
		if b, ok := obj["is_error"]; ok && !isNull(b) {
			if err := json.Unmarshal(b, &res.isError); err != nil {
				return p, nil, errors.New("is_error must be a boolean")
			}
		}
		return p, res, nil
	case "redacted_thinking":
		return p, nil, errors.New(`part type "redacted_thinking" holds no readable text and is not supported`)
	default:
		return p, nil, fmt.Errorf("unsupported part type %q (supported: %s)", typ, supportedParts)
	}
	if err != nil {
		return p, nil, err
	}
	for k, v := range obj {
		if used[k] {
			continue
		}
		if p.Extra == nil {
			p.Extra = map[string]json.RawMessage{}
		}
		p.Extra[k] = v
	}
	return p, nil, nil
}

// imageURL reads OpenAI's image_url: {"url": ...} or a string.
func imageURL(raw json.RawMessage) (string, error) {
	var u string
	if err := json.Unmarshal(raw, &u); err != nil || raw == nil {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return "", errors.New("image_url must be a URL or an object with a url")
		}
		if u, err = stringField(obj, "url", true); err != nil {
			return "", fmt.Errorf("image_url: %w", err)
		}
	}
	return imageKey(u)
}

// imageSource reads Anthropic's image source: a url or a file_id; inline
// base64 data has no storage key.
func imageSource(raw json.RawMessage) (string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return "", errors.New("source must be an object")
	}
	typ, err := stringField(obj, "type", true)
	if err != nil {
		return "", fmt.Errorf("source: %w", err)
	}
	switch typ {
	case "url":
		u, err := stringField(obj, "url", true)
		if err != nil {
			return "", fmt.Errorf("source: %w", err)
		}
		return imageKey(u)
	case "file":
		return stringField(obj, "file_id", true)
	}
	return "", fmt.Errorf("image source %q is not supported: store the image and give its URL or file id (the image part keeps a storage key, not the bytes)", typ)
}

func imageKey(u string) (string, error) {
	if strings.HasPrefix(u, "data:") {
		return "", errors.New("inline image data (a data: URL) is not supported: store the image and give its URL or file id (the image part keeps a storage key, not the bytes)")
	}
	if u == "" {
		return "", errors.New("image URL must not be empty")
	}
	return u, nil
}

// toolCalls converts OpenAI's tool_calls: [{"id", "type": "function",
// "function": {"name", "arguments"}}]. Arguments that hold JSON become the
// args; other text is kept as a JSON string.
func toolCalls(name string, raw json.RawMessage) ([]ContentPart, error) {
	var calls []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &calls); err != nil {
		return nil, shapeErrorf("%s: tool_calls must be an array of objects", name)
	}
	out := make([]ContentPart, 0, len(calls))
	for k, call := range calls {
		where := fmt.Sprintf("%s: tool_calls[%d]", name, k)
		id, err := stringField(call, "id", true)
		if err != nil {
			return nil, shapeErrorf("%s: %v", where, err)
		}
		var fn map[string]json.RawMessage
		if err := json.Unmarshal(call["function"], &fn); err != nil || fn == nil {
			return nil, shapeErrorf("%s: function must be an object with a name", where)
		}
		fname, err := stringField(fn, "name", true)
		if err != nil {
			return nil, shapeErrorf("%s: function: %v", where, err)
		}
		p := ContentPart{Type: PartToolCall, State: StateCall, ToolCallID: id, ToolName: fname}
		args, err := stringField(fn, "arguments", false)
		if err != nil {
			return nil, shapeErrorf("%s: function: %v", where, err)
		}
		if args != "" {
			if json.Valid([]byte(args)) {
				p.Args = compactRaw(json.RawMessage(args))
			} else {
				p.Args, _ = json.Marshal(args)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// toolMessageResult is the result of an OpenAI tool message: its content,
// a string or an array of text parts, as JSON.
func toolMessageResult(name string, raw json.RawMessage) (json.RawMessage, error) {
	if raw == nil || isNull(raw) {
		return json.RawMessage(`""`), nil
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] != '"' && raw[0] != '[' {
		return nil, shapeErrorf("%s: content must be a string or an array of parts, not %s", name, jsonKind(raw))
	}
	return resultContent(raw), nil
}

// resultContent is a tool result's content as the result of a Chatbox
// tool-call part: a list of text parts is the one string of their texts
// joined by newlines, as the shape means it (a string content is the
// shorthand of one text part), so that the two read alike; any other
// content, a list with an image among its parts, say, is kept as compact
// JSON, never dropped.
func resultContent(raw json.RawMessage) json.RawMessage {
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) == 0 {
		return compactRaw(raw)
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if typ, err := stringField(p, "type", true); err != nil || (typ != "text" && typ != "input_text" && typ != "output_text") {
			return compactRaw(raw)
		}
		t, err := stringField(p, "text", true)
		if err != nil {
			return compactRaw(raw)
		}
		texts = append(texts, t)
	}
	out, err := jsonenc.Compact(strings.Join(texts, "\n"))
	if err != nil {
		return compactRaw(raw)
	}
	return out
}

// stringField reads obj[key] as a string; a required key must be present
// and not empty.
func stringField(obj map[string]json.RawMessage, key string, required bool) (string, error) {
	raw, ok := obj[key]
	if !ok || isNull(raw) {
		if required {
			return "", fmt.Errorf("missing %s", key)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s must be a string, not %s", key, jsonKind(raw))
	}
	if required && s == "" && key != "text" && key != "thinking" && key != "refusal" {
		return "", fmt.Errorf("%s must not be empty", key)
	}
	return s, nil
}

// jsonKind names the JSON type of raw for messages.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func compactRaw(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return json.RawMessage(b.Bytes())
}
