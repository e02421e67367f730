package audit_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
)

// degradedFiles is a manifest of n aggregated files, each degraded by the
// token budget (file i has 100+i tokens), and omitted more that the budget
// left out.
func degradedFiles(n, omitted int) *manifest.Manifest {
	m := &manifest.Manifest{Agent: "claude", ProjectDir: "/work/shop", Sources: []manifest.Source{}}
	for i := range n + omitted {
		tokens := 100 + i
		r := manifest.FileRow{Path: fmt.Sprintf("src/pkg%02d/file%03d.go", i%7, i), ViewMode: aggregate.ViewOutline,
			RequestedViewMode: aggregate.ViewFull, Status: aggregate.StatusDegraded, SourceTokens: &tokens, EmittedTokens: 12,
			Degraded: "full → outline (max_tokens 5000)"}
		if i >= n {
			r.Status, r.Degraded, r.EmittedTokens = aggregate.StatusOmitted, "full → omitted (max_tokens 5000)", 0
		}
		m.Files = append(m.Files, r)
	}
	return m
}

func runNoSecrets(t *testing.T, m *manifest.Manifest) *audit.Report {
	t.Helper()
	rep, err := audit.RunContext(context.Background(), m, audit.Options{Thresholds: audit.DefaultThresholds(), NoSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// findingLines returns the rows of the findings table of a table output
// whose first cell is not empty (one per finding or group).
func findingLines(out string) []string {
	_, findings, _ := strings.Cut(out, "\nFindings\n")
	findings, _, _ = strings.Cut(findings, "\n\n")
	var rows []string
	for _, line := range strings.Split(findings, "\n")[3:] {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.TrimSpace(cells[1]) != "" {
			rows = append(rows, line)
		}
	}
	return rows
}

// Findings of one code and severity are listed one by one up to
// GroupAbove, and one row with their count above it, in the table and
// markdown; --details lists every one, and the machine formats always do.
func TestFindingGroups(t *testing.T) {
	t.Parallel()
	if audit.GroupAbove != 3 {
		t.Errorf("GroupAbove = %d, the documented 3", audit.GroupAbove)
	}
	for _, tc := range []struct {
		name             string
		degraded, omit   int
		rows             int    // rows of the findings table
		group            string // the grouped row's message, "" for none
		markdownFindings int
	}{
		{"three are listed", 3, 0, 3, "", 3},
		{"four are one row", 4, 0, 1, "4 files sent in a cheaper view by the token budget; largest: src/pkg03/file003.go (103 tokens), src/pkg02/file002.go (102 tokens), src/pkg01/file001.go (101 tokens); --details lists each", 1},
		{"560 and two of another code", 560, 2, 3, "560 files sent in a cheaper view by the token budget; largest: src/pkg06/file559.go (659 tokens), src/pkg05/file558.go (658 tokens), src/pkg04/file557.go (657 tokens); --details lists each", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := runNoSecrets(t, degradedFiles(tc.degraded, tc.omit))
			if len(rep.Findings) != tc.degraded+tc.omit {
				t.Fatalf("%d findings, want %d", len(rep.Findings), tc.degraded+tc.omit)
			}
			wide := audit.WriteOptions{Home: "/nonexistent", Width: 1000}
			out := writeString(t, rep, audit.FormatTable, wide)
			rows := findingLines(out)
			if len(rows) != tc.rows {
				t.Errorf("%d rows, want %d:\n%s", len(rows), tc.rows, strings.Join(rows, "\n"))
			}
			if tc.group != "" {
				want := "| ×" + strings.Fields(tc.group)[0] + " "
				if len(rows) == 0 || !strings.HasPrefix(rows[0], want) || !strings.Contains(rows[0], "| file_degraded | info     | "+tc.group+" |") {
					t.Errorf("the group's row, first in place of the first degraded file:\n%s\nwant %q and %q", strings.Join(rows, "\n"), want, tc.group)
				}
			}
			// the omitted files (two) are listed one by one
			if n := strings.Count(out, "| file_omitted "); n != tc.omit {
				t.Errorf("%d file_omitted rows, want %d", n, tc.omit)
			}
			detailed := wide
			detailed.Details = true
			if rows := findingLines(writeString(t, rep, audit.FormatTable, detailed)); len(rows) != tc.degraded+tc.omit {
				t.Errorf("--details: %d rows, want every finding (%d)", len(rows), tc.degraded+tc.omit)
			}
			md := writeString(t, rep, audit.FormatMarkdown, audit.WriteOptions{Home: "/nonexistent"})
			_, mdFindings, _ := strings.Cut(md, "## Findings")
			if n := strings.Count(mdFindings, "\n| ") - 2; n != tc.markdownFindings { // less the header and its rule
				t.Errorf("markdown: %d findings rows, want %d:\n%s", n, tc.markdownFindings, mdFindings)
			}
			// the machine formats keep every finding
			if n := strings.Count(writeString(t, rep, audit.FormatJSON, audit.WriteOptions{}), `"code": "file_`); n != tc.degraded+tc.omit {
				t.Errorf("JSON: %d findings", n)
			}
			if n := strings.Count(writeString(t, rep, audit.FormatSARIF, audit.WriteOptions{Root: "/work/shop"}), `"ruleId"`); n != tc.degraded+tc.omit {
				t.Errorf("SARIF: %d results", n)
			}
			if n := strings.Count(writeString(t, rep, audit.FormatGitHub, audit.WriteOptions{Root: "/work/shop"}), "\n"); n != tc.degraded+tc.omit {
				t.Errorf("github: %d annotations", n)
			}
		})
	}
}

// More files than FilesShown: the table lists those that send the most
// tokens, in their order, and counts the rest; --details lists every one.
func TestFilesFolded(t *testing.T) {
	t.Parallel()
	m := degradedFiles(30, 5)
	for i := range m.Files {
		m.Files[i].EmittedTokens = i % 11
	}
	rep := runNoSecrets(t, m)
	out := writeString(t, rep, audit.FormatTable, audit.WriteOptions{Home: "/nonexistent", Width: 80})
	_, files, _ := strings.Cut(out, "\nFiles\n")
	files, _, _ = strings.Cut(files, "\nFindings\n")
	if n := strings.Count(files, "| src/"); n != audit.FilesShown {
		t.Errorf("%d files listed, want %d:\n%s", n, audit.FilesShown, files)
	}
	if !strings.Contains(files, "The 20 files that send the most tokens, of 35: 30 degraded, 5 omitted (--details\nlists every file)") {
		t.Errorf("no line for the rest:\n%s", files)
	}
	// those that send the most: file010.go (10 tokens) is listed,
	// file011.go (0) is not
	if !strings.Contains(files, "file010.go") || strings.Contains(files, "file011.go") {
		t.Errorf("not the largest:\n%s", files)
	}
	checkWidth(t, out, 80)
	detailed := writeString(t, rep, audit.FormatTable, audit.WriteOptions{Home: "/nonexistent", Width: 80, Details: true})
	if n := strings.Count(detailed, "| src/"); n != 35 {
		t.Errorf("--details: %d files listed, want 35", n)
	}
	md := writeString(t, rep, audit.FormatMarkdown, audit.WriteOptions{Home: "/nonexistent"})
	if n := strings.Count(md, "\n| src/pkg"); n != audit.FilesShown {
		t.Errorf("markdown: %d files listed", n)
	}
}

// nativeTree is a repository whose agents load 60 files by themselves,
// with long nested paths: Claude Code's .claude/rules and CLAUDE.md files
// of the packages, and Cursor rules named explicitly as natives.
func nativeTree(t *testing.T) (dir string, cursor, natives []string) {
	t.Helper()
	files := map[string]string{".git/HEAD": "", "CLAUDE.md": "# Project\n"}
	for i := range 20 {
		p := fmt.Sprintf(".claude/rules/backend/legacy-model-migration-patterns-%02d.md", i)
		files[p] = fmt.Sprintf("---\npaths: src/**/*.ts\n---\nRule %d.\n", i)
		natives = append(natives, p)
	}
	for i := range 10 {
		p := fmt.Sprintf("packages/service-%02d-with-a-long-name/src/CLAUDE.md", i)
		files[p] = fmt.Sprintf("Service %d.\n", i)
		natives = append(natives, p)
	}
	for i := range 29 {
		p := fmt.Sprintf(".cursor/rules/backend/legacy-model-migration-patterns-%02d.mdc", i)
		files[p] = fmt.Sprintf("---\nalwaysApply: true\n---\nCursor rule %d.\n", i)
		cursor = append(cursor, p)
		natives = append(natives, p)
	}
	natives = append(natives, "CLAUDE.md")
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return dir, cursor, natives
}

// With many files the agent loads by itself, each is shown by its path,
// whole once the wrapping is undone, and no line of the 80- or 100-column
// table is wider.
func TestNativeIDs(t *testing.T) {
	t.Parallel()
	dir, cursor, natives := nativeTree(t)
	m := claudeManifest(t, dir, cursor)
	rep := runNoSecrets(t, m)
	if n := len(m.Sources); n < 60 {
		t.Fatalf("%d sources, want the 60 natives and more", n)
	}
	for _, width := range []int{80, 100} {
		// with details: every file its own row (see TestFoldConditional)
		out := writeString(t, rep, audit.FormatTable, audit.WriteOptions{Width: width, Details: true})
		checkWidth(t, out, width)
		_, sources, _ := strings.Cut(out, "\nSources\n")
		sources, _, _ = strings.Cut(sources, "\n\n")
		// the id cells, a wrapped one joined again
		var ids []string
		for _, line := range strings.Split(sources, "\n")[3:] {
			cells := strings.Split(line, "|")
			if len(cells) < 3 {
				continue
			}
			// a row's tokens are on its first line only
			id := strings.TrimSpace(cells[1])
			if strings.TrimSpace(cells[3]) == "" && len(ids) > 0 {
				ids[len(ids)-1] += id
				continue
			}
			ids = append(ids, id)
		}
		seen := map[string]int{}
		for _, id := range ids {
			seen[id]++
		}
		for _, p := range natives {
			if seen[p] != 1 {
				t.Errorf("width %d: %q is %d ids, want one:\n%s", width, p, seen[p], sources)
			}
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("width %d: id %q %d times", width, id, n)
			}
		}
		if strings.Contains(sources, "| native ") || strings.Contains(sources, "…") {
			t.Errorf("width %d: an id is not a whole path:\n%s", width, sources)
		}
	}
}

// A native whose path is another source's id keeps "native:" in front:
// ids stay unique.
func TestNativeIDClash(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{"notes": "a file named notes\n"}))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(context.Background(), manifest.Options{Discover: discover.Options{Agent: "claude", ProjectDir: dir, Home: dir,
		SharedMode: discover.SharedDisabled, NoDiscover: true, NativePaths: []string{"notes"}, Extras: []discover.Extra{text("notes", "Be brief.")}}})
	if err != nil {
		t.Fatal(err)
	}
	out := writeString(t, runNoSecrets(t, m), audit.FormatTable, audit.WriteOptions{Width: 100, Home: "/nonexistent"})
	if !strings.Contains(out, "\n| native:notes ") || !strings.Contains(out, "\n| notes        ") {
		t.Errorf("ids:\n%s", out)
	}
}

