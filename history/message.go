package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/jsonenc"
)

// Role is the author of a [Message].
type Role string

// The roles a message can have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// valid reports whether r is one of the four known roles.
func (r Role) valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// PartType is the "type" of a [ContentPart].
type PartType string

// The part types the builder understands. Other types are kept as they are.
const (
	PartText      PartType = "text"
	PartImage     PartType = "image"
	PartInfo      PartType = "info"
	PartReasoning PartType = "reasoning"
	PartToolCall  PartType = "tool-call"
)

// ToolState is the "state" of a tool-call part.
type ToolState string

// The states of a tool call. Only [StateResult] parts are ever stubbed.
const (
	StateCall   ToolState = "call"
	StateResult ToolState = "result"
	StateError  ToolState = "error"
	StatePaused ToolState = "paused"
)

// Message is one chat message in the original's storage format. JSON field
// names are the original's; keys this type does not know are kept in Extra
// and written back after the known keys, sorted by name.
//
// Optional string and number fields use the zero value for "absent", so a
// stored empty string or zero is written back as an absent key (see the
// package documentation, "JSON").
type Message struct {
	// ID identifies the message; compaction points and
	// PreserveToolCallMessageIDs refer to it.
	ID string `json:"id"`
	// Role is system, user, assistant or tool.
	Role Role `json:"role"`
	// Name is the optional author name.
	Name string `json:"name,omitempty"`
	// ContentParts is the content, in order.
	ContentParts []ContentPart `json:"contentParts"`
	// Generating marks a message still being written; it is not eligible.
	Generating bool `json:"generating,omitempty"`
	// IsForkMarker marks a UI-only fork marker; it is not eligible.
	IsForkMarker bool `json:"isForkMarker,omitempty"`
	// IsSummary marks a compaction summary (an assistant message).
	IsSummary bool `json:"isSummary,omitempty"`
	// Steered marks a user message sent while the previous answer was
	// being generated.
	Steered bool `json:"steered,omitempty"`
	// FinishReason is the model's finish reason; "steered" means the
	// answer was cut by a steered message and is already in causal order.
	FinishReason string `json:"finishReason,omitempty"`
	// Error and ErrorCode mark a failed message; it is never sent.
	Error     string  `json:"error,omitempty"`
	ErrorCode float64 `json:"errorCode,omitempty"`
	// Files and Links are the attachments.
	Files []MessageFile `json:"files,omitempty"`
	Links []MessageLink `json:"links,omitempty"`
	// TokenCountMap and TokenCount are cached counts; ctx keeps them but
	// never uses them.
	TokenCountMap json.RawMessage `json:"tokenCountMap,omitempty"`
	TokenCount    float64         `json:"tokenCount,omitempty"`
	// Timestamp is the creation time in milliseconds.
	Timestamp float64 `json:"timestamp,omitempty"`

	// Extra holds the keys of the JSON object this type does not know,
	// with their raw values.
	Extra map[string]json.RawMessage `json:"-"`
}

// ContentPart is one part of a message's content. One struct carries every
// part type; Type says which fields apply:
//
//   - text: Text, ProtocolOnly
//   - image: StorageKey, OCRResult
//   - info: Text, Values
//   - reasoning: Text
//   - tool-call: State, ToolCallID, ToolName, Args, Result,
//     ResultStorageKey, ResultImageStorageKey
//
// Args, Result and Values are raw JSON so that their bytes pass through
// untouched unless the builder rewrites them. Unknown keys (and unknown part
// types) are kept in Extra.
type ContentPart struct {
	// Type is text, image, info, reasoning, tool-call or another type.
	Type PartType `json:"type"`
	// Text is the text of a text, info or reasoning part.
	Text string `json:"text,omitempty"`
	// ProtocolOnly marks a text part kept for the wire protocol only.
	ProtocolOnly bool `json:"protocolOnly,omitempty"`
	// StorageKey is an image's stored key.
	StorageKey string `json:"storageKey,omitempty"`
	// OCRResult is the text recognised in an image.
	OCRResult string `json:"ocrResult,omitempty"`
	// Values are an info part's values.
	Values json.RawMessage `json:"values,omitempty"`
	// State is a tool call's state: call, result, error or paused.
	State ToolState `json:"state,omitempty"`
	// ToolCallID identifies the call.
	ToolCallID string `json:"toolCallId,omitempty"`
	// ToolName is the name of the tool called.
	ToolName string `json:"toolName,omitempty"`
	// Args are the call's arguments (raw JSON).
	Args json.RawMessage `json:"args,omitempty"`
	// Result is the tool's result (raw JSON).
	Result json.RawMessage `json:"result,omitempty"`
	// ResultStorageKey is where the full result was offloaded; a stub
	// points the model to it.
	ResultStorageKey string `json:"resultStorageKey,omitempty"`
	// ResultImageStorageKey is where an image result was stored.
	ResultImageStorageKey string `json:"resultImageStorageKey,omitempty"`

	// Extra holds unknown keys with their raw values.
	Extra map[string]json.RawMessage `json:"-"`
}

