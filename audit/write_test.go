package audit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// realisticThresholds are the limits the realistic fixture is audited
// against: lower than the defaults, so that its long AGENTS.md is over
// the per-source limit.
var realisticThresholds = audit.Thresholds{LayerTokens: measure.Max(2000), TotalTokens: measure.Max(8000)}

// realisticReport audits the realistic fixture with realisticThresholds.
func realisticReport(t *testing.T) *audit.Report {
	t.Helper()
	return run(t, realistic(t), realisticThresholds)
}

// CI options: the fixture's project is the repository root and ctx.toml
// declared its sources.
var ciOptions = audit.WriteOptions{Home: fixtureHome, Root: fixtureProject, Config: fixtureProject + "/ctx.toml"}

// checkWidth fails for each line of out wider than width.
func checkWidth(t *testing.T, out string, width int) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if w := table.Width(line); w > width {
			t.Errorf("line %d is %d columns wide, over %d: %q", i+1, w, width, line)
		}
	}
}

func TestTableFitsTheWidth(t *testing.T) {
	t.Parallel()
	rep := realisticReport(t)
	for _, tc := range []struct {
		width, max int
		golden     string
	}{
		{0, audit.DefaultWidth, "realistic.txt"},
		{audit.DefaultWidth, audit.DefaultWidth, "realistic.txt"},
		{80, 80, "realistic-80.txt"},
	} {
		out := writeString(t, rep, audit.FormatTable, audit.WriteOptions{Home: fixtureHome, Width: tc.width})
		checkWidth(t, out, tc.max)
		golden(t, tc.golden, []byte(out))
	}
	// the lines of words wrap too: the agent line says most without a
	// profile
	generic := *rep
	generic.Agent = "generic"
	if generic.Manifest != nil {
		m := *generic.Manifest
		m.Profile = nil
		generic.Manifest = &m
	}
	checkWidth(t, writeString(t, &generic, audit.FormatTable, audit.WriteOptions{Home: fixtureHome, Width: 80}), 80)
	if audit.DefaultWidth != 100 {
		t.Errorf("DefaultWidth = %d", audit.DefaultWidth)
	}
	// every finding's message is in the table, whole once the wrapping is
	// undone
	out := writeString(t, rep, audit.FormatTable, audit.WriteOptions{Home: fixtureHome})
	var msgs strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if cells := strings.Split(line, "|"); len(cells) == 6 && strings.Contains(out[strings.Index(out, "Findings"):], line) {
			msgs.WriteString(strings.TrimSpace(cells[4]) + " ")
		}
	}
	joined := strings.Join(strings.Fields(msgs.String()), "")
	for _, f := range audit.NewDocument(rep, audit.WriteOptions{Home: fixtureHome}).Findings {
		if !strings.Contains(joined, strings.Join(strings.Fields(f.Message), "")) {
			t.Errorf("message %q is not in the findings table:\n%s", f.Message, out)
		}
	}
}

