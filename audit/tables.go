package audit

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/profile"
)

// The table format: by default five columns per source (id, decision,
// tokens emitted / in the source, budget use, path relative to the project)
// fitted to a width; with Wide, every column as ctx 0.1 printed them.

func writeTable(b *bytes.Buffer, rep *Report, o WriteOptions) error {
	home, width := o.home(), o.width()
	nm := tableNames(rep, home)
	fmt.Fprintf(b, "%s\nestimator: %s\n\nSources\n", table.WrapText("agent: "+agentLine(rep), width), mdtext.Escape(rep.Estimator))
	rows, folded := foldConditional(rep, nm, fittedSourceRows(rep, nm), o.Details)
	cols, rows := withoutBudgets(rep, sourceColumns, rows)
	cols, rows = withoutEmptyPaths(cols, rows)
	if err := table.WriteFitted(b, cols, rows, width); err != nil {
		return err
	}
	if folded != "" {
		b.WriteString(table.WrapText(folded, width) + "\n")
	}
	if m := rep.Manifest; m != nil && len(m.Files) > 0 {
		b.WriteString("\nFiles\n")
		files, rest := shownFiles(m, o.Details)
		if err := table.WriteFitted(b, fileColumns, fittedFileRows(files, home), width); err != nil {
			return err
		}
		if rest != "" {
			b.WriteString(table.WrapText(rest, width) + "\n")
		}
	}
	b.WriteString("\nFindings\n")
	if rows := findingRows(rep, peopleFindings(rep, o.Details, false), nm, !o.Details); len(rows) == 0 {
		b.WriteString("none\n")
	} else if err := table.WriteFitted(b, findingColumns, fittedFindingRows(rows), width); err != nil {
		return err
	}
	b.WriteString("\n")
	if s := observedLine(rep); s != "" {
		// the headline: what the agent really sent, every byte of it
		b.WriteString(table.WrapText(s, width) + "\n")
	}
	b.WriteString(table.WrapText("Total: "+totalSizes(rep), width) + "\n")
	if s := seenLine(rep); s != "" {
		b.WriteString(table.WrapText(s, width) + "\n")
	}

	b.WriteString(table.WrapText("Limits: "+limits(rep), width) + "\n")
	return nil
}

// agentLine names the agent and says how its sources were found: with a
// profile, how many files the agent loads by itself; without one, that
// nothing is inferred from the name.
func agentLine(rep *Report) string {
	m := rep.Manifest
	agent := mdtext.Escape(rep.Agent) // a stored manifest's, or ctx.toml's
	switch {
	case m != nil && m.Profile != nil:
		// the files counted in the total: loaded in every session
		more := ""
		if n := rep.Native.Conditional; n > 0 {
			more = ", " + display.Int(n) + " more " + display.Conditions(n)
		}
		return fmt.Sprintf("%s (profile %s: %s the agent loads by itself%s)", agent, mdtext.Escape(string(m.Profile.Name)), display.Plural(rep.Native.Files, "file"), more)
	case rep.Agent == manifest.DefaultAgent:
		return agent + " (no agent or profile given; --profile NAME lists what an agent loads by itself)"
	}
	if _, err := profile.Parse(rep.Agent); err == nil {
		return agent + " (no profile; --profile " + agent + " lists what it loads by itself)"
	}
	return agent + " (no profile)"
}

// seenLine says what the agent sees: what it loads by itself and what ctx
// sends, each counted; "" when the agent loads nothing by itself.
func seenLine(rep *Report) string {
	n := rep.Native
	if n.Files == 0 && n.Conditional == 0 {
		return ""
	}
	s := "The agent sees: " + display.Plural(n.Tokens+rep.Total.Tokens, "token") + " = " + display.Plural(n.Tokens, "token") +
		" it loads by itself (" + display.Plural(n.Files, "file") + ") + " + display.Plural(rep.Total.Tokens, "token") + " from ctx"
	if n.Conditional > 0 {
		s += "; " + display.Plural(n.Conditional, "more file") + " only " + display.Conditions(n.Conditional)
	}
	return s
}

