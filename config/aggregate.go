package config

import (
	"fmt"
	"path/filepath"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/measure"
)

// FileItem converts a [files] paths entry (or a preset's files entry).
func (e FileEntry) FileItem() aggregate.FileItem {
	f := aggregate.FileItem{
		Path:           e.Path,
		ForceFull:      e.ForceFull,
		ViewMode:       e.ViewMode,
		Tier:           e.Tier,
		ASTSignatures:  e.ASTSignatures,
		ASTDefinitions: e.ASTDefinitions,
	}
	if e.AutoAggregate != nil && !*e.AutoAggregate {
		f.NoAutoAggregate = true
	}
	if len(e.ASTMask) > 0 {
		f.ASTMask = make(map[string]aggregate.MaskMode, len(e.ASTMask))
		for k, v := range e.ASTMask {
			f.ASTMask[k] = v
		}
	}
	for _, s := range e.CustomSlices {
		f.CustomSlices = append(f.CustomSlices, slice.Slice{
			StartLine: s.StartLine, EndLine: s.EndLine, Tag: s.Tag, Comment: s.Comment,
			ContentHash: s.ContentHash, HashAlgorithm: s.HashAlgorithm, Fingerprint: s.Fingerprint,
			AnchorLines: slice.Anchors{Before: s.AnchorBefore, After: s.AnchorAfter, Context: s.AnchorContext},
		})
	}
	return f
}

// fileItems converts es, each naming where it was written in file (none
// when file is "").
func fileItems(file string, es []FileEntry) []aggregate.FileItem {
	out := make([]aggregate.FileItem, len(es))
	for i, e := range es {
		out[i] = e.FileItem()
		if file != "" && e.Field != "" {
			out[i].At = at(file, e.Line, e.Field)
		}
	}
	return out
}

// AggregateOptions turns the aggregation tables ([files], [screenshots],
// [output]) into aggregate.Options. Relative directories resolve against
// dir (the project directory) and a leading ~ against home, as every path
// in ctx.toml does. Keys the file does not set keep their defaults:
// base_dir the project directory, output_dir ".ctx/out", namespace "ctx",
// keep aggregate.DefaultKeep numbered outputs, strategy auto, no token limits, no redaction unless [secrets] redact is
// true (then with the allowlist). The history file and
// attachments directory of [history] are never aggregated (HistoryFile,
// AttachmentsDir). The estimator is the file's (nil, the
// default, when it sets none). The engine is codeview's (tree-sitter).
func (c *Config) AggregateOptions(dir, home string) aggregate.Options {
	o := aggregate.Options{
		BaseDir:   dir,
		OutputDir: discover.Join(dir, home, aggregate.DefaultOutputDir),
		Namespace: aggregate.DefaultNamespace,
		Keep:      measure.Max(aggregate.DefaultKeep),
		Strategy:  aggregate.StrategyAuto,
		Estimator: c.Estimator,
		// the tree-sitter views: config is where a runtime that reads
		// ctx.toml gets them, while aggregate alone links no parser
		Engine: codeview.Engine(),
	}
	a := c.Aggregate
	if f := a.Files; f != nil {
		if f.BaseDir != nil {
			o.BaseDir = discover.Join(dir, home, *f.BaseDir)
		}
		o.Files = fileItems(c.File, f.Paths)
		if f.Strategy != nil {
			o.Strategy = *f.Strategy
		}
		if f.Focus != nil {
			o.Strategy = aggregate.StrategyTier3
			o.Focus = append([]string(nil), f.Focus...)
		}
		if f.SummaryOnly != nil {
			o.SummaryOnly = *f.SummaryOnly
		}
		o.MaxTokens, o.MaxTokensAt, o.MaxFileTokens = f.MaxTokens, f.MaxTokensAt, f.MaxFileTokens
		o.IgnorePatterns = append([]string(nil), f.Ignore...)
		o.NoDefaultIgnores = f.DefaultIgnores != nil && !*f.DefaultIgnores
		o.NoGitIgnore = f.GitIgnore != nil && !*f.GitIgnore
	}
	o.ScreenshotBaseDir = o.BaseDir
	if s := a.Screenshots; s != nil {
		if s.BaseDir != nil {
			o.ScreenshotBaseDir = discover.Join(dir, home, *s.BaseDir)
		}
		o.Screenshots = append([]string(nil), s.Paths...)
	}
	if out := a.Output; out != nil {
		if out.OutputDir != nil {
			o.OutputDir, o.OutputDirAt = discover.Join(dir, home, *out.OutputDir), out.OutputDirAt
		}
		if out.Namespace != nil {
			o.Namespace = *out.Namespace
		}
		if out.Keep != nil {
			o.Keep = *out.Keep
		}
	}
	// kept when a caller clears OutputDir (--stdout): earlier outputs must
	// not feed back into the files section
	o.SkipDirs = []string{o.OutputDir}
	// the history is sent as the Discussion History, never as a file
	if d := c.History; d != nil {
		o.HistoryFile = discover.Join(dir, home, d.History)
		if d.Attachments != nil {
			o.AttachmentsDir = discover.Join(dir, home, *d.Attachments)
		}
	}
	if c.Secrets.Redact != nil && *c.Secrets.Redact {
		// redaction never applies the repository's allowlist
		if sc, err := c.RedactScanner(); err == nil {
			o.Redact = sc
		}
	}
	o.Beads = c.BeadsOptions(dir, home)
	return o
}

// DefaultBeadsDir is where the bd tool keeps a project's Beads store.
const DefaultBeadsDir = ".beads"

// BeadsOptions returns where the Beads store of execution_mode = "beads"
// is read: beads_path (which must then exist), else .beads in dir (no
// section when it holds no store); nil without execution_mode.
func (c *Config) BeadsOptions(dir, home string) *beads.Options {
	if c.ExecutionMode != ExecutionModeBeads {
		return nil
	}
	b := &beads.Options{Path: discover.Join(dir, home, DefaultBeadsDir), Name: DefaultBeadsDir}
	if c.BeadsPath != nil {
		b.Path, b.Name, b.MustExist = discover.Join(dir, home, *c.BeadsPath), *c.BeadsPath, true
		b.Where = fmt.Sprintf("%s:%d: beads_path", c.File, c.BeadsPathLine)
	}
	return b
}

// PresetsFile returns the user presets file in userConfigDir
// (os.UserConfigDir()): {userConfigDir}/ctx/presets.toml.
func PresetsFile(userConfigDir string) string {
	return filepath.Join(userConfigDir, "ctx", "presets.toml")
}

// FileItems returns the files of the preset as aggregate entries, each
// without At: a preset's missing files are left out, not errors.
func (p Preset) FileItems() []aggregate.FileItem {
	return fileItems("", p.Files)
}
