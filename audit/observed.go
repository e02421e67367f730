package audit

import (
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/internal/display"
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

// AddObserved adds an observation record to the report: its turn (the
// largest request to the model) becomes the report's Observed, and each
// file where the record's comparison differs from the prediction a
// prediction_differs warning. It is an error for a record with no turn.
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
	if c := rec.Comparison; c != nil {
		for _, f := range c.Files {
			if f.Outcome == observe.OutcomeMatch {
				continue
			}
			r.Findings = append(r.Findings, Finding{SourceID: "observed", Code: CodePredictionDiffers, Severity: Warning, RelatedID: f.Path,
				Message: fmt.Sprintf("%s: ctx predicts %s, %s sent %s (%s)", display.Path(f.Path, processHome()), f.Predicted, rec.Agent, f.Sent,
					strings.ReplaceAll(f.Outcome, "_", " "))})
		}
	}
	return nil
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
	who := o.Agent
	if o.Client != "" {
		who = o.Client
	}
	s := fmt.Sprintf("The agent sent (observed, %s): %s in its turn = %s", who, count(o.Tokens, "token"), strings.Join(parts, " + "))
	if o.InputTokens != nil {
		s += "; the provider counted " + count(*o.InputTokens, "input token")
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
