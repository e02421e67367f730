package provenance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
	"github.com/ctxaudit/ctx/provenance"
)

func str(s string) *string { return &s }

const historyDoc = `{"messages": [
  {"id": "u1", "role": "user", "contentParts": [{"type": "text", "text": "Fix the parser."}]},
  {"id": "a1", "role": "assistant", "contentParts": [{"type": "text", "text": "Done."}]}
], "compactionPoints": []}
`

// fixtureFiles is a project with instruction sources, aggregated files
// and a history file.
func fixtureFiles() map[string]string {
	return map[string]string{
		"AGENTS.md":         "# Rules\nRun the tests.\n",
		"docs/notes.md":     "Notes for the agent.\n",
		"src/a.py":          "def a():\n    return 1\n",
		"src/b.py":          "def b():\n    return 2\n",
		"chat/history.json": historyDoc,
		"home/":             "",
	}
}

// fixtureDir writes the fixture into a new symlink-free directory.
func fixtureDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, fixtureFiles())
	return dir
}

// fixtureOptions are the manifest options of the fixture in dir, as
// config.Project.ManifestOptions would give them: the agent, a hermetic
// home, no shared file, an extra file and an extra text, the files of
// src/, and the history.
func fixtureOptions(dir string, relative bool) manifest.Options {
	return manifest.Options{
		Discover: discover.Options{
			Agent: "claude", ProjectDir: dir, Home: dir + "/home", SharedMode: discover.SharedDisabled,
			Getenv: func(string) string { return "" },
			Extras: []discover.Extra{
				{ID: "notes", Kind: "memory", Path: str("docs/notes.md")},
				{ID: "note", Kind: "memory", Text: str("A note.\n")},
			},
		},
		Files:         &aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "src/**/*.py"}}},
		History:       &manifest.HistoryOptions{Path: dir + "/chat/history.json", Name: "chat/history.json"},
		RelativePaths: relative,
	}
}

// stored builds the fixture's manifest and decodes it back, as `ctx
// verify` reads a stored one.
func stored(t *testing.T, o manifest.Options) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := manifest.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := manifest.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

func hash(s string) *string { h := measure.Hash([]byte(s)); return &h }