// sourceColumns are the columns of the sources table. When the table is
// too wide, the path gives up width first (cut, keeping the file name: the
// id names the source), then the id, the decision and the budget, the
// widest first: the id wraps after its slashes, so that a native's path is
// whole, and the others at spaces.
var sourceColumns = []table.Column{
	{Header: "id", Fit: table.FitWrapPath, Min: 12, Rank: 1},
	{Header: "decision", Fit: table.FitWrap, Min: 21, Rank: 1},
	{Header: "tokens\nsent / file", Align: table.Right},
	{Header: "budget", Fit: table.FitWrap, Min: 7, Rank: 1},
	{Header: "path", Fit: table.FitCutPath, Min: 12},
}

// budgetColumn is the index of the budget in sourceColumns.
const budgetColumn = 3

// withoutBudgets returns the columns and rows without the budget column
// when no source has a budget: a column of dashes only takes width.
func withoutBudgets(rep *Report, cols []table.Column, rows [][]string) ([]table.Column, [][]string) {
	for _, s := range rep.Sources {
		if s.Budget != "" {
			return cols, rows
		}
	}
	cols = slices.Delete(slices.Clone(cols), budgetColumn, budgetColumn+1)
	for i, r := range rows {
		rows[i] = slices.Delete(r, budgetColumn, budgetColumn+1)
	}
	return cols, rows
}

// withoutEmptyPaths drops the last column, the path, when no row has one
// (every source is a file the agent loads by itself, named by its id).
func withoutEmptyPaths(cols []table.Column, rows [][]string) ([]table.Column, [][]string) {
	last := len(cols) - 1
	for _, r := range rows {
		if r[last] != "" {
			return cols, rows
		}
	}
	cols = cols[:last:last]
	for i, r := range rows {
		rows[i] = r[:last]
	}
	return cols, rows
}

// foldConditional folds the rows of the files the agent loads only when
// their conditions apply into one row per directory, when there are more
// than FilesShown of them and details is false: a repository with sixty
// path-scoped rules would otherwise fill screens with rows that send
// nothing. The row's id is the directory and the count ("src/rules/ (12
// files)"), its tokens the sums. It returns the rows and the line that says
// what was folded, "" when nothing was.
func foldConditional(rep *Report, nm names, rows [][]string, details bool) ([][]string, string) {
	if details || rep.Manifest == nil || rep.Manifest.Profile == nil {
		return rows, ""
	}
	conditional := map[string]bool{}
	for _, f := range rep.Manifest.Profile.Files {
		if f.Condition != "" {
			conditional[f.ID] = true
		}
	}
	var which []int
	for i, s := range rep.Sources {
		if conditional[s.ID] && nm.native[s.ID] {
			which = append(which, i)
		}
	}
	if len(which) <= FilesShown {
		return rows, ""
	}
	type group struct {
		at               int // the row it takes the place of
		n, emitted, size int
	}
	groups := map[string]*group{}
	var dirs []string
	fold := map[int]bool{}
	for _, i := range which {
		s := rep.Sources[i]
		dir := path.Dir(nm.id(s.ID)) + "/"
		g := groups[dir]
		if g == nil {
			g = &group{at: i}
			groups[dir] = g
			dirs = append(dirs, dir)
		}
		g.n++
		if s.EmittedTokens != nil {
			g.emitted += *s.EmittedTokens
		}
		if s.SourceTokens != nil {
			g.size += *s.SourceTokens
		}
		fold[i] = true
	}
	at := map[int]string{}
	for _, d := range dirs {
		if g := groups[d]; g.n > 1 {
			at[g.at] = d
		} else {
			delete(fold, g.at) // a directory of one: its own row
		}
	}
	emitted := make([]string, len(rows))
	for i := range rows {
		if d, ok := at[i]; ok {
			emitted[i] = display.Int(groups[d].emitted)
		} else if !fold[i] {
			emitted[i] = itoaSep(rep.Sources[i].EmittedTokens)
		}
	}
	w := widest(emitted)
	var out [][]string
	for i, r := range rows {
		if d, ok := at[i]; ok {
			g := groups[d]
			out = append(out, []string{fmt.Sprintf("%s\n(%d files)", d, g.n), "native_autoload, conditional",
				pair(emitted[i], w, display.Int(g.size)), "-", ""})
			continue
		}
		if fold[i] {
			continue
		}
		r[2] = pair(emitted[i], w, strings.TrimSpace(strings.SplitN(r[2], " / ", 2)[1]))
		out = append(out, r)
	}
	if len(fold) == 0 {
		// every directory holds one: nothing was folded
		return out, ""
	}
	return out, fmt.Sprintf("%s the agent loads only when their conditions apply are folded by directory (--details lists each)",
		display.Plural(len(fold), "file"))
}

