package jsonenc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The characters a terminal acts on are escaped, and the value decodes
// back the same.
func TestEscapesTerminalControls(t *testing.T) {
	v := map[string]string{"k": "a\x1b]0;t\x07\u009b31m\u202e\x7fé<&>"}
	for _, enc := range []func(any) ([]byte, error){Indent, Compact} {
		b, err := enc(v)
		if err != nil {
			t.Fatal(err)
		}
		want := `"a\u001b]0;t\u0007\u009b31m\u202e\u007fé<&>"`
		if got := string(b); !strings.Contains(got, want) {
			t.Errorf("encoded %s, want it to hold %s", got, want)
		}
		var back map[string]string
		if err := json.Unmarshal(b, &back); err != nil || back["k"] != v["k"] {
			t.Errorf("decodes to %q, %v", back["k"], err)
		}
	}
}

// encodingJSON is what encoding/json's indenting encoder writes.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Up to MaxIndent levels, Indent writes what encoding/json writes.
func TestIndentAsEncodingJSON(t *testing.T) {
	docs := []string{
		`1`, `"x"`, `null`, `[]`, `{}`, `[[]]`, `{"a":{}}`, `[1,[2,[3,{}]],{"b":[]}]`,
		`{"a":"b,c:d{e[f\"g\\","h":[true,false,null,-1.5e3]}`,
		`{"<&>":"\u2028 é \u001b"}`,
		`[` + strings.Repeat(`{"k":[`, MaxIndent/2-1) + `1` + strings.Repeat(`]}`, MaxIndent/2-1) + `]`,
	}
	for _, d := range docs {
		v := json.RawMessage(d)
		got, err := Indent(v)
		if err != nil {
			t.Fatal(err)
		}
		if want := string(escapeControls([]byte(encodingJSON(t, v)))); string(got) != want {
			t.Errorf("%s:\n%s\nwant\n%s", d, got, want)
		}
	}
}

// Levels below MaxIndent are written on one line: indenting costs two
// bytes a level on every line, so a document nested n levels deep would
// grow with n². The value is the same.
func TestIndentDeep(t *testing.T) {
	for _, depth := range []int{MaxIndent, MaxIndent + 2, 100, 1000} {
		doc := strings.Repeat(`{"a":[`, depth/2) + `1,2` + strings.Repeat(`]}`, depth/2)
		got, err := Indent(json.RawMessage(doc))
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal([]byte(doc), &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("depth %d: another value", depth)
		}
		if r := float64(len(got)) / float64(len(doc)); r > MaxIndent+4 {
			t.Errorf("depth %d: %d bytes for %d (%.0f×)", depth, len(got), len(doc), r)
		}
		lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
		for _, l := range lines {
			if n := len(l) - len(strings.TrimLeft(l, " ")); n > 2*MaxIndent {
				t.Fatalf("depth %d: a line indented %d spaces", depth, n)
			}
		}
		if depth > MaxIndent {
			inner := strings.Repeat(`{"a":[`, (depth-MaxIndent)/2) + `1,2` + strings.Repeat(`]}`, (depth-MaxIndent)/2)
			if !strings.Contains(string(got), inner) {
				t.Errorf("depth %d: the levels below %d are not on one line:\n%s", depth, MaxIndent, got)
			}
		}
	}
}
