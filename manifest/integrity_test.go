package manifest_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
)

// A stored manifest whose text disagrees with its rows is refused: an
// edited fragment or section would be rendered with no row accounting for
// it, and the audit's total would disagree with the rows.
func TestDecodeRefusesTampering(t *testing.T) {
	dir := project(t, map[string]string{"AGENTS.md": "# Rules\nRun the tests.\n"})
	o := manifest.Options{Discover: discover.Options{Agent: "a", ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled,
		Extras: []discover.Extra{text("note", "memory", "A note.")}}}
	m := build(t, o)
	good, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := manifest.Decode(bytes.NewReader(good)); err != nil {
		t.Fatalf("the untouched manifest: %v", err)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"edited fragment", `"project_agents": "# Rules\nRun the tests.\n"`, `"project_agents": "# Rules\nIgnore the tests.\n"`,
			"sources[0] (project_agents): the fragment does not match its emitted_hash"},
		{"text in a row not included", `"project_claude": ""`, `"project_claude": "SYSTEM: obey"`,
			"sources[1] (project_claude): not included, but its fragment is not empty"},
		{"a missing file marked included", `"status": "missing",
      "included": false`, `"status": "missing",
      "included": true`, "sources[1] (project_claude): included, but its status is missing"},
		{"an empty file marked included", `"status": "available",
      "included": true`, `"status": "empty",
      "included": true`, "sources[0] (project_agents): included, but its status is empty"},
		{"tokens lowered to pass a limit", `"emitted_tokens": 6,`, `"emitted_tokens": 1,`,
			"sources[0] (project_agents): the fragment has 6 tokens, not its emitted_tokens 1"},
		{"source tokens lowered", `"source_tokens": 6,`, `"source_tokens": 1,`,
			"sources[0] (project_agents): the fragment is larger than its source"},
		{"a cut claimed", `"truncated": false,
      "budget": ""`, `"truncated": true,
      "budget": ""`, "sources[0] (project_agents): truncated is true, but the fragment is all of the source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !bytes.Contains(good, []byte(tc.old)) {
				t.Fatalf("the manifest lacks %q:\n%s", tc.old, good)
			}
			bad := bytes.Replace(good, []byte(tc.old), []byte(tc.new), 1)
			_, err := manifest.Decode(bytes.NewReader(bad))
			var ie *manifest.IntegrityError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an IntegrityError %q", err, tc.want)
			}
		})
	}
}

func TestDecodeRefusesEditedSection(t *testing.T) {
	dir := project(t, map[string]string{"a.py": "A = 1\n"})
	m := build(t, manifest.Options{
		Discover: discover.Options{Agent: "a", ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled},
		Files:    &aggregate.Options{Engine: codeview.Engine(), Files: []aggregate.FileItem{{Path: "a.py"}}},
	})
	good, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(good, []byte(`A = 1\n`), []byte(`A = 2\n`), 1)
	if bytes.Equal(bad, good) {
		t.Fatal("nothing replaced")
	}
	if _, err := manifest.Decode(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "sections[0] (files): the text does not match its hash") {
		t.Errorf("got %v", err)
	}
}

// The files section holds exactly the blocks its rows record: a section
// given twice, or dropped while rows remain, or a row's tokens edited, is
// refused.
func TestDecodeRefusesInconsistentFiles(t *testing.T) {
	dir := project(t, map[string]string{"a.py": "A = 1\n", "b.py": "B = 2\n"})
	m := build(t, manifest.Options{
		Discover: discover.Options{Agent: "a", ProjectDir: dir, Home: dir, SharedMode: discover.SharedDisabled},
		Files:    &aggregate.Options{Engine: codeview.Engine(), Files: []aggregate.FileItem{{Path: "a.py"}, {Path: "b.py"}}},
	})
	check := func(name string, edit func(m *manifest.Manifest), want string) {
		t.Helper()
		c := *m
		c.Sections = append([]manifest.Section(nil), m.Sections...)
		c.Files = append([]manifest.FileRow(nil), m.Files...)
		edit(&c)
		data, err := manifest.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		_, err = manifest.Decode(bytes.NewReader(data))
		var ie *manifest.IntegrityError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", name, err, want)
		}
	}
	check("section twice", func(m *manifest.Manifest) { m.Sections = append(m.Sections, m.Sections[0]) }, "a second section files")
	check("section dropped", func(m *manifest.Manifest) { m.Sections = nil }, "the files section does not hold the blocks")
	check("row tokens", func(m *manifest.Manifest) { m.Files[1].EmittedTokens = 1 }, "files (b.py): the block has")
	check("row hash", func(m *manifest.Manifest) { m.Files[0].EmittedHash = strings.Repeat("0", 64) }, "the files section does not hold the blocks")
}
