package observe

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/internal/table"
)

// claudeTurn is a record of Claude Code's turn as a real one looks: a
// long path, a long model, several kinds and files, notes, a comparison.
func claudeTurn() *Record {
	seg := func(k Kind, name string, n int) Segment {
		return Segment{Kind: k, Name: name, Bytes: n, Chars: n, Tokens: n / 4}
	}
	file := func(p string, n int) Segment {
		s := seg(KindInstruction, p, n)
		s.File = &SentFile{Path: p, Status: SentWhole, FileBytes: n, SentBytes: n}
		return s
	}
	segs := []Segment{seg(KindSystemPrompt, "", 7225), seg(KindTool, "Agent", 3000), seg(KindTool, "Bash", 9000), seg(KindTool, "Edit", 2000),
		seg(KindTool, "ListAgents", 1000), seg(KindTool, "Read", 3000), seg(KindMCPTools, "github", 5000),
		file("/work/project/CLAUDE.md", 18), file("/work/project/services/payments/internal/ledger/CLAUDE.md", 900),
		seg(KindSkills, "", 6391), seg(KindEnvironment, "", 3546), seg(KindReminder, "", 913), seg(KindPrompt, "", 2), seg(KindFraming, "", 876)}
	total := 0
	for _, s := range segs {
		total += s.Bytes
	}
	return &Record{Agent: Claude, Mode: ModeMock, Estimator: "ceiling(characters / 4), version 1", Requests: []Request{{
		Seq: 1, Method: "POST", Path: "/v1/messages?beta=true", API: APIMessages, Client: "claude-cli 2.1.328",
		Model: "claude-opus-5-5-20270101-with-a-long-name", Bytes: total, Tokens: total / 4, Segments: segs,
		Notes: []string{"/work/project/CLAUDE.md: sent without its frontmatter or HTML comments, as Claude Code leaves them out"},
	}}, Comparison: &Comparison{Profile: "claude", Checked: "Claude Code 2.1.328", Request: 1, Differs: true, Files: []FileMatch{
		{Path: "/work/project/CLAUDE.md", Predicted: "loaded", Sent: "whole", Outcome: OutcomeMatch},
		{Path: "/work/project/services/payments/internal/ledger/CLAUDE.md", Predicted: "conditional: Claude reads a file in services/payments/internal/ledger/",
			Sent: "whole", Outcome: OutcomeSentNotPredicted},
		{Path: "AGENTS.md instructions for /work/project", Predicted: "not predicted", Sent: "text of no file", Outcome: OutcomeSentNotPredicted},
	}}}
}

// TestWriteSummaryFits: every line of the summary fits the width, its
// prose wrapped as its tables are fitted, down to 50 columns; without a
// width nothing is wrapped.
func TestWriteSummaryFits(t *testing.T) {
	r := claudeTurn()
	for _, width := range []int{50, 60, 80, 100} {
		var b bytes.Buffer
		if err := WriteSummary(&b, r, SummaryOptions{Width: width, Dir: "/work/project"}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if w := table.Width(line); w > width {
				t.Errorf("width %d: a line of %d columns:\n%s\n\n%s", width, w, line, b.String())
			}
		}
		for _, want := range []string{"claude-cli", "2.1.328.", "Predicted by", "The prediction differs", "frontmatter"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("width %d: no %q in\n%s", width, want, b.String())
			}
		}
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, r, SummaryOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "sent 42,871 bytes, 10,717 tokens (ceiling(characters / 4), version 1), from claude-cli 2.1.328.\n") {
		t.Errorf("without a width, the line of the turn is cut:\n%s", b.String())
	}
}
