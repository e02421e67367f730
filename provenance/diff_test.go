package provenance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/provenance"
)

func num(f float64) *float64 { return &f }

// diffPair builds an old and a new manifest from two fixture trees, in two
// directories, that differ in several ways: AGENTS.md grew, CLAUDE.md
// appeared, the style source moved up, a source was added and one
// removed, the memory budget shrank (so that a source no longer fits)
// and a project budget was added, one
// file changed, one was removed and one added, and the history went on.
func diffPair(t *testing.T) (old, cur *manifest.Manifest) {
	t.Helper()
	build := func(files map[string]string, edit func(o *manifest.Options)) *manifest.Manifest {
		dir := fixtureDir(t)
		testfs.Write(t, dir, files)
		o := fixtureOptions(dir, false)
		o.Discover.Extras = append(o.Discover.Extras,
			discover.Extra{ID: "style", Kind: "memory", Path: str("docs/style.md")})
		o.Budgets = manifest.Budgets{{Name: "memory", Budget: manifest.Budget{MaxLines: measure.Max(10)}}}
		edit(&o)
		return stored(t, o)
	}
	old = build(map[string]string{"docs/style.md": "One.\nTwo.\nThree.\n"}, func(*manifest.Options) {})
	cur = build(map[string]string{
		"AGENTS.md":         "# Rules\nRun the tests.\nKeep commits small and explain why in the body.\n",
		"CLAUDE.md":         "Claude rules.\n",
		"docs/style.md":     "One.\nTwo.\nThree.\n",
		"docs/rules.md":     "New rules.\n",
		"src/a.py":          "def a():\n    return 3\n",
		"src/c.py":          "def c():\n    pass\n",
		"chat/history.json": strings.Replace(historyDoc, "Done.", "Done, and the tests pass now.", 1),
	}, func(o *manifest.Options) {
		o.Discover.Extras = []discover.Extra{
			o.Discover.Extras[0],
			{ID: "style", Kind: "memory", Path: str("docs/style.md"), Order: num(2.5)},
			{ID: "rules", Kind: "rules", Path: str("docs/rules.md")},
		}
		o.Budgets = manifest.Budgets{
			{Name: "memory", Budget: manifest.Budget{MaxLines: measure.Max(2)}},
			{Name: "project", Budget: manifest.Budget{MaxChars: measure.Max(1000)}},
		}
		o.Files.Files = []aggregate.FileItem{{Path: "src/a.py"}, {Path: "src/c.py"}}
	})
	return old, cur
}

