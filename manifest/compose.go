package manifest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
)

// HistoryOptions say where the chat history comes from and how it is
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
	// Where prefixes errors ("ctx.toml:12: history"; "history" when "").
	Where string
	// WhereHistory and WhereAttachments, when set, prefix the errors of
	// the history file and of the attachments directory instead of Where
	// and the key ("ctx.toml:14: history.history").
	WhereHistory, WhereAttachments string
	// AllowOutside lists the directories outside the project that may
	// hold the history file and the attachments (Options.AllowOutside,
	// which Build sets).
	AllowOutside []string
}

// allowHint says how a file outside the project can be allowed.
const allowHint = " (--allow-outside, or allow_outside in the user configuration, allows it)"

// outsideHint is allowHint for an error of a file outside the project.
func outsideHint(err error) string {
	if strings.Contains(err.Error(), "outside the project") {
		return allowHint
	}
	return ""
}

// addFiles aggregates o into m: one FileRow per item and screenshot, and
// the files section, exactly what `ctx aggregate --stdout --no-history` prints for the
// same options without a history (files, then screenshots, and a final
// newline); no numbered output file is written. Problems with single files
// are recorded in their rows (and reported by the audit), never returned.
func addFiles(ctx context.Context, m *Manifest, o aggregate.Options, est measure.Estimator) error {
	// relative directories are relative to the project directory, which is
	// the base directory when none is given
	o.BaseDir = inProject(m.ProjectDir, o.BaseDir)
	if o.ProjectDir == "" {
		o.ProjectDir = m.ProjectDir
	}
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
	for _, p := range []*string{&o.HistoryFile, &o.AttachmentsDir} {
		if *p != "" {
			*p = inProject(m.ProjectDir, *p)
		}
	}
	if o.OutputDir != "" {
		// earlier outputs must not feed back into the section
		o.SkipDirs = append(append([]string(nil), o.SkipDirs...), o.OutputDir)
	}
	o.OutputDir, o.History, o.Beads = "", "", nil
	if o.Estimator == nil {
		o.Estimator = est
	}
	res, err := aggregate.Run(ctx, o)
	if err != nil {
		return err
	}
	m.Files = append(m.Files, FileRows(res)...)
	m.UnmatchedFocus = append(m.UnmatchedFocus, res.UnmatchedFocus...)
	m.Redactions = append(m.Redactions, fileRedactions(res)...)
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
		Entry: it.Entry, Path: it.Path, RealPath: it.RealPath, ViewMode: it.ViewMode, Language: it.Language,
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
			PinAlgorithm: sl.HashAlgorithm,
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
		Language: aggregate.FenceLanguage(sh.Path), Status: sh.Status, Error: sh.Error, RealPath: sh.RealPath,
	}
	if sh.Source.Hash != "" {
		r.SourceBytes, r.SourceHash = intp(sh.Source.Bytes), strp(sh.Source.Hash)
	}
	setEmitted(&r, sh.Emitted)
	return r
}

// emptyHash is the hash of no bytes: the emitted hash of a file that has
// no block, and the hash of a Beads store without beads.
var emptyHash = measure.Hash(nil)

func setEmitted(r *FileRow, e aggregate.Measured) {
	r.EmittedBytes, r.EmittedChars, r.EmittedLines, r.EmittedTokens = e.Bytes, e.Chars, e.Lines, e.Tokens
	r.EmittedHash = e.Hash
	if r.EmittedHash == "" {
		r.EmittedHash = emptyHash
	}
}

// addBeads reads the Beads store of b into m: the Beads record and, when
// the store holds beads, the Beads section (beads.Section and a
// final newline). Relative paths resolve against the project directory.
func addBeads(m *Manifest, b beads.Options, est measure.Estimator, allowOutside []string, sc secrets.Scanner) error {
	if b.Name == "" {
		b.Name = b.Path
	}
	b.Path = inProject(m.ProjectDir, b.Path)
	if b.Allow == nil {
		b.Allow = fileio.NewBoundary(m.ProjectDir, allowOutside).Allowed
	}
	if b.Redact == nil {
		b.Redact = sc
	}
	res, err := beads.Read(b)
	if err != nil {
		return err
	}
	rec := &Beads{File: res.File, Hash: emptyHash}
	if text := res.Section(); text != "" {
		sec := NewSection(SectionBeads, text+"\n", est)
		m.Sections = append(m.Sections, sec)
		rec.Hash = sec.Hash
	}
	if res.Found {
		rec.SourceHash = strp(res.Source.Hash)
	}
	rec.Completed, rec.Active = res.Counts()
	m.Beads = rec
	for _, r := range res.Redacted {
		m.Redactions = append(m.Redactions, Redaction{ID: string(SectionBeads), Where: r.Bead + " " + r.Field,
			Secrets: r.Secrets, HashBefore: r.HashBefore, HashAfter: r.HashAfter})
	}
	return nil
}

