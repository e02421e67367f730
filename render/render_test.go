package render_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/render"
	"github.com/ctxaudit/ctx/schemas/schematest"
)

func str(s string) *string { return &s }

func text(id, kind, s string) discover.Extra { return discover.Extra{ID: id, Kind: kind, Text: str(s)} }

// build builds a manifest of text sources, validates it against the schema
// and returns it after a JSON round trip, as a stored manifest would be read.
func build(t *testing.T, budgets manifest.Budgets, extras ...discover.Extra) *manifest.Manifest {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{Agent: "corteza", ProjectDir: dir, Home: dir, NoDiscover: true, Extras: extras},
		Budgets:  budgets,
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	schematest.Manifest(t, b)
	d, err := manifest.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if render.Text(d) != render.Text(m) {
		t.Fatalf("rendering a stored manifest differs")
	}
	return d
}

func TestText(t *testing.T) {
	t.Parallel()
	excluded := text("excl", "note", "not for corteza")
	excluded.Audience = []string{"codex"}
	native := text("nat", "note", "native")
	native.Delivery = "native"
	tests := []struct {
		name    string
		budgets manifest.Budgets
		extras  []discover.Extra
		want    string
	}{
		{"nothing", nil, nil, ""},
		{"nothing included", nil, []discover.Extra{text("e", "note", " \n"), excluded, native}, ""},
		{"one", nil, []discover.Extra{text("a", "note", "A")}, "A"},
		{"joined by a blank line", nil, []discover.Extra{text("a", "note", "A"), text("b", "note", "B")}, "A\n\nB"},
		{"a fragment ending in a newline", nil, []discover.Extra{text("a", "note", "A\n"), text("b", "note", "B\n")}, "A\n\n\nB\n"},
		{"bytes kept exactly", nil, []discover.Extra{text("a", "note", "\ufeffA\r\n"), text("b", "note", "  B\t")}, "\ufeffA\r\n\n\n  B\t"},
		{"skipped rows leave no separator", nil,
			[]discover.Extra{text("a", "note", "A"), text("e", "note", ""), excluded, native, text("dup", "note", "A"), text("b", "note", "B")}, "A\n\nB"},
		{"truncated fragments", manifest.Budgets{{Name: "m", Budget: manifest.Budget{MaxChars: measure.Max(2)}}},
			[]discover.Extra{text("m", "note", "abcdef"), text("b", "note", "B")}, "ab\n\nB"},
		{"budget_exhausted rows are left out", manifest.Budgets{{Name: "m", Budget: manifest.Budget{MaxLines: measure.Max(0)}}},
			[]discover.Extra{text("a", "note", "A"), text("m", "note", "abcdef"), text("b", "note", "B")}, "A\n\nB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := build(t, tt.budgets, tt.extras...)
			if got := render.Text(m); got != tt.want {
				t.Errorf("Text = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTextUsesIncluded pins that Text follows the included flags and the
// aligned fragments, not the fragment contents.
func TestTextUsesIncluded(t *testing.T) {
	t.Parallel()
	m := &manifest.Manifest{
		SchemaVersion: 1,
		Sources:       []manifest.Source{{ID: "a", Included: true}, {ID: "b"}, {ID: "c", Included: true}},
		Fragments:     manifest.Fragments{{ID: "a", Text: "A"}, {ID: "b", Text: "ignored"}, {ID: "c", Text: ""}},
	}
	if got := render.Text(m); got != "A\n\n" {
		t.Errorf("Text = %q, want %q", got, "A\n\n")
	}
	if render.Separator != "\n\n" {
		t.Errorf("Separator = %q", render.Separator)
	}
}

// TestTextSections pins the ctx extension: sections (aggregated files,
// history) follow the instruction fragments, joined the same way; empty
// sections add no separator. Rows without an aligned fragment are skipped.
func TestTextSections(t *testing.T) {
	t.Parallel()
	m := &manifest.Manifest{
		SchemaVersion: 1,
		Sources:       []manifest.Source{{ID: "a", Included: true}, {ID: "lost", Included: true}},
		Fragments:     manifest.Fragments{{ID: "a", Text: "A\n"}},
		Sections:      []manifest.Section{{ID: "files", Text: "F"}, {ID: "empty"}, {ID: "history", Text: "H"}},
	}
	if got, want := render.Text(m), "A\n\n\nF\n\nH"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	m.Sources[0].Included = false
	if got, want := render.Text(m), "F\n\nH"; got != want {
		t.Errorf("Text without fragments = %q, want %q", got, want)
	}
}
