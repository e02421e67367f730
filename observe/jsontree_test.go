package observe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// nest returns depth arrays around inner.
func nest(depth int, inner string) string {
	return strings.Repeat("[", depth) + inner + strings.Repeat("]", depth)
}

// nestObjects returns depth objects ({"a": ...}) around inner.
func nestObjects(depth int, inner string) string {
	return strings.Repeat(`{"a":`, depth) + inner + strings.Repeat("}", depth)
}

func TestParseJSONAcceptsAndRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		err  string // "" when the document is valid
	}{
		{"object", `{"a": 1, "b": [true, false, null], "c": {"d": "e"}}`, ""},
		{"array", `[1, -2.5e10, "x", [], {}]`, ""},
		{"string", `"hello"`, ""},
		{"number", `0`, ""},
		{"negative exponent", `-0.5E-3`, ""},
		{"literals", `[true,false,null]`, ""},
		{"white space around", " \t\r\n{ } \n", ""},
		{"empty object and array", `{"a":{},"b":[]}`, ""},
		{"escapes", `"\" \\ \/ \b \f \n \r \t \u00e9 \u00E9 \ud83d\ude00"`, ""},
		{"lone surrogate escape", `"\ud800"`, ""},
		{"invalid UTF-8 is accepted as encoding/json does", "\"a\xffb\"", ""},
		{"DEL is not a control character", "\"\x7f\"", ""},
		{"duplicate keys", `{"a":1,"a":2}`, ""},
		{"depth limit, arrays", nest(MaxDepth, ""), ""},
		{"depth limit with a scalar inside", nest(MaxDepth, "1"), ""},
		{"depth limit, objects", nestObjects(MaxDepth, `"x"`), ""},

		{"empty", ``, "unexpected end"},
		{"only space", "  \n", "unexpected end"},
		{"over the depth limit", nest(MaxDepth+1, ""), fmt.Sprintf("nested deeper than %d levels", MaxDepth)},
		{"over the depth limit with a scalar", nest(MaxDepth+1, "0"), fmt.Sprintf("nested deeper than %d levels", MaxDepth)},
		{"objects over the depth limit", nestObjects(MaxDepth+1, "0"), fmt.Sprintf("nested deeper than %d levels", MaxDepth)},
		{"data after the value", `{} x`, "data after the value at byte 3"},
		{"two values", `1 2`, "data after the value"},
		{"two objects", `{}{}`, "data after the value"},
		{"invalid literal tru", `tru`, "an invalid literal"},
		{"invalid literal nul", `[nul]`, "an invalid literal"},
		{"leading zero", `01`, "an invalid literal"},
		{"plus sign", `+1`, "an invalid literal"},
		{"trailing dot", `1.`, "an invalid literal"},
		{"bare minus", `-`, "an invalid literal"},
		{"NaN", `NaN`, "an invalid literal"},
		{"a literal glued to a string", `[1"a"]`, "an invalid literal"},
		{"a control character in a string", "\"a\x01b\"", "a control character in a string"},
		{"a raw tab in a string", "\"a\tb\"", "a control character in a string"},
		{"a raw line break in a key", "{\"a\nb\":1}", "a control character in a string"},
		{"an invalid escape", `"\x"`, "an invalid escape"},
		{"a short unicode escape", `"\u12"`, "an invalid escape"},
		{"a unicode escape with a non-hex digit", `"\u12G4"`, "an invalid escape"},
		{"an invalid escape in a key", `{"\q":1}`, "an invalid escape"},
		{"an unterminated string", `"abc`, "an unterminated string"},
		{"an escaped final quote", `"abc\"`, "an unterminated string"},
		{"a key that is a number", `{1:2}`, "a key that is not a string"},
		{"no colon", `{"a" 1}`, "no colon"},
		{"trailing comma in an object", `{"a":1,}`, "an invalid literal"},
		{"trailing comma in an array", `[1,]`, "an invalid literal"},
		{"unclosed object", `{"a":1`, "no comma or closing brace"},
		{"unclosed array", `[1,2`, "no comma or closing bracket"},
		{"single quotes", `{'a':1}`, "an invalid literal"},
		{"a BOM", "\ufeff{}", "an invalid literal"},
		{"vertical tab is not white space", "\v{}", "an invalid literal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			valid := json.Valid([]byte(tc.in))
			v, err := parseJSON([]byte(tc.in))
			switch {
			case tc.err == "":
				if err != nil {
					t.Fatalf("parseJSON(%q): %v", tc.in, err)
				}
				if !valid {
					t.Fatalf("parseJSON accepts %q, which encoding/json refuses", tc.in)
				}
				checkTree(t, []byte(tc.in), v, 0)
			default:
				if err == nil {
					t.Fatalf("parseJSON(%q) accepted it; want %q", tc.in, tc.err)
				}
				if !errors.Is(err, errSyntax) {
					t.Errorf("error %v is not errSyntax", err)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %q, want it to say %q", err, tc.err)
				}
				if valid && !strings.Contains(tc.err, "nested deeper") {
					t.Errorf("parseJSON refuses %q, which encoding/json accepts", tc.in)
				}
			}
		})
	}
}

