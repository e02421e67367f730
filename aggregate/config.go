package aggregate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/ctxaudit/ctx/internal/config"
)

// DefaultOutputDir is where numbered outputs go when [output] sets no
// output_dir, relative to the project directory.
const DefaultOutputDir = ".ctx/out"

// FileItemFromConfig converts a decoded ctx.toml files entry.
func FileItemFromConfig(e config.FileEntry) FileItem {
	f := FileItem{
		Path:           e.Path,
		ForceFull:      e.ForceFull,
		ViewMode:       ViewMode(e.ViewMode),
		Tier:           e.Tier,
		ASTSignatures:  e.ASTSignatures,
		ASTDefinitions: e.ASTDefinitions,
	}
	if e.AutoAggregate != nil && !*e.AutoAggregate {
		f.NoAutoAggregate = true
	}
	if len(e.ASTMask) > 0 {
		f.ASTMask = make(map[string]string, len(e.ASTMask))
		for k, v := range e.ASTMask {
			f.ASTMask[k] = v
		}
	}
	for _, s := range e.CustomSlices {
		f.CustomSlices = append(f.CustomSlices, Slice{
			StartLine: s.StartLine, EndLine: s.EndLine, Tag: s.Tag, Comment: s.Comment,
			ContentHash: s.ContentHash, Fingerprint: s.Fingerprint,
			AnchorLines: Anchors{Before: s.AnchorBefore, After: s.AnchorAfter},
		})
	}
	return f
}

func fileItemsFromConfig(es []config.FileEntry) []FileItem {
	out := make([]FileItem, len(es))
	for i, e := range es {
		out[i] = FileItemFromConfig(e)
	}
	return out
}

// OptionsFromConfig turns the aggregation tables of cfg into Options.
// Relative directories are resolved against dir (the directory of
// ctx.toml); home expands a leading "~". Fields the file does not set keep
// their defaults: base_dir ".", output_dir ".ctx/out", namespace "ctx".
func OptionsFromConfig(cfg *config.Config, dir, home string) Options {
	o := Options{
		BaseDir:   dir,
		OutputDir: config.Resolve(dir, home, DefaultOutputDir),
		Namespace: DefaultNamespace,
		Strategy:  StrategyAuto,
	}
	a := cfg.Aggregate
	if f := a.Files; f != nil {
		if f.BaseDir != nil {
			o.BaseDir = config.Resolve(dir, home, *f.BaseDir)
		}
		o.Files = fileItemsFromConfig(f.Paths)
		if f.Strategy != nil {
			o.Strategy = Strategy(*f.Strategy)
		}
		if f.SummaryOnly != nil {
			o.SummaryOnly = *f.SummaryOnly
		}
		if f.MaxTokens != nil {
			o.MaxTokens = *f.MaxTokens
		}
		if f.MaxFileTokens != nil {
			o.MaxFileTokens = *f.MaxFileTokens
		}
	}
	o.ScreenshotBaseDir = o.BaseDir
	if s := a.Screenshots; s != nil {
		if s.BaseDir != nil {
			o.ScreenshotBaseDir = config.Resolve(dir, home, *s.BaseDir)
		}
		o.Screenshots = append([]string(nil), s.Paths...)
	}
	if out := a.Output; out != nil {
		if out.OutputDir != nil {
			o.OutputDir = config.Resolve(dir, home, *out.OutputDir)
		}
		if out.Namespace != nil {
			o.Namespace = *out.Namespace
		}
	}
	// kept when a caller clears OutputDir (--stdout): earlier outputs must
	// not feed back into the files section
	o.SkipDirs = []string{o.OutputDir}
	return o
}

// Preset scopes.
const (
	ScopeGlobal  = "global"
	ScopeProject = "project"
)

// Preset is a named, reusable file set.
type Preset struct {
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Scope       string     `json:"scope"` // global or project
	Files       []FileItem `json:"files"`
	// Screenshots replace the configured ones when ScreenshotsSet.
	Screenshots    []string `json:"screenshots,omitempty"`
	ScreenshotsSet bool     `json:"-"`
}

// Apply returns o with the preset's files (and screenshots, when the
// preset sets them).
func (p Preset) Apply(o Options) Options {
	o.Files = append([]FileItem(nil), p.Files...)
	if p.ScreenshotsSet {
		o.Screenshots = append([]string(nil), p.Screenshots...)
	}
	return o
}

// PresetsFile returns the global presets file in userConfigDir
// (os.UserConfigDir()): {userConfigDir}/ctx/presets.toml.
func PresetsFile(userConfigDir string) string {
	return filepath.Join(userConfigDir, "ctx", "presets.toml")
}

// maxPresetsFile bounds the global presets file.
const maxPresetsFile = config.MaxFileSize

// LoadPresets returns the presets by name: the global ones from
// PresetsFile(userConfigDir) (when userConfigDir is not "" and the file
// exists), overridden by same-named project presets (from ctx.toml).
func LoadPresets(userConfigDir string, project []config.Preset) (map[string]Preset, error) {
	out := map[string]Preset{}
	if userConfigDir != "" {
		file := PresetsFile(userConfigDir)
		data, err := readSmall(file, maxPresetsFile)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			ps, err := config.DecodePresets(file, data)
			if err != nil {
				return nil, err
			}
			for _, p := range ps {
				out[p.Name] = presetFromConfig(p, ScopeGlobal)
			}
		}
	}
	for _, p := range project {
		out[p.Name] = presetFromConfig(p, ScopeProject)
	}
	return out, nil
}

// PresetNames returns the names of presets, sorted.
func PresetNames(presets map[string]Preset) []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func presetFromConfig(p config.Preset, scope string) Preset {
	return Preset{
		Name: p.Name, Description: p.Description, Scope: scope,
		Files:       fileItemsFromConfig(p.Files),
		Screenshots: append([]string(nil), p.Screenshots...), ScreenshotsSet: p.ScreenshotsSet,
	}
}

func readSmall(file string, limit int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("failed to read %s: %s", file, pathErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %s", file, pathErr(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", file, limit)
	}
	return data, nil
}
