package manifest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/measure"
)

// HistoryOptions say where the discussion history comes from and how it is
// built (see [Options].History).
type HistoryOptions struct {
	// Path is the history file, a {"messages": [...], "compactionPoints":
	// [...]} document, read through ctx's bounded reader; a relative path
	// is relative to the project directory.
	Path string
	// Name is recorded as History.File and names the file in errors; ""
	// uses Path.
	Name string
	// Options build the history; the estimator is Options.Estimator of the
	// manifest (when this one is nil) and the compaction points are those
	// of the file.
	Options history.Options
	// AttachmentsDir, when not "", is the directory attachments are read
	// from by storage key (history.NewDirResolver), relative to the project
	// directory unless absolute; it replaces Options.AttachmentResolver.
	AttachmentsDir string
	// Where prefixes errors ("ctx.toml:12: discussion").
	Where string
}

// addFiles aggregates o into m: one FileRow per item and screenshot, and
// the files section, exactly what `ctx aggregate --stdout` prints for the
// same options without a history (files, then screenshots, and a final
// newline); no numbered output file is written. Problems with single files
// are recorded in their rows (and reported by the audit), never returned.
func addFiles(ctx context.Context, m *Manifest, o aggregate.Options, est measure.Estimator) error {
	// relative directories are relative to the project directory, which is
	// the base directory when none is given
	o.BaseDir = inProject(m.ProjectDir, o.BaseDir)
	if o.ScreenshotBaseDir != "" {
		o.ScreenshotBaseDir = inProject(m.ProjectDir, o.ScreenshotBaseDir)
	}
	if o.OutputDir != "" {
		o.OutputDir = inProject(m.ProjectDir, o.OutputDir)
	}
	skip := make([]string, len(o.SkipDirs))
	for i, d := range o.SkipDirs {
		skip[i] = inProject(m.ProjectDir, d)
	}
	o.SkipDirs = skip
	if o.OutputDir != "" {
		// earlier outputs must not feed back into the section
		o.SkipDirs = append(append([]string(nil), o.SkipDirs...), o.OutputDir)
	}
	o.OutputDir, o.History = "", ""
	if o.Estimator == nil {
		o.Estimator = est
	}
	res, err := aggregate.Run(ctx, o)
	if err != nil {
		return err
	}
	m.Files = append(m.Files, FileRows(res)...)
	if res.Static != "" {
		m.Sections = append(m.Sections, NewSection(SectionFiles, res.Static+"\n", o.Estimator))
	}
	return nil
}

// FileRows converts the items and screenshots of an aggregate run, in
// order, into manifest rows.
//
// Source sizes and hash are null when the file could not be read (missing,
// unreadable, too large, or an entry that matched nothing); a binary file
// or a screenshot has its bytes and hash only. Emitted sizes and hash
// measure the block as it appears in the section (heading, blank line,
// fenced view: aggregate.Item.Block); zero and the hash of "" when the file
// has no block.
func FileRows(res *aggregate.Result) []FileRow {
	rows := make([]FileRow, 0, len(res.Items)+len(res.Screenshots))
	for i := range res.Items {
		rows = append(rows, fileRow(&res.Items[i]))
	}
	for i := range res.Screenshots {
		rows = append(rows, screenshotRow(&res.Screenshots[i]))
	}
	return rows
}

