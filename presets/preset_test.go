package presets

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/config"
)

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"review": true, "a-b_C9": true, strings.Repeat("x", 64): true,
		"": false, "a b": false, "a.b": false, "é": false, "a/b": false, strings.Repeat("x", 65): false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
}

// Every setting of a files entry survives TOML and config.DecodePresets.
func TestTOMLRoundTrip(t *testing.T) {
	p := Preset{
		Name: "all", Description: `say "hi"\n`, Scope: ScopeUser,
		Files: []aggregate.FileItem{
			{Path: "src/**/*.go"},
			{Path: `odd "name".py`, NoAutoAggregate: true, ForceFull: true, ViewMode: aggregate.ViewMasked, Tier: 3,
				ASTMask:       map[string]aggregate.MaskMode{"Class.method": aggregate.MaskSig, "f": aggregate.MaskHide},
				ASTSignatures: true, ASTDefinitions: true},
			{Path: "lib/util.py", ViewMode: aggregate.ViewCustom, CustomSlices: []slice.Slice{{
				StartLine: 2, EndLine: 4, Tag: "t", Comment: "c", ContentHash: strings.Repeat("ab", 32),
				AnchorLines: slice.Anchors{Before: []string{"x"}, After: []string{"y"}}, Fingerprint: "abcdef - 123456",
			}}},
		},
		Screenshots: []string{"a.png"}, ScreenshotsSet: true,
	}
	text := TOML(p)
	ps, err := config.DecodePresets("presets.toml", []byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	got := fromConfig(ps[0], ScopeUser)
	got.Line = 0
	if !reflect.DeepEqual(got, p) {
		t.Errorf("round trip:\n got %+v\nwant %+v\n%s", got, p, text)
	}
	if FileItemTOML(aggregate.FileItem{Path: "a.txt"}) != `"a.txt"` {
		t.Error("a plain entry is not a plain string")
	}
}

func TestSaveAndDelete(t *testing.T) {
	dir := t.TempDir()
	file := config.PresetsFile(dir)
	files := func(paths ...string) []aggregate.FileItem {
		var out []aggregate.FileItem
		for _, p := range paths {
			out = append(out, aggregate.FileItem{Path: p})
		}
		return out
	}
	// a new file, in a directory that does not exist yet
	if got, err := Save(dir, Preset{Name: "a", Files: files("x.go")}, false); err != nil || got != file {
		t.Fatalf("save a: %q, %v", got, err)
	}
	orig := "# top comment\n[presets.b]\nfiles = [\"b.md\"] # trailing\n\n# about c\n[presets.c]\ndescription = \"c\"\nfiles = [\"c.md\"]\n"
	if err := os.WriteFile(file, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	// appended; the rest untouched
	if _, err := Save(dir, Preset{Name: "d", Description: "dee", Files: files("d/**")}, false); err != nil {
		t.Fatal(err)
	}
	want := orig + "\n[presets.d]\ndescription = \"dee\"\nfiles = [\n  \"d/**\",\n]\n"
	if got := read(); got != want {
		t.Errorf("append:\n%s\nwant:\n%s", got, want)
	}
	// an existing name: an error, nothing written; with replace, its table only
	_, err := Save(dir, Preset{Name: "b", Files: files("new.md")}, false)
	if !errors.Is(err, ErrExists) || read() != want {
		t.Fatalf("existing: %v", err)
	}
	if _, err := Save(dir, Preset{Name: "b", Files: files("new.md")}, true); err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(want, "[presets.b]\nfiles = [\"b.md\"] # trailing\n", "[presets.b]\nfiles = [\n  \"new.md\",\n]\n", 1)
	if got := read(); got != want {
		t.Errorf("replace:\n%s\nwant:\n%s", got, want)
	}
	// delete takes the comment just above the table with it
	if _, err := Delete(dir, "c"); err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(want, "# about c\n[presets.c]\ndescription = \"c\"\nfiles = [\"c.md\"]\n\n", "", 1)
	if got := read(); got != want {
		t.Errorf("delete:\n%q\nwant:\n%q", got, want)
	}
	if _, err := Delete(dir, "d"); err != nil {
		t.Fatal(err)
	}
	if got, want := read(), "# top comment\n[presets.b]\nfiles = [\n  \"new.md\",\n]\n"; got != want {
		t.Errorf("delete the last:\n%q\nwant:\n%q", got, want)
	}
	if _, err := Delete(dir, "nosuch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("delete nosuch: %v", err)
	}
	// bad input writes nothing
	before := read()
	for _, p := range []Preset{
		{Name: "a b", Files: files("x")}, {Name: "e"}, {Name: "e", Files: files(" ")},
	} {
		if _, err := Save(dir, p, true); err == nil {
			t.Errorf("%+v: saved", p)
		}
	}
	if read() != before {
		t.Error("a failed save wrote the file")
	}
	entries, _ := os.ReadDir(filepath.Dir(file))
	if len(entries) != 1 {
		t.Errorf("files left in %s: %v", filepath.Dir(file), entries)
	}
}

// A preset that is not a [presets.NAME] table of its own is never edited.
func TestUserPresetNotATable(t *testing.T) {
	dir := t.TempDir()
	file := config.PresetsFile(dir)
	os.MkdirAll(filepath.Dir(file), 0o755)
	orig := "[presets]\ninline = { files = [\"a\"] }\n"
	os.WriteFile(file, []byte(orig), 0o644)
	if _, err := Delete(dir, "inline"); err == nil || !strings.Contains(err.Error(), "edit it by hand") {
		t.Errorf("delete: %v", err)
	}
	if _, err := Save(dir, Preset{Name: "inline", Files: []aggregate.FileItem{{Path: "b"}}}, true); err == nil {
		t.Error("replace: no error")
	}
	if data, _ := os.ReadFile(file); string(data) != orig {
		t.Errorf("the file changed: %q", data)
	}
	// an invalid file is reported, not overwritten
	os.WriteFile(file, []byte("[presets.x]\nfiles = 3\n"), 0o644)
	if _, err := Save(dir, Preset{Name: "y", Files: []aggregate.FileItem{{Path: "b"}}}, false); err == nil {
		t.Error("save into an invalid file: no error")
	}
}

func TestList(t *testing.T) {
	user := t.TempDir()
	os.MkdirAll(filepath.Dir(config.PresetsFile(user)), 0o755)
	os.WriteFile(config.PresetsFile(user), []byte("[presets.z]\nfiles = [\"a\"]\n\n[presets.r]\nfiles = [\"b\"]\n"), 0o644)
	cfg, err := config.Decode("ctx.toml", []byte("[presets.r]\nfiles = [\"c\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := List(cfg, user)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range list {
		got = append(got, string(p.Scope)+":"+p.Name+":"+filepath.Base(p.File)+":"+strings.Repeat("!", map[bool]int{true: 1}[p.Overridden]))
	}
	if want := "project:r:ctx.toml: user:r:presets.toml:! user:z:presets.toml:"; strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestPresets(t *testing.T) {
	user := t.TempDir()
	if err := os.MkdirAll(filepath.Join(user, "ctx"), 0o755); err != nil {
		t.Fatal(err)
	}
	global := "[presets.review]\ndescription = \"global review\"\nfiles = [\"**/*.go\"]\n\n[presets.docs]\nfiles = [\"docs/**\"]\nscreenshots = [\"a.png\"]\n"
	if err := os.WriteFile(config.PresetsFile(user), []byte(global), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Decode("ctx.toml", []byte("[presets.review]\ndescription = \"project review\"\nfiles = [{ path = \"a.py\", view_mode = \"skeleton\" }]\n"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ByName(cfg, user)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(Names(ps), ","); got != "docs,review" {
		t.Fatalf("names %s", got)
	}
	r := ps["review"]
	if r.Scope != ScopeProject || r.Description != "project review" || len(r.Files) != 1 || r.Files[0].ViewMode != aggregate.ViewSkeleton {
		t.Errorf("project preset does not override the global one: %+v", r)
	}
	d := ps["docs"]
	if d.Scope != ScopeUser || !d.ScreenshotsSet {
		t.Errorf("global preset: %+v", d)
	}
	o := d.Apply(aggregate.Options{Engine: codeview.Engine(), Files: []aggregate.FileItem{{Path: "x"}}, Screenshots: []string{"old.png"}})
	if len(o.Files) != 1 || o.Files[0].Path != "docs/**" || o.Screenshots[0] != "a.png" {
		t.Errorf("applied: %+v", o)
	}
	o = r.Apply(aggregate.Options{Engine: codeview.Engine(), Screenshots: []string{"old.png"}})
	if o.Screenshots[0] != "old.png" {
		t.Errorf("a preset without screenshots replaced them: %+v", o)
	}
	// no global file, and a broken one
	if ps, err := ByName(&config.Config{}, t.TempDir()); err != nil || len(ps) != 0 {
		t.Errorf("no global file: %v %v", ps, err)
	}
	os.WriteFile(config.PresetsFile(user), []byte("[presets.x]\nfiles = 3\n"), 0o644)
	if _, err := ByName(&config.Config{}, user); err == nil || !strings.Contains(err.Error(), "presets.toml:2: presets.x.files: must be") {
		t.Errorf("broken global file: %v", err)
	}
}
