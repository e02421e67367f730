package main

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/internal/table"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// addFiles aggregates the [files] of the configuration into m: one
// manifest.FileRow per item and the rendered files section.
//
// It runs only when ctx.toml has [files] or [screenshots]. The section is
// exactly what `ctx aggregate --stdout` prints for the same configuration
// without a history (files, then screenshots, and a final newline; no
// numbered output file), and it is appended before any history section. Every block of the
// section has a row: a file row per item (a screenshot row per screenshot),
// whose emitted hash is the BLAKE3 of the block; the section's own hash
// covers the whole text with its headings and separators. Problems with
// single files are recorded in their rows (and reported by ctx audit), not
// printed.
func addFiles(c *cli.Context, s *setup, m *manifest.Manifest) error {
	if s == nil || s.cfg == nil {
		return nil
	}
	a := s.cfg.Aggregate
	if a.Files == nil && a.Screenshots == nil {
		return nil
	}
	o := aggregate.OptionsFromConfig(s.cfg, s.projectDir, s.home)
	o.OutputDir, o.History = "", ""
	res, err := aggregate.Run(c.Context, o)
	if err != nil {
		return err
	}
	m.Files = append(m.Files, fileRows(res)...)
	if res.Static != "" {
		// byte for byte what ctx aggregate --stdout prints: the document and
		// a final newline
		m.Sections = append(m.Sections, manifest.NewSection(manifest.SectionFiles, res.Static+"\n", nil))
	}
	return nil
}

// fileRows converts the items and screenshots of a run, in order.
func fileRows(res *aggregate.Result) []manifest.FileRow {
	rows := make([]manifest.FileRow, 0, len(res.Items)+len(res.Screenshots))
	for i := range res.Items {
		rows = append(rows, fileRow(&res.Items[i]))
	}
	for i := range res.Screenshots {
		rows = append(rows, screenshotRow(&res.Screenshots[i]))
	}
	return rows
}

// Row statuses beyond the item statuses ok, error, binary and omitted.
const (
	rowExcluded = "excluded"
	rowDegraded = "degraded"
	rowFallback = "fallback"
)

// rowStatus is the status of an item's row, the first that applies: error,
// excluded (auto_aggregate = false), binary, omitted, degraded (by the token
// budget), fallback (an unsupported view shown as a summary), ok.
func rowStatus(it *aggregate.Item) string {
	switch {
	case it.Status == aggregate.StatusError:
		return aggregate.StatusError
	case !it.AutoAggregate:
		return rowExcluded
	case it.Status == aggregate.StatusBinary:
		return aggregate.StatusBinary
	case it.Status == aggregate.StatusOmitted:
		return aggregate.StatusOmitted
	case it.Degraded != "":
		return rowDegraded
	case it.Fallback != "":
		return rowFallback
	}
	return aggregate.StatusOK
}

func intp(n int) *int       { return &n }
func strp(s string) *string { return &s }

// emptyHash is the hash of no bytes: the emitted hash of a file that has
// no block.
var emptyHash = measure.Hash(nil)

// fileRow converts one item. Source sizes and hash are null when the file
// could not be read (missing, unreadable, too large, or an entry that
// matched nothing); a binary file has its bytes and hash only. Emitted
// sizes and hash measure the block as it appears in the section (header,
// blank line, body); zero and the hash of "" when there is no block.
func fileRow(it *aggregate.Item) manifest.FileRow {
	r := manifest.FileRow{
		Entry: it.Entry, Path: it.Path, ViewMode: string(it.ViewMode), Language: it.Language,
		Status: rowStatus(it), Error: it.Error, Fallback: it.Fallback, Degraded: it.Degraded,
	}
	if it.RequestedViewMode != "" && it.RequestedViewMode != it.ViewMode {
		r.RequestedViewMode = string(it.RequestedViewMode)
	}
	if it.Source.Hash != "" {
		r.SourceBytes, r.SourceHash = intp(it.Source.Bytes), strp(it.Source.Hash)
		if it.Status != aggregate.StatusBinary {
			r.SourceChars, r.SourceLines, r.SourceTokens = intp(it.Source.Chars), intp(it.Source.Lines), intp(it.Source.Tokens)
		}
	}
	setEmitted(&r, it.Emitted)
	for _, sl := range it.Slices {
		row := manifest.SliceRow{
			Tag: sl.Tag, Comment: sl.Comment, StartLine: sl.OldStart, EndLine: sl.OldEnd,
			Resolution: sl.Resolution, NewStartLine: sl.NewStart, NewEndLine: sl.NewEnd,
		}
		if !sl.Orphaned() {
			// the text that was found (and shown by the custom view)
			row.ContentHash = measure.Hash([]byte(sl.Content))
		}
		r.Slices = append(r.Slices, row)
	}
	return r
}