// inProject resolves a path of the options against the project directory:
// "" is the project directory, an absolute path stays.
func inProject(project, p string) string {
	if p == "" {
		return project
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(project, p)
}

func intp(n int) *int       { return &n }
func strp(s string) *string { return &s }

func fileRow(it *aggregate.Item) FileRow {
	r := FileRow{
		Entry: it.Entry, Path: it.Path, ViewMode: it.ViewMode, Language: it.Language,
		Status: it.RowStatus(), Error: it.Error, Fallback: it.Fallback, Degraded: it.Degraded,
		Truncated: it.Truncated,
	}
	if it.RequestedViewMode != "" && it.RequestedViewMode != it.ViewMode {
		r.RequestedViewMode = it.RequestedViewMode
	}
	if it.Source.Hash != "" {
		r.SourceBytes, r.SourceHash = intp(it.Source.Bytes), strp(it.Source.Hash)
		if it.Status != aggregate.StatusBinary {
			r.SourceChars, r.SourceLines, r.SourceTokens = intp(it.Source.Chars), intp(it.Source.Lines), intp(it.Source.Tokens)
		}
	}
	setEmitted(&r, it.Emitted)
	for _, sl := range it.Slices {
		row := SliceRow{
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

// screenshotRow converts one screenshot: kind screenshot, view full (the
// image is linked, never inlined), the image's bytes and hash.
func screenshotRow(sh *aggregate.Screenshot) FileRow {
	r := FileRow{
		Kind: FileKindScreenshot, Entry: sh.Entry, Path: sh.Path, ViewMode: aggregate.ViewFull,
		Language: aggregate.FenceLanguage(sh.Path), Status: sh.Status, Error: sh.Error,
	}
	if sh.Source.Hash != "" {
		r.SourceBytes, r.SourceHash = intp(sh.Source.Bytes), strp(sh.Source.Hash)
	}
	setEmitted(&r, sh.Emitted)
	return r
}

// emptyHash is the hash of no bytes: the emitted hash of a file that has
// no block.
var emptyHash = measure.Hash(nil)

func setEmitted(r *FileRow, e aggregate.Measured) {
	r.EmittedBytes, r.EmittedChars, r.EmittedLines, r.EmittedTokens = e.Bytes, e.Chars, e.Lines, e.Tokens
	r.EmittedHash = e.Hash
	if r.EmittedHash == "" {
		r.EmittedHash = emptyHash
	}
}

// addHistory builds the history of h into m: the History record and the
// Discussion History section (history.Section, the same bytes as `ctx
// messages --format markdown`), last. The section is left out when no
// message remains; the record's hash is then the hash of "".
func addHistory(ctx context.Context, m *Manifest, h HistoryOptions, est measure.Estimator) error {
	name := h.Name
	if name == "" {
		name = h.Path
	}
	where := "discussion"
	if h.Where != "" {
		where = h.Where
	}
	data, req, err := history.ReadRequestFile(inProject(m.ProjectDir, h.Path))
	if err != nil {
		return fmt.Errorf("%s.history: %s: %w", where, name, err)
	}
	o := h.Options
	if o.Estimator == nil {
		o.Estimator = est
	}
	att := ""
	if h.AttachmentsDir != "" {
		att = inProject(m.ProjectDir, h.AttachmentsDir)
	}
	res, err := history.BuildRequest(ctx, req, o, att)
	var ae *history.AttachmentsDirError
	switch {
	case errors.As(err, &ae):
		return fmt.Errorf("%s.attachments: %w", where, ae.Err)
	case err != nil:
		return fmt.Errorf("%s: %w", where, err)
	}
	text := ""
	if len(res.Messages) > 0 {
		text = history.Section(res)
		m.Sections = append(m.Sections, NewSection(SectionHistory, text, o.Estimator))
	}
	rep := res.Report
	dropped := map[history.DropReason]int{}
	for _, dr := range rep.Dropped {
		dropped[dr.Reason]++
	}
	stubbed := 0
	for _, st := range rep.Stubbed {
		if !st.Kept {
			stubbed++
		}
	}
	m.History = &History{
		File:         name,
		SourceHash:   measure.Hash(data),
		MessagesIn:   rep.MessagesIn,
		MessagesOut:  rep.MessagesOut,
		TokensBefore: rep.TokensBefore,
		TokensAfter:  rep.TokensAfter,
		Dropped:      dropped,
		Stubbed:      stubbed,
		Hash:         measure.Hash([]byte(text)),
	}
	return nil
}
