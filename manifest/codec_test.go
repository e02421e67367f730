package manifest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/schemas/schematest"
)

// sourceFields are the 36 fields of a source row, in the reference's order.
var sourceFields = schematest.SourceFields

var topFields = []string{"schema_version", "tool", "agent", "project_dir", "estimator", "budgets", "sources", "fragments"}

// keys returns the keys of the JSON object at the start of d, in order,
// skipping their values.
func keys(t *testing.T, d *json.Decoder) []string {
	t.Helper()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("expected an object, got %v %v", tok, err)
	}
	var out []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Token(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sample(t *testing.T) *manifest.Manifest {
	t.Helper()
	o := opts(project(t, map[string]string{"a.md": "<b>&amp;</b>\n"}),
		file("z-file", "note", "a.md"), text("a-text", "memory", "café\r\nnext\n"), file("gone", "note", "gone.md"))
	o.Budgets = manifest.Budgets{budget("note", lim(100), noLimit), budget("memory", noLimit, lim(1))}
	return build(t, o)
}

func TestEncodingOrder(t *testing.T) {
	t.Parallel()
	m := sample(t)
	b, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(t, json.NewDecoder(bytes.NewReader(b))); !reflect.DeepEqual(got, topFields) {
		t.Errorf("top-level keys = %q, want %q", got, topFields)
	}
	var top struct {
		Budgets   json.RawMessage   `json:"budgets"`
		Sources   []json.RawMessage `json:"sources"`
		Fragments json.RawMessage   `json:"fragments"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	if len(sourceFields) != 36 {
		t.Fatalf("the reference has 36 fields, the test lists %d", len(sourceFields))
	}
	for i, s := range top.Sources {
		if got := keys(t, json.NewDecoder(bytes.NewReader(s))); !reflect.DeepEqual(got, sourceFields) {
			t.Errorf("source %d keys = %q,\nwant %q", i, got, sourceFields)
		}
	}
	// budgets in the given order (not sorted), fragments in source order
	if got := keys(t, json.NewDecoder(bytes.NewReader(top.Budgets))); !reflect.DeepEqual(got, []string{"note", "memory"}) {
		t.Errorf("budget keys = %q", got)
	}
	if got := keys(t, json.NewDecoder(bytes.NewReader(top.Fragments))); !reflect.DeepEqual(got, []string{"z-file", "a-text", "gone"}) {
		t.Errorf("fragment keys = %q", got)
	}
	for _, want := range []string{
		`"max_chars": null`, `"source_hash": null`, `"emitted_hash": null`, // unlimited, missing
		`"<b>&amp;</b>\n"`, // no HTML escaping
		`"budgets": {
    "note": {
      "max_chars": 100,
      "max_lines": null
    },`,
		`"order": 1,`, `"hash_algorithm": "blake3",`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("encoded manifest lacks %s", want)
		}
	}
	if !bytes.HasSuffix(b, []byte("}\n")) || !bytes.HasPrefix(b, []byte("{\n  \"schema_version\": 1,\n  \"tool\": {\n    \"name\": \"ctx\",")) {
		t.Errorf("encoding is not two-space indented with a final newline:\n%s", b)
	}
	var buf bytes.Buffer
	if err := manifest.Encode(&buf, m); err != nil || !bytes.Equal(buf.Bytes(), b) {
		t.Errorf("Encode differs from Marshal: %v", err)
	}
}

func TestOrderEncoding(t *testing.T) {
	t.Parallel()
	e := text("x", "note", "t")
	e.Order = num(2.5)
	m := build(t, opts(project(t, nil), e, text("y", "note", "u")))
	b, _ := manifest.Marshal(m)
	if !strings.Contains(string(b), `"order": 2.5,`) || !strings.Contains(string(b), `"order": 2,`) {
		t.Errorf("orders not encoded as numbers:\n%s", b)
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	m := sample(t)
	good, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := manifest.Decode(bytes.NewReader(good))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !reflect.DeepEqual(d, m) {
		t.Errorf("Decode(Marshal(m)) != m")
	}
	s := string(good)
	replace := func(old, new string) string {
		t.Helper()
		if !strings.Contains(s, old) {
			t.Fatalf("sample lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	tests := []struct {
		name    string
		doc     string
		wantErr string
		is      error
	}{
		{"version 2", replace(`"schema_version": 1`, `"schema_version": 2`), "expected a version 1 manifest", manifest.ErrVersion},
		{"version 0", replace(`"schema_version": 1`, `"schema_version": 0`), "expected a version 1 manifest", manifest.ErrVersion},
		{"version as a string", replace(`"schema_version": 1`, `"schema_version": "1"`), "expected a version 1 manifest", manifest.ErrVersion},
		{"version 1.0", replace(`"schema_version": 1`, `"schema_version": 1.0`), "expected a version 1 manifest", manifest.ErrVersion},
		{"no version", replace(`"schema_version": 1,`, ``), "expected a version 1 manifest", manifest.ErrVersion},
		{"empty object", `{}`, "expected a version 1 manifest", manifest.ErrVersion},
		{"fragment missing", replace(`"gone": ""`, `"other": ""`), "manifest source ids and fragments must remain aligned", manifest.ErrAlignment},
		{"fragments reordered", replace(`"z-file": "<b>&amp;</b>\n",
    "a-text": "café\r\n",`, `"a-text": "café\r\n",
    "z-file": "<b>&amp;</b>\n",`), "manifest source ids and fragments must remain aligned", manifest.ErrAlignment},
		{"extra fragment", replace(`"gone": ""`, `"gone": "", "extra": ""`), "manifest source ids and fragments must remain aligned", manifest.ErrAlignment},
		{"no fragments", replace(`"gone": ""`, `"gone": ""}, "x": {`), `does not match the schema at /: additional properties 'x' not allowed`, nil},
		{"unknown top-level field", replace(`"agent":`, `"color": "red", "agent":`), `does not match the schema at /: additional properties 'color' not allowed`, nil},
		{"unknown source field", replace(`"kind": "note",`, `"kind": "note", "weight": 1,`), `does not match the schema at /sources/0: additional properties 'weight' not allowed`, nil},
		{"unknown tool field", replace(`"name": "ctx",`, `"name": "ctx", "url": "",`), `does not match the schema at /tool: additional properties 'url' not allowed`, nil},
		{"unknown budget field", replace(`"max_chars": 100,`, `"max_chars": 100, "max_words": 3,`), `does not match the schema at /budgets/note: additional properties 'max_words' not allowed`, nil},
		{"missing source field", replace(`"kind": "note",`, ``), `does not match the schema at /sources/0: missing property 'kind'`, nil},
		{"duplicate fragment", replace(`"gone": ""`, `"gone": "", "gone": ""`), `duplicate key "gone"`, nil},
		// encoding/json keeps the last of two keys, and the schema sees one
		{"duplicate top-level key", replace(`"agent":`, `"agent": "other", "agent":`), `invalid manifest at line 7, column 21: duplicate key "agent"`, nil},
		{"duplicate source key", replace(`"included": true`, `"included": false, "included": true`), `: duplicate key "included"`, nil},
		{"nested too deep", replace(`"agent":`, `"x": `+strings.Repeat("[", 300)+strings.Repeat("]", 300)+`, "agent":`), `invalid manifest at line 7, column 263: nesting deeper than 256 levels`, nil},
		{"trailing data", s + "{}", fmt.Sprintf("invalid manifest at line %d, column 1: invalid character '{' after top-level value", strings.Count(s, "\n")+1), nil},
		{"syntax error", "{\n  \"schema_version\": 1,\n  oops\n}", "invalid manifest at line 3, column 3: invalid character 'o'", nil},
		{"wrong type", replace(`"included": true`, `"included": "yes"`), "does not match the schema at /sources/0/included: got string, want boolean", nil},
		{"not an object", `[]`, "invalid manifest", nil},
		{"empty input", ``, "invalid manifest", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := manifest.Decode(strings.NewReader(tt.doc))
			if err == nil {
				t.Fatalf("Decode succeeded, want %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %q, want it to contain %q", err, tt.wantErr)
			}
			if tt.is != nil && (!errors.Is(err, tt.is) || err.Error() != tt.wantErr) {
				t.Errorf("error = %q, want exactly %v", err, tt.is)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	m := sample(t)
	if err := manifest.Check(m); err != nil {
		t.Fatalf("Check(built manifest) = %v", err)
	}
	v := *m
	v.SchemaVersion = 2
	if err := manifest.Check(&v); !errors.Is(err, manifest.ErrVersion) {
		t.Errorf("Check(version 2) = %v", err)
	}
	a := *m
	a.Fragments = a.Fragments[:2]
	if err := manifest.Check(&a); !errors.Is(err, manifest.ErrAlignment) {
		t.Errorf("Check(fragment missing) = %v", err)
	}
	r := *m
	r.Fragments = manifest.Fragments{m.Fragments[1], m.Fragments[0], m.Fragments[2]}
	if err := manifest.Check(&r); !errors.Is(err, manifest.ErrAlignment) {
		t.Errorf("Check(fragments reordered) = %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	m := &manifest.Manifest{
		SchemaVersion: 1, Tool: manifest.Tool{Name: "ctx", Version: "0"}, Agent: "a", ProjectDir: "/p",
		Estimator: "e", Budgets: manifest.Budgets{budget("k", lim(3), noLimit)},
		Sources:   []manifest.Source{{ID: "x", Kind: "k", Order: 1, Audience: []string{"*"}, Delivery: "consumer", Status: "available", HashAlgorithm: "blake3"}},
		Fragments: manifest.Fragments{{ID: "x", Text: "é\r\n"}},
	}
	b, err := manifest.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"schema_version":1,"sources":[],"fragments":{}}`))
	f.Add([]byte(`{"schema_version":2}`))
	f.Add([]byte(`{"schema_version":1,"budgets":{"a":{"max_chars":null}},"fragments":{"a":"","a":""}}`))
	f.Add([]byte(`[1]`))
	// nesting past the limit, a key twice
	f.Add([]byte(`{"schema_version":1,"x":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`))
	f.Add(bytes.Replace(b, []byte(`"agent": "a"`), []byte(`"agent": "a", "agent": "b"`), 1))
	f.Add(bytes.Replace(b, []byte(`"kind": "k"`), []byte(`"kind": "k", "kind": "k"`), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := manifest.Check(m); err != nil {
			t.Fatalf("Decode accepted a manifest that Check rejects: %v", err)
		}
		b1, err := manifest.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal(decoded): %v", err)
		}
		m2, err := manifest.Decode(bytes.NewReader(b1))
		if err != nil {
			t.Fatalf("Decode(Marshal(decoded)): %v\n%s", err, b1)
		}
		b2, err := manifest.Marshal(m2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("re-encoding is not stable: %v\n%s\n%s", err, b1, b2)
		}
	})
}

// TestSchemaRejects makes sure the schema helper is not vacuous.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	good, _ := manifest.Marshal(sample(t))
	if err := schematest.CheckManifest(good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ old, new string }{
		{`"status": "missing"`, `"status": "gone"`},
		{`"hash_algorithm": "blake3"`, `"hash_algorithm": "md5"`},
		{`"schema_version": 1`, `"schema_version": 2`},
		{`"omitted_lines": 0`, `"omitted_lines": -1`},
		{`"kind": "note",`, `"kind": "note", "extra": 1,`},
		{`"included": true,`, ``},
	} {
		doc := strings.Replace(string(good), bad.old, bad.new, 1)
		if doc == string(good) {
			t.Fatalf("sample lacks %q", bad.old)
		}
		if err := schematest.CheckManifest([]byte(doc)); err == nil {
			t.Errorf("the schema accepts %s in place of %s", bad.new, bad.old)
		}
	}
}