// The absence of a file that nobody named is recorded (JSON, --details)
// and counted by --fail-on info, but the table, markdown, github and sarif
// formats say nothing of it; a file named explicitly keeps its warning.
func TestQuietMissing(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{".git/HEAD": "", "AGENTS.md": "rules\n"}))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(context.Background(), manifest.Options{Discover: discover.Options{Agent: "claude", ProjectDir: dir,
		Home: t.TempDir(), Getenv: func(string) string { return "" },
		Extras: []discover.Extra{{ID: "runbook", Kind: "ops", Path: str("docs/runbook.md")}}}})
	if err != nil {
		t.Fatal(err)
	}
	rep := runNoSecrets(t, m)
	if got := rep.Count(audit.Info); got != 3 {
		t.Fatalf("%d findings, want the shared file, CLAUDE.md and the runbook missing: %+v", got, rep.Findings)
	}
	o := audit.WriteOptions{Home: "/nonexistent", Width: 100}
	for _, tc := range []struct {
		format  audit.Format
		details bool
		want    int // missing findings shown
	}{
		{audit.FormatTable, false, 1},
		{audit.FormatTable, true, 3},
		{audit.FormatMarkdown, false, 1},
		{audit.FormatMarkdown, true, 1},
		{audit.FormatGitHub, false, 1},
		{audit.FormatSARIF, false, 1},
		{audit.FormatJSON, false, 3},
	} {
		o.Details = tc.details
		out := writeString(t, rep, tc.format, o)
		n := strings.Count(out, "does not exist")
		if tc.format == audit.FormatSARIF {
			n = strings.Count(out, `"ruleId": "missing"`)
		}
		if tc.format == audit.FormatTable || tc.format == audit.FormatMarkdown {
			// the message may wrap: count the rows of the findings
			_, out, _ = strings.Cut(out, "Findings\n")
			n = strings.Count(out, "| missing  ") + strings.Count(out, "| missing | ")
		}
		if n != tc.want {
			t.Errorf("%s (details %v): %d missing findings, want %d:\n%s", tc.format, tc.details, n, tc.want, out)
		}
		if tc.want == 1 && strings.Contains(out, "nobody named") {
			t.Errorf("%s: says something of a file nobody named:\n%s", tc.format, out)
		}
	}
	// the sources table still shows their rows
	out := writeString(t, rep, audit.FormatTable, audit.WriteOptions{Home: "/nonexistent", Width: 100})
	if !strings.Contains(out, "| project_claude | missing ") {
		t.Errorf("no row for CLAUDE.md:\n%s", out)
	}
}

