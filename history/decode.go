package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/decodelimit"
	"github.com/ctxaudit/ctx/internal/fileio"
)

// MaxRequestBytes is the largest request DecodeRequest reads.
const MaxRequestBytes = 256 << 20

// Request is the input document of the history command:
// {"messages": [...], "compactionPoints": [...]}.
type Request struct {
	// Messages is the history, oldest first.
	Messages []Message `json:"messages"`
	// CompactionPoints are the history's compaction points, if any.
	CompactionPoints []CompactionPoint `json:"compactionPoints,omitempty"`
}

// DecodeError is a request that is not valid, with where it went wrong.
type DecodeError struct {
	// Offset is the byte offset in the input of the byte where the error
	// was found: the offending character of a syntax error, the last byte of
	// a literal or the opening bracket of a value of the wrong type, the
	// start of an unknown key or of a message with an invalid role. Line and
	// Col (in characters) count from 1.
	Offset    int64
	Line, Col int
	// Err is the cause.
	Err error
}

// Error returns "line L:C (byte O): cause".
func (e *DecodeError) Error() string {
	return fmt.Sprintf("line %d:%d (byte %d): %v", e.Line, e.Col, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// The wire types mirror the real ones without their JSON methods, so that a
// type error found while decoding carries its offset in the whole document
// (errors from nested UnmarshalJSON methods are relative to the nested
// value).
type (
	wireMessage struct {
		ID            string          `json:"id"`
		Role          Role            `json:"role"`
		Name          string          `json:"name"`
		ContentParts  []partAliasWire `json:"contentParts"`
		Generating    bool            `json:"generating"`
		IsForkMarker  bool            `json:"isForkMarker"`
		IsSummary     bool            `json:"isSummary"`
		Steered       bool            `json:"steered"`
		FinishReason  string          `json:"finishReason"`
		Error         string          `json:"error"`
		ErrorCode     float64         `json:"errorCode"`
		Files         []fileWire      `json:"files"`
		Links         []linkWire      `json:"links"`
		TokenCountMap json.RawMessage `json:"tokenCountMap"`
		TokenCount    float64         `json:"tokenCount"`
		Timestamp     float64         `json:"timestamp"`
	}
	partAliasWire struct {
		Type                  PartType        `json:"type"`
		Text                  string          `json:"text"`
		ProtocolOnly          bool            `json:"protocolOnly"`
		StorageKey            string          `json:"storageKey"`
		OCRResult             string          `json:"ocrResult"`
		Values                json.RawMessage `json:"values"`
		State                 ToolState       `json:"state"`
		ToolCallID            string          `json:"toolCallId"`
		ToolName              string          `json:"toolName"`
		Args                  json.RawMessage `json:"args"`
		Result                json.RawMessage `json:"result"`
		ResultStorageKey      string          `json:"resultStorageKey"`
		ResultImageStorageKey string          `json:"resultImageStorageKey"`
	}
	fileWire struct {
		ID                             string  `json:"id"`
		Name                           string  `json:"name"`
		FileType                       string  `json:"fileType"`
		StorageKey                     string  `json:"storageKey"`
		RawStorageKey                  string  `json:"rawStorageKey"`
		LocalPath                      string  `json:"localPath"`
		ParserType                     string  `json:"parserType"`
		RagMode                        string  `json:"ragMode"`
		SessionAttachmentID            string  `json:"sessionAttachmentId"`
		SessionAttachmentIndexStatus   string  `json:"sessionAttachmentIndexStatus"`
		SessionAttachmentStatus        string  `json:"sessionAttachmentStatus"`
		SessionAttachmentBlockedReason string  `json:"sessionAttachmentBlockedReason"`
		ByteLength                     float64 `json:"byteLength"`
		LineCount                      float64 `json:"lineCount"`
	}
	linkWire struct {
		ID         string `json:"id"`
		URL        string `json:"url"`
		Title      string `json:"title"`
		StorageKey string `json:"storageKey"`
	}
)

// DecodeRequest reads a request strictly: one JSON object whose only keys
// are "messages" (required) and "compactionPoints", or a bare array of
// messages, nothing after it, and every known field of the right type.
// A message is in one of the shapes of the package documentation
// ("Shapes"): Chatbox's (contentParts, every role one of system, user,
// assistant or tool, and compaction points without unknown keys), the
// content shape of Manual Slop, OpenAI and Anthropic ({"role", "content"},
// converted to parts), or a legacy string. Unknown keys inside messages,
// parts, files and links are kept (see [Message].Extra). The document may
// nest 256 levels (a bare array 255, as the object holds it one level
// deeper), and no object may have a key twice, nor two keys that name one
// field in different cases ("role" and "Role"): each is refused before
// anything is decoded. Errors are *DecodeError values carrying the byte
// offset and line:col.
func DecodeRequest(r io.Reader) (Request, error) {
	_, req, err := ReadRequest(r)
	return req, err
}

// ReadRequest reads at most MaxRequestBytes from r and decodes them as
// [DecodeRequest] does, returning the bytes read too (their hash is
// recorded in manifests). A reader that tells its size (a regular file,
// as standard input redirected from one is) is refused by that size
// before it is read.
func ReadRequest(r io.Reader) ([]byte, Request, error) {
	data, err := fileio.ReadAll(r, MaxRequestBytes)
	if errors.Is(err, fileio.ErrTooLarge) {
		return nil, Request{}, fmt.Errorf("larger than %d bytes", MaxRequestBytes)
	}
	if err != nil {
		return nil, Request{}, fmt.Errorf("cannot read: %w", fileio.Cause(err))
	}
	req, err := decodeRequest(data)
	if err != nil {
		return nil, Request{}, err
	}
	return data, req, nil
}

// ReadRequestFile reads the history file at path through the bounded
// reader (regular files only, at most MaxRequestBytes) and decodes it as
// [DecodeRequest] does. Errors do not name the file; callers add its name.
func ReadRequestFile(path string) ([]byte, Request, error) {
	return ReadRequestFileAllowed(path, nil)
}

// ReadRequestFileAllowed is [ReadRequestFile] of a file whose real path
// (every link resolved, as opened) allow must accept; nil accepts any. A
// refused file is not read: the error says "outside the project" and
// names its real path.
func ReadRequestFileAllowed(path string, allow func(real string) bool) ([]byte, Request, error) {
	var data []byte
	var err error
	if allow == nil {
		data, _, err = fileio.Read(path, MaxRequestBytes)
	} else {
		data, _, _, err = fileio.ReadAllowed(path, MaxRequestBytes, allow)
	}
	if err != nil {
		return nil, Request{}, errors.New(fileio.Describe(err))
	}
	req, err := decodeRequest(data)
	if err != nil {
		return nil, Request{}, err
	}
	return data, req, nil
}

func decodeRequest(data []byte) (Request, error) {
	fail := func(off int64, err error) (Request, error) {
		return Request{}, newDecodeError(data, off, err)
	}
	// Nesting and repeated keys, before anything is decoded. A bare array
	// of messages is one level less deep than the object that holds it in
	// the other form (and in the output): it may nest one level less, so
	// that what is read in one form is read in the other.
	limit := decodelimit.Options{MaxDepth: decodelimit.MaxDepth, UniqueKeys: true}
	if start := skipSpace(data, 0); start < int64(len(data)) && data[start] == '[' {
		limit.MaxDepth--
	}
	if err := decodelimit.JSON(data, limit); err != nil {
		var le *decodelimit.Error
		if errors.As(err, &le) {
			return fail(le.Offset, err)
		}
		return fail(0, err)
	}
	// Syntax, with absolute offsets.
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail(se.Offset-1, fmt.Errorf("invalid JSON: %s", se.Error()))
		}
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return fail(int64(len(data)), err)
	}
	// The values are slices of data, not copies: data is valid JSON, so
	// they are found by skipping over each one.
	type value struct {
		start int64
		raw   json.RawMessage
	}
	var msgs, points *value
	if start := skipSpace(data, 0); start < int64(len(data)) && data[start] == '[' {
		// a bare array is the messages list (Manual Slop's history)
		msgs = &value{start: start, raw: data[start:valueEnd(data, start)]}
	} else {
		// Top level: an object with known keys only.
		if start >= int64(len(data)) || data[start] != '{' {
			return fail(start, errors.New("request must be a JSON object, or an array of messages"))
		}
		for off := skipSpace(data, start+1); data[off] != '}'; off = skipSpace(data, off) {
			keyEnd := valueEnd(data, off)
			var key string
			if err := json.Unmarshal(data[off:keyEnd], &key); err != nil {
				return fail(off, err)
			}
			v := &value{start: skipSpace(data, keyEnd)}
			switch key {
			case "messages":
				msgs = v
			case "compactionPoints":
				points = v
			default:
				return fail(off, fmt.Errorf("unknown key %q (want messages, compactionPoints)", key))
			}
			off = valueEnd(data, v.start)
			v.raw = data[v.start:off]
		}
		if msgs == nil {
			return fail(0, errors.New(`missing key "messages"`))
		}
	}
	var req Request
	if points != nil {
		if off, err := unknownPointKey(points.raw); err != nil {
			return fail(points.start+off, err)
		}
		if err := json.Unmarshal(points.raw, &req.CompactionPoints); err != nil {
			return fail(typeErrorOffset(err, points.start), typeError("compactionPoints", err))
		}
	}
	// Each message: a Chatbox message, a message in the content shape, or
	// a legacy string, with type errors at their offset in the whole
	// document (through the wire mirror).
	var offsets []int64
	switch msgs.raw[0] {
	case '[':
		offsets = elementOffsets(msgs.raw)
	case 'n': // null: no messages
	default:
		var elems []json.RawMessage
		if err := json.Unmarshal(msgs.raw, &elems); err != nil {
			return fail(typeErrorOffset(err, msgs.start), typeError("messages", err))
		}
		return fail(msgs.start, errors.New("messages: want an array"))
	}
	c := converter{out: make([]Message, 0, len(offsets)), calls: map[string]toolCallRef{}}
	var m Message // one for all: decoding into it moves it to the heap
	for i, off := range offsets {
		start := msgs.start + off
		raw := json.RawMessage(data[start:valueEnd(data, start)])
		switch raw[0] {
		case '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return fail(start, err)
			}
			c.out = append(c.out, legacyMessage(s))
			continue
		case '{':
		default:
			return fail(start, fmt.Errorf("message %d: must be an object (a message) or a string (a legacy entry), not %s", i, jsonKind(raw)))
		}
		// The real decode keeps unknown nested keys; a type error is
		// found again through the wire mirror, for its offset.
		m = Message{}
		if err := json.Unmarshal(raw, &m); err != nil {
			var wm wireMessage
			if werr := json.Unmarshal(raw, &wm); werr != nil {
				return fail(typeErrorOffset(werr, start), typeError("messages", werr))
			}
			return fail(start, err)
		}
		keys := messageShape(raw)
		if contentShape(keys) || roleOnly(keys, m.Role) {
			if err := c.convert(i, m, keys); err != nil && !errors.Is(err, errResultOnly) {
				return fail(start, err)
			}
			continue
		}
		if !m.Role.valid() {
			hint := ""
			if !keys.hasParts {
				hint = `, or "content" for a message in the {"role", "content"} shape`
			}
			return fail(start, fmt.Errorf("message %d (id %q): invalid role %q (want system, user, assistant or tool%s)", i, m.ID, string(m.Role), hint))
		}
		c.out = append(c.out, m)
	}
	req.Messages = c.out
	return req, nil
}