// MessageFile is a file attached to a message.
type MessageFile struct {
	// ID, Name and FileType describe the file.
	ID       string `json:"id"`
	Name     string `json:"name"`
	FileType string `json:"fileType"`
	// StorageKey is the key the resolver reads; RawStorageKey is the key of
	// the original upload, used for the sandbox path.
	StorageKey    string `json:"storageKey,omitempty"`
	RawStorageKey string `json:"rawStorageKey,omitempty"`
	// LocalPath is a path on the user's machine, for files not stored.
	LocalPath string `json:"localPath,omitempty"`
	// ParserType "sandbox-raw" means the sandbox holds no parsed text.
	ParserType string `json:"parserType,omitempty"`
	// RagMode is "inline" or RagModeSessionRetrieval.
	RagMode string `json:"ragMode,omitempty"`
	// The session attachment fields describe a session-retrieval file.
	SessionAttachmentID            string `json:"sessionAttachmentId,omitempty"`
	SessionAttachmentIndexStatus   string `json:"sessionAttachmentIndexStatus,omitempty"`
	SessionAttachmentStatus        string `json:"sessionAttachmentStatus,omitempty"`
	SessionAttachmentBlockedReason string `json:"sessionAttachmentBlockedReason,omitempty"`
	// ByteLength is the stored size, shown in sandbox blocks.
	ByteLength float64 `json:"byteLength,omitempty"`
	// LineCount is the stored line count (kept, not used).
	LineCount float64 `json:"lineCount,omitempty"`

	// Extra holds unknown keys with their raw values.
	Extra map[string]json.RawMessage `json:"-"`
}

// RagModeSessionRetrieval is the [MessageFile.RagMode] of a file that is
// indexed for retrieval instead of inlined.
const RagModeSessionRetrieval = "session-retrieval"

// MessageLink is a web page attached to a message.
type MessageLink struct {
	// ID, URL and Title describe the page; Title is its FILE_NAME.
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	// StorageKey is the key of the stored page text.
	StorageKey string `json:"storageKey,omitempty"`

	// Extra holds unknown keys with their raw values.
	Extra map[string]json.RawMessage `json:"-"`
}

// CompactionPoint records that everything up to and including the boundary
// message is covered by the summary message (an assistant message with
// isSummary set).
type CompactionPoint struct {
	// SummaryMessageID is the summary that stands in for the history.
	SummaryMessageID string `json:"summaryMessageId"`
	// BoundaryMessageID is the last message the summary covers.
	BoundaryMessageID string `json:"boundaryMessageId"`
	// CreatedAt orders the points; the latest applicable one is used.
	CreatedAt float64 `json:"createdAt"`
}

// The alias types have the fields but not the methods, so that the JSON
// methods below can use the default encoding for the known keys.
type (
	messageAlias Message
	partAlias    ContentPart
	fileAlias    MessageFile
	linkAlias    MessageLink
)

// The JSON keys of each type, as its fields are tagged.
var (
	messageKeys = []string{"id", "role", "name", "contentParts", "generating", "isForkMarker", "isSummary", "steered",
		"finishReason", "error", "errorCode", "files", "links", "tokenCountMap", "tokenCount", "timestamp"}
	partKeys = []string{"type", "text", "protocolOnly", "storageKey", "ocrResult", "values", "state", "toolCallId",
		"toolName", "args", "result", "resultStorageKey", "resultImageStorageKey"}
	fileKeys = []string{"id", "name", "fileType", "storageKey", "rawStorageKey", "localPath", "parserType", "ragMode",
		"sessionAttachmentId", "sessionAttachmentIndexStatus", "sessionAttachmentStatus",
		"sessionAttachmentBlockedReason", "byteLength", "lineCount"}
	linkKeys = []string{"id", "url", "title", "storageKey"}
)

