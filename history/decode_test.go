package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// fullRequest uses every known field, in the order Marshal writes them.
const fullRequest = `{"messages":[` +
	`{"id":"s","role":"system","contentParts":[{"type":"text","text":"Be brief."}],"timestamp":1700000000000},` +
	`{"id":"u1","role":"user","name":"ana","contentParts":[{"type":"text","text":"","protocolOnly":true},{"type":"image","storageKey":"img-1","ocrResult":"a cat"}],` +
	`"steered":true,"files":[{"id":"f1","name":"a.pdf","fileType":"application/pdf","storageKey":"k1","rawStorageKey":"r1","localPath":"/tmp/a.pdf",` +
	`"parserType":"sandbox-raw","ragMode":"session-retrieval","sessionAttachmentId":"sa","sessionAttachmentIndexStatus":"ready",` +
	`"sessionAttachmentStatus":"done","sessionAttachmentBlockedReason":"none","byteLength":1280,"lineCount":3}],` +
	`"links":[{"id":"l1","url":"https://example.com/?a=1&b=<2>","title":"Ex","storageKey":"k2"}],"tokenCountMap":{"o200k":12},"tokenCount":12},` +
	`{"id":"a1","role":"assistant","contentParts":[{"type":"reasoning","text":"hmm"},{"type":"info","text":"note","values":{"x":[1,2.5]}},` +
	`{"type":"tool-call","state":"result","toolCallId":"c1","toolName":"read_file","args":{"z":1,"a":"é"},"result":"text","resultStorageKey":"rk","resultImageStorageKey":"ik"},` +
	`{"type":"tool-call","state":"call","toolCallId":"c2","toolName":"t","args":null}],` +
	`"generating":true,"isForkMarker":true,"isSummary":true,"finishReason":"stop","error":"e","errorCode":42}` +
	`],"compactionPoints":[{"summaryMessageId":"a1","boundaryMessageId":"u1","createdAt":1700000000001}]}`

func marshalRequest(t testing.TB, r Request) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	req, err := DecodeRequest(strings.NewReader(fullRequest))
	if err != nil {
		t.Fatal(err)
	}
	if got := marshalRequest(t, req); got != fullRequest {
		t.Errorf("round trip differs:\n%s\n%s", got, fullRequest)
	}
	// Unknown nested keys are kept, sorted after the known ones.
	in := `{"messages":[{"zeta":1,"id":"1","role":"user","contentParts":[{"type":"audio","storageKey":"au","durationMs":5},{"type":"text","text":"hi","alpha":[true]}],"files":[{"id":"f","name":"n","fileType":"t","extra":"x"}],"links":[{"id":"l","url":"u","title":"t","loading":false}],"beta":{"b":1}}]}`
	want := `{"messages":[{"id":"1","role":"user","contentParts":[{"type":"audio","storageKey":"au","durationMs":5},{"type":"text","text":"hi","alpha":[true]}],"files":[{"id":"f","name":"n","fileType":"t","extra":"x"}],"links":[{"id":"l","url":"u","title":"t","loading":false}],"beta":{"b":1},"zeta":1}]}`
	req, err = DecodeRequest(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := marshalRequest(t, req); got != want {
		t.Errorf("extras:\n%s\nwant\n%s", got, want)
	}
	// A message without parts is written with "contentParts": [].
	b, _ := json.Marshal(Message{ID: "x", Role: RoleUser})
	if string(b) != `{"id":"x","role":"user","contentParts":[]}` {
		t.Errorf("empty message: %s", b)
	}
}

func TestDecodeRequestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in  string
		line, col int
		contains  string
	}{
		{"syntax", "{\"messages\": [\n  {\"id\": \"1\",, }]}", 2, 14, "invalid JSON"},
		{"trailing data", `{"messages": []} {}`, 1, 18, "invalid JSON"},
		{"not an object", `  1`, 1, 3, "must be a JSON object, or an array of messages"},
		{"not a message", "  [{\"content\": \"x\"},\n 1]", 2, 2, "message 1: must be an object (a message) or a string (a legacy entry), not a number"},
		{"unknown top-level key", "{\"messages\": [],\n \"extra\": 1}", 2, 2, `unknown key "extra"`},
		{"missing messages", `{"compactionPoints": []}`, 1, 1, `missing key "messages"`},
		{"type error", "{\"messages\": [\n{\"id\": \"1\", \"role\": \"user\", \"contentParts\": [{\"type\": \"text\", \"text\": 5}]}]}", 2, 71, "got a JSON number, want a string"},
		{"messages not an array", `{"messages": {}}`, 1, 14, "got a JSON object, want an array"},
		{"bad role", "{\"messages\": [\n  {\"id\": \"1\", \"role\": \"user\"},\n  {\"id\": \"2\", \"role\": \"robot\"}]}", 3, 3, `invalid role "robot"`},
		{"unknown compaction key", `{"messages": [], "compactionPoints": [{"summaryMessageId": "s", "at": 1}]}`, 1, 65, `unknown key "at"`},
		{"compaction type", `{"messages": [], "compactionPoints": [{"createdAt": "now"}]}`, 1, 57, "want a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeRequest(strings.NewReader(tt.in))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if de.Line != tt.line || de.Col != tt.col || !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("got %q (line %d col %d), want line %d col %d containing %q", err, de.Line, de.Col, tt.line, tt.col, tt.contains)
			}
			if !strings.HasPrefix(err.Error(), "line "+itoa(tt.line)+":"+itoa(tt.col)+" (byte ") {
				t.Errorf("message %q does not start with the position", err)
			}
		})
	}
	if _, err := DecodeRequest(strings.NewReader(`{"messages": null}`)); err != nil {
		t.Errorf("null messages: %v", err)
	}
}

func FuzzDecodeRequest(f *testing.F) {
	f.Add(fullRequest)
	f.Add(`{"messages":[]}`)
	f.Add(`{"messages":[{"id":"1","role":"user","contentParts":[{"type":"text","text":"x","k":[1,{"a":null}]}]}]}`)
	f.Add(`{"messages":[{"id":"1","role":"tool","contentParts":[{"type":"tool-call","args":"\u2028<>&","result":1e400}]}]}`)
	f.Add(`["User: hi",{"role":"AI","content":"yo"},{"content":[{"type":"text","text":"x"}]}]`)
	f.Add(`[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"}]}]`)
	f.Add(`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}]}`)
	// nesting past the limit, and keys twice (as written, escaped, in
	// another case)
	f.Add(`{"messages":[{"id":"1","role":"user","contentParts":[],"meta":` + strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300) + `}]}`)
	f.Add(`[{"role":"user","content":"x","meta":` + strings.Repeat(`[`, 254) + strings.Repeat(`]`, 254) + `}]`)
	f.Add(`{"messages":[{"id":"1","role":"user","role":"system","contentParts":[]}]}`)
	f.Add(`{"messages":[{"id":"1","role":"user","r\u006fle":"system","contentParts":[]}]}`)
	f.Add(`{"messages":[{"id":"1","role":"user","Role":"system","contentParts":[{"type":"text","TEXT":"a","text":"b"}]}]}`)
	f.Add(`{"messages":[],"messages":[]}`)
	f.Fuzz(func(t *testing.T, in string) {
		req, err := DecodeRequest(strings.NewReader(in))
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if de.Offset < 0 || de.Offset > int64(len(in)) || de.Line < 1 || de.Col < 1 {
				t.Fatalf("bad position %+v", de)
			}
			return
		}
		// Encoding is stable: encode, decode, encode gives the same bytes.
		// Roles of the other shapes (as written, "" for a legacy string)
		// are not Chatbox's, which the encoding is.
		for _, m := range req.Messages {
			if !m.Role.valid() {
				return
			}
		}
		first := marshalRequest(t, req)
		again, err := DecodeRequest(strings.NewReader(first))
		if err != nil {
			t.Fatalf("re-decode of %s: %v", first, err)
		}
		if second := marshalRequest(t, again); second != first {
			t.Fatalf("unstable encoding:\n%s\n%s", first, second)
		}
	})
}
