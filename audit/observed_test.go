package audit_test

import (
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/observe"
)

// record is an observation of one turn of tokens tokens: a system prompt,
// two tools and an instruction file, after a count_tokens call.
func record(tokens int, files ...observe.FileMatch) *observe.Record {
	seg := func(k observe.Kind, n int) observe.Segment {
		return observe.Segment{Kind: k, Bytes: 4 * n, Chars: 4 * n, Tokens: n}
	}
	rest := tokens - 30
	rec := &observe.Record{Agent: observe.Claude, Estimator: "ceil-chars-div-4", Dir: "/nowhere",
		Requests: []observe.Request{
			{Seq: 1, API: "count_tokens", Bytes: 10, Tokens: 3},
			{Seq: 2, API: observe.APIMessages, Client: "claude-cli 9.9", Model: "m", Bytes: 4 * tokens, Tokens: tokens,
				Segments: []observe.Segment{seg(observe.KindSystemPrompt, rest), seg(observe.KindTool, 10), seg(observe.KindTool, 10), seg(observe.KindInstruction, 10)}},
		}}
	if len(files) > 0 {
		rec.Comparison = &observe.Comparison{Profile: "claude", Request: 2, Files: files}
	}
	return rec
}

func TestAddObserved(t *testing.T) {
	t.Parallel()
	m := build(t, map[string]string{"AGENTS.md": "# A\n"}, nil, nil)
	codes := func(r *audit.Report) []string {
		var out []string
		for _, f := range r.Findings {
			if f.SourceID == "observed" {
				out = append(out, string(f.Code)+": "+f.Message)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		total  int64
		tokens int
		files  []observe.FileMatch
		want   []string
	}{
		{"under the total", 1000, 1000, nil, nil},
		{"over the total", 1000, 1001, nil, []string{
			"observed_over_total: claude sent 1,001 tokens in its turn (observed), over the total limit of 1,000: its own system prompt and tool schemas count too"}},
		{"a file otherwise", 5000, 100, []observe.FileMatch{
			{Path: "CLAUDE.md", Predicted: "loaded", Sent: "whole", Outcome: observe.OutcomeMatch},
			{Path: "sub/\x1b[31mx.md", Predicted: "not predicted", Sent: "whole\n", Outcome: "sent_not_predicted"},
		}, []string{`prediction_differs: sub/\x1b[31mx.md: ctx predicts not predicted, claude sent whole\n (sent not predicted)`}},
	}
	for _, tt := range tests {
		r := run(t, m, audit.Thresholds{LayerTokens: measure.Max(8192), TotalTokens: measure.Max(tt.total)})
		before := len(r.Findings)
		if err := r.AddObserved(record(tt.tokens, tt.files...)); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := codes(r)
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || len(r.Findings) != before+len(tt.want) {
			t.Errorf("%s: findings\n%q\nwant\n%q", tt.name, got, tt.want)
		}
		o := r.Observed
		if o == nil || o.Tokens != tt.tokens || o.Client != "claude-cli 9.9" || len(o.Parts) != 3 {
			t.Fatalf("%s: observed %+v", tt.name, o)
		}
		for _, p := range o.Parts {
			if p.Kind == observe.KindTool && (p.Count != 2 || p.Tokens != 20) {
				t.Errorf("%s: tools part %+v", tt.name, p)
			}
		}
	}
	r := run(t, m, audit.DefaultThresholds())
	if err := r.AddObserved(&observe.Record{Agent: observe.Claude, Requests: []observe.Request{{Seq: 1, API: "other"}}}); err == nil {
		t.Error("a record without a turn was accepted")
	}
	if r.Observed != nil {
		t.Error("a failed AddObserved set Observed")
	}
}

func TestObservedElsewhere(t *testing.T) {
	t.Parallel()
	m := build(t, map[string]string{"AGENTS.md": "# A\n"}, nil, nil)
	r := run(t, m, audit.DefaultThresholds())
	rec := record(100)
	rec.Dir = m.ProjectDir
	if s := r.ObservedElsewhere(rec); s != "" {
		t.Errorf("same directory: %q", s)
	}
	rec.Dir = "/elsewhere"
	if s := r.ObservedElsewhere(rec); !strings.Contains(s, "it ran in /elsewhere") {
		t.Errorf("another directory: %q", s)
	}
}