// extraKeys returns the keys of the JSON object data that are not known,
// with their raw values, or nil when there are none. encoding/json
// matches a key to a field whatever its case: "Role" sets the role, and
// is not kept again as an extra key. Two keys that name one field are an
// error: {"role": "user", "Role": "system"} would set the role twice, the
// last one winning.
func extraKeys(data []byte, known []string) (map[string]json.RawMessage, error) {
	var extra map[string]json.RawMessage
	var field [32]string // the key that set each known field (at most 32)
	var set uint32
	err := objectMembers(data, func(k string, v json.RawMessage) error {
		i := slices.Index(known, k)
		if i < 0 {
			i = slices.IndexFunc(known, func(f string) bool { return strings.EqualFold(f, k) })
		}
		if i < 0 {
			if extra == nil {
				extra = make(map[string]json.RawMessage)
			}
			extra[k] = cloneRaw(v) // data is the decoder's
			return nil
		}
		if set&(1<<i) != 0 {
			other := field[i]
			if other == k {
				return fmt.Errorf("duplicate key %q", k)
			}
			a, b := min(k, other), max(k, other)
			return fmt.Errorf("keys %q and %q both set %s (keys are matched to fields whatever their case)", a, b, known[i])
		}
		set |= 1 << i
		field[i] = k
		return nil
	})
	return extra, err
}

// objectMembers calls f with each key of the JSON object data, decoded,
// and its value, a slice of data, in order. data must be valid JSON, as
// encoding/json gives it to an UnmarshalJSON method; it is not copied.
func objectMembers(data []byte, f func(key string, value json.RawMessage) error) error {
	off := skipSpace(data, 0)
	if off >= int64(len(data)) || data[off] != '{' {
		return fmt.Errorf("want a JSON object, not %s", jsonKind(data))
	}
	for off = skipSpace(data, off+1); off < int64(len(data)) && data[off] != '}'; off = skipSpace(data, off) {
		end := valueEnd(data, off)
		raw := data[off+1 : end-1]
		key := string(raw)
		if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
			if err := json.Unmarshal(data[off:end], &key); err != nil {
				return err
			}
		}
		start := skipSpace(data, end)
		off = valueEnd(data, start)
		if err := f(key, data[start:off]); err != nil {
			return err
		}
	}
	return nil
}

// marshalWithExtra encodes v (an alias struct) without HTML escaping and
// appends the extra keys, sorted, before the closing brace.
func marshalWithExtra(v any, extra map[string]json.RawMessage) ([]byte, error) {
	out, err := jsonenc.Compact(v)
	if err != nil {
		return nil, err
	}
	if len(extra) == 0 {
		return out, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out = out[:len(out)-1] // drop '}'
	for _, k := range keys {
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, err := jsonenc.Compact(k)
		if err != nil {
			return nil, err
		}
		out = append(out, kb...)
		out = append(out, ':')
		var c bytes.Buffer
		if err := json.Compact(&c, extra[k]); err != nil {
			return nil, fmt.Errorf("failed to encode key %q: %w", k, err)
		}
		out = append(out, c.Bytes()...)
	}
	return append(out, '}'), nil
}

// isNull reports whether data is the JSON literal null.
func isNull(data []byte) bool { return string(bytes.TrimSpace(data)) == "null" }

// UnmarshalJSON decodes a message, keeping unknown keys in Extra.
func (m *Message) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var a messageAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	extra, err := extraKeys(data, messageKeys)
	if err != nil {
		return err
	}
	a.Extra = extra
	*m = Message(a)
	return nil
}

// MarshalJSON encodes a message: known keys in declaration order (contentParts
// always present, [] when empty), then Extra sorted by key.
func (m Message) MarshalJSON() ([]byte, error) {
	a := messageAlias(m)
	if a.ContentParts == nil {
		a.ContentParts = []ContentPart{}
	}
	return marshalWithExtra(a, m.Extra)
}

// UnmarshalJSON decodes a part, keeping unknown keys in Extra.
func (p *ContentPart) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var a partAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	extra, err := extraKeys(data, partKeys)
	if err != nil {
		return err
	}
	a.Extra = extra
	// A JSON null for args or result decodes as the literal "null"; keep it.
	*p = ContentPart(a)
	return nil
}