func TestParseJSONSpans(t *testing.T) {
	body := []byte(` {"model" : "m", "list": [1, "two", {"k": null}], "nested": {"x\u00e9": true, "y": []}} `)
	root, err := parseJSON(body)
	if err != nil {
		t.Fatal(err)
	}
	text := func(v *value) string { return string(body[v.start:v.end]) }
	if got, want := text(root), strings.TrimSpace(string(body)); got != want {
		t.Errorf("root span %q, want %q", got, want)
	}
	if root.kind != '{' || strings.Join(root.keys, ",") != "model,list,nested" {
		t.Fatalf("root kind %c keys %q", root.kind, root.keys)
	}
	if m, ok := root.get("model").str(body); !ok || m != "m" || text(root.get("model")) != `"m"` {
		t.Errorf("model %q %v, span %q", m, ok, text(root.get("model")))
	}
	list := root.get("list").items()
	if len(list) != 3 {
		t.Fatalf("list has %d items", len(list))
	}
	for i, want := range []string{`1`, `"two"`, `{"k": null}`} {
		if got := text(list[i]); got != want {
			t.Errorf("list[%d] span %q, want %q", i, got, want)
		}
	}
	if list[0].kind != 'l' || list[1].kind != '"' || list[2].kind != '{' {
		t.Errorf("kinds %c %c %c", list[0].kind, list[1].kind, list[2].kind)
	}
	if text(list[2].get("k")) != "null" {
		t.Errorf("k span %q", text(list[2].get("k")))
	}
	nested := root.get("nested")
	if strings.Join(nested.keys, ",") != "xé,y" {
		t.Errorf("nested keys %q (want the decoded key)", nested.keys)
	}
	if text(nested.get("y")) != "[]" || nested.get("y").items() != nil {
		t.Errorf("y span %q", text(nested.get("y")))
	}
	if root.get("missing") != nil || list[0].get("x") != nil || root.items() != nil {
		t.Error("get or items of what is not there is not nil")
	}
	var nilValue *value
	if nilValue.get("x") != nil || nilValue.items() != nil {
		t.Error("nil value")
	}
	if _, ok := nilValue.str(body); ok {
		t.Error("nil value is a string")
	}
	if _, ok := list[0].str(body); ok {
		t.Error("a number is a string")
	}
	checkTree(t, body, root, 0)
}

func TestParseJSONDepthError(t *testing.T) {
	_, err := parseJSON([]byte(nest(MaxDepth+1, "")))
	if err == nil {
		t.Fatal("no error")
	}
	want := fmt.Sprintf("not JSON: nested deeper than %d levels", MaxDepth)
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	// a deep body is linear work, not a stack overflow: far over the limit
	// it is refused all the same
	if _, err := parseJSON([]byte(nest(100000, ""))); err == nil {
		t.Error("100000 levels accepted")
	}
}

// checkTree checks that v and every value below it span valid JSON, each
// in its parent's span and in order, with the keys and strings
// encoding/json decodes.
func checkTree(t testing.TB, body []byte, v *value, depth int) {
	t.Helper()
	if v.start < 0 || v.end > len(body) || v.start >= v.end {
		t.Fatalf("span [%d,%d) of a body of %d bytes", v.start, v.end, len(body))
	}
	raw := body[v.start:v.end]
	if !json.Valid(raw) {
		t.Fatalf("the span %q is not valid JSON", raw)
	}
	switch v.kind {
	case '{', '[':
		if raw[0] != v.kind {
			t.Fatalf("kind %c, span %q", v.kind, raw)
		}
		if v.kind == '[' && len(v.keys) != 0 {
			t.Fatalf("an array with keys %q", v.keys)
		}
		if v.kind == '{' && len(v.keys) != len(v.kids) {
			t.Fatalf("%d keys, %d members", len(v.keys), len(v.kids))
		}
		elems, keys := decodeMembers(t, raw, v.kind)
		if len(elems) != len(v.kids) {
			t.Fatalf("%d members, encoding/json finds %d in %q", len(v.kids), len(elems), raw)
		}
		at := v.start + 1
		for i, k := range v.kids {
			if k.start < at || k.end >= v.end {
				t.Fatalf("member %d span [%d,%d) not in order in [%d,%d)", i, k.start, k.end, at, v.end)
			}
			at = k.end
			if !bytes.Equal(body[k.start:k.end], elems[i]) {
				t.Fatalf("member %d span %q, encoding/json reads %q", i, body[k.start:k.end], elems[i])
			}
			if v.kind == '{' && v.keys[i] != keys[i] {
				t.Fatalf("key %d %q, encoding/json reads %q", i, v.keys[i], keys[i])
			}
			checkTree(t, body, k, depth+1)
		}
	case '"':
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := v.str(body)
		if !ok || got != want {
			t.Fatalf("string %q decodes to %q %v, want %q", raw, got, ok, want)
		}
	case 'l':
		if c := raw[0]; c == '{' || c == '[' || c == '"' {
			t.Fatalf("a literal spans %q", raw)
		}
	default:
		t.Fatalf("kind %q", v.kind)
	}
}