// TestVerifyDrift changes the fixture in one way per case, after the
// manifest was stored, and checks that exactly the rows it touched drift,
// in the expected state, for an absolute and a relative manifest.
func TestVerifyDrift(t *testing.T) {
	type want struct {
		state            provenance.State
		oldHash, newHash *string // checked when set
		newStatus        string  // checked when set
		oldNil, newNil   bool    // the hash must be null
		note             string
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string, o *manifest.Options)
		want   map[string]want // id → what the row must show; every other row is unchanged
	}{
		{"unchanged", func(*testing.T, string, *manifest.Options) {}, nil},
		{"source edited", func(t *testing.T, dir string, _ *manifest.Options) {
			write(t, dir+"/AGENTS.md", "# Rules\nRun the tests twice.\n")
		}, map[string]want{"project_agents": {state: provenance.StateChanged,
			oldHash: hash("# Rules\nRun the tests.\n"), newHash: hash("# Rules\nRun the tests twice.\n")}}},
		{"source emptied", func(t *testing.T, dir string, _ *manifest.Options) {
			write(t, dir+"/docs/notes.md", "\n")
		}, map[string]want{"notes": {state: provenance.StateChanged, newStatus: "empty", newHash: hash("\n")}}},
		{"source unreadable", func(t *testing.T, dir string, _ *manifest.Options) {
			write(t, dir+"/docs/notes.md", "\xff\xfe")
		}, map[string]want{"notes": {state: provenance.StateChanged, newStatus: "unreadable", newNil: true}}},
		{"source deleted", func(t *testing.T, dir string, _ *manifest.Options) {
			remove(t, dir+"/docs/notes.md")
		}, map[string]want{"notes": {state: provenance.StateMissing, newStatus: "missing", newNil: true,
			oldHash: hash("Notes for the agent.\n")}}},
		{"CLAUDE.md created where it was missing", func(t *testing.T, dir string, _ *manifest.Options) {
			write(t, dir+"/CLAUDE.md", "Claude rules.\n")
		}, map[string]want{"project_claude": {state: provenance.StateAppeared, oldNil: true, newHash: hash("Claude rules.\n")}}},
		{"a new candidate: a native", func(t *testing.T, dir string, o *manifest.Options) {
			write(t, dir+"/NATIVE.md", "Loaded natively.\n")
			o.Discover.NativePaths = []string{"NATIVE.md"}
		}, map[string]want{"native:NATIVE.md": {state: provenance.StateNew, oldNil: true, newHash: hash("Loaded natively.\n")}}},
		{"a new candidate: the shared file", func(t *testing.T, dir string, o *manifest.Options) {
			testfs.Write(t, dir, map[string]string{"home/.config/agents/GLOBAL.md": "Be kind.\n"})
			o.Discover.SharedMode = discover.SharedUnset
		}, map[string]want{"shared": {state: provenance.StateNew, newHash: hash("Be kind.\n")}}},
		{"a candidate removed", func(t *testing.T, dir string, o *manifest.Options) {
			o.Discover.Extras = o.Discover.Extras[1:]
		}, map[string]want{"notes": {state: provenance.StateRemoved}}},
		{"a candidate removed and changed", func(t *testing.T, dir string, o *manifest.Options) {
			o.Discover.Extras = o.Discover.Extras[1:]
			write(t, dir+"/docs/notes.md", "Other notes.\n")
		}, map[string]want{"notes": {state: provenance.StateChanged, note: "no longer a candidate"}}},
		{"a text source changed", func(t *testing.T, dir string, o *manifest.Options) {
			o.Discover.Extras[1].Text = str("Another note.\n")
		}, map[string]want{"note": {state: provenance.StateChanged, oldHash: hash("A note.\n"), newHash: hash("Another note.\n")}}},
		{"a file changed", func(t *testing.T, dir string, _ *manifest.Options) {
			write(t, dir+"/src/a.py", "def a():\n    return 3\n")
		}, map[string]want{"file:src/a.py": {state: provenance.StateChanged, newHash: hash("def a():\n    return 3\n")}}},
		{"a file deleted", func(t *testing.T, dir string, _ *manifest.Options) {
			remove(t, dir+"/src/b.py")
		}, map[string]want{"file:src/b.py": {state: provenance.StateMissing}}},
		{"a new file matches the glob", func(t *testing.T, dir string, _ *manifest.Options) {
			write(t, dir+"/src/c.py", "def c():\n    pass\n")
		}, map[string]want{"file:src/c.py": {state: provenance.StateNew, newHash: hash("def c():\n    pass\n")}}},
		{"a file no longer aggregated", func(t *testing.T, dir string, o *manifest.Options) {
			o.Files.Files = []aggregate.FileItem{{Path: "src/a.py"}}
		}, map[string]want{"file:src/b.py": {state: provenance.StateRemoved}}},
		{"history changed", func(t *testing.T, dir string, _ *manifest.Options) {
			write(t, dir+"/chat/history.json", strings.Replace(historyDoc, "Done.", "Done, tests pass.", 1))
		}, map[string]want{"history": {state: provenance.StateChanged,
			oldHash: hash(historyDoc), newHash: hash(strings.Replace(historyDoc, "Done.", "Done, tests pass.", 1))}}},
		{"history deleted", func(t *testing.T, dir string, _ *manifest.Options) {
			remove(t, dir+"/chat/history.json")
		}, map[string]want{"history": {state: provenance.StateMissing, newNil: true}}},
	} {
		for _, relative := range []bool{false, true} {
			name := tc.name + map[bool]string{false: "/absolute", true: "/relative"}[relative]
			t.Run(name, func(t *testing.T) {
				dir := fixtureDir(t)
				o := fixtureOptions(dir, relative)
				m := stored(t, o)
				tc.change(t, dir, &o)
				rep, err := provenance.Verify(context.Background(), m, o)
				if err != nil {
					t.Fatal(err)
				}
				seen := map[string]bool{}
				for _, r := range rep.Rows {
					// the absolute native id names the directory
					id := strings.Replace(r.ID, "native:"+dir+"/", "native:", 1)
					w, ok := tc.want[id]
					if !ok {
						if r.State != provenance.StateUnchanged {
							t.Errorf("%s: %s, want unchanged (%+v)", r.ID, r.State, r)
						}
						continue
					}
					seen[id] = true
					if r.State != w.state {
						t.Errorf("%s: %s, want %s (%+v)", r.ID, r.State, w.state, r)
					}
					if w.oldHash != nil && (r.OldHash == nil || *r.OldHash != *w.oldHash) {
						t.Errorf("%s: old hash %v, want %s", r.ID, deref(r.OldHash), *w.oldHash)
					}
					if w.newHash != nil && (r.NewHash == nil || *r.NewHash != *w.newHash) {
						t.Errorf("%s: new hash %v, want %s", r.ID, deref(r.NewHash), *w.newHash)
					}
					if w.oldNil && r.OldHash != nil || w.newNil && r.NewHash != nil {
						t.Errorf("%s: hashes %v → %v, want null", r.ID, deref(r.OldHash), deref(r.NewHash))
					}
					if w.newStatus != "" && r.NewStatus != w.newStatus {
						t.Errorf("%s: new status %q, want %q", r.ID, r.NewStatus, w.newStatus)
					}
					if r.Note != w.note {
						t.Errorf("%s: note %q, want %q", r.ID, r.Note, w.note)
					}
				}
				for id := range tc.want {
					if !seen[id] {
						t.Errorf("no row %s in %+v", id, rep.Rows)
					}
				}
				if rep.Drifted != len(tc.want) {
					t.Errorf("drifted = %d, want %d", rep.Drifted, len(tc.want))
				}
				// every recorded source, file and the history has a row
				if n := len(m.Sources) + len(m.Files) + 1; len(rep.Rows) < n {
					t.Errorf("%d rows for %d recorded ones", len(rep.Rows), n)
				}
				if (rep.Paths == manifest.PathsRelative) != relative || rep.ProjectDir != dir || rep.Agent != "claude" {
					t.Errorf("report: paths %q, project_dir %q, agent %q", rep.Paths, rep.ProjectDir, rep.Agent)
				}
			})
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// TestVerifyAnotherClone verifies a relative manifest in a copy of the
// project elsewhere: nothing drifts, and the rows show the relative paths.
func TestVerifyAnotherClone(t *testing.T) {
	dir := fixtureDir(t)
	m := stored(t, fixtureOptions(dir, true))
	clone := fixtureDir(t)
	rep, err := provenance.Verify(context.Background(), m, fixtureOptions(clone, false))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Drifted != 0 || rep.ProjectDir != clone {
		t.Fatalf("drifted %d in %s: %+v", rep.Drifted, rep.ProjectDir, rep.Rows)
	}
	var paths []string
	for _, r := range rep.Rows {
		paths = append(paths, r.Path)
	}
	want := []string{"AGENTS.md", "CLAUDE.md", "docs/notes.md", "", "src/a.py", "src/b.py", "chat/history.json"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
	// the absolute manifest is tied to its directory
	abs := stored(t, fixtureOptions(dir, false))
	if _, err := provenance.Verify(context.Background(), abs, fixtureOptions(clone, false)); err == nil ||
		!strings.Contains(err.Error(), "records absolute paths in "+dir) {
		t.Errorf("verifying an absolute manifest elsewhere: %v", err)
	}
	// ... and verified there when no directory is given (the files'
	// base directory is the manifest's project, as ctx.toml gives it;
	// files of another directory would be outside the project)
	o := fixtureOptions(dir, false)
	o.Discover.ProjectDir = ""
	if rep, err := provenance.Verify(context.Background(), abs, o); err != nil || rep.ProjectDir != dir || rep.Drifted != 0 {
		t.Errorf("absolute manifest, no directory: %v, %+v", err, rep)
	}
}

func TestProjectDir(t *testing.T) {
	dir := fixtureDir(t)
	rel := stored(t, fixtureOptions(dir, true))
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ = filepath.EvalSymlinks(wd)
	for _, tc := range []struct {
		m         *manifest.Manifest
		dir, want string
	}{
		{rel, "", wd},
		{rel, dir, dir},
		{rel, dir + "/src/..", dir},
	} {
		got, err := provenance.ProjectDir(tc.m, tc.dir, dir+"/home")
		if err != nil || got != tc.want {
			t.Errorf("ProjectDir(%q) = %q, %v; want %q", tc.dir, got, err, tc.want)
		}
	}
	abs := stored(t, fixtureOptions(dir, false))
	if got, err := provenance.ProjectDir(abs, "", ""); err != nil || got != dir {
		t.Errorf("absolute, no dir: %q, %v", got, err)
	}
	if got, err := provenance.ProjectDir(abs, dir+"/.", ""); err != nil || got != dir {
		t.Errorf("absolute, its own dir: %q, %v", got, err)
	}
	if _, err := provenance.ProjectDir(abs, "/", ""); err == nil {
		t.Errorf("absolute, another dir: no error")
	}
}

func TestVerifyBadInput(t *testing.T) {
	dir := fixtureDir(t)
	m := stored(t, fixtureOptions(dir, true))
	o := fixtureOptions(dir+"/nowhere", false)
	if _, err := provenance.Verify(context.Background(), m, o); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a missing directory: %v", err)
	}
	o = fixtureOptions(dir, false)
	o.Budgets = manifest.Budgets{{Name: "nothing", Budget: manifest.Budget{MaxChars: measure.Max(1)}}}
	if _, err := provenance.Verify(context.Background(), m, o); err == nil || !strings.Contains(err.Error(), "matches no source") {
		t.Errorf("a bad rebuild: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := provenance.Verify(ctx, m, fixtureOptions(dir, false)); err == nil {
		t.Errorf("a cancelled context: no error")
	}
}

func TestWriteVerify(t *testing.T) {
	dir := fixtureDir(t)
	long := "very/" + strings.Repeat("long-directory-name/", 6) + "notes.md"
	testfs.Write(t, dir, map[string]string{long: "x\n"})
	o := fixtureOptions(dir, true)
	o.Discover.NativePaths = []string{long}
	m := stored(t, o)
	write(t, dir+"/AGENTS.md", "changed\n")
	remove(t, dir+"/"+long)
	rep, err := provenance.Verify(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := provenance.WriteVerify(&b, rep, provenance.FormatTable, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	checkWidth(t, out)
	for _, s := range []string{"| state ", "| changed   | project_agents ", "| missing   | native:very/ ",
		"\ndrift: 2 of 8 rows (1 changed, 1 missing)\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("the table lacks %q:\n%s", s, out)
		}
	}
	// a long id and path wrap after a slash: nothing of them is cut
	if strings.Contains(out, "…") {
		t.Errorf("the table cuts a cell:\n%s", out)
	}
	for _, want := range []string{"native:" + long, long} {
		if got := column(out, want[:8]); !strings.Contains(got, want) {
			t.Errorf("the column that starts with %q reads %q, want %q in it", want[:8], got, want)
		}
	}
	// at 80 columns too
	b.Reset()
	if err := provenance.WriteVerify(&b, rep, provenance.FormatTable, 80); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 && strings.HasPrefix(line, "|") {
			t.Errorf("a line of %d columns at 80:\n%s", n, b.String())
		}
	}
	b.Reset()
	if err := provenance.WriteVerify(&b, rep, provenance.FormatJSON, 0); err != nil {
		t.Fatal(err)
	}
	var back provenance.VerifyReport
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, rep) {
		t.Errorf("the JSON does not decode to the report:\n%s", b.String())
	}
	if err := provenance.WriteVerify(&b, rep, "yaml", 0); err == nil {
		t.Errorf("an unknown format: no error")
	}
	// nothing drifted
	clean := stored(t, fixtureOptions(dir, true))
	rep, err = provenance.Verify(context.Background(), clean, fixtureOptions(dir, true))
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := provenance.WriteVerify(&b, rep, provenance.FormatTable, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "\nno drift: 7 rows unchanged\n") {
		t.Errorf("summary:\n%s", b.String())
	}
}

// checkWidth fails when a line of out is wider than the table width.
func checkWidth(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > provenance.TableWidth {
			t.Errorf("%d columns: %s", n, line)
		}
	}
}

// A manifest built with a profile (and an estimator) given on the command
// line is verified with them when neither ctx.toml nor the flags of verify
// name one: CLAUDE.md that imports AGENTS.md does not drift.
func TestVerifyRecordedProfile(t *testing.T) {
	dir := fixtureDir(t)
	testfs.Write(t, dir, map[string]string{".git/HEAD": "", "CLAUDE.md": "@AGENTS.md\n"})
	o := fixtureOptions(dir, true)
	o.Discover.Agent = ""
	o.Profile = profile.Claude
	o.ProfileOptions = profile.Options{ManagedDir: filepath.Join(dir, "no-managed")}
	o.SetEstimator(measure.O200kBase())
	m := stored(t, o)
	if m.Profile == nil || m.Estimator != measure.O200kBase().Name() {
		t.Fatalf("profile %+v, estimator %q", m.Profile, m.Estimator)
	}
	// what ctx.toml gives without a profile or an estimator
	again := fixtureOptions(dir, false)
	again.Discover.Agent = ""
	again.ProfileOptions = o.ProfileOptions
	rep, err := provenance.Verify(context.Background(), m, again)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Drifted != 0 {
		t.Errorf("drifted %d: %+v", rep.Drifted, rep)
	}
}

// Verify reports drift in the configuration too: a budget or the
// estimator changed in ctx.toml gives the setting, and the rows whose
// decision or emitted text it changes are redecided, though their bytes
// are the same.
func TestVerifySettings(t *testing.T) {
	dir := fixtureDir(t)
	o := fixtureOptions(dir, true)
	o.Budgets = manifest.Budgets{{Name: "project", Budget: manifest.Budget{MaxLines: measure.Max(100)}}}
	m := stored(t, o)

	states := func(rep *provenance.VerifyReport) map[string]string {
		out := map[string]string{}
		for _, r := range rep.Rows {
			if r.State != provenance.StateUnchanged {
				out[r.ID] = string(r.State) + ": " + r.Note
			}
		}
		return out
	}
	// max_lines 100 → 0: AGENTS.md is no longer sent
	o.Budgets[0].MaxLines = measure.Max(0)
	rep, err := provenance.Verify(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	want := []provenance.SettingDrift{{Setting: "budget:project", Old: "max_lines 100", New: "max_lines 0"}}
	if !reflect.DeepEqual(rep.Settings, want) {
		t.Errorf("settings %+v, want %+v", rep.Settings, want)
	}
	if got := states(rep); !reflect.DeepEqual(got, map[string]string{
		"project_agents": "redecided: included → budget_exhausted; emitted 6 → 0 tokens"}) {
		t.Errorf("rows %q", got)
	}
	if rep.Drifted != 2 {
		t.Errorf("drifted %d, want 2 (the setting and the row)", rep.Drifted)
	}
	var b bytes.Buffer
	if err := provenance.WriteVerify(&b, rep, provenance.FormatTable, 0); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"setting budget:project: max_lines 100 → max_lines 0\n", "| redecided | project_agents ",
		"project_agents: included → budget_exhausted; emitted 6 → 0 tokens\n", "drift: 1 of 7 rows (1 redecided); 1 setting changed\n"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the table lacks %q:\n%s", s, b.String())
		}
	}
	checkWidth(t, b.String())

	// the estimator: every count changes
	o = fixtureOptions(dir, true)
	o.Budgets = manifest.Budgets{{Name: "project", Budget: manifest.Budget{MaxLines: measure.Max(100)}}}
	o.SetEstimator(measure.O200kBase())
	rep, err = provenance.Verify(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Settings) != 1 || rep.Settings[0].Setting != "estimator" || rep.Settings[0].Old != measure.Default().Name() ||
		rep.Settings[0].New != measure.O200kBase().Name() {
		t.Errorf("settings %+v", rep.Settings)
	}
	if got := states(rep)["project_agents"]; got != "redecided: emitted 6 → 7 tokens" {
		t.Errorf("project_agents: %q (%q)", got, states(rep))
	}
}