// screenshotRow converts one screenshot: kind "screenshot", view full (the
// image is linked, never inlined), the image's bytes and hash.
func screenshotRow(sh *aggregate.Screenshot) manifest.FileRow {
	r := manifest.FileRow{
		Kind: "screenshot", Entry: sh.Entry, Path: sh.Path, ViewMode: string(aggregate.ViewFull),
		Language: aggregate.FenceLanguage(sh.Path), Status: sh.Status, Error: sh.Error,
	}
	if sh.Source.Hash != "" {
		r.SourceBytes, r.SourceHash = intp(sh.Source.Bytes), strp(sh.Source.Hash)
	}
	setEmitted(&r, sh.Emitted)
	return r
}

func setEmitted(r *manifest.FileRow, e aggregate.Measured) {
	r.EmittedBytes, r.EmittedChars, r.EmittedLines, r.EmittedTokens = e.Bytes, e.Chars, e.Lines, e.Tokens
	r.EmittedHash = e.Hash
	if r.EmittedHash == "" {
		r.EmittedHash = emptyHash
	}
}

var filesHeader = []string{"path", "view", "status", "source tokens", "emitted tokens", "note"}

// noteMax bounds the note column of the audit's files table.
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
		n = r.Kind
	default:
		return "-"
	}
	n, _, _ = strings.Cut(n, "\n")
	if rs := []rune(n); len(rs) > noteMax {
		n = string(rs[:noteMax-1]) + "…"
	}
	return n
}

func fileRowsTable(m *manifest.Manifest, home string) [][]string {
	var rows [][]string
	for _, r := range m.Files {
		src := "-"
		if r.SourceTokens != nil {
			src = strconv.Itoa(*r.SourceTokens)
		}
		rows = append(rows, []string{displayPath(r.Path, home), r.ViewMode, r.Status, src,
			strconv.Itoa(r.EmittedTokens), fileNote(r)})
	}
	return rows
}

// filesTable writes the audit's table of aggregated files, if any.
func filesTable(b *bytes.Buffer, m *manifest.Manifest, home string) error {
	if m == nil || len(m.Files) == 0 {
		return nil
	}
	b.WriteString("\nFiles\n")
	return table.Write(b, filesHeader, fileRowsTable(m, home))
}

// filesMarkdown writes the files table of `ctx audit --format markdown`, if any.
func filesMarkdown(b *bytes.Buffer, m *manifest.Manifest, home string) {
	if m == nil || len(m.Files) == 0 {
		return
	}
	b.WriteString("\n## Files\n\n")
	mdTable(b, filesHeader, fileRowsTable(m, home))
}

// auditFile is one element of "files" in `ctx audit --format json`.
type auditFile struct {
	Kind              string `json:"kind,omitempty"`
	Path              string `json:"path"`
	ViewMode          string `json:"view_mode"`
	RequestedViewMode string `json:"requested_view_mode,omitempty"`
	Status            string `json:"status"`
	SourceTokens      *int   `json:"source_tokens"`
	EmittedTokens     int    `json:"emitted_tokens"`
	Error             string `json:"error"`
	Fallback          string `json:"fallback"`
	Degraded          string `json:"degraded"`
	// OrphanedSlices counts the custom slices that could not be found.
	OrphanedSlices int `json:"orphaned_slices"`
}

// auditFiles returns the "files" of `ctx audit --format json`: nil (the
// key is left out) when the manifest has no files.
func auditFiles(m *manifest.Manifest, home string) []auditFile {
	if m == nil || len(m.Files) == 0 {
		return nil
	}
	out := make([]auditFile, 0, len(m.Files))
	for _, r := range m.Files {
		f := auditFile{Kind: r.Kind, Path: displayPath(r.Path, home), ViewMode: r.ViewMode,
			RequestedViewMode: r.RequestedViewMode, Status: r.Status, SourceTokens: r.SourceTokens,
			EmittedTokens: r.EmittedTokens, Error: r.Error, Fallback: r.Fallback, Degraded: r.Degraded}
		for _, sl := range r.Slices {
			if sl.Resolution == aggregate.ResolutionOrphaned {
				f.OrphanedSlices++
			}
		}
		out = append(out, f)
	}
	return out
}