// decodeMembers returns the raw members of an object or array (and the
// keys of an object) as encoding/json reads them.
func decodeMembers(t testing.TB, raw []byte, kind byte) ([]json.RawMessage, []string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var elems []json.RawMessage
	var keys []string
	for dec.More() {
		if kind == '{' {
			tok, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, tok.(string))
		}
		var m json.RawMessage
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		elems = append(elems, m)
	}
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("data after the value: %v", err)
	}
	return elems, keys
}

// nesting returns how many objects and arrays the deepest value of a
// valid JSON document is in.
func nesting(b []byte) int {
	depth, deepest := 0, 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, "b": [true, false, null], "c": {"d": "e"}}`,
		`[1, -2.5e10, "x", [], {}]`,
		`"\" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud800"`,
		"\"a\xffb\"",
		`{"model":"claude","messages":[{"role":"user","content":"hi"}]}`,
		`"\x"`, `"\u12"`, `{"\q":1}`, `01`, `tru`, `{} x`, `[1,]`, "\"a\x01b\"",
		nest(MaxDepth, "1"), nest(MaxDepth+1, ""), nestObjects(MaxDepth, "[]"),
		` {"k" : [ 1 , 2 ] } `, `-0.0e+1`, `1e`, `"abc\"`, `{"a"}`, `[`, `]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseJSON(b)
		valid := json.Valid(b)
		if valid && nesting(b) > MaxDepth {
			if err == nil || !strings.Contains(err.Error(), "nested deeper") {
				t.Fatalf("a document nested %d levels: %v", nesting(b), err)
			}
			return
		}
		if (err == nil) != valid {
			t.Fatalf("parseJSON(%q): %v; json.Valid %v", b, err, valid)
		}
		if err != nil {
			if !errors.Is(err, errSyntax) {
				t.Fatalf("error %v is not errSyntax", err)
			}
			return
		}
		checkTree(t, b, v, 0)
		if got, want := string(b[v.start:v.end]), string(bytes.Trim(b, " \t\r\n")); got != want {
			t.Fatalf("root span %q, want %q", got, want)
		}
	})
}

func TestRawOffsets(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string
	}{
		{"empty", `""`},
		{"ASCII", `"hello, world"`},
		{"line break", `"a\nb"`},
		{"quote", `"say \"hi\""`},
		{"backslash", `"C:\\dir\\file"`},
		{"slash", `"a\/b"`},
		{"short escapes", `"\b\f\r\t"`},
		{"e acute escaped", `"caf\u00e9"`},
		{"e acute escaped, upper case", `"caf\u00E9!"`},
		{"NUL escaped", `"a\u0000b"`},
		{"e acute raw", `"café"`},
		{"CJK raw", `"日本語のテキスト"`},
		{"emoji raw", `"smile 😀 now"`},
		{"surrogate pair", `"smile \ud83d\ude00 now"`},
		{"two pairs in a row", `"\ud83d\ude00\ud83d\ude01"`},
		{"lone high surrogate", `"x\ud83dy"`},
		{"lone low surrogate", `"x\ude00y"`},
		{"high surrogate then a BMP escape", `"\ud83d\u0041"`},
		{"high surrogate then a pair", `"\ud83d\ud83d\ude00"`},
		{"two high surrogates", `"\ud800\ud800"`},
		{"high surrogate at the end", `"abc\ud800"`},
		{"invalid UTF-8 byte", "\"a\xffb\""},
		{"a cut UTF-8 sequence", "\"a\xe2\x82\""},
		{"a continuation byte alone", "\"\x80\x80x\""},
		{"an overlong encoding", "\"\xc0\xaf\""},
		{"an encoded surrogate", "\"\xed\xa0\x80\""},
		{"mixed", "\"# Title\\n\\tcafé \\u00e9 \\ud83d\\ude00 \xff \\\"q\\\" \\\\ end\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !json.Valid([]byte(tc.raw)) {
				t.Fatalf("%q is not a JSON string", tc.raw)
			}
			checkOffsets(t, []byte(tc.raw), true)
		})
	}
}