// addHistory builds the history of h into m: the History record and the
// Discussion History section (see [BuildHistory]), last. The section is
// left out when no message remains.
func addHistory(ctx context.Context, m *Manifest, h HistoryOptions, est measure.Estimator) error {
	h.Options.Estimator = h.estimator(est)
	rec, text, err := BuildHistory(ctx, m.ProjectDir, h)
	if err != nil {
		return err
	}
	if text != "" {
		// rec.Hash is the section's: the text is hashed once
		z := measure.Measure([]byte(text), h.estimator(est))
		m.Sections = append(m.Sections, Section{ID: SectionHistory, Text: text, Bytes: z.Bytes, Chars: z.Chars,
			Lines: z.Lines, Tokens: z.Tokens, Hash: rec.Hash})
	}
	m.History = rec
	m.Redactions = append(m.Redactions, rec.redactions...)
	return nil
}

func (h HistoryOptions) estimator(est measure.Estimator) measure.Estimator {
	if h.Options.Estimator != nil {
		return h.Options.Estimator
	}
	return est
}

// BuildHistory reads the history file of h (relative paths resolve against
// projectDir) and builds it as [Build] does: the record of what was read
// and sent, and the Discussion History section (history.Section, the same
// bytes as `ctx history --format markdown`), or "" when no message
// remains (the record's hash is then the hash of ""). Tokens are counted
// with h.Options.Estimator, as everywhere in history.Options (nil: the
// default, chars4); [Options.SetEstimator] sets it with the manifest's.
// `ctx aggregate` ends its document with this section, as Manual Slop's
// numbered output does.
func BuildHistory(ctx context.Context, projectDir string, h HistoryOptions) (*History, string, error) {
	name := h.Name
	if name == "" {
		name = h.Path
	}
	where := "history"
	if h.Where != "" {
		where = h.Where
	}
	whereHistory, whereAtt := where+".history", where+".attachments"
	if h.WhereHistory != "" {
		whereHistory = h.WhereHistory
	}
	if h.WhereAttachments != "" {
		whereAtt = h.WhereAttachments
	}
	// the history file and the attachments must be the project's, or
	// allowed outside it by the caller (never by the repository's own
	// configuration)
	bound := fileio.NewBoundary(projectDir, h.AllowOutside)
	data, req, err := history.ReadRequestFileAllowed(inProject(projectDir, h.Path), bound.Allowed)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %s: %w%s", whereHistory, name, err, outsideHint(err))
	}
	o := h.Options
	att := ""
	if h.AttachmentsDir != "" {
		att = inProject(projectDir, h.AttachmentsDir)
		if real := fileio.RealDir(att); !bound.Allowed(real) {
			return nil, "", fmt.Errorf("%s: %s is outside the project (%s): attachments are read only from the project%s",
				whereAtt, h.AttachmentsDir, real, allowHint)
		}
	}
	res, err := history.BuildRequest(ctx, req, o, att)
	var ae *history.AttachmentsDirError
	switch {
	case errors.As(err, &ae):
		return nil, "", fmt.Errorf("%s: %w", whereAtt, ae.Err)
	case err != nil:
		return nil, "", fmt.Errorf("%s: %w", where, err)
	}
	text := ""
	if len(res.Messages) > 0 {
		text = history.Section(res)
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
	return &History{
		File:         name,
		SourceHash:   measure.Hash(data),
		MessagesIn:   rep.MessagesIn,
		MessagesOut:  rep.MessagesOut,
		TokensBefore: rep.TokensBefore,
		TokensAfter:  rep.TokensAfter,
		Dropped:      dropped,
		Stubbed:      stubbed,
		Hash:         measure.Hash([]byte(text)),
		Unread:       unreadAttachments(rep),
		redactions:   historyRedactions(rep),
	}, text, nil
}

// unreadAttachments lists the attachments of rep that are missing, empty
// or failed.
func unreadAttachments(rep history.Report) []UnreadAttachment {
	var out []UnreadAttachment
	for _, a := range rep.Attachments {
		switch a.Status {
		case history.AttachmentMissing, history.AttachmentEmpty, history.AttachmentError:
			out = append(out, UnreadAttachment{MessageID: a.MessageID, Name: a.Name, Key: a.Key, Status: a.Status, Error: a.Error})
		}
	}
	return out
}
