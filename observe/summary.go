package observe

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/internal/table"
)

// kindLabels are the words of the summary for each kind.
var kindLabels = map[Kind]string{
	KindSystemPrompt: "system prompt",
	KindTool:         "tool schemas",
	KindMCPTools:     "MCP tool schemas",
	KindInstruction:  "instruction files",
	KindMemory:       "memory files",
	KindSkills:       "skills",
	KindEnvironment:  "environment",
	KindReminder:     "reminders",
	KindPrompt:       "prompt",
	KindConversation: "conversation",
	KindFraming:      "JSON framing",
}

// SummaryOptions configure [WriteSummary].
type SummaryOptions struct {
	// Width is the terminal width the tables fit (0: not fitted).
	Width int
	// Home is shown as ~ in paths; Dir is the directory paths are shown
	// relative to.
	Home, Dir string
}

// WriteSummary writes what a record holds for people: the requests, the
// segments of the turn by kind with the files and tools in it, and the
// comparison with the prediction when the record has one.
func WriteSummary(w io.Writer, r *Record, o SummaryOptions) error {
	agent := string(r.Agent)
	if agent == "" {
		agent = "the program"
	}
	turn := r.Turn()
	fmt.Fprintf(w, "ctx observe: %s, %s; %s\n", clean(agent), r.Mode, display.Plural(len(r.Requests), "request"))
	if turn == nil {
		fmt.Fprintln(w, "No request to a model was made: the agent ended before it asked its model,")
		fmt.Fprintln(w, "or its own settings sent it to an endpoint ctx does not know.")
		return nil
	}
	who := clean(turn.Client)
	if who == "" {
		who = clean(agent)
	}
	// the prose wraps to the width, as the tables fit it
	prose := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		if o.Width > 0 {
			line = table.WrapText(line, o.Width)
		}
		fmt.Fprintln(w, line)
	}
	size := display.Int(turn.Bytes) + " bytes"
	for _, n := range turn.Notes {
		if strings.HasPrefix(n, moreThan) && turn.Bytes > 0 {
			size = "more than " + display.Int(turn.Bytes-1) + " bytes" // a body not read to its end
		}
	}
	line := fmt.Sprintf("The turn (request %d, %s %s, model %s) sent %s, %s tokens (%s)", turn.Seq, turn.Method, clean(cutPath(turn.Path)),
		orNone(clean(turn.Model)), size, display.Int(turn.Tokens), r.Estimator)
	if turn.InputTokens != nil {
		line += fmt.Sprintf("; the provider counted %s input tokens", display.Int(*turn.InputTokens))
	}
	prose("%s, from %s.", line, who)
	var rows [][]string
	for _, t := range turn.Totals() {
		n := 0
		for _, s := range turn.Segments {
			if s.Kind == t.Kind {
				n++
			}
		}
		label := kindLabels[t.Kind]
		if t.Kind == KindTool || t.Kind == KindMCPTools || t.Kind == KindInstruction || t.Kind == KindMemory {
			label = fmt.Sprintf("%s (%d)", label, n)
		}
		rows = append(rows, []string{label, display.Int(t.Bytes), display.Int(t.Tokens), share(t.Bytes, turn.Bytes), names(turn, t.Kind, o)})
	}
	rows = append(rows, []string{"total", display.Int(turn.Bytes), display.Int(turn.Tokens), "100%", ""})
	// the names give up width first, then the labels (down to a word)
	cols := []table.Column{{Header: "segment", Fit: table.FitWrap, Min: 8, Rank: 1}, {Header: "bytes", Align: table.Right},
		{Header: "tokens", Align: table.Right}, {Header: "share", Align: table.Right}, {Header: "what", Fit: table.FitWrap, Min: 8}}
	if err := table.WriteFitted(w, cols, rows, o.Width); err != nil {
		return err
	}
	for _, n := range turn.Notes {
		prose("note: %s", clean(n))
	}
	if c := r.Comparison; c != nil {
		checked := ""
		if c.Checked != "" {
			checked = ", checked against " + c.Checked
		}
		fmt.Fprintln(w)
		prose("Predicted by ctx (profile %s%s) against what was sent:", clean(c.Profile), checked)
		var rows [][]string
		for _, f := range c.Files {
			rows = append(rows, []string{display.Rel(f.Path, o.Dir, o.Home), clean(f.Predicted), clean(f.Sent), strings.ReplaceAll(f.Outcome, "_", " ")})
		}
		if len(rows) == 0 {
			fmt.Fprintln(w, "No instruction file predicted, none sent.")
		} else if err := table.WriteFitted(w, []table.Column{{Header: "file", Fit: table.FitCutPath, Min: 10},
			{Header: "predicted", Fit: table.FitWrap, Min: 9}, {Header: "sent", Fit: table.FitWrap, Min: 8}, {Header: "outcome", Fit: table.FitWrap, Min: 9}},
			rows, o.Width); err != nil {
			return err
		}
		if c.Differs {
			prose("The prediction differs from what the agent sent.")
		} else {
			prose("The prediction matches what the agent sent.")
		}
	}
	return nil
}

// names lists what the segments of a kind hold: tools by name, files by
// path.
func names(r *Request, k Kind, o SummaryOptions) string {
	var out []string
	for _, s := range r.Segments {
		if s.Kind != k || s.Name == "" {
			continue
		}
		name := s.Name
		if s.File != nil {
			name = display.Rel(s.File.Path, o.Dir, o.Home)
			if s.File.Status != SentWhole {
				name += " (" + sentText(s.File) + ")"
			}
		} else {
			name = clean(name)
		}
		out = append(out, name)
	}
	return strings.Join(out, ", ")
}

func share(n, total int) string {
	if total == 0 {
		return "0%"
	}
	p := float64(n) * 100 / float64(total)
	if p > 0 && p < 1 {
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", p)
}

func orNone(s string) string {
	if s == "" {
		return "none named"
	}
	return s
}

// cutPath shortens a long request path for a line of the summary.
func cutPath(p string) string {
	if len(p) > 60 {
		return table.CutMiddle(p, 60)
	}
	return p
}

// clean escapes what an agent or a file controls before it reaches a
// terminal: control characters, escapes included, are shown as \x1b and
// the like.
func clean(s string) string { return mdtext.Escape(s) }