// fittedSourceRows are the rows of the sources table. A file the agent
// loads by itself is shown by its path in the id column (see [names]), and
// its path cell is empty: the id says it.
func fittedSourceRows(rep *Report, nm names) [][]string {
	emitted := make([]string, len(rep.Sources))
	for i, s := range rep.Sources {
		emitted[i] = itoaSep(s.EmittedTokens)
	}
	w := widest(emitted)
	conditional := map[string]bool{}
	if rep.Manifest != nil && rep.Manifest.Profile != nil {
		for _, f := range rep.Manifest.Profile.Files {
			if f.Condition != "" {
				conditional[f.ID] = true
			}
		}
	}
	var rows [][]string
	for i, s := range rep.Sources {
		decision := string(s.Reason)
		if s.Included && s.Truncated {
			decision += ", cut"
		}
		if conditional[s.ID] {
			// loaded only when its condition applies (not in "The agent
			// sees")
			decision += ", conditional"
		}
		path := "(text)"
		switch {
		case nm.native[s.ID]:
			path = ""
		case s.Path != "":
			path = nm.path(s.Path)
		}
		rows = append(rows, []string{nm.id(s.ID), decision, pair(emitted[i], w, itoaSep(s.SourceTokens)), budgetUse(s), path})
	}
	return rows
}

// pair is "emitted / source" with the emitted number padded to w, the width
// of the widest of all rows (widest), so that both numbers line up in a
// right-aligned column.
func pair(emitted string, w int, source string) string {
	return strings.Repeat(" ", w-len(emitted)) + emitted + " / " + source
}

// widest is the length of the longest of ss.
func widest(ss []string) int {
	w := 0
	for _, s := range ss {
		w = max(w, len(s))
	}
	return w
}

// budgetUse is what a source took of its budget: "project 12/200 lines",
// with what was left of the pool before it as the limit; "-" without a
// budget.
func budgetUse(s manifest.Source) string {
	if s.Budget == "" {
		return "-"
	}
	if u := BudgetUse(s); u != "" {
		return s.Budget + " " + u
	}
	return s.Budget
}

// BudgetUse is what s took of its budget, each limit against what was left
// of the pool before it: "12/200 lines, 400/8,000 chars"; "" when the
// source has no limit.
func BudgetUse(s manifest.Source) string {
	var parts []string
	if n, ok := s.MaxLines.Value(); ok {
		parts = append(parts, display.Int(deref(s.EmittedLines))+"/"+display.Int(int(n))+" lines")
	}
	if n, ok := s.MaxChars.Value(); ok {
		parts = append(parts, display.Int(deref(s.EmittedChars))+"/"+display.Int(int(n))+" chars")
	}
	if n, ok := s.MaxTokens.Value(); ok {
		parts = append(parts, display.Int(deref(s.EmittedTokens))+"/"+display.Int(int(n))+" tokens")
	}
	return strings.Join(parts, ", ")
}

var fileColumns = []table.Column{
	{Header: "path", Fit: table.FitCutPath, Min: 12},
	{Header: "view"},
	{Header: "status"},
	{Header: "tokens\nsent / file", Align: table.Right},
	{Header: "note", Fit: table.FitWrap, Min: 12},
}