// TestTableColumns pins the default columns of the sources: decision,
// tokens emitted / in the source ("sent / file"), budget use, path relative to the project.
func TestTableColumns(t *testing.T) {
	t.Parallel()
	out := writeString(t, realisticReport(t), audit.FormatTable, audit.WriteOptions{Home: fixtureHome, Width: 1000})
	for _, want := range []string{
		"| id                                    | decision          |        tokens | budget                | path ",
		"|                                       |                   |   sent / file |                       | ",
		// a native by its path, in the id column; the path cell would repeat it
		"| ~/.claude/settings-notes.md           | native_autoload   |         0 / 9 | -                     |                                                            |\n",
		"| project_agents                        | included, cut     | 4,114 / 4,985 | project 200/200 lines | AGENTS.md ",
		"| project_claude                        | same_path         |     0 / 4,985 | -                     | CLAUDE.md ",
		"| shared                                | included          |       10 / 10 | -                     | ~/.config/agents/GLOBAL.md ",
		"| deployment-runbook                    | missing           |         0 / - | -                     | docs/agents/deployment-runbook-for-production-incidents.md ",
		"| codex-sandbox-notes                   | audience_excluded |        0 / 10 | -                     | (text) ",
		"| internal/api/handlers.go                    | summary | degraded |  38 / 2,004 | full → summary (max_file_tokens 1500) ",
		"| project_agents                                   | truncated         | warning  | cut at 200 lines by budget project, 3,486 chars omitted ",
		"Total: 4,271 tokens, 17,084 chars, 243 lines, 17,086 bytes\nThe agent sees: 4,280 tokens = 9 tokens it loads by itself (1 file) + 4,271 tokens from ctx\nLimits: 2,000 tokens per source, 8,000 in total\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestWideIsTheOldTable: --wide prints the sources and files exactly as
// ctx 0.1 did (testdata/realistic-0.1.txt, never regenerated), and the
// findings with one more column, the message. Findings of codes ctx 0.1
// did not have (outside_project) are left out of the comparison.
func TestWideIsTheOldTable(t *testing.T) {
	t.Parallel()
	rep := realisticReport(t)
	rep.Findings = slices.DeleteFunc(rep.Findings, func(f audit.Finding) bool { return f.Code == audit.CodeOutsideProject })
	old, err := os.ReadFile("testdata/realistic-0.1.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{0, 40} {
		wide := writeString(t, rep, audit.FormatTable, audit.WriteOptions{Home: fixtureHome, Wide: true, Width: width})
		oldHead, oldFindings, _ := strings.Cut(string(old), "\nFindings\n")
		wideHead, wideFindings, ok := strings.Cut(wide, "\nFindings\n")
		if !ok || wideHead != oldHead {
			t.Errorf("sources and files differ from ctx 0.1's:\n%s\nwant\n%s", wideHead, oldHead)
		}
		oldLines, wideLines := strings.Split(oldFindings, "\n"), strings.Split(wideFindings, "\n")
		if len(oldLines) != len(wideLines) {
			t.Fatalf("findings have %d lines, want %d:\n%s", len(wideLines), len(oldLines), wideFindings)
		}
		for i := range oldLines {
			if !strings.HasPrefix(wideLines[i], oldLines[i]) {
				t.Errorf("findings line %d = %q, want %q and a message column", i, wideLines[i], oldLines[i])
			}
		}
		if !strings.Contains(wide, "| oversized_source  | warning  | -              | 4,985 tokens, over 2,000 per source ") {
			t.Errorf("no message in the wide findings:\n%s", wideFindings)
		}
	}
}

func TestMarkdown(t *testing.T) {
	t.Parallel()
	out := writeString(t, realisticReport(t), audit.FormatMarkdown, audit.WriteOptions{Home: fixtureHome})
	golden(t, "realistic.md", []byte(out))
	for _, want := range []string{
		"| source | code | severity | related | message |",
		"| project_agents | truncated | warning | - | cut at 200 lines by budget project, 3,486 chars omitted |",
		"| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | --- |",
		// full paths relative to the repository, and notes: markdown keeps
		// everything
		"| docs/agents/deployment-runbook-for-production-incidents.md |",
		"| ~/.claude/settings-notes.md | native | native | available |",
		"| file not found: internal/api/missing_handler_for_refunds.go |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestJSONAddsOnlyMessages: the JSON document is ctx 0.1's with a message
// in each finding.
func TestJSONAddsOnlyMessages(t *testing.T) {
	t.Parallel()
	out := writeString(t, realisticReport(t), audit.FormatJSON, audit.WriteOptions{Home: fixtureHome})
	golden(t, "realistic.json", []byte(out))
	if !strings.Contains(out, `"related_id": "",
      "message": "4,985 tokens, over 2,000 per source"`) {
		t.Errorf("no message after related_id:\n%s", out)
	}
	if strings.Contains(out, `"tokens": 4,`) || !strings.Contains(out, `"tokens": 4271`) {
		t.Errorf("JSON numbers have separators:\n%s", out)
	}
}

func TestGitHub(t *testing.T) {
	t.Parallel()
	out := writeString(t, realisticReport(t), audit.FormatGitHub, ciOptions)
	golden(t, "realistic.github.txt", []byte(out))
	for _, want := range []string{
		// the first line cut, relative to the repository
		"::warning file=AGENTS.md,line=201,title=truncated::project_agents: cut at 200 lines by budget project, 3,486 chars omitted\n",
		// a missing source declared in ctx.toml: the file, no line
		"::warning file=ctx.toml,title=missing::deployment-runbook: docs/agents/deployment-runbook-for-production-incidents.md does not exist (named explicitly)\n",
		// inline text declared in ctx.toml
		"::notice file=ctx.toml,title=audience_excluded::codex-sandbox-notes: its audience is codex; the agent is claude\n",
		"::notice file=internal/api/handlers.go,title=file_degraded::",
		// an orphaned slice: its recorded first line
		"::warning file=README.md,line=7,title=slice_orphaned::",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// project_claude's size is AGENTS.md's, reported once
	if n := strings.Count(out, "\n"); n != 9 {
		t.Errorf("%d commands, want one per finding but project_claude's size (9):\n%s", n, out)
	}
	// no findings, no commands
	clean := build(t, nil, nil, nil, text("a", "A"))
	if out := writeString(t, run(t, clean, audit.DefaultThresholds()), audit.FormatGitHub, audit.WriteOptions{}); out != "" {
		t.Errorf("a clean audit wrote %q", out)
	}
}

// TestGitHubEscaping follows GitHub's rules for workflow commands: in the
// message %, CR and LF are escaped; in properties also ":" and ",".
func TestGitHubEscaping(t *testing.T) {
	t.Parallel()
	m := build(t, nil, nil, nil, file("odd", "a,b:c%d.md"))
	rep := &audit.Report{Manifest: m, Agent: m.Agent, Sources: m.Sources, Findings: []audit.Finding{
		{SourceID: "odd", Code: "missing", Severity: "warning"},
		{Code: "custom", Severity: "info", Message: "50% done\r\nnext: a, b"},
	}}
	out := writeString(t, rep, audit.FormatGitHub, audit.WriteOptions{Home: "/nonexistent-home", Root: m.ProjectDir})
	want := "::warning file=a%2Cb%3Ac%25d.md,title=missing::odd: a,b:c%25d.md does not exist (named explicitly)\n" +
		"::notice title=custom::50%25 done%0D%0Anext: a, b\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// sarifValidator compiles the official SARIF 2.1.0 schema in testdata.
func sarifValidator(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(audit.SARIFSchema, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(audit.SARIFSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSARIFSchema(t *testing.T) {
	t.Parallel()
	v := sarifValidator(t)
	rep := realisticReport(t)
	clean := run(t, build(t, nil, nil, nil, text("a", "A")), audit.DefaultThresholds())
	for name, out := range map[string]string{
		"realistic":             writeString(t, rep, audit.FormatSARIF, ciOptions),
		"no configuration file": writeString(t, rep, audit.FormatSARIF, audit.WriteOptions{Home: fixtureHome, Root: fixtureProject}),
		"no findings":           writeString(t, clean, audit.FormatSARIF, audit.WriteOptions{}),
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := v.Validate(inst); err != nil {
			t.Errorf("%s: not valid SARIF 2.1.0: %v\n%s", name, err, out)
		}
	}
	// the schema is not a pushover: a result without its message fails
	bad := strings.Replace(writeString(t, rep, audit.FormatSARIF, ciOptions), `"message": {`, `"mess": {`, 1)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if v.Validate(inst) == nil {
		t.Error("a result without a message passed the schema")
	}
}

func TestSARIF(t *testing.T) {
	t.Parallel()
	rep := realisticReport(t)
	out := writeString(t, rep, audit.FormatSARIF, ciOptions)
	golden(t, "realistic.sarif.json", []byte(out))
	for _, want := range []string{
		`"$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"`,
		`"version": "2.1.0"`,
		`"name": "ctx"`,
		`"id": "native_evidence_missing"`,
		`"level": "note"`,
		`"uriBaseId": "%SRCROOT%"`,
		`"startLine": 201`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in the SARIF log", want)
		}
	}
	// but project_claude's size, which is AGENTS.md's
	if n := strings.Count(out, `"ruleId"`); n != len(rep.Findings)-1 {
		t.Errorf("%d results, want %d", n, len(rep.Findings)-1)
	}
	if n := strings.Count(out, `"shortDescription"`); n != len(audit.Rules()) {
		t.Errorf("%d rules, want one per code (%d)", n, len(audit.Rules()))
	}
	// without a configuration file, findings with no file point at
	// ctx.toml in the project: code scanning rejects a log with a result
	// that has no location
	out = writeString(t, rep, audit.FormatSARIF, audit.WriteOptions{Home: fixtureHome, Root: fixtureProject})
	if strings.Count(out, `"physicalLocation"`) != len(rep.Findings)-1 || !strings.Contains(out, `"uri": "ctx.toml"`) {
		t.Errorf("SARIF without a configuration file:\n%s", out)
	}
}

// TestRepositoryRoot: github and sarif paths are relative to the repository
// that holds the project (the nearest .git), not to the project itself.
func TestRepositoryRoot(t *testing.T) {
	t.Parallel()
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(repo, "services", "api")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	// a worktree's .git is a file
	if err := os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "AGENTS.md"), []byte(strings.Repeat("word ", 3000)), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(t.Context(), manifest.Options{Discover: discover.Options{
		Agent: "claude", ProjectDir: project, Home: project, SharedMode: discover.SharedDisabled}})
	if err != nil {
		t.Fatal(err)
	}
	rep := run(t, m, realisticThresholds)
	out := writeString(t, rep, audit.FormatGitHub, audit.WriteOptions{Home: repo})
	if !strings.Contains(out, "::warning file=services/api/AGENTS.md,title=oversized_source::project_agents: 3,750 tokens, over 2,000 per source\n") {
		t.Errorf("got\n%s", out)
	}
	var b bytes.Buffer
	if err := audit.Write(&b, rep, audit.FormatSARIF, audit.WriteOptions{Home: repo}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"uri": "services/api/AGENTS.md"`) {
		t.Errorf("got\n%s", b.String())
	}
	// Root overrides the repository
	if out := writeString(t, rep, audit.FormatGitHub, audit.WriteOptions{Home: repo, Root: project}); !strings.Contains(out, "file=AGENTS.md,") {
		t.Errorf("with Root: %s", out)
	}
}

// --check counts each problem once: the size of project_claude, which is
// AGENTS.md, is AGENTS.md's finding (the JSON document keeps both).
func TestCountOnce(t *testing.T) {
	t.Parallel()
	rep := realisticReport(t)
	listed, sizes := 0, 0
	for _, f := range rep.Findings {
		if f.Severity == audit.Warning || f.Severity == audit.Error {
			listed++
		}
		if f.Code == audit.CodeOversizedSource {
			sizes++
		}
	}
	if sizes != 2 {
		t.Fatalf("%d oversized_source findings, want AGENTS.md's and project_claude's: %+v", sizes, rep.Findings)
	}
	if got := rep.Count(audit.Warning); got != listed-1 {
		t.Errorf("Count(warning) = %d, want %d (every warning and error but project_claude's size)", got, listed-1)
	}
}