// MarshalJSON encodes a part. "text" is always written for text, info and
// reasoning parts, "storageKey" for image parts, and "state", "toolCallId"
// and "toolName" for tool-call parts, even when empty; the rest only when set.
func (p ContentPart) MarshalJSON() ([]byte, error) {
	// Field order follows the struct; required-but-empty fields are added by
	// encoding through a map-free ordered writer.
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	field := func(k string, v any) error {
		vb, err := jsonenc.Compact(v)
		if err != nil {
			return err
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		kb, _ := jsonenc.Compact(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
		return nil
	}
	raw := func(k string, v json.RawMessage) error {
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return fmt.Errorf("failed to encode %s: %w", k, err)
		}
		return field(k, json.RawMessage(c.Bytes()))
	}
	textual := p.Type == PartText || p.Type == PartInfo || p.Type == PartReasoning
	tool := p.Type == PartToolCall
	steps := []struct {
		ok bool
		k  string
		v  any
	}{
		{true, "type", string(p.Type)},
		{textual || p.Text != "", "text", p.Text},
		{p.ProtocolOnly, "protocolOnly", true},
		{p.Type == PartImage || p.StorageKey != "", "storageKey", p.StorageKey},
		{p.OCRResult != "", "ocrResult", p.OCRResult},
	}
	for _, s := range steps {
		if s.ok {
			if err := field(s.k, s.v); err != nil {
				return nil, err
			}
		}
	}
	if len(p.Values) > 0 {
		if err := raw("values", p.Values); err != nil {
			return nil, err
		}
	}
	steps = []struct {
		ok bool
		k  string
		v  any
	}{
		{tool || p.State != "", "state", string(p.State)},
		{tool || p.ToolCallID != "", "toolCallId", p.ToolCallID},
		{tool || p.ToolName != "", "toolName", p.ToolName},
	}
	for _, s := range steps {
		if s.ok {
			if err := field(s.k, s.v); err != nil {
				return nil, err
			}
		}
	}
	if len(p.Args) > 0 {
		if err := raw("args", p.Args); err != nil {
			return nil, err
		}
	}
	if len(p.Result) > 0 {
		if err := raw("result", p.Result); err != nil {
			return nil, err
		}
	}
	if p.ResultStorageKey != "" {
		if err := field("resultStorageKey", p.ResultStorageKey); err != nil {
			return nil, err
		}
	}
	if p.ResultImageStorageKey != "" {
		if err := field("resultImageStorageKey", p.ResultImageStorageKey); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return marshalWithExtra(json.RawMessage(b.Bytes()), p.Extra)
}

// UnmarshalJSON decodes a file, keeping unknown keys in Extra.
func (f *MessageFile) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var a fileAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	extra, err := extraKeys(data, fileKeys)
	if err != nil {
		return err
	}
	a.Extra = extra
	*f = MessageFile(a)
	return nil
}

// MarshalJSON encodes a file with Extra sorted after the known keys.
func (f MessageFile) MarshalJSON() ([]byte, error) {
	return marshalWithExtra(fileAlias(f), f.Extra)
}

// UnmarshalJSON decodes a link, keeping unknown keys in Extra.
func (l *MessageLink) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var a linkAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	extra, err := extraKeys(data, linkKeys)
	if err != nil {
		return err
	}
	a.Extra = extra
	*l = MessageLink(a)
	return nil
}

// MarshalJSON encodes a link with Extra sorted after the known keys.
func (l MessageLink) MarshalJSON() ([]byte, error) {
	return marshalWithExtra(linkAlias(l), l.Extra)
}

// Clone returns a deep copy of m: no slice, map or raw JSON is shared.
func (m Message) Clone() Message {
	c := m
	c.ContentParts = cloneSlice(m.ContentParts, ContentPart.Clone)
	c.Files = cloneSlice(m.Files, func(f MessageFile) MessageFile {
		f.Extra = cloneExtra(f.Extra)
		return f
	})
	c.Links = cloneSlice(m.Links, func(l MessageLink) MessageLink {
		l.Extra = cloneExtra(l.Extra)
		return l
	})
	c.TokenCountMap = cloneRaw(m.TokenCountMap)
	c.Extra = cloneExtra(m.Extra)
	return c
}

// Clone returns a deep copy of p.
func (p ContentPart) Clone() ContentPart {
	c := p
	c.Values = cloneRaw(p.Values)
	c.Args = cloneRaw(p.Args)
	c.Result = cloneRaw(p.Result)
	c.Extra = cloneExtra(p.Extra)
	return c
}

func cloneSlice[T any](s []T, f func(T) T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage{}, r...)
}

func cloneExtra(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = cloneRaw(v)
	}
	return out
}

// CloneMessages deep-copies every message of msgs.
func CloneMessages(msgs []Message) []Message {
	return cloneSlice(msgs, Message.Clone)
}