func fittedFileRows(files []manifest.FileRow, home string) [][]string {
	emitted := make([]string, len(files))
	for i, r := range files {
		emitted[i] = display.Int(r.EmittedTokens)
	}
	w := widest(emitted)
	var rows [][]string
	for i, r := range files {
		rows = append(rows, []string{display.Path(r.Path, home), string(r.ViewMode), string(r.Status),
			pair(emitted[i], w, itoaSep(r.SourceTokens)), fileNote(r, 0)})
	}
	return rows
}

var findingColumns = []table.Column{
	{Header: "source", Fit: table.FitWrapPath, Min: 10},
	{Header: "code"},
	{Header: "severity"},
	{Header: "message", Fit: table.FitWrap, Min: 16},
}

func fittedFindingRows(rows []findingRow) [][]string {
	var out [][]string
	for _, r := range rows {
		out = append(out, []string{r.subject, string(r.f.Code), string(r.f.Severity), orDash(r.message)})
	}
	return out
}

func totalSizes(rep *Report) string {
	t := rep.Total
	return display.Plural(t.Tokens, "token") + ", " + display.Plural(t.Chars, "char") + ", " + display.Plural(t.Lines, "line") + ", " + display.Plural(t.Bytes, "byte")
}

func limits(rep *Report) string {
	unit := " tokens per source, "
	if rep.Thresholds.LayerTokens == measure.Max(1) {
		unit = " token per source, "
	}
	return number(rep.Thresholds.LayerTokens) + unit + number(rep.Thresholds.TotalTokens) + " in total"
}

// The wide table: ctx 0.1's columns, plain numbers, and the findings with
// their messages.

var sourceHeader = []string{"id", "kind", "delivery", "status", "included", "reason", "chars", "lines", "tokens",
	"emitted tokens", "truncated", "budget", "omitted chars", "omitted lines", "path"}

// sourceNumbers are the columns of sourceHeader that hold numbers.
var sourceNumbers = []int{6, 7, 8, 9, 12, 13}

// sourceRows are the rows of the wide and markdown sources tables: every
// column, ids and paths as nm shows them.
func sourceRows(rep *Report, nm names, num func(*int) string) [][]string {
	var rows [][]string
	for _, s := range rep.Sources {
		budget := s.Budget
		if budget == "" {
			budget = "-"
		}
		path := "(text)"
		if s.Path != "" {
			path = nm.path(s.Path)
		}
		rows = append(rows, []string{nm.id(s.ID), mdtext.Escape(s.Kind), string(s.Delivery), string(s.Status), yesNo(s.Included), string(s.Reason),
			num(s.SourceChars), num(s.SourceLines), num(s.SourceTokens), num(s.EmittedTokens),
			yesNo(s.Truncated), budget, num(&s.OmittedChars), num(&s.OmittedLines), path})
	}
	return rows
}

var findingHeader = []string{"source", "code", "severity", "related", "message"}

// relatedRows are the rows of the wide and markdown findings tables, with
// the related id or path as nm shows it.
func relatedRows(rows []findingRow, nm names) [][]string {
	var out [][]string
	for _, r := range rows {
		rel := "-"
		if r.n == 1 && r.f.RelatedID != "" {
			rel = nm.related(r.f.RelatedID)
		}
		out = append(out, []string{r.subject, string(r.f.Code), string(r.f.Severity), rel, orDash(r.message)})
	}
	return out
}

var filesHeader = []string{"path", "view", "status", "source tokens", "emitted tokens", "note"}

// filesNumbers are the columns of filesHeader that hold numbers.
var filesNumbers = []int{3, 4}

// noteMax bounds the note column of the wide files table.
const noteMax = 60

// fileNote is the text of a row's error, budget step or fallback: its first
// line, cut to limit characters when limit > 0.
func fileNote(r manifest.FileRow, limit int) string {
	n := r.Error
	switch {
	case n != "":
	case r.Degraded != "":
		n = r.Degraded
	case r.Fallback != "":
		n = r.Fallback
	case r.Kind != "":
		n = string(r.Kind)
	default:
		return "-"
	}
	n, _, _ = strings.Cut(n, "\n")
	if rs := []rune(n); limit > 0 && len(rs) > limit {
		n = string(rs[:limit-1]) + "…"
	}
	return n
}