// A teammate's machine has files the committed manifest recorded missing
// (a shared GLOBAL.md, the user's own CLAUDE.md): in a relative manifest
// they are machine-local, reported and never drift; a change in the
// repository still is.
func TestVerifyMachineLocal(t *testing.T) {
	dir := fixtureDir(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := fixtureOptions(dir, true)
	o.Discover.Home = home
	o.Discover.SharedMode = discover.SharedUnset
	o.Profile = profile.Claude
	m := stored(t, o)
	testfs.Write(t, home, map[string]string{
		".config/agents/GLOBAL.md": "a teammate's shared file\n",
		".claude/CLAUDE.md":        "the teammate's own rules\n",
	})
	rep, err := provenance.Verify(context.Background(), m, o)
	if err != nil {
		t.Fatal(err)
	}
	// the shared file appeared; the user's own CLAUDE.md is not in a
	// relative manifest at all
	if rep.Drifted != 0 || rep.Local != 1 {
		t.Fatalf("drifted %d, machine-local %d, want 0 and 1: %+v", rep.Drifted, rep.Local, rep.Rows)
	}
	for _, r := range rep.Rows {
		if r.State != provenance.StateUnchanged && (!r.MachineLocal || !strings.HasPrefix(r.Path, "~/")) {
			t.Errorf("%s %s: %s, machine-local %v", r.ID, r.Path, r.State, r.MachineLocal)
		}
	}
	var b bytes.Buffer
	if err := provenance.WriteVerify(&b, rep, provenance.FormatTable, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no drift") || !strings.Contains(b.String(), "1 machine-local row differs") {
		t.Errorf("the table:\n%s", b.String())
	}
	// a change in the repository is drift all the same
	write(t, filepath.Join(dir, "AGENTS.md"), "# Rules\nRun every test.\n")
	if rep, err = provenance.Verify(context.Background(), m, o); err != nil || rep.Drifted == 0 {
		t.Errorf("a changed AGENTS.md: drifted %d, %v", rep.Drifted, err)
	}
	// an absolute manifest is this machine's: no row is machine-local
	o.RelativePaths = false
	m = stored(t, o)
	testfs.Write(t, home, map[string]string{".claude/CLAUDE.md": "changed\n"})
	if rep, err = provenance.Verify(context.Background(), m, o); err != nil || rep.Local != 0 || rep.Drifted == 0 {
		t.Errorf("absolute manifest: %d machine-local, %d drifted, %v", rep.Local, rep.Drifted, err)
	}
}

// column joins the lines of the cell of out's table that starts with
// prefix, and those below it in its column until the next row starts.
func column(out, prefix string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		cells := strings.Split(l, "|")
		for c, cell := range cells {
			if !strings.HasPrefix(strings.TrimSpace(cell), prefix) {
				continue
			}
			got := strings.TrimSpace(cell)
			for _, next := range lines[i+1:] {
				nc := strings.Split(next, "|")
				if len(nc) != len(cells) || strings.TrimSpace(nc[1]) != "" {
					break
				}
				got += strings.TrimSpace(nc[c])
			}
			return got
		}
	}
	return ""
}
