package audit

import (
	"bytes"
	"io"
	"os"

	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/format"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// Format is an output format of the audit: one of [format.Format]'s
// names, those of [Formats].
type Format = format.Format

// The formats.
const (
	// FormatTable: plain-text tables for a terminal, fitted to
	// [WriteOptions.Width] unless [WriteOptions.Wide].
	FormatTable = format.Table
	// FormatMarkdown: every column in markdown tables, for pull requests.
	FormatMarkdown = format.Markdown
	// FormatJSON: the [Document], for agent runtimes and scripts.
	FormatJSON = format.JSON
	// FormatGitHub: one GitHub Actions workflow command per finding
	// (::warning or ::notice, with the file and line where known), so
	// that a workflow step annotates the files.
	FormatGitHub = format.GitHub
	// FormatSARIF: a SARIF 2.1.0 log with one run, for code scanning.
	FormatSARIF = format.SARIF
)

// Formats lists the formats [Write] accepts.
func Formats() []Format {
	return []Format{FormatTable, FormatJSON, FormatMarkdown, FormatGitHub, FormatSARIF}
}

// ParseFormat checks s against [Formats].
func ParseFormat(s string) (Format, error) { return format.Parse(s, Formats()...) }

// DefaultWidth is the width of the table format when [WriteOptions.Width]
// is 0: what fits a terminal whose width is unknown.
const DefaultWidth = table.DefaultWidth

// WriteOptions configure [Write] and [NewDocument].
type WriteOptions struct {
	// Home is shown as ~ in paths and messages; "" is the process's home
	// directory.
	Home string
	// Width is the most terminal columns a line of the table format takes;
	// 0 (or less) is [DefaultWidth]. Ids, paths and messages give up width
	// (cut in the middle with "…", or wrapped) so that the tables fit; a
	// table whose fixed columns are wider still overflows.
	Width int
	// Wide prints every column of every table in the table format, at any
	// width: the sources and files as ctx 0.1 printed them, the findings
	// with their messages.
	Wide bool
	// Details lists every finding in the table and markdown formats: without
	// it, more than [GroupAbove] findings of one code and severity are one
	// row, and the table leaves out the absence of a file that nobody named
	// (its source row says missing). The JSON, github and sarif formats are
	// the same either way.
	Details bool
	// Config is the configuration file (ctx.toml) the manifest was built
	// from, "" when none was read. The github and sarif formats point
	// findings about what it declares (extra sources, audiences, native
	// evidence, the total) at it, without a line. A relative path is taken
	// from the working directory.
	Config string
	// Root is the directory the paths of the github and sarif formats are
	// relative to; "" is the repository that holds the project directory
	// (the nearest directory at or above it with a .git entry), else the
	// project directory.
	Root string
}

func (o WriteOptions) home() string {
	if o.Home != "" {
		return o.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

func (o WriteOptions) width() int {
	if o.Width <= 0 {
		return DefaultWidth
	}
	return o.Width
}

// Write writes rep to w in format f, in one Write call. It never shows
// source text, only what the manifest records about it. Finding messages
// are written again for o.Home.
func Write(w io.Writer, rep *Report, f Format, o WriteOptions) error {
	var b bytes.Buffer
	var err error
	r := *rep
	r.Findings = withMessages(rep, o.home())
	switch f {
	case FormatTable:
		if o.Wide {
			err = writeWideTable(&b, &r, o)
		} else {
			err = writeTable(&b, &r, o)
		}
	case FormatMarkdown:
		writeMarkdown(&b, &r, o)
	case FormatJSON:
		err = jsonenc.Write(&b, NewDocument(&r, o))
	case FormatGitHub:
		writeGitHub(&b, &r, o)
	case FormatSARIF:
		err = writeSARIF(&b, &r, o)
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
	// Total measures the rendered text, separators included: what ctx
	// sends.
	Total measure.Sizes `json:"total"`
	// Native is what the agent loads by itself; the agent sees Native and
	// Total. Left out when it loads nothing by itself.
	Native *NativeTotal `json:"native,omitempty"`
	// Observed is what the agent really sent in its turn, when the audit
	// was given an observation (ctx audit --observed); left out otherwise.
	Observed *Observed `json:"observed,omitempty"`
	// Thresholds are the limits the findings were checked against; null
	// is no limit.
	Thresholds DocumentThresholds `json:"thresholds"`
}

// DocumentThresholds are the audit thresholds in a [Document]: a number
// of tokens, or null for no limit.
type DocumentThresholds struct {
	LayerTokens measure.Limit `json:"layer_tokens"`
	TotalTokens measure.Limit `json:"total_tokens"`
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

// NewDocument returns the JSON document of rep, with the finding messages
// written for o.Home.
func NewDocument(rep *Report, o WriteOptions) Document {
	home := o.home()
	doc := Document{Agent: rep.Agent, Estimator: rep.Estimator, Sources: []DocumentSource{}, Findings: withMessages(rep, home), Total: rep.Total,
		Thresholds: DocumentThresholds(rep.Thresholds)}
	if n := rep.Native; n.Files > 0 || n.Conditional > 0 {
		doc.Native = &n
	}
	if rep.Observed != nil {
		doc.Observed = rep.Observed
	}
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
				if sl.Resolution == slice.ResolutionOrphaned {
					f.OrphanedSlices++
				}
			}
			doc.Files = append(doc.Files, f)
		}
	}
	return doc
}
