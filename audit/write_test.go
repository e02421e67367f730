package audit_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/internal/table"
)

// realisticReport audits the realistic fixture with the default thresholds.
func realisticReport(t *testing.T) *audit.Report {
	t.Helper()
	return run(t, realistic(t), audit.DefaultThresholds())
}

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
// tokens emitted / in the source, budget use, path relative to the project.
func TestTableColumns(t *testing.T) {
	t.Parallel()
	out := writeString(t, realisticReport(t), audit.FormatTable, audit.WriteOptions{Home: fixtureHome, Width: 1000})
	for _, want := range []string{
		"| id                                         | decision          |        tokens | budget                | path ",
		"| project_agents                             | included, cut     | 4,114 / 4,985 | project 200/200 lines | AGENTS.md ",
		"| project_claude                             | same_path         |     0 / 4,985 | -                     | CLAUDE.md ",
		"| shared                                     | included          |       10 / 10 | -                     | ~/.config/agents/GLOBAL.md ",
		"| deployment-runbook                         | missing           |         0 / - | -                     | docs/agents/deployment-runbook-for-production-incidents.md ",
		"| codex-sandbox-notes                        | audience_excluded |        0 / 10 | -                     | (text) ",
		"| internal/api/handlers.go                    | summary | degraded | 38 / 2,004 | full → summary (max_file_tokens 1500) ",
		"| project_agents                                   | truncated         | warning  | cut at 200 lines by budget project, 3,486 chars omitted ",
		"Total: 4,271 tokens, 17,084 chars, 243 lines, 17,086 bytes\nLimits: 2,000 tokens per source, 8,000 in total\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestWideIsTheOldTable: --wide prints the sources and files exactly as
// ctx 0.1 did (testdata/realistic-0.1.txt, never regenerated), and the
// findings with one more column, the message.
func TestWideIsTheOldTable(t *testing.T) {
	t.Parallel()
	rep := realisticReport(t)
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
		// full paths and notes: markdown keeps everything
		"| ~/src/github.com/acme/shop-service-backend/docs/agents/deployment-runbook-for-production-incidents.md |",
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
