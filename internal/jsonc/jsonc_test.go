package jsonc

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestStrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{"{\"a\": 1 // one\n}", "{\"a\": 1       \n}"},
		{`{"a": /* x */ 1}`, `{"a":         1}`},
		{`{"url": "http://x//y", "b": "/* no */"}`, `{"url": "http://x//y", "b": "/* no */"}`},
		{`{"q": "a\"//b"} // c`, `{"q": "a\"//b"}     `},
		{"/* a\nb */{}", "    \n    {}"},
		{`{} /* open`, `{}        `},
		{`{"a": "\\"} // c`, `{"a": "\\"}     `},
	}
	for _, tt := range tests {
		if got := string(Strip([]byte(tt.in))); got != tt.want {
			t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStripDecodes(t *testing.T) {
	in := []byte(`{
  // the auth ctx needs
  "security": {"auth": {"selectedType": "gemini-api-key"}}, /* trailing */
  "context": {"fileName": ["AGENTS.md", "GEMINI.md"]}
}`)
	var v struct {
		Security struct {
			Auth struct {
				SelectedType string `json:"selectedType"`
			} `json:"auth"`
		} `json:"security"`
	}
	if err := json.Unmarshal(Strip(in), &v); err != nil {
		t.Fatal(err)
	}
	if v.Security.Auth.SelectedType != "gemini-api-key" {
		t.Fatalf("%+v", v)
	}
}

func FuzzStrip(f *testing.F) {
	for _, s := range []string{`{"a": 1} // c`, `/* x */ {"b": "//"}`, `"\"`, `{"a":"\\"}/*`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		orig := bytes.Clone(b)
		got := Strip(b)
		if !bytes.Equal(b, orig) {
			t.Fatal("Strip modified its input")
		}
		if len(got) != len(b) {
			t.Fatalf("length %d, want %d", len(got), len(b))
		}
		if bytes.Count(got, []byte("\n")) != bytes.Count(b, []byte("\n")) {
			t.Fatal("newlines changed")
		}
		if again := Strip(got); !bytes.Equal(again, got) {
			t.Fatalf("not idempotent: %q -> %q", got, again)
		}
		if !bytes.Contains(b, []byte("/")) && !bytes.Equal(got, b) {
			t.Fatal("changed input without a slash")
		}
		if json.Valid(b) && !bytes.Contains(b, []byte("/")) != json.Valid(got) && !bytes.Contains(b, []byte("/")) {
			t.Fatal("valid JSON without comments became invalid")
		}
	})
}
