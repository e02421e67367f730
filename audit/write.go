package audit

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// Format is an output format of the audit.
type Format string

// The formats.
const (
	// FormatTable: plain-text tables for a terminal.
	FormatTable Format = "table"
	// FormatMarkdown: the same tables in markdown, for pull requests.
	FormatMarkdown Format = "markdown"
	// FormatJSON: the [Document], for agent runtimes and scripts.
	FormatJSON Format = "json"
)

// Formats lists the formats [Write] accepts.
func Formats() []Format { return []Format{FormatTable, FormatJSON, FormatMarkdown} }

// ParseFormat checks s against [Formats].
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if Format(s) == f {
			return f, nil
		}
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("must be %s or %s, not %q", strings.Join(names[:len(names)-1], ", "), names[len(names)-1], s)
}

// WriteOptions configure [Write] and [NewDocument].
type WriteOptions struct {
	// Home is shown as ~ in paths; "" is the process's home directory.
	Home string
}

func (o WriteOptions) home() string {
	if o.Home != "" {
		return o.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// Write writes rep to w in format f, in one Write call. It never shows
// source text, only what the manifest records about it.
func Write(w io.Writer, rep *Report, f Format, o WriteOptions) error {
	var b bytes.Buffer
	var err error
	switch f {
	case FormatTable:
		err = writeTable(&b, rep, o.home())
	case FormatMarkdown:
		writeMarkdown(&b, rep, o.home())
	case FormatJSON:
		err = jsonenc.Write(&b, NewDocument(rep, o))
	default:
		_, err = ParseFormat(string(f))
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// Document is the audit as JSON (`ctx audit --format json`), for runtimes
// to decode.
type Document struct {
	Agent     string           `json:"agent"`
	Estimator string           `json:"estimator"`
	Sources   []DocumentSource `json:"sources"`
	// Files is left out when the manifest has no aggregated files.
	Files    []DocumentFile `json:"files,omitempty"`
	Findings []Finding      `json:"findings"`
	// Total measures the rendered text, separators included.
	Total measure.Sizes `json:"total"`
}

// DocumentSource is one instruction source of a [Document]. Path shows the
// home directory as ~ and is "" for inline text.
type DocumentSource struct {
	ID            string            `json:"id"`
	Kind          string            `json:"kind"`
	Delivery      discover.Delivery `json:"delivery"`
	Status        manifest.Status   `json:"status"`
	Included      bool              `json:"included"`
	Reason        manifest.Reason   `json:"reason"`
	Chars         *int              `json:"chars"`
	Lines         *int              `json:"lines"`
	Tokens        *int              `json:"tokens"`
	EmittedTokens *int              `json:"emitted_tokens"`
	Truncated     bool              `json:"truncated"`
	Budget        string            `json:"budget"`
	OmittedChars  int               `json:"omitted_chars"`
	OmittedLines  int               `json:"omitted_lines"`
	Path          string            `json:"path"`
}

// DocumentFile is one aggregated file or screenshot of a [Document].
type DocumentFile struct {
	Kind              manifest.FileKind  `json:"kind,omitempty"`
	Path              string             `json:"path"`
	ViewMode          aggregate.ViewMode `json:"view_mode"`
	RequestedViewMode aggregate.ViewMode `json:"requested_view_mode,omitempty"`
	Status            aggregate.Status   `json:"status"`
	SourceTokens      *int               `json:"source_tokens"`
	EmittedTokens     int                `json:"emitted_tokens"`
	Error             string             `json:"error"`
	Fallback          string             `json:"fallback"`
	Degraded          string             `json:"degraded"`
	// OrphanedSlices counts the custom slices that could not be found.
	OrphanedSlices int `json:"orphaned_slices"`
}

// NewDocument returns the JSON document of rep.
func NewDocument(rep *Report, o WriteOptions) Document {
	home := o.home()
	doc := Document{Agent: rep.Agent, Estimator: rep.Estimator, Sources: []DocumentSource{}, Findings: rep.Findings, Total: rep.Total}
	for _, s := range rep.Sources {
		p := ""
		if s.Path != "" {
			p = display.Path(s.Path, home)
		}
		doc.Sources = append(doc.Sources, DocumentSource{ID: s.ID, Kind: s.Kind, Delivery: s.Delivery,
			Status: s.Status, Included: s.Included, Reason: s.Reason, Chars: s.SourceChars, Lines: s.SourceLines,
			Tokens: s.SourceTokens, EmittedTokens: s.EmittedTokens, Truncated: s.Truncated, Budget: s.Budget,
			OmittedChars: s.OmittedChars, OmittedLines: s.OmittedLines, Path: p})
	}
	if doc.Findings == nil {
		doc.Findings = []Finding{}
	}
	if m := rep.Manifest; m != nil && len(m.Files) > 0 {
		doc.Files = make([]DocumentFile, 0, len(m.Files))
		for _, r := range m.Files {
			f := DocumentFile{Kind: r.Kind, Path: display.Path(r.Path, home), ViewMode: r.ViewMode,
				RequestedViewMode: r.RequestedViewMode, Status: r.Status, SourceTokens: r.SourceTokens,
				EmittedTokens: r.EmittedTokens, Error: r.Error, Fallback: r.Fallback, Degraded: r.Degraded}
			for _, sl := range r.Slices {
				if sl.Resolution == aggregate.ResolutionOrphaned {
					f.OrphanedSlices++
				}
			}
			doc.Files = append(doc.Files, f)
		}
	}
	return doc
}

var sourceHeader = []string{"id", "kind", "delivery", "status", "included", "reason", "chars", "lines", "tokens",
	"emitted tokens", "truncated", "budget", "omitted chars", "omitted lines", "path"}

func sourceRows(rep *Report, home string) [][]string {
	var rows [][]string
	for _, s := range rep.Sources {
		budget := s.Budget
		if budget == "" {
			budget = "-"
		}
		path := "(text)"
		if s.Path != "" {
			path = display.Path(s.Path, home)
		}
		rows = append(rows, []string{s.ID, s.Kind, string(s.Delivery), string(s.Status), yesNo(s.Included), string(s.Reason),
			itoa(s.SourceChars), itoa(s.SourceLines), itoa(s.SourceTokens), itoa(s.EmittedTokens),
			yesNo(s.Truncated), budget, strconv.Itoa(s.OmittedChars), strconv.Itoa(s.OmittedLines), path})
	}
	return rows
}

var findingHeader = []string{"source", "code", "severity", "related"}

func findingRows(rep *Report) [][]string {
	var rows [][]string
	for _, f := range rep.Findings {
		src, rel := f.SourceID, f.RelatedID
		if src == "" {
			src = "(total)"
		}
		if rel == "" {
			rel = "-"
		}
		rows = append(rows, []string{src, string(f.Code), string(f.Severity), rel})
	}
	return rows
}

var filesHeader = []string{"path", "view", "status", "source tokens", "emitted tokens", "note"}

// noteMax bounds the note column of the files table.
const noteMax = 60

// fileNote is the short text of a row's error, budget step or fallback.
func fileNote(r manifest.FileRow) string {
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
	if rs := []rune(n); len(rs) > noteMax {
		n = string(rs[:noteMax-1]) + "…"
	}
	return n
}

func fileRows(m *manifest.Manifest, home string) [][]string {
	var rows [][]string
	for _, r := range m.Files {
		rows = append(rows, []string{display.Path(r.Path, home), string(r.ViewMode), string(r.Status), itoa(r.SourceTokens),
			strconv.Itoa(r.EmittedTokens), fileNote(r)})
	}
	return rows
}

func totalLine(rep *Report) string {
	return fmt.Sprintf("%d bytes, %d chars, %d lines, %d tokens (limits: %s per source, %s in total)\n",
		rep.Total.Bytes, rep.Total.Chars, rep.Total.Lines, rep.Total.Tokens,
		thresholdString(rep.Thresholds.LayerTokens), thresholdString(rep.Thresholds.TotalTokens))
}

func writeTable(b *bytes.Buffer, rep *Report, home string) error {
	fmt.Fprintf(b, "agent: %s\nestimator: %s\n\nSources\n", rep.Agent, rep.Estimator)
	if err := table.Write(b, sourceHeader, sourceRows(rep, home)); err != nil {
		return err
	}
	if m := rep.Manifest; m != nil && len(m.Files) > 0 {
		b.WriteString("\nFiles\n")
		if err := table.Write(b, filesHeader, fileRows(m, home)); err != nil {
			return err
		}
	}
	b.WriteString("\nFindings\n")
	if len(rep.Findings) == 0 {
		b.WriteString("none\n")
	} else if err := table.Write(b, findingHeader, findingRows(rep)); err != nil {
		return err
	}
	b.WriteString("\nTotal: " + totalLine(rep))
	return nil
}

func writeMarkdown(b *bytes.Buffer, rep *Report, home string) {
	fmt.Fprintf(b, "# ctx audit: %s\n\nEstimator: %s\n\n## Sources\n\n", mdEscape(rep.Agent), rep.Estimator)
	mdTable(b, sourceHeader, sourceRows(rep, home))
	if m := rep.Manifest; m != nil && len(m.Files) > 0 {
		b.WriteString("\n## Files\n\n")
		mdTable(b, filesHeader, fileRows(m, home))
	}
	b.WriteString("\n## Findings\n\n")
	if len(rep.Findings) == 0 {
		b.WriteString("None.\n")
	} else {
		mdTable(b, findingHeader, findingRows(rep))
	}
	b.WriteString("\n## Total\n\n" + totalLine(rep))
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func mdTable(b *bytes.Buffer, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		b.WriteString(" --- |")
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

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func thresholdString(v float64) string {
	if v > 1e300 {
		return "inf"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