func TestRawOffsetsInvalid(t *testing.T) {
	for _, raw := range []string{``, `"`, `abc`, `"abc`, `abc"`, `"\"`, `"\x"`, `"\u12"`, `"\u12G4"`, `"\u"`, `"a\`} {
		if _, ok := rawOffsets([]byte(raw)); ok {
			t.Errorf("rawOffsets(%q) ok", raw)
		}
	}
	// an invalid escape ends the map where it is
	offs, ok := rawOffsets([]byte(`"ab\qcd"`))
	if ok || len(offs) != 2 || offs[0] != 1 || offs[1] != 2 {
		t.Errorf("rawOffsets of an invalid escape = %v %v", offs, ok)
	}
}

// checkOffsets checks rawOffsets of a valid JSON string literal: an
// offset for each decoded byte and one for the end, in order, each
// decoded rune's text being what its span of raw decodes to. all checks
// every pair of rune boundaries, not only neighbours and prefixes.
func checkOffsets(t testing.TB, raw []byte, all bool) {
	t.Helper()
	var decoded string
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	offs, ok := rawOffsets(raw)
	if !ok {
		t.Fatalf("rawOffsets(%q) not ok", raw)
	}
	if len(offs) != len(decoded)+1 {
		t.Fatalf("rawOffsets(%q): %d offsets for %d decoded bytes", raw, len(offs), len(decoded))
	}
	if offs[len(decoded)] != len(raw)-1 {
		t.Fatalf("the end maps to %d, not the closing quote %d", offs[len(decoded)], len(raw)-1)
	}
	if len(decoded) > 0 && offs[0] != 1 {
		t.Fatalf("the first byte maps to %d", offs[0])
	}
	for k := 1; k < len(offs); k++ {
		if offs[k] < offs[k-1] {
			t.Fatalf("offsets go back at %d: %v", k, offs)
		}
	}
	// the rune boundaries of the decoded text
	var bounds []int
	for i := range decoded {
		bounds = append(bounds, i)
	}
	bounds = append(bounds, len(decoded))
	for i, a := range bounds {
		// inside a rune, every byte maps to the rune's start
		if i+1 < len(bounds) {
			for k := a; k < bounds[i+1]; k++ {
				if offs[k] != offs[a] {
					t.Fatalf("byte %d of the rune at %d maps to %d, the rune to %d", k, a, offs[k], offs[a])
				}
			}
		}
		for j := i + 1; j < len(bounds); j++ {
			if !all && j != i+1 && i != 0 {
				continue
			}
			b := bounds[j]
			part := append(append([]byte{'"'}, raw[offs[a]:offs[b]]...), '"')
			var got string
			if err := json.Unmarshal(part, &got); err != nil {
				t.Fatalf("raw[%d:%d] of %q is %q: %v", offs[a], offs[b], raw, part, err)
			}
			if got != decoded[a:b] {
				t.Fatalf("raw[%d:%d] of %q decodes to %q, want decoded[%d:%d] %q", offs[a], offs[b], raw, got, a, b, decoded[a:b])
			}
		}
	}
}

func FuzzRawOffsets(f *testing.F) {
	for _, s := range []string{
		`""`, `"abc"`, `"a\nb\"c\\d\/e\u00e9f"`, `"\ud83d\ude00"`, `"x\ud83dy"`, `"\ude00"`,
		"\"a\xffb\"", "\"\xe2\x82\"", `"\ud83d\u0041"`, "café 日本 😀", `a\u00e9`, "\\", "\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 2048 {
			return
		}
		for _, raw := range [][]byte{b, append(append([]byte{'"'}, b...), '"')} {
			// a literal alone, with no white space around it
			if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || !json.Valid(raw) {
				rawOffsets(raw) // no panic on what is not a literal
				continue
			}
			checkOffsets(t, raw, len(raw) < 64)
		}
		if utf8.Valid(b) {
			// the literal encoding/json writes of the text
			q, err := json.Marshal(string(b))
			if err != nil {
				t.Fatal(err)
			}
			checkOffsets(t, q, len(q) < 64)
		}
	})
}