// roleOnly reports a {"role": "User"} entry without content: the content
// shape with empty content, as the original's entry.get("content", "")
// reads it. A role Chatbox knows, or a key of Chatbox's own (id,
// contentParts), makes it a Chatbox message (whose role is then checked).
func roleOnly(keys shapeKeys, role Role) bool {
	return keys.hasRole && !keys.hasID && !keys.hasParts && !role.valid()
}

// typeErrorOffset returns base plus the offset of the last byte read when
// the type error was found (the end of a literal, the opening bracket of an
// array or object).
func typeErrorOffset(err error, base int64) int64 {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return base + max(te.Offset-1, 0)
	}
	return base
}

// typeError rewrites a type error in terms of JSON, without Go type names.
func typeError(where string, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	want := "a value"
	if te.Type != nil {
		switch te.Type.Kind() {
		case reflect.String:
			want = "a string"
		case reflect.Bool:
			want = "a boolean"
		case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
			want = "a number"
		case reflect.Slice, reflect.Array:
			want = "an array"
		case reflect.Struct, reflect.Map:
			want = "an object"
		}
	}
	field := where
	if te.Field != "" {
		field += "[]." + te.Field
	}
	return fmt.Errorf("%s: got a JSON %s, want %s", field, te.Value, want)
}

// unknownPointKey returns the offset (in raw, an array of compaction
// points) of the first key a compaction point does not have.
func unknownPointKey(raw json.RawMessage) (int64, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('[') {
		return 0, nil // null or a type error, reported by the typed decode
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return dec.InputOffset(), err
		}
		if tok != json.Delim('{') {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return dec.InputOffset(), nil
			}
			continue
		}
		for dec.More() {
			start := skipSpace(raw, dec.InputOffset())
			k, err := dec.Token()
			if err != nil {
				return dec.InputOffset(), err
			}
			switch k {
			case "summaryMessageId", "boundaryMessageId", "createdAt":
			default:
				return start, fmt.Errorf("compactionPoints: unknown key %q (want summaryMessageId, boundaryMessageId, createdAt)", k)
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return dec.InputOffset(), err
			}
		}
		if _, err := dec.Token(); err != nil { // '}'
			return dec.InputOffset(), err
		}
	}
	return 0, nil
}

// skipSpace returns the offset of the first non-space byte at or after off.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// elementOffsets returns the offsets of the elements of raw, a valid JSON
// array.
func elementOffsets(raw json.RawMessage) []int64 {
	var out []int64
	for off := skipSpace(raw, 1); raw[off] != ']'; off = skipSpace(raw, valueEnd(raw, off)) {
		out = append(out, off)
	}
	return out
}

// valueEnd returns the offset just after the JSON value that starts at
// off in data, which must be valid JSON.
func valueEnd(data []byte, off int64) int64 {
	depth := 0
	for i := off; i < int64(len(data)); i++ {
		switch data[i] {
		case '"':
			for i++; data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of a number or literal
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ' ', '\t', '\n', '\r', ',', ':':
			if depth == 0 {
				return i
			}
		}
	}
	return int64(len(data))
}

// newDecodeError locates off in data.
func newDecodeError(data []byte, off int64, err error) *DecodeError {
	if off < 0 {
		off = 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	lineStart := 0
	for i := 0; i < int(off); i++ {
		if data[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	col += utf8.RuneCount(data[lineStart:off])
	return &DecodeError{Offset: off, Line: line, Col: col, Err: err}
}
