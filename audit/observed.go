package audit

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/observe"
)

// Observed is what the agent really sent in one turn, as ctx observe
// recorded it: every byte of the request, by part, beside what ctx
// predicts.
type Observed struct {
	Agent  string `json:"agent"`
	Client string `json:"client,omitempty"`
	Model  string `json:"model,omitempty"`
	// Bytes and Tokens measure the whole request; Estimator counts the
	// tokens (the record's, which may differ from the audit's).
	Bytes     int    `json:"bytes"`
	Tokens    int    `json:"tokens"`
	Estimator string `json:"estimator"`
	// InputTokens is the provider's own count, when it gave one.
	InputTokens *int           `json:"input_tokens,omitempty"`
	Parts       []ObservedPart `json:"parts"`
}

// ObservedPart is one kind of segment of the request (observe.Kind):
// how many segments, and their size.
type ObservedPart struct {
	Kind   observe.Kind `json:"kind"`
	Count  int          `json:"count"`
	Bytes  int          `json:"bytes"`
	Tokens int          `json:"tokens"`
}

// CodePredictionDiffers: the agent, observed, sent another set of
// instruction files than ctx predicts (ctx observe's comparison).
const CodePredictionDiffers Code = "prediction_differs"

// CodeObservedOverTotal: the agent, observed, sent more tokens in its turn
// than the total limit (its own system prompt and tool schemas count).
const CodeObservedOverTotal Code = "observed_over_total"

// AddObserved adds an observation record to the report: its turn (the
// largest request to the model) becomes the report's Observed, and each
// file where the record's comparison differs from the prediction a
// prediction_differs warning, and an observed_over_total warning when the
// turn has more tokens than the report's total limit. It is an error for a
// record with no turn.
func (r *Report) AddObserved(rec *observe.Record) error {
	turn := rec.Turn()
	if turn == nil {
		return fmt.Errorf("the observation holds no request to a model (%d requests)", len(rec.Requests))
	}
	o := &Observed{Agent: string(rec.Agent), Client: turn.Client, Model: turn.Model, Bytes: turn.Bytes, Tokens: turn.Tokens,
		Estimator: rec.Estimator, InputTokens: turn.InputTokens}
	for _, t := range turn.Totals() {
		n := 0
		for _, s := range turn.Segments {
			if s.Kind == t.Kind {
				n++
			}
		}
		o.Parts = append(o.Parts, ObservedPart{Kind: t.Kind, Count: n, Bytes: t.Bytes, Tokens: t.Tokens})
	}
	r.Observed = o
	if r.Thresholds.TotalTokens.Exceeded(int64(o.Tokens)) {
		r.Findings = append(r.Findings, Finding{SourceID: "observed", Code: CodeObservedOverTotal, Severity: Warning,
			Message: fmt.Sprintf("%s sent %s in its turn (observed), over the total limit of %s: its own system prompt and tool schemas count too",
				mdtext.Escape(string(rec.Agent)), display.Plural(o.Tokens, "token"), number(r.Thresholds.TotalTokens))})
	}
	if c := rec.Comparison; c != nil {
		for _, f := range c.Files {
			if f.Outcome == observe.OutcomeMatch {
				continue
			}
			// every string of a record may come from a file or an agent:
			// escaped
			r.Findings = append(r.Findings, Finding{SourceID: "observed", Code: CodePredictionDiffers, Severity: Warning, RelatedID: f.Path,
				Message: fmt.Sprintf("%s: ctx predicts %s, %s sent %s (%s)", display.Path(f.Path, processHome()), mdtext.Escape(f.Predicted),
					mdtext.Escape(string(rec.Agent)), mdtext.Escape(f.Sent), mdtext.Escape(strings.ReplaceAll(f.Outcome, "_", " ")))})
		}
	}
	return nil
}

// ObservedElsewhere says, when the record is of another agent than the
// audit's or of another directory than its project, how they differ; ""
// when they agree. The audit then holds one run against another.
func (r *Report) ObservedElsewhere(rec *observe.Record) string {
	var diffs []string
	if m := r.Manifest; m != nil {
		if m.Profile != nil && rec.Agent != "" && m.Profile.Name != string(rec.Agent) {
			diffs = append(diffs, fmt.Sprintf("it observed %s, the audit's profile is %s", mdtext.Escape(string(rec.Agent)), m.Profile.Name))
		}
		if rec.Dir != "" && m.ProjectDir != "" && m.ProjectDir != "." && canonical(rec.Dir) != canonical(m.ProjectDir) {
			diffs = append(diffs, fmt.Sprintf("it ran in %s, the audit is of %s", display.Path(rec.Dir, processHome()), display.Path(m.ProjectDir, processHome())))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return "the observation is not of this audit: " + strings.Join(diffs, "; ")
}

func canonical(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// observedLine says what the agent sent in its turn, by part; "" without
// an observation.
func observedLine(rep *Report) string {
	o := rep.Observed
	if o == nil {
		return ""
	}
	var parts []string
	for _, p := range o.Parts {
		label := observedLabels[p.Kind]
		if p.Count > 1 && (p.Kind == observe.KindTool || p.Kind == observe.KindMCPTools || p.Kind == observe.KindInstruction || p.Kind == observe.KindMemory) {
			label = display.Int(p.Count) + " " + label + "s"
		}
		parts = append(parts, label+" "+display.Int(p.Tokens))
	}
	who := mdtext.Escape(o.Agent)
	if o.Client != "" {
		who = mdtext.Escape(o.Client)
	}
	s := fmt.Sprintf("The agent sent (observed, %s): %s in its turn = %s", who, display.Plural(o.Tokens, "token"), strings.Join(parts, " + "))
	if o.InputTokens != nil {
		s += "; the provider counted " + display.Plural(*o.InputTokens, "input token")
	}
	return s
}

var observedLabels = map[observe.Kind]string{
	observe.KindSystemPrompt: "system prompt",
	observe.KindTool:         "tool schema",
	observe.KindMCPTools:     "MCP server's tools",
	observe.KindInstruction:  "instruction file",
	observe.KindMemory:       "memory file",
	observe.KindSkills:       "skills",
	observe.KindEnvironment:  "environment",
	observe.KindReminder:     "reminders",
	observe.KindPrompt:       "prompt",
	observe.KindConversation: "conversation",
	observe.KindFraming:      "JSON framing",
}
