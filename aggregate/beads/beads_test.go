package beads

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/internal/goldenfile"
)

func TestRead(t *testing.T) {
	t.Parallel()
	res, err := Read(Options{Path: "testdata/beads", Name: ".beads"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.File != ".beads/issues.jsonl" || res.Source.Hash == "" {
		t.Errorf("store: %+v", res)
	}
	if c, a := res.Counts(); c != 2 || a != 3 {
		t.Errorf("counts %d completed, %d active; want 2, 3 (tombstone and memory skipped)", c, a)
	}
	goldenfile.Check(t, filepath.Join("testdata", "golden", "beads_section.md"), []byte(res.Section()+"\n"))

	// an older bd: beads.jsonl
	res, err = Read(Options{Path: "testdata/beads/legacy"})
	if err != nil {
		t.Fatal(err)
	}
	want := "## Beads Mode: Progress Track\n\nCompleted: old-2\n\nActive:\n- From an older bd (old-1): beads.jsonl"
	if got := res.Section(); got != want || res.File != "testdata/beads/legacy/beads.jsonl" {
		t.Errorf("legacy store %s:\n%q\nwant\n%q", res.File, got, want)
	}

	// absent or empty: no section, no error
	for _, p := range []string{"testdata/beads/empty", "testdata/beads/nowhere", "testdata/golden"} {
		res, err := Read(Options{Path: p})
		if err != nil || res.Section() != "" {
			t.Errorf("%s: section %q, error %v", p, res.Section(), err)
		}
	}
	// a beads_path that points nowhere is an error
	_, err = Read(Options{Path: "testdata/beads/nowhere", Name: "nowhere", MustExist: true, Where: "ctx.toml:2: beads_path"})
	if err == nil || err.Error() != "ctx.toml:2: beads_path: nowhere: cannot read: no such file or directory" {
		t.Errorf("missing store: %v", err)
	}
	_, err = Read(Options{Path: "testdata/golden", Name: "proj", MustExist: true})
	if err == nil || err.Error() != "proj: no Beads store (issues.jsonl or beads.jsonl)" {
		t.Errorf("directory without a store: %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct{ in, want string }{
		{`{"id":"a","status":"open"}` + "\n" + `{"id":"b",`, "s.jsonl:2: invalid JSON: unexpected end of JSON input"},
		{`["a"]`, "s.jsonl:1: must be a JSON object (one issue per line)"},
		{`{"title":"no id"}`, "s.jsonl:1: id: missing (every issue needs an id)"},
		{`{"id":"a","status":3}`, "s.jsonl:1: status: must be a string, not 3"},
		{`{"id":"a"}` + "\n\n" + `{"id":"a"}`, `s.jsonl:3: id: "a" is also on line 1`},
		// encoding/json keeps the last of two keys: a reader of the file
		// may see the first
		{`{"id":"a","status":"open","status":"closed"}`, `s.jsonl:1: duplicate key "status"`},
		{`{"id":"a"}` + "\n" + `{"id":"b","x":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, "s.jsonl:2: nesting deeper than 256 levels"},
	} {
		p := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(p, []byte(tt.in), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(Options{Path: p, Name: "s.jsonl"})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.in, err, tt.want)
		}
	}
}

func TestSectionFormat(t *testing.T) {
	t.Parallel()
	got := Section([]Bead{{ID: "x-1", Title: "Only active", Status: "open", Description: "line 1\r\n  \r\nline 3"}})
	want := "## Beads Mode: Progress Track\n\nActive:\n- Only active (x-1): line 1\n\n  line 3"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := Section([]Bead{{ID: "x-2", Status: "closed"}}); !strings.HasSuffix(got, "\n\nCompleted: x-2") {
		t.Errorf("only completed: %q", got)
	}
	// a bead without a title: no double space before its id
	for _, title := range []string{"", "  "} {
		got := Section([]Bead{{ID: "ms-6", Title: title}, {ID: "ms-7", Title: title, Description: "why"}})
		if want := "## Beads Mode: Progress Track\n\nActive:\n- (ms-6)\n- (ms-7): why"; got != want {
			t.Errorf("title %q: got %q\nwant %q", title, got, want)
		}
	}
	if Section(nil) != "" {
		t.Error("no beads, a section")
	}
}