func TestDiff(t *testing.T) {
	old, cur := diffPair(t)
	rep, err := provenance.Diff(old, cur, provenance.DiffOptions{Home: "/nohome"})
	if err != nil {
		t.Fatal(err)
	}
	changes := func(cs []provenance.Change) string {
		var s []string
		for _, c := range cs {
			s = append(s, string(c))
		}
		return strings.Join(s, ",")
	}
	var got []string
	for _, d := range rep.Sources {
		got = append(got, d.ID+": "+changes(d.Changes))
	}
	want := []string{
		"project_agents: rebudgeted,content,tokens", // the project budget now applies
		"project_claude: content,decision",          // missing → fallback_not_selected
		"style: reordered,rebudgeted,tokens",        // moved up, cut to 2 lines
		"notes: rebudgeted,decision,tokens",         // style used the 2 lines of memory first
		"rules: added",
		"note: removed",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sources:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	byID := map[string]provenance.SourceDiff{}
	for _, d := range rep.Sources {
		byID[d.ID] = d
	}
	if d := byID["style"]; d.Old.Position != 5 || d.New.Position != 3 || d.New.EmittedTokens >= d.Old.EmittedTokens {
		t.Errorf("style: %+v → %+v", d.Old, d.New)
	}
	if d := byID["project_claude"]; d.Old.Reason != "missing" || d.New.Reason != "fallback_not_selected" || d.Old.SourceHash != nil || d.New.SourceHash == nil {
		t.Errorf("project_claude: %+v → %+v", d.Old, d.New)
	}
	if d := byID["project_agents"]; d.New.EmittedTokens-d.Old.EmittedTokens != 12 || d.New.Budget != "project" || d.Old.Budget != "" {
		t.Errorf("project_agents: %+v → %+v", d.Old, d.New)
	}
	if d := byID["rules"]; d.Old != nil || d.New == nil || !d.New.Included {
		t.Errorf("rules: %+v → %+v", d.Old, d.New)
	}
	if d := byID["note"]; d.New != nil || d.Old == nil {
		t.Errorf("note: %+v → %+v", d.Old, d.New)
	}
	if rep.Unchanged.Sources != 0 {
		t.Errorf("unchanged sources: %d", rep.Unchanged.Sources)
	}

	got = nil
	for _, d := range rep.Files {
		got = append(got, d.Path+": "+changes(d.Changes))
	}
	want = []string{"src/a.py: content", "src/c.py: added", "src/b.py: removed"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files: %q, want %q", got, want)
	}
	if len(rep.Budgets) != 2 || rep.Budgets[0].Name != "memory" || rep.Budgets[0].Old.MaxLines != measure.Max(10) ||
		rep.Budgets[0].New.MaxLines != measure.Max(2) || rep.Budgets[1].Name != "project" || rep.Budgets[1].Old != nil {
		t.Errorf("budgets: %+v", rep.Budgets)
	}
	if rep.History == nil || changes(rep.History.Changes) != "content,tokens" || rep.History.New.TokensAfter <= rep.History.Old.TokensAfter {
		t.Errorf("history: %+v", rep.History)
	}
	sum := func(m *manifest.Manifest) int {
		n := 0
		for _, s := range m.Sources {
			n += *s.EmittedTokens
		}
		for _, s := range m.Sections {
			n += s.Tokens
		}
		return n
	}
	if rep.Old.EmittedTokens != sum(old) || rep.New.EmittedTokens != sum(cur) || rep.New.EmittedTokens <= rep.Old.EmittedTokens {
		t.Errorf("emitted tokens %d → %d", rep.Old.EmittedTokens, rep.New.EmittedTokens)
	}
	if rep.Old.ProjectDir != old.ProjectDir || rep.New.Sources != 5 || rep.Old.Files != 2 {
		t.Errorf("summaries: %+v %+v", rep.Old, rep.New)
	}

	var b bytes.Buffer
	if err := provenance.WriteDiff(&b, rep, provenance.FormatTable, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	checkWidth(t, out)
	for _, s := range []string{
		"| style          | reordered  | position 5",
		"| position 3",
		"| project_claude | decision   | missing ",
		"| fallback_not_selected",
		// numbers right-aligned in their column
		"| project_agents | tokens     |    ",
		" 6 |",
		" 18 (+12) |",
		"| notes          | decision   | included ",
		"| budget_exhausted",
		"| rules          | added      | -",
		"| included, 3 tokens",
		"| budget:memory  | rebudgeted | max_lines 10",
		"| file:src/c.py  | added      | -",
		"| history        | content    |",
		"\nsources: 1 added, 1 removed, 4 changed, 0 unchanged\n",
		"\nfiles: 1 added, 1 removed, 1 changed, 0 unchanged\n",
		"\nemitted tokens: ",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("the table lacks %q:\n%s", s, out)
		}
	}
	b.Reset()
	if err := provenance.WriteDiff(&b, rep, provenance.FormatJSON, 0); err != nil {
		t.Fatal(err)
	}
	var back provenance.DiffReport
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, rep) {
		t.Errorf("the JSON does not decode to the report:\n%s", b.String())
	}
}

// TestDiffClones compares the same project built in two directories, one
// manifest absolute and one relative: nothing differs.
func TestDiffClones(t *testing.T) {
	a := stored(t, fixtureOptions(fixtureDir(t), false))
	b := stored(t, fixtureOptions(fixtureDir(t), true))
	rep, err := provenance.Diff(a, b, provenance.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources)+len(rep.Files)+len(rep.Budgets) != 0 || rep.History != nil {
		t.Errorf("two clones differ: %+v", rep)
	}
	if rep.Unchanged.Sources != len(a.Sources) || rep.Unchanged.Files != len(a.Files) || rep.Old.EmittedTokens != rep.New.EmittedTokens {
		t.Errorf("counts: %+v", rep)
	}
	var out bytes.Buffer
	if err := provenance.WriteDiff(&out, rep, provenance.FormatTable, 0); err != nil {
		t.Fatal(err)
	}
	want := "no changes\nsources: 0 added, 0 removed, 0 changed, 4 unchanged\nfiles: 0 added, 0 removed, 0 changed, 2 unchanged\n" +
		"emitted tokens: " + itoa(rep.Old.EmittedTokens) + " → " + itoa(rep.New.EmittedTokens) + " (0)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestDiffAgentAndEstimator shows the header lines of the table.
func TestDiffAgentAndEstimator(t *testing.T) {
	dir := fixtureDir(t)
	a := stored(t, fixtureOptions(dir, false))
	o := fixtureOptions(dir, false)
	o.Discover.Agent = "codex"
	b, err := manifest.Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b.Estimator = "another"
	rep, err := provenance.Diff(a, b, provenance.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := provenance.WriteDiff(&out, rep, provenance.FormatTable, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "agent: claude → codex\nestimator: ceiling(characters / 4), version 1 → another (tokens are counted differently)\n") {
		t.Errorf("got\n%s", out.String())
	}
}