func fileRows(files []manifest.FileRow, home string, num func(*int) string, noteMax int) [][]string {
	var rows [][]string
	for _, r := range files {
		rows = append(rows, []string{display.Path(r.Path, home), string(r.ViewMode), string(r.Status), num(r.SourceTokens),
			num(&r.EmittedTokens), fileNote(r, noteMax)})
	}
	return rows
}

func totalLine(rep *Report) string {
	return fmt.Sprintf("%d bytes, %d chars, %d lines, %d tokens (limits: %s per source, %s in total)\n",
		rep.Total.Bytes, rep.Total.Chars, rep.Total.Lines, rep.Total.Tokens,
		rep.Thresholds.LayerTokens, rep.Thresholds.TotalTokens)
}

func writeWideTable(b *bytes.Buffer, rep *Report, o WriteOptions) error {
	home := o.home()
	nm := literalNames(home)
	fmt.Fprintf(b, "agent: %s\nestimator: %s\n\nSources\n", mdtext.Escape(rep.Agent), mdtext.Escape(rep.Estimator))
	if err := table.Write(b, sourceHeader, sourceRows(rep, nm, itoa)); err != nil {
		return err
	}
	if m := rep.Manifest; m != nil && len(m.Files) > 0 {
		b.WriteString("\nFiles\n")
		files, rest := shownFiles(m, o.Details)
		if err := table.Write(b, filesHeader, fileRows(files, home, itoa, noteMax)); err != nil {
			return err
		}
		if rest != "" {
			b.WriteString(rest + "\n")
		}
	}
	b.WriteString("\nFindings\n")
	if rows := findingRows(rep, peopleFindings(rep, o.Details, true), nm, !o.Details); len(rows) == 0 {
		b.WriteString("none\n")
	} else if err := table.Write(b, findingHeader, relatedRows(rows, nm)); err != nil {
		return err
	}
	b.WriteString("\nTotal: " + totalLine(rep))
	return nil
}

// Markdown: every column, numbers right-aligned with thousands separators,
// paths relative to the repository, and the findings with their messages,
// each problem once (see [ciFindings]).

func writeMarkdown(b *bytes.Buffer, rep *Report, o WriteOptions) {
	home := o.home()
	l := newLocator(rep, o)
	nm := repoNames(rep, l, home)
	fmt.Fprintf(b, "# ctx audit: %s\n\nEstimator: %s\n\n## Sources\n\n", mdEscape(mdtext.Escape(rep.Agent)), mdEscape(mdtext.Escape(rep.Estimator)))
	mdTable(b, sourceHeader, sourceNumbers, sourceRows(rep, nm, itoaSep))
	if m := rep.Manifest; m != nil && len(m.Files) > 0 {
		b.WriteString("\n## Files\n\n")
		files, rest := shownFiles(m, o.Details)
		mdTable(b, filesHeader, filesNumbers, fileRows(files, home, itoaSep, 0))
		if rest != "" {
			b.WriteString("\n" + rest + "\n")
		}
	}
	b.WriteString("\n## Findings\n\n")
	if rows := findingRows(rep, ciFindings(l), nm, !o.Details); len(rows) == 0 {
		b.WriteString("None.\n")
	} else {
		mdTable(b, findingHeader, nil, relatedRows(rows, nm))
	}
	b.WriteString("\n## Total\n\n" + totalSizes(rep) + " (limits: " + limits(rep) + ")\n")
	if s := seenLine(rep); s != "" {
		b.WriteString("\n" + s + "\n")
	}
	if s := observedLine(rep); s != "" {
		b.WriteString("\n" + mdEscape(s) + "\n")
	}
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func mdTable(b *bytes.Buffer, header []string, right []int, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		sep := " --- |"
		for _, r := range right {
			if r == i {
				sep = " ---: |"
			}
		}
		b.WriteString(sep)
	}
	b.WriteString("\n")
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = mdEscape(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

func itoa(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
