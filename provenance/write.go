package provenance

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/format"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// Format is an output format of [WriteVerify] and [WriteDiff]: table or
// json, of [format.Format]'s names.
type Format = format.Format

// The formats.
const (
	// FormatTable: a plain-text table fitted to the width given, and a
	// summary.
	FormatTable = format.Table
	// FormatJSON: the report itself ([VerifyReport], [DiffReport]).
	FormatJSON = format.JSON
)

// TableWidth is the most columns a table takes when the caller gives no
// width: longer ids and paths are wrapped after a slash, longer values at
// spaces; nothing of them is cut.
const TableWidth = table.DefaultWidth

// hashLen is how much of a hash a table shows.
const hashLen = 8

// ParseFormat checks s: table or json.
func ParseFormat(s string) (Format, error) { return format.Parse(s, FormatTable, FormatJSON) }

// WriteVerify writes rep to w in format f, in one Write call. The table,
// at most width columns wide (0: TableWidth), has a row per source, file
// and history file: state, id, old and new hash (or status when there is
// none), and path; then a line that counts the drift.
func WriteVerify(w io.Writer, rep *VerifyReport, f Format, width int) error {
	if width <= 0 {
		width = TableWidth
	}
	var b bytes.Buffer
	switch f {
	case FormatJSON:
		if err := jsonenc.Write(&b, rep); err != nil {
			return err
		}
	case FormatTable:
		for _, st := range rep.Settings {
			b.WriteString(table.WrapText(mdtext.Escape(fmt.Sprintf("setting %s: %s → %s", st.Setting, orNone(st.Old), orNone(st.New))), width) + "\n")
		}
		rows := make([][]string, 0, len(rep.Rows))
		for _, r := range rep.Rows {
			state := string(r.State)
			if r.MachineLocal && r.State != StateUnchanged {
				state += " (local)"
			}
			rows = append(rows, []string{state, r.ID, shortHash(r.OldHash, r.OldStatus), shortHash(r.NewHash, r.NewStatus), r.Path})
		}
		cols := []table.Column{{Header: "state"}, {Header: "id", Fit: table.FitWrapPath, Min: 12},
			{Header: "old"}, {Header: "new"}, {Header: "path", Fit: table.FitWrapPath, Min: 12}}
		if err := table.WriteFitted(&b, cols, escaped(rows), width); err != nil {
			return err
		}
		for _, r := range rep.Rows {
			if r.Note != "" {
				b.WriteString(table.WrapText(mdtext.Escape(r.ID+": "+r.Note), width) + "\n")
			}
		}
		b.WriteString(table.WrapText(verifySummary(rep), width))
		b.WriteByte('\n')
	default:
		_, err := ParseFormat(string(f))
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// verifySummary is the last line of the table: "no drift: 5 rows
// unchanged", "drift: 2 of 5 rows (1 changed, 1 new)", and "; 1 setting
// changed" when settings did.
func verifySummary(rep *VerifyReport) string {
	local := ""
	if rep.Local > 0 {
		local = "; " + display.Plural(rep.Local, "machine-local row") + " differ (files outside the repository, each machine's own: not drift)"
		if rep.Local == 1 {
			local = "; 1 machine-local row differs (a file outside the repository, each machine's own: not drift)"
		}
	}
	if rep.Drifted == 0 {
		return fmt.Sprintf("no drift: %s unchanged", display.Plural(len(rep.Rows)-rep.Local, "row")) + local
	}
	var parts []string
	for _, s := range States()[1:] {
		n := 0
		for _, r := range rep.Rows {
			if r.State == s && !r.MachineLocal {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	out := fmt.Sprintf("drift: %d of %s", rep.DriftedRows(), display.Plural(len(rep.Rows), "row"))
	if len(parts) > 0 {
		out += " (" + strings.Join(parts, ", ") + ")"
	}
	if n := len(rep.Settings); n > 0 {
		out += "; " + display.Plural(n, "setting") + " changed"
	}
	return out + local
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// WriteDiff writes rep to w in format f, in one Write call. The table, at
// most width columns wide (0: TableWidth), has a row per change (id,
// change, old, new), preceded by the agent and estimator when they differ
// and followed by the counts and the total emitted tokens before and
// after.
func WriteDiff(w io.Writer, rep *DiffReport, f Format, width int) error {
	if width <= 0 {
		width = TableWidth
	}
	var b bytes.Buffer
	switch f {
	case FormatJSON:
		if err := jsonenc.Write(&b, rep); err != nil {
			return err
		}
	case FormatTable:
		if rep.Old.Agent != rep.New.Agent {
			b.WriteString(table.WrapText("agent: "+mdtext.Escape(rep.Old.Agent)+" → "+mdtext.Escape(rep.New.Agent), width) + "\n")
		}
		if rep.Old.Estimator != rep.New.Estimator {
			fmt.Fprintf(&b, "estimator: %s → %s (tokens are counted differently)\n", rep.Old.Estimator, rep.New.Estimator)
		}
		rows := diffRows(rep)
		if len(rows) > 0 {
			cols := []table.Column{{Header: "id", Fit: table.FitWrapPath, Min: 12}, {Header: "change"},
				{Header: "old", Fit: table.FitWrap, Min: 12}, {Header: "new", Fit: table.FitWrap, Min: 12}}
			if err := table.WriteFitted(&b, cols, alignNumbers(escaped(rows), 2, 3), width); err != nil {
				return err
			}
		} else {
			b.WriteString("no changes\n")
		}
		line := func(format string, args ...any) {
			b.WriteString(table.WrapText(fmt.Sprintf(format, args...), width) + "\n")
		}
		line("sources: %s", counts(len(rep.Sources), rep.Unchanged.Sources, func(i int) []Change { return rep.Sources[i].Changes }))
		if rep.Old.Files+rep.New.Files > 0 {
			line("files: %s", counts(len(rep.Files), rep.Unchanged.Files, func(i int) []Change { return rep.Files[i].Changes }))
		}
		if rep.Old.NativeTokens+rep.New.NativeTokens > 0 {
			line("the agent gets: %s → %s tokens (%s): it loads %s → %s by itself, ctx sends %s → %s",
				display.Int(rep.Old.AgentTokens), display.Int(rep.New.AgentTokens), delta(rep.New.AgentTokens-rep.Old.AgentTokens),
				display.Int(rep.Old.NativeTokens), display.Int(rep.New.NativeTokens), display.Int(rep.Old.EmittedTokens), display.Int(rep.New.EmittedTokens))
		} else {
			line("emitted tokens: %s → %s (%s)", display.Int(rep.Old.EmittedTokens), display.Int(rep.New.EmittedTokens), delta(rep.New.EmittedTokens-rep.Old.EmittedTokens))
		}
	default:
		_, err := ParseFormat(string(f))
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// number is a cell that holds a count, with the change after it: "1,204"
// or "1,230 (+26)".
var number = regexp.MustCompile(`^-?[0-9][0-9,]*( \([+-]?[0-9][0-9,]*\))?$`)

// alignNumbers right-aligns the numbers of the columns cols in rows (the
// table writer aligns whole columns, which also hold words): it pads them
// on the left to the column's width.
func alignNumbers(rows [][]string, cols ...int) [][]string {
	for _, c := range cols {
		w := 0
		for _, r := range rows {
			w = max(w, utf8.RuneCountInString(r[c]))
		}
		for _, r := range rows {
			if number.MatchString(r[c]) {
				r[c] = strings.Repeat(" ", w-utf8.RuneCountInString(r[c])) + r[c]
			}
		}
	}
	return rows
}

// counts says "1 added, 1 removed, 2 changed, 3 unchanged".
func counts(n, unchanged int, changes func(i int) []Change) string {
	added, removed := 0, 0
	for i := range n {
		switch changes(i)[0] {
		case ChangeAdded:
			added++
		case ChangeRemoved:
			removed++
		}
	}
	return fmt.Sprintf("%d added, %d removed, %d changed, %d unchanged", added, removed, n-added-removed, unchanged)
}

// diffRows flattens the report: one row per change.
func diffRows(rep *DiffReport) [][]string {
	var rows [][]string
	add := func(id string, c Change, old, new string) {
		rows = append(rows, []string{id, string(c), old, new})
	}
	for _, d := range rep.Sources {
		for _, c := range d.Changes {
			o, n := d.Old, d.New
			switch c {
			case ChangeAdded:
				add(d.ID, c, "-", describeSource(n))
			case ChangeRemoved:
				add(d.ID, c, describeSource(o), "-")
			case ChangeReordered:
				add(d.ID, c, fmt.Sprintf("position %d", o.Position), fmt.Sprintf("position %d", n.Position))
			case ChangePath:
				add(d.ID, c, o.Path, n.Path)
			case ChangeRebudgeted:
				add(d.ID, c, describeUse(o), describeUse(n))
			case ChangeContent:
				add(d.ID, c, shortHash(o.SourceHash, string(o.Status)), shortHash(n.SourceHash, string(n.Status)))
			case ChangeDecision:
				add(d.ID, c, string(o.Reason), string(n.Reason))
			case ChangeTokens:
				add(d.ID, c, display.Int(o.EmittedTokens), tokens(o.EmittedTokens, n.EmittedTokens))
			case ChangeLoaded:
				add(d.ID, c, loaded(o.Native), loadedNew(o.Native, n.Native))
			case ChangeAgentCut:
				add(d.ID, c, agentCut(o.Native), agentCut(n.Native))
			}
		}
	}
	for _, d := range rep.Files {
		id := "file:" + d.Path
		if d.Kind != "" {
			id = string(d.Kind) + ":" + d.Path
		}
		for _, c := range d.Changes {
			o, n := d.Old, d.New
			switch c {
			case ChangeAdded:
				add(id, c, "-", describeFile(n))
			case ChangeRemoved:
				add(id, c, describeFile(o), "-")
			case ChangeContent:
				add(id, c, shortHash(o.SourceHash, string(o.Status)), shortHash(n.SourceHash, string(n.Status)))
			case ChangeView:
				add(id, c, string(o.ViewMode), string(n.ViewMode))
			case ChangeStatus:
				add(id, c, string(o.Status), string(n.Status))
			case ChangeTokens:
				add(id, c, display.Int(o.EmittedTokens), tokens(o.EmittedTokens, n.EmittedTokens))
			}
		}
	}
	for _, d := range rep.Budgets {
		id := "budget:" + d.Name
		switch {
		case d.Old == nil:
			add(id, ChangeAdded, "-", limits(*d.New))
		case d.New == nil:
			add(id, ChangeRemoved, limits(*d.Old), "-")
		default:
			add(id, ChangeRebudgeted, limits(*d.Old), limits(*d.New))
		}
	}
	if d := rep.History; d != nil {
		for _, c := range d.Changes {
			o, n := d.Old, d.New
			switch c {
			case ChangeAdded:
				add("history", c, "-", n.File+", "+display.Plural(n.TokensAfter, "token"))
			case ChangeRemoved:
				add("history", c, o.File+", "+display.Plural(o.TokensAfter, "token"), "-")
			case ChangePath:
				add("history", c, o.File, n.File)
			case ChangeContent:
				add("history", c, short(o.SourceHash), short(n.SourceHash))
			case ChangeTokens:
				add("history", c, display.Int(o.TokensAfter), tokens(o.TokensAfter, n.TokensAfter))
			}
		}
	}
	return rows
}

// loaded shows what the agent keeps of a file it loads by itself: "1,798
// bytes, 450 tokens"; "-" for none.
func loaded(n *NativeState) string {
	if n == nil {
		return "-"
	}
	return display.Int(n.LoadedBytes) + " bytes, " + display.Plural(n.LoadedTokens, "token")
}

func loadedNew(o, n *NativeState) string {
	if n == nil {
		return "-"
	}
	if o == nil {
		return loaded(n)
	}
	return display.Int(n.LoadedBytes) + " bytes, " + tokens(o.LoadedTokens, n.LoadedTokens) + " tokens"
}

// agentCut shows the agent's own cut of a file: "1,508 bytes cut", "not
// cut".
func agentCut(n *NativeState) string {
	if n == nil || n.CutBytes == 0 {
		return "not cut"
	}
	return display.Int(n.CutBytes) + " bytes cut"
}

func describeSource(s *SourceState) string {
	if s.Included {
		return fmt.Sprintf("included, %s", display.Plural(s.EmittedTokens, "token"))
	}
	return string(s.Reason)
}

func describeFile(f *FileState) string {
	if f.Status == "ok" {
		return fmt.Sprintf("%s, %s", f.ViewMode, display.Plural(f.EmittedTokens, "token"))
	}
	return fmt.Sprintf("%s, %s, %s", f.ViewMode, f.Status, display.Plural(f.EmittedTokens, "token"))
}

// describeUse shows the budget a source used and what was left of it.
func describeUse(s *SourceState) string {
	if s.Budget == "" {
		return "none"
	}
	return s.Budget + ": " + limits(manifest.Budget{MaxChars: s.MaxChars, MaxLines: s.MaxLines})
}

// limits shows the limits that are set, by their keys in ctx.toml:
// "max_chars 500, max_lines 200, max_tokens 2000".
func limits(b manifest.Budget) string {
	var parts []string
	for _, l := range []struct {
		name string
		v    measure.Limit
	}{{"max_chars", b.MaxChars}, {"max_lines", b.MaxLines}, {"max_tokens", b.MaxTokens}} {
		if n, ok := l.v.Value(); ok {
			parts = append(parts, l.name+" "+display.Int(int(n)))
		}
	}
	if len(parts) == 0 {
		return "unlimited"
	}
	return strings.Join(parts, ", ")
}

// tokens shows the new count and the difference: "150 (+30)".
func tokens(old, new int) string {
	return display.Int(new) + " (" + delta(new-old) + ")"
}

func delta(d int) string {
	if d > 0 {
		return "+" + display.Int(d)
	}
	return display.Int(d)
}

// shortHash shows the start of a hash, or else the status, or "-".
func shortHash(h *string, status string) string {
	switch {
	case h != nil:
		return short(*h)
	case status != "":
		return status
	}
	return "-"
}

func short(h string) string {
	if len(h) > hashLen {
		return h[:hashLen]
	}
	return h
}

// escaped returns rows with every cell escaped: ids and paths are data,
// and a name adds no line or escape to the terminal.
func escaped(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = mdtext.Escape(c)
		}
	}
	return out
}