// A file that is both a native and a source ctx discovered, over the
// per-source limit twice, is one annotation, one markdown row and one
// SARIF result; the table lists it per source.
func TestEachProblemOnce(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{".git/HEAD": "", "AGENTS.md": strings.Repeat("word ", 100)}))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(context.Background(), manifest.Options{Discover: discover.Options{Agent: "codex", ProjectDir: dir,
		Home: t.TempDir(), SharedMode: discover.SharedDisabled, NativePaths: []string{"AGENTS.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.RunContext(context.Background(), m, audit.Options{Thresholds: audit.Thresholds{LayerTokens: measure.Max(10), TotalTokens: measure.Max(1e9)}, NoSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Code == audit.CodeOversizedSource {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d oversized_source findings, want the native's and project_agents': %+v", n, rep.Findings)
	}
	o := audit.WriteOptions{Home: "/nonexistent"}
	gh := writeString(t, rep, audit.FormatGitHub, o)
	if got := strings.Count(gh, "title=oversized_source"); got != 1 || !strings.Contains(gh, "::warning file=AGENTS.md,title=oversized_source::AGENTS.md: 125 tokens, over 10 per source\n") {
		t.Errorf("github:\n%s", gh)
	}
	if got := strings.Count(writeString(t, rep, audit.FormatMarkdown, o), "| oversized_source |"); got != 1 {
		t.Errorf("markdown: %d rows", got)
	}
	if got := strings.Count(writeString(t, rep, audit.FormatSARIF, o), `"ruleId": "oversized_source"`); got != 1 {
		t.Errorf("SARIF: %d results", got)
	}
	if got := strings.Count(writeString(t, rep, audit.FormatTable, o), "| oversized_source "); got != 2 {
		t.Errorf("table: %d rows, want one per source", got)
	}
}

// SARIF locations are relative to %SRCROOT%, which the run describes
// without a path of the machine; no absolute path is left in the log.
func TestSARIFRelative(t *testing.T) {
	t.Parallel()
	rep := realisticReport(t)
	out := writeString(t, rep, audit.FormatSARIF, ciOptions)
	if !strings.Contains(out, `"originalUriBaseIds": {
        "%SRCROOT%": {
          "description": {`) {
		t.Errorf("no originalUriBaseIds:\n%s", out)
	}
	if strings.Contains(out, fixtureHome) || strings.Contains(out, `"uri": "/`) {
		t.Errorf("an absolute path in the log:\n%s", out)
	}
	if strings.Count(out, `"uriBaseId": "%SRCROOT%"`) != strings.Count(out, `"uri":`) {
		t.Errorf("a location without its base")
	}
}

// More conditional natives than FilesShown: without details, those of one
// directory are one row with their count and summed tokens, a directory of
// one keeps its row, and a line says what was folded; with details each
// has its row.
func TestFoldConditional(t *testing.T) {
	t.Parallel()
	dir, cursor, _ := nativeTree(t)
	m := claudeManifest(t, dir, cursor)
	rep := runNoSecrets(t, m)
	out := writeString(t, rep, audit.FormatTable, audit.WriteOptions{Width: 100})
	checkWidth(t, out, 100)
	for _, want := range []string{
		"| .claude/rules/backend/", "(20 files)", "0 / 180 |", // 20 rules of 9 tokens
		"| packages/service-03-with-a-long-name/ ", // a directory of one
		"20 files the agent loads only when their conditions apply are folded by directory (--details lists\neach)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "patterns-07.md ") {
		t.Errorf("a folded rule has its own row:\n%s", out)
	}
	out = writeString(t, rep, audit.FormatTable, audit.WriteOptions{Width: 100, Details: true})
	if strings.Contains(out, "folded") || !strings.Contains(out, "patterns-07.md ") {
		t.Errorf("with details, every file has its row:\n%s", out)
	}
}

// More conditional natives than FilesShown, each in a directory of its
// own: nothing folds, and no line says that something did.
func TestFoldConditionalSingletons(t *testing.T) {
	t.Parallel()
	files := map[string]string{".git/HEAD": "", "CLAUDE.md": "# Project\n"}
	for i := range audit.FilesShown + 5 {
		files[fmt.Sprintf("packages/p%02d/CLAUDE.md", i)] = fmt.Sprintf("Package %d.\n", i)
	}
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	m := claudeManifest(t, dir, nil)
	out := writeString(t, runNoSecrets(t, m), audit.FormatTable, audit.WriteOptions{Width: 100})
	if strings.Contains(out, "folded") || !strings.Contains(out, "packages/p07/CLAUDE.md") {
		t.Errorf("singletons folded, or a line says so:\n%s", out)
	}
}

// claudeManifest builds the manifest of dir for Claude Code, with no
// shared file and no environment, natives as the extra native paths.
func claudeManifest(t *testing.T, dir string, natives []string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{ProjectDir: dir, Home: t.TempDir(), SharedMode: discover.SharedDisabled,
			Getenv: func(string) string { return "" }, NativePaths: natives},
		Profile: profile.Claude,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
