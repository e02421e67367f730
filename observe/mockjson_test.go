package observe

import (
	"encoding/json"
	"testing"
)

func TestMockJSONReply(t *testing.T) {
	tests := []struct {
		name, body, want string
		ok               bool
	}{
		{"no JSON asked", `{"contents": []}`, "", false},
		{"not JSON", `{`, "", false},
		{"Gemini classifier", `{"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema":
			{"type": "OBJECT", "properties": {"reasoning": {"type": "STRING"}, "complexity_score": {"type": "INTEGER", "description": "Complexity score from 1-100."}},
			 "required": ["reasoning", "complexity_score"]}}}`, `{"complexity_score":1,"reasoning":""}`, true},
		{"bounds", `{"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema":
			{"type": "object", "properties": {"a": {"type": "number", "minimum": 5}, "b": {"type": "number", "maximum": -2}}}}}`, `{"a":5,"b":-2}`, true},
		{"Gemini Schema, upper-case types", `{"generationConfig": {"responseMimeType": "application/json", "responseSchema":
			{"type": "OBJECT", "properties": {"next_speaker": {"type": "STRING", "enum": ["user", "model"]}, "ok": {"type": "BOOLEAN"}}}}}`,
			`{"next_speaker":"user","ok":false}`, true},
		{"JSON without a schema", `{"generationConfig": {"responseMimeType": "application/json"}}`, `{}`, true},
		{"Responses json_schema", `{"text": {"format": {"type": "json_schema", "schema": {"type": "array", "minItems": 2, "items": {"type": ["null", "number"], "exclusiveMinimum": 3}}}}}`,
			`[4,4]`, true},
		{"Chat json_object", `{"response_format": {"type": "json_object"}}`, `{}`, true},
		{"choices and const", `{"response_format": {"type": "json_schema", "json_schema": {"schema": {"anyOf": [{"const": "a"}, {"type": "string"}]}}}}`, `"a"`, true},
		{"a string of a least length", `{"text": {"format": {"type": "json_schema", "schema": {"type": "string", "minLength": 3}}}}`, `"xxx"`, true},
	}
	for _, tt := range tests {
		got, ok := mockJSONReply([]byte(tt.body))
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %q %v, want %q %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzMockJSONReply(f *testing.F) {
	f.Add([]byte(`{"generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {"type": "object", "properties": {"a": {"type": "array", "minItems": 3, "items": {"type": "integer"}}}}}}`))
	f.Add([]byte(`{"text": {"format": {"type": "json_schema", "schema": {"oneOf": [{"type": "null"}, {"enum": [1]}]}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := mockJSONReply(b)
		if ok && !json.Valid([]byte(got)) {
			t.Fatalf("reply %q is not JSON", got)
		}
		if !ok && got != "" {
			t.Fatalf("a reply %q without a JSON request", got)
		}
	})
}

// TestMockJSONBounded: nested arrays with minItems visit at most the
// budget's schemas, however deep.
func TestMockJSONBounded(t *testing.T) {
	schema := `{"type": "string"}`
	for range 40 {
		schema = `{"type": "array", "minItems": 16, "items": ` + schema + `}`
	}
	got, ok := mockJSONReply([]byte(`{"text": {"format": {"type": "json_schema", "schema": ` + schema + `}}}`))
	if !ok || !json.Valid([]byte(got)) || len(got) > 100000 {
		t.Fatalf("%v, %d bytes", ok, len(got))
	}
}
