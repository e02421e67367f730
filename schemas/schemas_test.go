package schemas_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/schemas"
	"github.com/ctxaudit/ctx/schemas/schematest"
)

// sourceFields are the 36 fields of a source row, in the reference's order.
var sourceFields = schematest.SourceFields

type schemaDoc struct {
	ID         string                     `json:"$id"`
	Required   []string                   `json:"required"`
	Properties map[string]json.RawMessage `json:"properties"`
	Defs       struct {
		Source struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"source"`
	} `json:"$defs"`
}

func load(t *testing.T) schemaDoc {
	t.Helper()
	var d schemaDoc
	if err := json.Unmarshal(schemas.ManifestV1(), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// jsonFields returns the JSON names of the fields of a struct type, in
// order, split into required (no omitempty or omitzero) and optional.
func jsonFields(v any) (required, optional []string) {
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		tag := rt.Field(i).Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" {
			continue
		}
		if strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
			optional = append(optional, name)
		} else {
			required = append(required, name)
		}
	}
	return required, optional
}

func TestCompiles(t *testing.T) {
	t.Parallel()
	if _, err := schemas.NewManifestV1Validator(); err != nil {
		t.Fatal(err)
	}
	if d := load(t); d.ID != schemas.ManifestV1ID {
		t.Errorf("$id = %q, want %q", d.ID, schemas.ManifestV1ID)
	}
}

// sourceOptional are the optional fields after the 36: the token budget's,
// written only for rows whose budget has max_tokens.
var sourceOptional = []string{"max_tokens", "omitted_tokens"}

// TestSourceFields checks the schema and the Go type against the
// reference's 36 fields, in order, followed by the optional ones (a drift
// check).
func TestSourceFields(t *testing.T) {
	t.Parallel()
	d := load(t)
	if !reflect.DeepEqual(d.Defs.Source.Required, sourceFields) {
		t.Errorf("schema source.required =\n%q\nwant\n%q", d.Defs.Source.Required, sourceFields)
	}
	if len(d.Defs.Source.Properties) != len(sourceFields)+len(sourceOptional) {
		t.Errorf("schema source has %d properties, want %d", len(d.Defs.Source.Properties), len(sourceFields)+len(sourceOptional))
	}
	for _, name := range sourceOptional {
		if _, ok := d.Defs.Source.Properties[name]; !ok {
			t.Errorf("schema source lacks the optional property %q", name)
		}
	}
	req, opt := jsonFields(manifest.Source{})
	if !reflect.DeepEqual(req, sourceFields) || !reflect.DeepEqual(opt, sourceOptional) {
		t.Errorf("manifest.Source JSON fields =\n%q (optional %q)\nwant\n%q (optional %q)", req, opt, sourceFields, sourceOptional)
	}
}

// TestTopLevelFields checks that every field of manifest.Manifest is in the
// schema, required unless it is omitted when empty.
func TestTopLevelFields(t *testing.T) {
	t.Parallel()
	d := load(t)
	req, opt := jsonFields(manifest.Manifest{})
	want := []string{"schema_version", "tool", "agent", "project_dir", "estimator", "budgets", "sources", "fragments"}
	if !reflect.DeepEqual(req, want) {
		t.Errorf("manifest.Manifest required JSON fields = %q, want %q", req, want)
	}
	if !reflect.DeepEqual(d.Required, req) {
		t.Errorf("schema required = %q, want %q", d.Required, req)
	}
	for _, name := range append(req, opt...) {
		if _, ok := d.Properties[name]; !ok {
			t.Errorf("schema lacks the top-level property %q", name)
		}
	}
	if len(d.Properties) != len(req)+len(opt) {
		t.Errorf("schema has %d top-level properties, the Go type %d", len(d.Properties), len(req)+len(opt))
	}
}

// TestSectionIDs checks that the schema takes the id of every section the
// Go type writes, and the ids manifests were written with before
// (discussion_history, read as history).
func TestSectionIDs(t *testing.T) {
	t.Parallel()
	var d struct {
		Defs struct {
			Section struct {
				Properties struct {
					ID struct {
						Enum []string `json:"enum"`
					} `json:"id"`
				} `json:"properties"`
			} `json:"section"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schemas.ManifestV1(), &d); err != nil {
		t.Fatal(err)
	}
	enum := map[string]bool{}
	for _, id := range d.Defs.Section.Properties.ID.Enum {
		enum[id] = true
	}
	for _, id := range []string{string(manifest.SectionFiles), string(manifest.SectionBeads), string(manifest.SectionHistory), "discussion_history"} {
		if !enum[id] {
			t.Errorf("the schema's section ids %q lack %q", d.Defs.Section.Properties.ID.Enum, id)
		}
	}
}

func TestManifestV1IsACopy(t *testing.T) {
	t.Parallel()
	a := schemas.ManifestV1()
	a[0] = 'x'
	if b := schemas.ManifestV1(); b[0] != '{' || bytes.Equal(a, b) {
		t.Errorf("ManifestV1 returns shared bytes")
	}
}

func TestMinimalManifest(t *testing.T) {
	t.Parallel()
	doc := `{"schema_version": 1, "tool": {"name": "ctx", "version": "0.1.0"}, "agent": "a", "project_dir": "/p",
		"estimator": "ceiling(characters / 4), version 1", "budgets": {"memory": {"max_chars": 3, "max_lines": null}},
		"sources": [], "fragments": {}}`
	if err := schematest.CheckManifest([]byte(doc)); err != nil {
		t.Errorf("a minimal manifest does not validate: %v", err)
	}
	withTokens := strings.Replace(doc, `"max_lines": null`, `"max_lines": null, "max_tokens": 500`, 1)
	if err := schematest.CheckManifest([]byte(withTokens)); err != nil {
		t.Errorf("a budget with max_tokens does not validate: %v", err)
	}
	for _, bad := range []string{
		strings.Replace(doc, `"agent": "a"`, `"agent": ""`, 1),
		strings.Replace(doc, `"max_chars": 3`, `"max_chars": -3`, 1),
		strings.Replace(doc, `"max_chars": 3`, `"max_chars": 1.5`, 1),
		strings.Replace(doc, `"name": "ctx"`, `"name": "other"`, 1),
		strings.Replace(doc, `"fragments": {}`, `"fragments": {"x": 1}`, 1),
		strings.Replace(doc, `"max_lines": null`, `"max_lines": null, "max_tokens": null`, 1),
		strings.Replace(doc, `"max_lines": null`, `"max_lines": null, "max_tokens": -1`, 1),
		strings.Replace(doc, `"max_lines": null`, `"max_lines": null, "max_tokens": 2.5`, 1),
	} {
		if schematest.CheckManifest([]byte(bad)) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}
